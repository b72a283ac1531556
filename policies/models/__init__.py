"""The trained model files shipped with the package (``policies/models/*.npz``).

Deprecated as a module: the model file format moved to :mod:`policies.mlp`. Importing
``policies.models`` still gives its names for one version, with a ``DeprecationWarning``.
"""

import warnings

from policies.mlp import *  # noqa: F403

warnings.warn(
    "policies.models is deprecated: import the model format from policies.mlp "
    "(policies/models/ keeps only the shipped model files)",
    DeprecationWarning,
    stacklevel=2,
)

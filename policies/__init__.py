"""Players for every game of the package: scripted baselines, search, trained models.

Every player implements :class:`policies.base.Policy`; find one by name with
:func:`policies.make_policy` (``"random"``, ``"greedy"``, ``"expert"``, ``"expert-jit"``,
``"ismcts"``, ``"model"``, or a model file path). Importing :mod:`policies` imports every
player module (:mod:`policies.registry`), which registers them.
"""

from policies.base import Policy, register_policy
from policies.registry import available_policies, make_policy

__all__ = ["Policy", "available_policies", "make_policy", "register_policy"]

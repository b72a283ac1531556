"""Deprecated: the evaluation statistics moved to :mod:`policies.evaluation.stats`.

``from policies.stats import wilson_interval`` keeps working for one version with a
``DeprecationWarning``; import from :mod:`policies.evaluation.stats` instead.
"""

from policies.evaluate import moved_names

_NAMES = ("Rating", "mean_interval", "plackett_luce_ratings", "wilson_interval")
__all__ = list(_NAMES)
__getattr__ = moved_names("policies.stats", dict.fromkeys(_NAMES, "policies.evaluation.stats"))

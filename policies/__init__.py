"""Players for every game of the package: scripted baselines, search, trained models.

Every player implements :class:`policies.base.Policy`; find one by name with
:func:`policies.make_policy` (``"random"``, ``"greedy"``, ``"expert"``, ``"ismcts"``,
or a model file path).
"""

from policies import expert_jit as _expert_jit  # noqa: F401  (registers "expert-jit")
from policies.base import Policy, available_policies, make_policy, register_policy

__all__ = ["Policy", "available_policies", "make_policy", "register_policy"]

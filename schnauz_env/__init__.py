"""schnauz_env: PettingZoo environments for Schnauz (31 / Schwimmen) and its relatives.

``import schnauz_env`` registers the environments with PettingZoo's registry, and the
single-agent views with Gymnasium's (:mod:`schnauz_env.wrappers.registration`)::

    import pettingzoo, schnauz_env
    env = pettingzoo.make("aec", "schnauz_env/schnauz_v0", num_players=4)

    import gymnasium
    env = gymnasium.make("schnauz_env/Schnauz-v0", opponents=["expert"])
"""

from schnauz_env.cards import Card, format_card, format_cards, parse_card, parse_cards

__version__ = "0.1.0"

ENV_IDS = {
    "schnauz_env/schnauz_v0": "schnauz_env.schnauz_v0:env",
    "schnauz_env/scat_v0": "schnauz_env.scat_v0:env",
    "schnauz_env/thirteen_v0": "schnauz_env.thirteen_v0:env",
}


def _register() -> None:
    try:
        from pettingzoo.env_registry.registration import aec_registry, register
        from pettingzoo.env_registry.spec import _normalize_env_id
    except ImportError:  # an older PettingZoo without a registry
        return
    for env_id, entry_point in ENV_IDS.items():
        if _normalize_env_id(env_id) not in aec_registry:
            register("aec", env_id, entry_point=entry_point)


_register()

from schnauz_env.wrappers import registration as _gym_registration  # noqa: E402

_gym_registration.register()

__all__ = ["Card", "__version__", "format_card", "format_cards", "parse_card", "parse_cards"]

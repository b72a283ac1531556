"""Gymnasium ids of the single-agent views, registered when ``schnauz_env`` is imported::

    import gymnasium, schnauz_env
    env = gymnasium.make("schnauz_env/Schnauz-v0", opponents=["greedy", "expert"])
    env = gymnasium.make("schnauz_env/Scat-v0", table_sizes=[3], rules={"lives": 2})

Each id builds :class:`schnauz_env.wrappers.SingleAgentEnv` for its game, with the
opponents given by name (default ``["expert"]``): the entry point is
:func:`policies.pool.single_agent_env`, named as a string, so registering imports
neither the players nor the env (the players sit a floor above, and only ``make``
loads them). Every keyword of ``make`` is plain data, so a dataset (Minari) stores the
env's settings and rebuilds it with ``recover_environment()``.
"""

from __future__ import annotations

#: Gymnasium id -> game.
GYM_IDS: dict[str, str] = {
    "schnauz_env/Schnauz-v0": "schnauz",
    "schnauz_env/Scat-v0": "scat",
    "schnauz_env/Thirteen-v0": "thirteen",
}
ENTRY_POINT = "policies.pool:single_agent_env"


def gym_id(game: str) -> str:
    """The Gymnasium id of ``game``'s single-agent view."""
    for env_id, g in GYM_IDS.items():
        if g == game:
            return env_id
    raise ValueError(f"unknown game {game!r}; known games: {', '.join(GYM_IDS.values())}")


def register() -> None:
    """Register every id with Gymnasium (once; another registration of an id is kept)."""
    try:
        from gymnasium.envs.registration import register as gym_register
        from gymnasium.envs.registration import registry
    except ImportError:  # pragma: no cover - gymnasium is a core dependency
        return
    for env_id, game in GYM_IDS.items():
        if env_id not in registry:
            gym_register(env_id, entry_point=ENTRY_POINT, kwargs={"game": game})


__all__ = ["ENTRY_POINT", "GYM_IDS", "gym_id", "register"]

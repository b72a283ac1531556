"""Named recipes for ``python -m training.train --preset NAME``: the settings that trained
the shipped models, one command each.

A preset replaces the trainer's defaults; any flag given on the command line still
wins (``--preset strong --total-steps 20000`` is the same recipe on a small budget).

========  ===========  ================================================================
game      preset       recipe
========  ===========  ================================================================
schnauz   ``strong``   clone ``expert-jit`` (3,000 games of it at every seat) through the
                       ``schnauz-expert-v1`` features, then 6M steps of MaskablePPO
                       against three ``expert-jit`` on the batched engine (256 games)
                       with the ``win-chance`` reward, the rate decayed linearly to 0;
                       a checkpoint every 1M steps, and the best of the second half's
                       on 1,000 held-out duplicate deals kept as ``model.npz``
scat      ``strong``   clone ``expert`` through the ``scat-expert-v1`` features (its
                       estimates as inputs), then MaskablePPO against three ``expert``
                       on the batched engine with the ``win-chance`` reward, the rate
                       decayed linearly to 0
thirteen  ``strong``   clone ``expert-jit`` through ``thirteen-expert-v1`` (its next
                       move as inputs), then MaskablePPO against three ``expert-jit``
                       on the batched engine with the place reward, the rate decayed
                       to 0 (``expert-jit`` plays ``expert``'s moves exactly, faster)
========  ===========  ================================================================

The wall time of each on a 2-core machine is in the README (section "Trained agents").
"""

from __future__ import annotations

from typing import Any

#: What the presets share: the batched engine, a cloned start, PPO settings that keep it.
_COMMON: dict[str, Any] = {
    "vec_env": "batched",
    "table_sizes": (4,),
    "num_envs": 64,
    "n_steps": 64,
    "batch_size": 2048,
    "n_epochs": 5,
    "lr_schedule": "linear",
    "gamma": 0.99,
    "ent_coef": 0.001,
    "target_kl": 0.05,
    "net_arch": (256, 256),
    "opponents": ("expert",),
    "pretrain_teacher": "expert",
    "pretrain_epochs": 5,
    "eval_games": 200,
    "eval_opponents": ("expert", "greedy"),
}

PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    "schnauz": {
        "strong": {
            **_COMMON,
            "num_envs": 256,
            "batch_size": 4096,
            "features": "schnauz-expert-v1",
            "reward": "win-chance",
            "learning_rate": 3e-4,
            "gamma": 0.97,
            "ent_coef": 0.005,
            "opponents": ("expert-jit",),
            "pretrain_teacher": "expert-jit",
            "pretrain_games": 3000,
            "total_steps": 6_000_000,
            "eval_every": 2_000_000,
            "eval_opponents": ("expert-jit",),
            "checkpoint_every": 1_000_000,
            "select_games": 1000,
        },
    },
    "scat": {
        "strong": {
            **_COMMON,
            "features": "scat-expert-v1",
            "reward": "win-chance",
            "learning_rate": 3e-4,
            "ent_coef": 0.01,
            "pretrain_epochs": 2,
            "pretrain_games": 200,
            "total_steps": 500_000,
            "eval_every": 250_000,
        },
    },
    "thirteen": {
        "strong": {
            **_COMMON,
            "features": "thirteen-expert-v1",
            "reward": "place",
            "learning_rate": 3e-4,
            "ent_coef": 0.01,
            "opponents": ("expert-jit",),
            "pretrain_teacher": "expert-jit",
            "pretrain_epochs": 2,
            "pretrain_games": 1000,
            "total_steps": 600_000,
            "eval_every": 300_000,
            "eval_opponents": ("expert-jit", "greedy"),
        },
    },
}


def preset_names(game: str) -> list[str]:
    """The presets of ``game`` (besides ``none``)."""
    return sorted(PRESETS.get(game, {}))


def preset(game: str, name: str) -> dict[str, Any]:
    """The settings of preset ``name`` for ``game`` (``none``: no settings)."""
    if name == "none":
        return {}
    if name not in PRESETS.get(game, {}):
        have = ", ".join(preset_names(game)) or "none yet"
        raise ValueError(f"no preset {name!r} for {game} (presets for {game}: {have})")
    return dict(PRESETS[game][name])

"""Named recipes for ``python -m training.train --preset NAME``: the settings that trained
the shipped models, one command each.

A preset replaces the trainer's defaults; any flag given on the command line still
wins (``--preset strong --total-steps 20000`` is the same recipe on a small budget).

========  ===========  ================================================================
game      preset       recipe
========  ===========  ================================================================
schnauz   ``strong``   clone ``expert-jit`` (3,000 games of it at every seat) through the
                       ``schnauz-expert-v1`` features, then 12M steps of MaskablePPO
                       against three ``expert-jit`` on the batched engine (256 games)
                       with the ``win-chance`` reward, the rate decayed linearly to 0,
                       the update on two torch threads; a checkpoint every 1M steps, and
                       the best of the second half's on 1,000 held-out duplicate deals
                       kept as ``model.npz``
scat      ``strong``   two stages. 1: clone ``expert-jit`` through the ``scat-expert-v1``
                       features (its estimates as inputs), then 500k steps of
                       MaskablePPO against three ``expert-jit`` with the ``win-chance``
                       reward, the rate decayed linearly to 0. 2: from there, 5M steps
                       with 256 games a batch, the rate from 2e-4 down to 1e-4, the best
                       of the second half's checkpoints kept
thirteen  ``strong``   two stages. 1: clone ``expert-jit`` through ``thirteen-expert-v1``
                       (its next move as inputs), then 5M steps of MaskablePPO against
                       three ``expert-jit`` (256 games) with the place reward, the rate
                       decayed linearly to 0, the best checkpoint of the second half
                       kept. 2: from that checkpoint, 10M steps at a rate from 1e-4 to 0,
                       the best of its second half kept
========  ===========  ================================================================

``expert-jit`` plays ``expert``'s moves exactly, faster. A preset with ``stages`` runs
them one after the other in one command (:func:`training.train.train_stages`): stage 1 is
the preset's own settings, each later stage changes the settings it names, is seeded
``seed + 1``, ``seed + 2``, ... and starts from the model the stage before it kept, without
cloning; a flag given on the command line wins over every stage. The run folder holds
``recipe.json``, ``stage_1/``, ``stage_2/``, ... (each a run folder of its own) and the last
stage's ``model.npz``; ``--resume`` on it continues the recipe where it stopped.

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
            "total_steps": 12_000_000,
            "eval_every": 2_000_000,
            "eval_opponents": ("expert-jit",),
            "checkpoint_every": 1_000_000,
            "select_games": 1000,
            # The batched engine and PPO's update alternate in one process, so the update
            # may take the second core: 1.3x the steps per wall-second on 2 cores.
            "torch_threads": 2,
        },
    },
    "scat": {
        "strong": {
            **_COMMON,
            "features": "scat-expert-v1",
            "reward": "win-chance",
            "learning_rate": 3e-4,
            "ent_coef": 0.01,
            "opponents": ("expert-jit",),
            "pretrain_teacher": "expert-jit",
            "pretrain_epochs": 2,
            "pretrain_games": 200,
            "total_steps": 500_000,
            "eval_every": 250_000,
            "eval_opponents": ("expert-jit", "greedy"),
            "stages": (
                {
                    "num_envs": 256,
                    "batch_size": 4096,
                    "learning_rate": 2e-4,
                    "lr_end": 1e-4,
                    "ent_coef": 0.005,
                    "total_steps": 5_000_000,
                    "eval_every": 2_000_000,
                    "checkpoint_every": 1_000_000,
                    "eval_games": 400,
                    "eval_opponents": ("expert-jit",),
                    "select_games": 1000,
                },
            ),
        },
    },
    "thirteen": {
        "strong": {
            **_COMMON,
            "num_envs": 256,
            "batch_size": 4096,
            "features": "thirteen-expert-v1",
            "reward": "place",
            "learning_rate": 3e-4,
            "ent_coef": 0.01,
            "opponents": ("expert-jit",),
            "pretrain_teacher": "expert-jit",
            "pretrain_epochs": 2,
            "pretrain_games": 1000,
            "total_steps": 5_000_000,
            "eval_every": 1_000_000,
            "checkpoint_every": 1_000_000,
            "select_games": 1000,
            "eval_opponents": ("expert-jit",),
            "stages": (
                {"learning_rate": 1e-4, "total_steps": 10_000_000, "eval_every": 2_000_000},
            ),
        },
    },
}


def preset_names(game: str) -> list[str]:
    """The presets of ``game`` (besides ``none``)."""
    return sorted(PRESETS.get(game, {}))


def preset(game: str, name: str) -> dict[str, Any]:
    """The settings of preset ``name`` for ``game`` (``none``: no settings); its later
    stages, if any, under ``"stages"`` (each the settings it changes)."""
    if name == "none":
        return {}
    if name not in PRESETS.get(game, {}):
        have = ", ".join(preset_names(game)) or "none yet"
        raise ValueError(f"no preset {name!r} for {game} (presets for {game}: {have})")
    return dict(PRESETS[game][name])

"""Who sits at the table with you: the shipped trained model, a baseline, or a model file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policies.mlp import SHIPPED, models_dir, shipped_model

__all__ = [
    "BOT_NAMES",
    "FALLBACK",
    "SHIPPED",
    "Lineup",
    "bot_name",
    "make_lineup",
    "models_dir",
    "shipped_model",
]

#: Who plays when no trained model for the game and rules ships with the package.
FALLBACK = "expert"

#: How a player would name each kind of bot at the table.
BOT_NAMES = {
    SHIPPED: "trained bot",
    "expert": "expert bot",
    "expert-jit": "expert bot",
    "greedy": "greedy bot",
    "random": "random bot",
    "ismcts": "search bot",
}


def bot_name(name: str) -> str:
    """The name the table shows for the player ``name`` (a policy name or a model file):
    ``"trained bot"``, ``"expert bot"``, ``"trained bot my_model"``, ..."""
    if name.endswith(".npz"):
        return f"trained bot {Path(name).stem}"
    return BOT_NAMES.get(name, f"{name} bot")


@dataclass
class Lineup:
    """The bots of one game: a policy and a display name per bot seat, and a note for the screen."""

    policies: dict[int, Any]
    names: dict[int, str]
    note: str


def make_lineup(
    game: str, config: Any, seat: int, wanted: list[str] | None, seed: int | None
) -> Lineup:
    """Build the bots for every seat but ``seat``; ``wanted`` names them in seat order
    (repeated to fill the table; ``None`` = the default). Raises ``ValueError`` saying
    what is wrong (an unknown name, a model for other rules, ...). The note says who
    plays when that is not what was asked for, and when a trained bot plays at a table
    size it was not trained for."""
    from policies import make_policy

    model = shipped_model(game, config)
    notes = []
    if not wanted:
        if model is not None:
            wanted = [SHIPPED]
            notes.append(
                f"Your opponents are trained bots: the model shipped with the package ({model.name})."
            )
        else:
            wanted = [FALLBACK]
            notes.append(
                f"No trained {game} model for these rules ships with the package, so your "
                f"opponents are {BOT_NAMES[FALLBACK]}s."
            )
    bots = [s for s in range(config.num_players) if s != seat]
    policies: dict[int, Any] = {}
    names: dict[int, str] = {}
    for k, s in enumerate(bots):
        name = wanted[k % len(wanted)]
        bot_seed = None if seed is None else seed + 1 + s
        if name == SHIPPED:
            if model is None:
                raise ValueError(
                    f"no trained {game} model for these rules ships with the package "
                    f"(looked in {models_dir()}); name a baseline or a model file instead"
                )
            policies[s] = make_policy(str(model), game=game, config=config, seed=bot_seed)
        else:
            policies[s] = make_policy(name, game=game, config=config, seed=bot_seed)
        names[s] = bot_name(name)
    sizes = {
        names[s]: sorted(p.meta.get("table_sizes", []))
        for s, p in policies.items()
        if isinstance(getattr(p, "meta", None), dict)
    }
    for who, trained in sizes.items():
        if trained and config.num_players not in trained:
            at = " or ".join(str(n) for n in trained)
            notes.append(
                f"The {who} was trained at a table of {at} players; at this table of "
                f"{config.num_players} it plays the same way, likely less well."
            )
    return Lineup(policies, names, " ".join(notes))

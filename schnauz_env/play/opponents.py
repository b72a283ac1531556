"""Who sits at the table with you: the shipped trained model, a baseline, or a model file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policies.mlp import SHIPPED, models_dir, shipped_model

__all__ = ["FALLBACK", "SHIPPED", "Lineup", "make_lineup", "models_dir", "shipped_model"]

#: Who plays when no trained model for the game and rules ships with the package.
FALLBACK = "expert"


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
    what is wrong (an unknown name, a model for other rules, ...)."""
    from policies import make_policy

    model = shipped_model(game, config)
    note = ""
    if not wanted:
        if model is not None:
            wanted = [SHIPPED]
            note = f"Your opponents play the trained model shipped with the package ({model.name})."
        else:
            wanted = [FALLBACK]
            note = (
                f"No trained {game} model for these rules ships with the package, so your "
                f"opponents play the '{FALLBACK}' baseline."
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
            names[s] = f"model {model.stem}"
        else:
            policies[s] = make_policy(name, game=game, config=config, seed=bot_seed)
            names[s] = Path(name).stem if name.endswith(".npz") else name
    return Lineup(policies, names, note)

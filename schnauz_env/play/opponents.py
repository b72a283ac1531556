"""Who sits at the table with you: the shipped trained model, a baseline, or a model file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The name that means "the trained model shipped with the package" on the command line.
SHIPPED = "model"
#: Who plays when no trained model for the game and rules ships with the package.
FALLBACK = "expert"


def models_dir() -> Path:
    """Where the package ships its trained models (``policies/models/*.npz``)."""
    import policies

    return Path(policies.__file__).parent / "models"


def shipped_model(game: str, config: Any) -> Path | None:
    """The shipped model file that plays ``game`` under ``config``, if any.

    A model trained at this table size is preferred; any model whose rules and
    observation layout match is accepted (observations are padded to the largest table).
    """
    from policies.models import check_compatible, read_model

    found: list[tuple[bool, Path]] = []
    for path in sorted(models_dir().glob("*.npz")):
        try:
            _, meta = read_model(path)
            check_compatible(meta, game, config, path=str(path))
        except (ValueError, KeyError):
            continue
        found.append((config.num_players in meta.get("table_sizes", ()), path))
    if not found:
        return None
    found.sort(key=lambda t: not t[0])
    return found[0][1]


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

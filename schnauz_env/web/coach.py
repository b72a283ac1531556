"""The coach: what a trained model makes of your moves, and the expert's estimates.

**Probabilities.** A model file (:mod:`policies.mlp`) holds a masked policy: its
:meth:`~policies.mlp.MLPPolicy.logits`, softmaxed over the legal actions, give the
probability of each action. A move of the page is one action in Schnauz and Scat; in
Thirteen a play is built card by card (``select`` actions, then ``play``), so the
probability of a play is the product of the model's probabilities of its actions in
order (the chain rule: the model chooses a play exactly that way). The masks are exact,
so the probabilities of the legal moves sum to 1.

**Value.** The model files hold only the actor of the trained network, not its value
head (the critic was never exported: a file plays, it does not judge). The coach says so
and, for Schnauz, shows the ``expert``'s own estimates in its place
(:mod:`policies.expert_features`, ``schnauz-expert-v1``, the numbers the shipped model
itself reads): the risk of ending the round with the lowest hand after each move, the
chance that a knock now loses, the expert's knock limit and advice, and at the dealer's
choice the risk of keeping and of exchanging. Monte Carlo estimates from what your seat
sees, nothing hidden.

**Review.** After the game, each of your moves is rated by the model. A move is listed
when the model gave its own first choice at least :data:`REVIEW_RATIO` times the
probability of yours (and a different move): "clearly worse" in the model's eyes, not
proof of a mistake.

Inference is numpy only, as everywhere the model files are played.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from policies import available_policies
from policies.mlp import (
    SHIPPED,
    MLPPolicy,
    check_compatible,
    feature_transform,
    load_model_policy,
    models_dir,
    read_model,
    shipped_model,
)
from schnauz_env.games import GAMES
from schnauz_env.web.errors import ApiError, invalid

#: A move is "clearly worse" when the model's own choice had at least this many times
#: its probability.
REVIEW_RATIO = 4.0
#: What the page says about the value estimate the model files do not hold.
NO_VALUE_HEAD = (
    "The model file holds only the policy (the actor), not a value estimate: "
    "its critic is not part of the model format."
)


@dataclass(frozen=True)
class ModelFile:
    """A model file the server may play or coach with: shipped, or given by the operator."""

    name: str
    """What requests and the page call it: the file's name (``schnauz4_a7.npz``)."""
    path: Path
    game: str
    meta: dict[str, Any]
    shipped: bool

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "game": self.game,
            "shipped": self.shipped,
            "table_sizes": list(self.meta.get("table_sizes", [])),
            "rules": dict(self.meta.get("rules", {})),
        }


class Catalog:
    """The opponents and coaches a table may have: the registered policy names of each
    game, and model files by name. ``paths`` are the operator's model files or folders
    of them (``schnauz serve --models``), read once at startup; a request names a model
    by its file name and never reaches the filesystem with a path of its own."""

    def __init__(self, paths: Sequence[str | Path] = ()) -> None:
        self.operator: dict[str, ModelFile] = {}
        for given in paths:
            root = Path(given)
            if root.is_dir():
                files = sorted(root.glob("*.npz"))
            elif root.is_file():
                files = [root]
            else:
                raise ValueError(f"--models {root}: no such file or folder")
            for path in files:
                weights, meta = read_model(path)  # ValueError names the file
                del weights
                if path.name in self.operator:
                    raise ValueError(
                        f"two model files are called {path.name} "
                        f"({self.operator[path.name].path} and {path}); rename one"
                    )
                self.operator[path.name] = ModelFile(
                    path.name, path.resolve(), meta["game"], meta, False
                )
        self.shipped: dict[str, ModelFile] = {}
        for path in sorted(models_dir().glob("*.npz")):
            try:
                _, meta = read_model(path)
            except ValueError:
                continue
            self.shipped[path.name] = ModelFile(path.name, path, meta["game"], meta, True)

    def opponents(self, game: str) -> list[str]:
        """Every opponent name a request may use for ``game``."""
        return [*available_policies(game), *self.operator_names(game)]

    def operator_names(self, game: str) -> list[str]:
        return [m.name for m in self.operator.values() if m.game == game]

    def resolve(self, game: str, name: Any) -> str:
        """The policy spec of opponent ``name`` for :func:`policies.make_policy`: a
        registered name as it is, an operator's model by its path (known to the server
        only); 422 for anything else."""
        if isinstance(name, str):
            if name in available_policies(game):
                return name
            model = self.operator.get(name)
            if model is not None and model.game == game:
                return str(model.path)
        raise invalid(
            f"unknown {game} opponent {name!r}; choose one of: {', '.join(self.opponents(game))}"
        )

    def coach_model(self, game: str, config: Any) -> ModelFile | None:
        """The model that coaches a ``game`` table under ``config``: the shipped model
        for these rules, else the first operator model that fits them, else ``None``."""
        path = shipped_for(game, config)
        if path is not None:
            return self.shipped.get(path.name) or ModelFile(
                path.name, path, game, read_model(path)[1], True
            )
        for model in self.operator.values():
            if model.game != game:
                continue
            try:
                check_compatible(model.meta, game, config, path=model.name)
            except ValueError:
                continue
            return model
        return None

    def describe(self) -> dict[str, Any]:
        """What the setup page offers: per game, the opponents and the model files."""
        return {
            game: {
                "opponents": self.opponents(game),
                "models": [
                    m.describe()
                    for m in [*self.shipped.values(), *self.operator.values()]
                    if m.game == game
                ],
                "shipped_name": SHIPPED,
            }
            for game in GAMES
        }


@functools.lru_cache(maxsize=64)
def shipped_for(game: str, config: Any) -> Path | None:
    """:func:`policies.mlp.shipped_model`, remembered per game and rules: it reads every
    shipped file (tens of milliseconds each), and the package's files do not change."""
    return shipped_model(game, config)


@functools.lru_cache(maxsize=32)
def coach_policy(path: Path, game: str, config: Any) -> MLPPolicy:
    """The model at ``path`` as a policy for ``game`` under ``config`` (shared by every
    table of those rules: only its logits are used, which keep no state)."""
    return load_model_policy(path, game=game, config=config)


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Probabilities over the actions allowed by ``mask`` (zero elsewhere)."""
    z = np.where(np.asarray(mask, dtype=bool), np.asarray(logits, dtype=np.float64), -np.inf)
    z = np.exp(z - z.max())
    return z / z.sum()


def move_probabilities(
    policy: Any, encoder: Any, state: Any, seat: int, moves: Sequence[Sequence[int]]
) -> list[float]:
    """The probability ``policy`` gives each move (a sequence of actions) of ``seat`` at
    ``state``: the product of its masked-softmax probabilities along the move's actions
    (see the module docstring). ``state`` is not changed."""
    dists: dict[tuple[int, ...], np.ndarray] = {}
    states: dict[tuple[int, ...], Any] = {(): state}

    def dist(prefix: tuple[int, ...]) -> np.ndarray:
        if prefix not in dists:
            at = states[prefix]
            obs = encoder.encode(at, seat)
            dists[prefix] = masked_softmax(policy.logits(obs[None])[0], at.legal_mask())
        return dists[prefix]

    out = []
    for move in moves:
        p = 1.0
        prefix: tuple[int, ...] = ()
        for k, action in enumerate(move):
            p *= float(dist(prefix)[action])
            if k + 1 < len(move):
                nxt = (*prefix, int(action))
                if nxt not in states:
                    child = states[prefix].clone()
                    child.apply(int(action))
                    states[nxt] = child
                prefix = nxt
        out.append(p)
    return out


def expert_estimates(config: Any, obs: np.ndarray, moves: Sequence[Sequence[int]]) -> dict:
    """The expert's estimates for a Schnauz decision (see the module docstring), as the
    page shows them: per move id the risk of the lowest hand, the expert's own move,
    the knock advice or the dealer's choice, and the best risk as the value stand-in."""
    from policies.expert_features import DL, FB, FEATURES_NAME, FL, KN, TB, TV
    from schnauz_env.schnauz.engine import EXCHANGE, KEEP, KNOCK, SWAP_BASE

    block = feature_transform(FEATURES_NAME, "schnauz", config).expert_block(obs[None])[0]
    block = block.astype(np.float64)
    index = {tuple(m): i for i, m in enumerate(moves)}
    out: dict[str, Any] = {
        "phase": None,
        "risk": {},
        "expert_move": None,
        "knock": None,
        "dealer": None,
    }
    if (KEEP,) in index or (EXCHANGE,) in index:
        keep, exchange = -block[DL], -block[DL + 1]
        out["dealer"] = {
            "keep_risk": round(float(keep), 4),
            "exchange_risk": round(float(exchange), 4),
            "advice": "keep" if block[DL + 2] > 0.5 else "exchange",
        }
        out["risk"] = {index[(KEEP,)]: keep, index[(EXCHANGE,)]: exchange}
        chosen = KEEP if block[DL + 2] > 0.5 else EXCHANGE
        out["expert_move"] = index.get((chosen,))
        out["phase"] = "dealer"
    elif block[TB : TB + 11].any():  # an ordinary turn
        out["phase"] = "turns"
        for m in range(11):
            i = index.get((SWAP_BASE + m,))
            if i is not None:
                out["risk"][i] = max(0.0, -float(block[TV + m]))
        out["expert_move"] = index.get((SWAP_BASE + int(np.argmax(block[TB : TB + 11])),))
        if (KNOCK,) in index:
            loss, limit, knocks = (float(x) for x in block[KN : KN + 3])
            out["knock"] = {
                "loss": round(loss, 4),
                "limit": round(limit, 4),
                "advice": knocks > 0.5,
            }
            if knocks > 0.5:
                out["expert_move"] = index[(KNOCK,)]
    elif block[FB : FB + 11].any():  # the final circle
        out["phase"] = "final"
        for m in range(11):
            i = index.get((SWAP_BASE + m,))
            if i is not None:
                out["risk"][i] = float(block[FL + m])
        out["expert_move"] = index.get((SWAP_BASE + int(np.argmax(block[FB : FB + 11])),))
    risks = list(out["risk"].values())
    out["risk"] = {str(i): round(float(r), 4) for i, r in out["risk"].items()}
    out["best_risk"] = round(min(risks), 4) if risks else None
    return out


@dataclass
class Decision:
    """One of the person's moves, kept for the review."""

    index: int
    """Where the move starts in the record's ``actions`` (the replay's position)."""
    state: Any
    """The engine state before it (a copy)."""
    actions: tuple[int, ...]
    moves: list[tuple[int, ...]]
    """Every legal move then, in the page's order."""
    labels: list[str]


def review(
    policy: Any, encoder: Any, seat: int, decisions: Sequence[Decision]
) -> list[dict[str, Any]]:
    """The person's moves the model rated clearly worse than its own choice (see the
    module docstring), in the order played."""
    items = []
    for k, d in enumerate(decisions):
        if len(d.moves) < 2:
            continue
        probs = move_probabilities(policy, encoder, d.state, seat, d.moves)
        mine = d.moves.index(d.actions)
        best = int(np.argmax(probs))
        if best != mine and probs[best] >= REVIEW_RATIO * probs[mine]:
            items.append(
                {
                    "decision": k + 1,
                    "position": d.index,
                    "played": d.labels[mine],
                    "played_p": round(probs[mine], 4),
                    "model": d.labels[best],
                    "model_p": round(probs[best], 4),
                }
            )
    return items


def require_model(model: ModelFile | None, game: str) -> ModelFile:
    """``model``, or the 409 saying that no model coaches this table."""
    if model is None:
        raise ApiError(
            409,
            "no_coach",
            f"no trained {game} model fits this table's rules: none of the package's and "
            "none of the server's (schnauz serve --models FILE_OR_FOLDER)",
        )
    return model


__all__ = [
    "NO_VALUE_HEAD",
    "REVIEW_RATIO",
    "Catalog",
    "Decision",
    "ModelFile",
    "coach_policy",
    "expert_estimates",
    "masked_softmax",
    "move_probabilities",
    "require_model",
    "review",
    "shipped_for",
]

"""Determinized Monte Carlo search for Schnauz with the trained model (``"pimc"``, ``"pimc:N"``).

Perfect-information Monte Carlo (Long, Sturtevant, Buro & Furtak 2010) over the seat's
information set, with the trained network as prior and rollout policy and the compiled
expert for the other seats:

1. **Candidates.** The network's ``width`` most likely legal moves, plus knocking when it
   is legal (the model's edge is mostly the timing of the knock) and both choices of the
   dealer.
2. **Determinize.** ``N`` full states are drawn from what this seat knows, as ``ismcts``
   draws them (:func:`policies.ismcts.determinize`): each opponent keeps the cards it is
   known to hold, and its hidden ones are the best of ``skill`` random draws (players keep
   good cards; a uniform deal makes them far too weak); a deal the seat's information
   rules out is drawn again. Nothing else is read: the search sees only the seat's
   observation.
3. **Roll out** every candidate in every determinization to the end of the round: this
   seat plays the network's most likely move, the others ``expert-jit``; all rollouts step
   in lockstep, so each step is one batched call per player. The candidates of one
   determinization share its deal and generator (common random numbers).
4. **Value** a finished round by this seat's fair chance to win the game from the lives
   it left (:func:`schnauz_env.common.places.fair_win_chance`, the ``win-chance`` reward's
   potential): losing a life costs what is at stake at this table.

The network's own move is played unless another candidate beats it: the candidates are
compared with it deal by deal, and one is played instead only if its mean gain is more
than ``confidence`` standard errors above 0 (the best such), so a larger budget deviates
from the network more often, and only where the search is sure. ``N`` (the budget) is the
number of determinizations per move: ``"pimc:128"`` draws 128. The time per move grows
linearly with it (``docs/evaluation.md``). The tunables are :class:`PimcParams`, each
settable by name (``"pimc:determinizations=128,width=4"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from policies.base import REGISTRY, register_policy
from policies.ismcts import DeterminizedSearch, SearchParams
from policies.mlp import load_model_policy, one_blas_thread
from schnauz_env.common.places import fair_win_chance
from schnauz_env.schnauz.config import SchnauzConfig
from schnauz_env.schnauz.engine import (
    DEALER_CHOICE,
    KNOCK,
    RoundResult,
    SchnauzState,
)
from schnauz_env.schnauz.infoset import decode_observation
from schnauz_env.schnauz.observation import ObservationEncoder

DEFAULT_DETERMINIZATIONS = 128


@dataclass(frozen=True)
class PimcParams(SearchParams):
    """The tunables of ``pimc`` (``"pimc:128"``, ``"pimc:determinizations=128,width=4"``)."""

    budget_name = "determinizations"
    determinizations: int = DEFAULT_DETERMINIZATIONS
    """The budget: determinizations per move."""
    width: int = 3
    """Candidates: the network's ``width`` most likely legal moves (plus knocking)."""
    confidence: float = 1.0
    """Another candidate is played only if its mean gain over the network's move is more
    than this many standard errors above 0."""
    model: str = "model"
    """The network (a registered name or a ``.npz`` file): prior, and this seat's rollouts."""
    opponents: str = "expert-jit"
    """The other seats' player in the rollouts (a registered name or a ``.npz`` file)."""

    def __post_init__(self) -> None:
        if self.width < 1:
            raise ValueError(f"pimc needs a width of at least 1, got {self.width}")


def units_after(result: RoundResult) -> list[int]:
    """Every seat's life units after a round: its lives plus one while it is in, 0 out."""
    return [
        0 if out else lives + 1
        for lives, out in zip(result.lives_after, result.out_after, strict=True)
    ]


def win_chance(units: list[int], seat: int) -> float:
    """``seat``'s fair chance to win from everyone's life ``units``."""
    others = tuple(sorted(u for s, u in enumerate(units) if s != seat and u > 0))
    return fair_win_chance(units[seat], others)


def _player(name: str, config: SchnauzConfig, seed: Any) -> Any:
    """A registered Schnauz policy by name (``"model"``, ``"expert-jit"``) or a model file."""
    if name.endswith(".npz"):
        return load_model_policy(name, "schnauz", config, seed=seed)
    if ("schnauz", name) not in REGISTRY:
        raise ValueError(f"pimc: unknown player {name!r} (a registered name or a .npz file)")
    return REGISTRY["schnauz", name](config=config, seed=seed)


@register_policy("schnauz", "pimc")
class PIMCPolicy(DeterminizedSearch[PimcParams]):
    """Determinized Monte Carlo search with the model's rollouts (module docs)."""

    name = "pimc"
    params_class = PimcParams

    def _players(self, seed: int | None) -> None:
        """The network (this seat's prior and rollouts) and the other seats' player, on
        two seeds drawn from the policy's generator."""
        child = np.random.SeedSequence(int(self.rng.integers(2**63))).spawn(2)
        self.model = _player(self.params.model, self.config, child[0])
        self.opponents = _player(self.params.opponents, self.config, child[1])
        self._encoder = ObservationEncoder(self._search_config)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            child = np.random.SeedSequence(seed).spawn(2)
            self.model.reset(int(child[0].generate_state(1)[0]))
            self.opponents.reset(int(child[1].generate_state(1)[0]))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        obs = np.asarray(observation, dtype=np.float32)[None]
        prior = self.model.logits(obs)[0]
        ranked = sorted(legal, key=lambda a: -prior[a])
        first = int(ranked[0])
        candidates = [int(a) for a in ranked[: self.params.width]]
        if KNOCK in legal and KNOCK not in candidates:
            candidates.append(KNOCK)
        view = decode_observation(observation, self.config)
        if view.phase == DEALER_CHOICE:
            candidates = [int(a) for a in legal]
        if len(candidates) == 1:
            return first
        with one_blas_thread():
            values = self._values(view, action_mask, candidates)
        # Paired differences with the network's move (the same deals): another move is
        # played only if it is better by more than ``confidence`` standard errors.
        gain = values - values[:, [candidates.index(first)]]
        score = gain.mean(axis=0) - self.params.confidence * gain.std(axis=0) / np.sqrt(len(gain))
        best = int(np.argmax(score))
        return candidates[best] if score[best] > 0 else first

    def _values(self, view: Any, action_mask: np.ndarray, candidates: list[int]) -> np.ndarray:
        """The value of each candidate (columns) in each determinization (rows)."""
        states: list[SchnauzState] = []
        for _ in range(self.params.determinizations):
            state = self._determinize(view, action_mask)
            seed = int(self.rng.integers(2**63))
            states += [state.clone(np.random.default_rng(seed)) for _ in candidates]
        results: list[RoundResult | None] = [None] * len(states)
        for i, a in enumerate(candidates * self.params.determinizations):
            results[i] = states[i].apply(a)
        self._roll_out(states, results)
        values = np.array([win_chance(units_after(r), 0) for r in results])
        return values.reshape(self.params.determinizations, len(candidates))

    def _roll_out(self, states: list[SchnauzState], results: list[RoundResult | None]) -> None:
        """Play every unfinished state to the end of its round, all in lockstep: each step
        is one batched call of the model (seat 0) and one of the opponents."""
        encode = self._encoder.encode
        while True:
            live = [i for i, r in enumerate(results) if r is None]
            if not live:
                return
            obs = np.stack([encode(states[i], states[i].current) for i in live])
            masks = np.stack([states[i].legal_mask() for i in live])
            mine = np.array([states[i].current == 0 for i in live])
            actions = np.zeros(len(live), dtype=np.int64)
            if mine.any():
                actions[mine] = self.model.act_batch(obs[mine], masks[mine])
            if (~mine).any():
                actions[~mine] = self.opponents.act_batch(obs[~mine], masks[~mine])
            for row, i in enumerate(live):
                results[i] = states[i].apply(int(actions[row]))


__all__ = ["DEFAULT_DETERMINIZATIONS", "PIMCPolicy", "PimcParams"]

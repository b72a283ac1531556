"""What one seat knows about a Thirteen game, read back from its observation.

A policy sees only its seat's observation vector (see
:mod:`schnauz_env.thirteen.observation`). :func:`decode_observation` turns that vector
back into named facts, by *relative position* like the observation: position 0 is the
observer, position ``k`` the ``k``-th player to their left (real seat ``(me + k) % n``)::

    from schnauz_env.thirteen.infoset import decode_observation

    view = decode_observation(obs, config)
    view.hand, view.table_combo, view.cards_left, view.unseen

Cards are engine card ints (``rank * 4 + suit``); :func:`~schnauz_env.thirteen.combos.strength`
gives their Thirteen order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schnauz_env.thirteen.combos import CARD_OF, STRENGTH, Combo, classify_strengths
from schnauz_env.thirteen.config import HAND_SIZE, ThirteenConfig
from schnauz_env.thirteen.observation import SEAT_FEATURES, ObservationLayout

_LAYOUT = ObservationLayout()


@dataclass(frozen=True)
class SeatView:
    """Everything one seat knows about a Thirteen game, by relative position."""

    num_players: int
    hand: tuple[int, ...]
    """The observer's cards, weakest first (Thirteen order)."""
    selected: tuple[int, ...]
    """Cards already selected for the play being built, weakest first."""
    table: tuple[int, ...]
    """The combination to beat, weakest first (empty: the table is clear)."""
    table_combo: Combo | None
    table_by: int | None
    """Relative position of the player who made the play to beat."""
    passed: tuple[bool, ...]
    played: frozenset[int]
    """Every card played so far this game."""
    holding: tuple[bool, ...]
    """Per position: still holding cards."""
    cards_left: tuple[int, ...]
    scores: tuple[float, ...]
    """Match points (exact while below twice the target; capped there)."""
    to_act: int | None
    opening_card: int | None
    """The card the first play must include (the observer's lowest), if that rule applies now."""
    declare: bool
    """The observer's only action is to declare an instant win."""

    @property
    def leading(self) -> bool:
        return self.table_combo is None

    @property
    def unseen(self) -> frozenset[int]:
        """Cards the observer cannot locate: the other hands (and any undealt cards)."""
        return frozenset(range(52)) - self.played - frozenset(self.hand)

    def opponents(self) -> list[int]:
        """Positions of the other players still holding cards."""
        return [k for k in range(1, self.num_players) if self.holding[k]]


#: The card int of each column (strength order), for turning a block into cards at once.
_CARD_INTS = np.array([int(c) for c in CARD_OF], dtype=np.int64)


def _cards(block: np.ndarray) -> tuple[int, ...]:
    return tuple(_CARD_INTS[np.flatnonzero(block > 0.5)].tolist())


def _one_hot(block: np.ndarray) -> int | None:
    idx = np.flatnonzero(block > 0.5)
    return int(idx[0]) if len(idx) else None


def decode_observation(obs: np.ndarray, config: ThirteenConfig) -> SeatView:
    """The facts one seat's observation vector holds (see the module docstring)."""
    s = _LAYOUT.slices
    n = config.num_players
    obs = np.asarray(obs)
    table = _cards(obs[s["table"]])
    combo = classify_strengths([STRENGTH[c] for c in table]) if table else None
    seats = obs[s["seats"]].reshape(-1, SEAT_FEATURES)[:n]
    holding = tuple(bool(x > 0.5) for x in seats[:, 1])
    cards_left = tuple(round(float(x) * HAND_SIZE) for x in seats[:, 2])
    flags = obs[s["flags"]]
    hand = _cards(obs[s["hand"]])
    return SeatView(
        num_players=n,
        hand=hand,
        selected=_cards(obs[s["selected"]]),
        table=table,
        table_combo=combo,
        table_by=_one_hot(obs[s["table_by"]]),
        passed=tuple(bool(x > 0.5) for x in obs[s["passed"]][:n]),
        played=frozenset(_cards(obs[s["played"]])),
        holding=holding,
        cards_left=cards_left,
        scores=tuple(float(x) * 2 * config.target_points for x in obs[s["scores"]][:n]),
        to_act=_one_hot(obs[s["to_act"]]),
        opening_card=hand[0] if flags[1] > 0.5 and hand else None,
        declare=bool(flags[2] > 0.5),
    )

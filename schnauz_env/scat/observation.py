"""The Scat observation: one flat float32 vector, seen from the observer's seat.

Seats are *relative*: position 0 is the observer, position k the k-th player to
their left (seat ``(me + k) % n``). Every seat block is padded to 7 positions, so
a network's input size does not depend on the table size. A card's column is its
index ``rank * 4 + suit`` (``2C 2S 2H 2D 3C … AD``, 52 columns). ``H`` is the hand
size (3, or 4 in four-card Scat); the hand holds ``H + 1`` cards between a draw
and the discard.

=====================  ==========  =======================================================
block                  size        meaning
=====================  ==========  =======================================================
``hand``               (H+1)·52    one-hot per hand slot 0..H (slot order = discard action order)
``discard_top``        52          one-hot: the top card of the discard pile (the one you may draw)
``discard_pile``       52          every card in the discard pile: 1 − depth/52 (top = 1,
                                   the card under it 51/52, …; 0 = not in the pile), so
                                   the whole pile is seen in order
``known``              6·52        per opponent position 1..6: cards they drew from the
                                   discard pile and still hold (public knowledge)
``seats``              7·5         per position 0..6: at this table, still in the game,
                                   on the bus (0 lives, still in), lives / the most lives
                                   any seat started with (``lives`` unless reset gave
                                   more), buy-ins left / buy-ins (0 without the variant)
``dealer``             7           one-hot position of the dealer
``knocker``            7           one-hot position of the knocker (zeros: nobody knocked)
``to_act``             7           one-hot position of the player to act (zeros: over)
``phase``              4           one-hot: draw step, discard step, final-turn draw step,
                                   final-turn discard step
``stock``              1           cards left in the stock / 52
=====================  ==========  =======================================================

Total ``(H + 9)·52 + 61``: 685 for Scat, 737 for four-card Scat.
Nothing else reaches the vector: other players' unknown cards and the stock order
never do (see ``tests/test_scat_hidden_info.py``).
"""

from __future__ import annotations

import numpy as np

from schnauz_env.common.layout import BlockLayout
from schnauz_env.common.lives_views import GAME, SHARED_SEAT_FEATURES, LivesSeen, LivesTableEncoder
from schnauz_env.common.seat_views import TableLayout, move_one
from schnauz_env.scat.config import MAX_PLAYERS, ScatConfig
from schnauz_env.scat.engine import DISCARD, FINAL_TURNS, OVER, ScatState

__all__ = [
    "NC",
    "SEAT_AT_TABLE",
    "SEAT_BUY_INS",
    "SEAT_FEATURES",
    "SEAT_IN_GAME",
    "SEAT_LIVES",
    "SEAT_ON_BUS",
    "ObservationEncoder",
    "ObservationLayout",
    "P",
    "lives_scale",
    "phase_index",
    "pile_weight",
]

P = MAX_PLAYERS
SEAT_FEATURES = 5
NC = 52
#: The features of a position in the ``seats`` block, in order: those of every game of
#: lives (:mod:`schnauz_env.common.lives_views`), then buy-ins left.
SEAT_AT_TABLE, SEAT_IN_GAME, SEAT_ON_BUS, SEAT_LIVES = SHARED_SEAT_FEATURES
SEAT_BUY_INS = len(SHARED_SEAT_FEATURES)


def pile_weight(depth: np.ndarray) -> np.ndarray:
    """The ``discard_pile`` value of cards ``depth`` below the top (float32 in, float32
    out): 1 for the top card, 1 − depth/52 below it."""
    return 1.0 - depth / NC


def lives_scale(max_lives: int) -> float:
    """The scale of the lives feature: 1 / the most lives any seat started with
    (``ScatState.max_lives``; 1 when that is 0), so the feature stays within [0, 1]."""
    return 1.0 / max(max_lives, 1)


def phase_index(final: bool, discard: bool) -> int:
    """The one-hot index in the ``phase`` block: draw step, discard step, final-turn draw
    step, final-turn discard step."""
    return 2 * final + discard


class ObservationLayout(BlockLayout):
    """Named index ranges of the observation vector for one rules config."""

    def __init__(self, config: ScatConfig) -> None:
        self.hand_slots = config.hand_size + 1
        blocks = [
            ("hand", self.hand_slots * NC),
            ("discard_top", NC),
            ("discard_pile", NC),
            ("known", (P - 1) * NC),
            ("seats", P * SEAT_FEATURES),
            ("dealer", P),
            ("knocker", P),
            ("to_act", P),
            ("phase", 4),
            ("stock", 1),
        ]
        super().__init__(blocks)


class ObservationEncoder(LivesTableEncoder):
    """Builds the observation vector of one seat from a :class:`ScatState`.

    :meth:`encode` writes every entry from the state; :meth:`cached` gives an encoder
    with the same ``encode`` that keeps one vector of the whole table and rewrites only
    what changed, then gathers the seat's view from it
    (:mod:`schnauz_env.common.seat_views`; the blocks Scat shares with Schnauz are kept
    by :class:`~schnauz_env.common.lives_views.LivesTableEncoder`).
    """

    seat_extra = "buy_ins_used"

    def __init__(self, config: ScatConfig) -> None:
        layout = ObservationLayout(config)
        super().__init__(config, layout, NC, 0)
        s = layout.slices
        self._hand = s["hand"].start
        self._top = s["discard_top"].start
        self._pile = s["discard_pile"].start
        self._known = s["known"].start
        self._seats = s["seats"].start
        self._dealer = s["dealer"].start
        self._knocker = s["knocker"].start
        self._to_act = s["to_act"].start
        self._phase = s["phase"].start
        self._stock = s["stock"].start
        #: The scales of the lives and buy-ins features: ``1 / lives`` (1 when lives is
        #: 0) and ``1 / buy_ins`` (0 without the variant). A game whose reset gave some
        #: seat more than ``lives`` scales lives by :func:`lives_scale` of its largest.
        self.seat_scales = (
            lives_scale(config.lives),
            1.0 / config.buy_ins if config.buy_ins else 0.0,
        )
        self._lives_scale, self._buy_in_scale = self.seat_scales

    def encode(self, state: ScatState, seat: int) -> np.ndarray:
        """The observation of ``seat`` as a new float32 vector."""
        obs = np.zeros(self.size, dtype=np.float32)
        n = state.n
        ones: list[int] = []
        base = self._hand
        for i, c in enumerate(state.hands[seat]):
            ones.append(base + i * NC + c)
        pile = state.pile
        if pile:
            ones.append(self._top + pile[-1])
            depth = len(pile) - 1
            idx = [self._pile + c for c in pile]
            obs[idx] = pile_weight(depth - np.arange(len(pile), dtype=np.float32))
        lives, out, used = state.lives, state.out, state.buy_ins_used
        seats = self._seats
        buy_ins = self.config.buy_ins
        scale = (
            self._lives_scale
            if state.max_lives == self.config.lives
            else lives_scale(state.max_lives)
        )
        for k in range(n):
            s = (seat + k) % n
            f = seats + k * SEAT_FEATURES
            ones.append(f + SEAT_AT_TABLE)
            if not out[s]:
                ones.append(f + SEAT_IN_GAME)
                if lives[s] == 0:
                    ones.append(f + SEAT_ON_BUS)
                obs[f + SEAT_LIVES] = lives[s] * scale
            obs[f + SEAT_BUY_INS] = (buy_ins - used[s]) * self._buy_in_scale
            if k:
                base = self._known + (k - 1) * NC
                ones.extend(base + c for c in state.known[s])
        ones.append(self._dealer + (state.dealer - seat) % n)
        if state.knocker is not None:
            ones.append(self._knocker + (state.knocker - seat) % n)
        phase = state.phase
        if phase != OVER:
            ones.append(self._to_act + (state.current - seat) % n)
            ones.append(self._phase + phase_index(phase == FINAL_TURNS, state.step == DISCARD))
        obs[ones] = 1.0
        obs[self._stock] = (len(state.deck) - state.pos) / NC
        return obs

    def _new_seen(self, n: int) -> _Seen:
        return _Seen(n)

    def _phase_index(self, state: ScatState) -> int:
        return phase_index(state.phase == FINAL_TURNS, state.step == DISCARD)

    def _add_blocks(self, table: TableLayout, slices: dict[str, slice]) -> None:
        table.shared(slices["discard_top"].start, NC)
        table.shared(slices["discard_pile"].start, NC)

    def _write_seat_extra(self, mv: memoryview, start: int, counts: list[int]) -> None:
        buy_ins, scale = self.config.buy_ins, self._buy_in_scale
        f = start + SEAT_BUY_INS
        for used in counts:
            mv[f] = (buy_ins - used) * scale
            f += SEAT_FEATURES

    def _update_blocks(
        self, mv: memoryview, seen: _Seen, state: ScatState, starts: tuple[int, ...]
    ) -> None:
        pile = state.pile
        if pile != seen.pile:
            top_at, pile_at = starts[GAME], starts[GAME + 1]
            for c in seen.pile:
                mv[pile_at + c] = 0.0
            depth = len(pile) - 1
            for i, c in enumerate(pile):
                mv[pile_at + c] = _PILE_WEIGHTS[depth - i]
            i = top_at + pile[-1] if pile else -1
            if i != seen.top:
                seen.top = move_one(mv, seen.top, i)
            seen.pile = list(pile)


#: ``pile_weight`` of every depth, as the encoder computes it (float32).
_PILE_WEIGHTS = [np.float32(w) for w in pile_weight(np.arange(NC, dtype=np.float32))]


class _Seen(LivesSeen):
    """The facts the table vector shows: :class:`LivesSeen`'s and the discard pile."""

    __slots__ = ("pile", "top")

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.pile: list[int] = []
        self.top = -1

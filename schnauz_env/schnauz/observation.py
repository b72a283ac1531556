"""The Schnauz observation: one flat float32 vector, seen from the observer's seat.

Seats are *relative*: position 0 is the observer, position k the k-th player to
their left (seat ``(me + k) % n``). Every block is padded to 6 positions, so a
network's input size does not depend on the table size. ``N`` is the deck size
(A7: 32, A9: 24, A5: 40); a card's column is its index within the variant's deck,
``(rank - lowest rank) * 4 + suit`` with suits ♣ ♠ ♥ ♦ (``7C 7S 7H 7D 8C …`` for A7).

=====================  ==========  =======================================================
block                  size        meaning
=====================  ==========  =======================================================
``hand``               3·N         one-hot per hand slot 0, 1, 2 (slot order = action order)
``table``              3·N         one-hot per table slot 0, 1, 2 (empty before the dealer's choice)
``out_of_play``        N           cards taken out of play by all-pass refreshes
``known``              5·N         per opponent position 1..5: cards they took from the
                                   table and still hold (public knowledge)
``seats``              6·4         per position 0..5: at this table, still in the game,
                                   swimming (0 lives, still in), lives / the most lives
                                   any seat started with (``lives`` unless reset gave more)
``dealer``             6           one-hot position of the dealer
``knocker``            6           one-hot position of the knocker (zeros: nobody knocked)
``to_act``             6           one-hot position of the player to act (zeros: over)
``phase``              3           one-hot: dealer's choice, turns, final circle
``passes``             6           one-hot: passes in a row (0..5)
``stock``              1           cards left in the stock / N
=====================  ==========  =======================================================

Total ``12·N + 52``: 436 for A7, 340 for A9, 532 for A5.
Nothing else reaches the vector: other players' unknown cards and the stock order
never do (see ``tests/test_schnauz_hidden_info.py``).
"""

from __future__ import annotations

import numpy as np

from schnauz_env.common.layout import BlockLayout
from schnauz_env.schnauz.config import MAX_PLAYERS, SchnauzConfig
from schnauz_env.schnauz.engine import DEALER_CHOICE, OVER, TURNS, SchnauzState

P = MAX_PLAYERS
SEAT_FEATURES = 4
#: The features of a position in the ``seats`` block, in order.
SEAT_AT_TABLE, SEAT_IN_GAME, SEAT_SWIMMING, SEAT_LIVES = range(SEAT_FEATURES)
#: Bumped whenever the layout changes, so saved models refuse a layout they were not trained on.
OBS_VERSION = 1


class ObservationLayout(BlockLayout):
    """Named index ranges of the observation vector for one rules config."""

    def __init__(self, config: SchnauzConfig) -> None:
        n_cards = config.deck_size
        self.num_cards = n_cards
        blocks = [
            ("hand", 3 * n_cards),
            ("table", 3 * n_cards),
            ("out_of_play", n_cards),
            ("known", (P - 1) * n_cards),
            ("seats", P * SEAT_FEATURES),
            ("dealer", P),
            ("knocker", P),
            ("to_act", P),
            ("phase", 3),
            ("passes", P),
            ("stock", 1),
        ]
        super().__init__(blocks)


class ObservationEncoder:
    """Builds the observation vector of one seat from a :class:`SchnauzState`."""

    def __init__(self, config: SchnauzConfig) -> None:
        self.config = config
        self.layout = layout = ObservationLayout(config)
        self.size = layout.size
        self._min_card = 4 * config.min_rank
        self._n_cards = config.deck_size
        s = layout.slices
        self._hand = s["hand"].start
        self._table = s["table"].start
        self._oop = s["out_of_play"].start
        self._known = s["known"].start
        self._seats = s["seats"].start
        self._dealer = s["dealer"].start
        self._knocker = s["knocker"].start
        self._to_act = s["to_act"].start
        self._phase = s["phase"].start
        self._passes = s["passes"].start
        self._stock = s["stock"].start

    def encode(self, state: SchnauzState, seat: int) -> np.ndarray:
        """The observation of ``seat`` as a new float32 vector."""
        obs = np.zeros(self.size, dtype=np.float32)
        n = state.n
        nc = self._n_cards
        lo = self._min_card
        ones: list[int] = []
        base = self._hand - lo
        for i, c in enumerate(state.hands[seat]):
            ones.append(base + i * nc + c)
        base = self._table - lo
        for j, c in enumerate(state.table):
            ones.append(base + j * nc + c)
        base = self._oop - lo
        ones.extend(base + c for c in state.out_of_play)
        lives, out = state.lives, state.out
        lives_scale = 1.0 / max(state.max_lives, 1)
        seats = self._seats
        for k in range(n):
            s = (seat + k) % n
            f = seats + k * SEAT_FEATURES
            ones.append(f + SEAT_AT_TABLE)
            if not out[s]:
                ones.append(f + SEAT_IN_GAME)
                if lives[s] == 0:
                    ones.append(f + SEAT_SWIMMING)
                obs[f + SEAT_LIVES] = lives[s] * lives_scale
            if k:
                base = self._known + (k - 1) * nc - lo
                ones.extend(base + c for c in state.known[s])
        ones.append(self._dealer + (state.dealer - seat) % n)
        if state.knocker is not None:
            ones.append(self._knocker + (state.knocker - seat) % n)
        phase = state.phase
        if phase != OVER:
            ones.append(self._to_act + (state.current - seat) % n)
            ones.append(self._phase + (0 if phase == DEALER_CHOICE else 1 if phase == TURNS else 2))
        ones.append(self._passes + min(state.passes, P - 1))
        obs[ones] = 1.0
        obs[self._stock] = (len(state.deck) - state.pos) / nc
        return obs

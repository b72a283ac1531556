"""Many Scat games stepped at once (:class:`BatchedScat`): the contract of every batched
engine (:mod:`schnauz_env.batched.base`: ``reset``, ``step``, the outputs, auto reset,
seeding) for :mod:`schnauz_env.scat.engine` under any
:class:`~schnauz_env.scat.ScatConfig` (four-card Scat, no trinca, buy-ins, the
first-turn knock rule, lives, dealers, turn limits, single rounds); row ``g`` is what
``scat_v0`` shows.

Its own outputs, beside ``obs``, ``mask`` (9 actions), ``rewards`` and ``ended``:

=================== ======= ==============================================================
output              shape   meaning
=================== ======= ==============================================================
``round_over``      (B,)    int8: rounds this step ended (2 or more when the next deal
                            ended at once, on a blitz)
``opening_rewards`` (B, n)  float64: the rewards of a game's first deal when it ended at
                            once (a blitz after the deal); the AEC env pays them at
                            ``reset``. Written by :meth:`reset`, and by :meth:`step` for
                            the games it dealt again
=================== ======= ==============================================================

A new game that ends on its very deal (possible only through a blitz after the deal)
has no move to make and is dealt again unseen. ``obs`` is a read-only view: the
encoder updates the buffer entry by entry. For replaying the reference, :meth:`reset`
takes the first dealers beside the decks (:func:`reference_decks`), and
:meth:`queue_tie_break_decks` the decks of tie-break deals.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schnauz_env.batched.base import LivesGame, dealer_and_decks, field_view
from schnauz_env.batched.jit import HAVE_NUMBA
from schnauz_env.batched.scat import kernels as K
from schnauz_env.batched.scat import layout as L
from schnauz_env.scat.config import MAX_PLAYERS, ScatConfig
from schnauz_env.scat.engine import ACTION_NAMES, DISCARD, NUM_ACTIONS, PHASE_NAMES, REASONS
from schnauz_env.scat.observation import NC, SEAT_FEATURES, ObservationLayout

__all__ = ["HAVE_NUMBA", "BatchedScat", "reference_decks", "rounds_bound"]

#: External mode: room for this many queued tie-break decks per game.
TIE_BREAK_SLOTS = 16


def rounds_bound(config: ScatConfig, lives: int | None = None) -> int:
    """Most rounds a game can last: every round costs someone a life, and a seat has
    ``lives + 1`` to lose before it is out, ``buy_ins + 1`` times (``lives``: the most
    any seat starts with, by default the config's)."""
    if config.episode == "round":
        return 1
    most = max(config.lives, lives if lives is not None else 0)
    return config.num_players * (most + 1) * (config.buy_ins + 1)


def reference_decks(
    config: ScatConfig, seed: int, count: int | None = None
) -> tuple[int, np.ndarray]:
    """The first dealer and the round decks the reference draws from ``default_rng(seed)``.

    ``new_game`` draws ``rng.integers(n)`` for the first dealer, then one
    ``rng.permutation(52)`` per round (tie-break deals use the round's own generator).
    Returns ``(dealer, perms)``, ``perms`` of shape ``(count, 52)`` (by default enough
    for the longest game: :func:`rounds_bound`), ready for ``reset(decks=...,
    dealers=...)``.
    """
    count = count if count is not None else rounds_bound(config)
    return dealer_and_decks(config, seed, count, NC)


class BatchedScat(LivesGame[ScatConfig]):
    """``num_games`` Scat games under one rules config, stepped together.

    ``config`` (or rule options as keywords, as for ``scat_v0.env``) sets the rules.
    ``observe`` builds the acting player's view after every step. ``greedy_threshold``
    is the knock threshold of :meth:`greedy_actions` (``policies``' ``greedy:T``).
    """

    FIELDS = L
    KERNELS = K
    ACTION_NAMES = ACTION_NAMES
    PHASE_NAMES = PHASE_NAMES
    GAME = "Scat"
    QUEUE_SLOTS = TIE_BREAK_SLOTS
    MAX_COUNT = 2**30 - 1
    QUEUE_ERRORS = {
        "ERR_NO_TIE_BREAK_DECK": "needs a tie-break deal: queue its decks with "
        "queue_tie_break_decks()"
    }
    CONFIG = ScatConfig

    def __init__(self, *args: Any, greedy_threshold: float = 27.0, **kwargs: Any) -> None:
        """:class:`~schnauz_env.batched.base.BatchedGame`'s arguments (``num_games``,
        ``config``, ``seed``, ``observe``, ``auto_reset``, rule options), and the greedy
        player's knock threshold ``greedy_threshold``."""
        self._greedy_threshold = greedy_threshold
        super().__init__(*args, **kwargs)

    def _build(self, config: ScatConfig, observe: bool, auto_reset: bool) -> None:
        for name in ("lives", "buy_ins", "max_turns"):
            if getattr(config, name) >= 2**30:
                raise ValueError(f"the batched engine counts {name} in 32 bits: at most 2**30 - 1")
        b = self.num_games
        self._obs = self._outputs(
            ObservationLayout(config), observe, auto_reset, NUM_ACTIONS, MAX_PLAYERS
        )
        cfg, cff = L.config_vectors(config, float(self._greedy_threshold))
        cards = np.full((b, L.CW), -1, dtype=np.int8)
        cards[:, L.O_DECK : L.O_DECK + NC] = np.arange(NC, dtype=np.int8)
        self.arrays = L.ScatArrays(
            cfg=cfg,
            cff=cff,
            vals=L.value_table(config),
            pw=L.PILE_WEIGHTS,
            gs=L.aligned_zeros((b, L.NF), np.int32),
            cards=cards,
            known=np.zeros((b, MAX_PLAYERS), dtype=np.int64),
            seatf=np.zeros((b, MAX_PLAYERS * SEAT_FEATURES), dtype=np.float32),
            fl=np.zeros((b, L.NFL), dtype=np.float64),
            rng=np.zeros((b, L.NRNG), dtype=np.int64),
            perms=np.zeros((1, 1, NC), dtype=np.int8),
        )
        self.cfg = cfg
        self._nz = np.zeros((b if observe else 1, L.OBS_ENTRIES), dtype=np.int16)
        #: The views of the players to act: a read-only view of the engine's buffer, which
        #: the encoder updates entry by entry (see ``observe.encode``).
        self.obs = self._obs.view()
        self.obs.flags.writeable = False
        self._rew0 = np.zeros((b, MAX_PLAYERS), dtype=np.float64)
        self.round_over = np.zeros(b, dtype=np.int8)

    def seed(self, seed: int | None = None) -> None:
        """Reseed every game's generators (from ``numpy.random.SeedSequence(seed)``) and put
        the decks back in the order a new engine starts from: each round's deck is
        reshuffled from the last one, so the games repeat from a seed only from that order."""
        super().seed(seed)
        self.arrays.cards[:, L.O_DECK : L.O_DECK + NC] = np.arange(NC, dtype=np.int8)

    @property
    def kernel_state(self) -> L.ScatArrays:
        """The arrays the kernels take first (:attr:`arrays`)."""
        return self.arrays

    def _set_perms(self, perms: np.ndarray) -> None:
        self.arrays = self.arrays._replace(perms=perms)

    def _reset_kernel(self, dealers: np.ndarray, lives: np.ndarray) -> int:
        cfg = self.cfg
        cfg[L.C_AUTO] = int(self.auto_reset and not cfg[L.C_EXTERNAL])
        return K.k_reset(
            self.arrays,
            dealers,
            lives,
            self._rew0,
            self.mask,
            self._obs,
            self._nz,
            self.observing,
            self._all,
        )

    # -------------------------------------------------------------------- API
    def _step_kernel(self) -> int:
        return self._k_step(
            self.arrays,
            self._actions,
            self._rewards,
            self._rew0,
            self.mask,
            self._obs,
            self._nz,
            self.observing,
            self.ended,
            self.round_over,
            self.final_places,
        )

    def queue_tie_break_decks(self, g: int, decks: np.ndarray) -> None:
        """External mode: the decks game ``g``'s next tie-break deals take, in order.

        The reference deals tie-breaks from the round's own generator
        (``schnauz_env.common.engine.round_rng(round, deck)``); give here the
        permutations it draws (up to 16) before the step that needs them.
        """
        self._queue_decks(g, decks, "queue_tie_break_decks", "tie-break", L.F_TB_PTR, L.F_TB_END)

    def _play_random_kernel(self, steps: int) -> int:
        if not self._started:
            raise RuntimeError("call reset() before play_random()")
        return K.k_play_random(
            self.arrays, self._rewards, self._rew0, self._obs, self._nz, steps, self.observing
        )

    # ---------------------------------------------------------------- state views
    @property
    def opening_rewards(self) -> np.ndarray:
        """``(B, n)`` rewards of the first deal of the game (see the module docstring)."""
        return self._rew0[:, : self.num_players]

    turn_step = field_view(
        "F_STEP", "0 the draw step, 1 the discard step (the reference's ``state.step``)."
    )
    knocker = field_view("F_KNOCKER", "The seat that knocked this round, -1 for none.")
    turns = field_view("F_TURNS", "Turns played in the current round.")

    @property
    def buy_ins_left(self) -> np.ndarray:
        return self.config.buy_ins - self.gs[:, L.F_USED : L.F_USED + self.num_players]

    @property
    def stock_size(self) -> np.ndarray:
        return NC - self.gs[:, L.F_POS]

    def hands(self, g: int) -> list[list[int]]:
        """The hands of game ``g`` as sorted card ints (the reference's ``state.hands``)."""
        rows = self.arrays.cards[g, L.O_HANDS : L.O_HANDS + L.HS * self.num_players]
        return [[int(c) for c in row if c >= 0] for row in rows.reshape(-1, L.HS)]

    def pile(self, g: int) -> list[int]:
        """The discard pile of game ``g``, bottom first (the reference's ``state.pile``)."""
        return [int(c) for c in self.arrays.cards[g, L.O_PILE : L.O_PILE + self.gs[g, L.F_PILE]]]

    def stock(self, g: int) -> list[int]:
        """The stock of game ``g``, top first (drawn lazily in the fast mode: only the
        cards already dealt or drawn are fixed there, so this is for external decks)."""
        return [int(c) for c in self.arrays.cards[g, L.O_DECK + self.gs[g, L.F_POS] : L.O_PILE]]

    def last_result(self, g: int) -> dict[str, Any] | None:
        """The latest round of game ``g``, as fields of the reference's ``RoundResult``
        (``rounds_ended``: how many rounds the last step ended)."""
        gs = self.gs[g]
        if gs[L.F_REASON] < 0:
            return None
        n = self.num_players
        seats = [s for s in range(n) if (gs[L.F_SEATS] >> s) & 1]
        double = int(gs[L.F_DOUBLE])

        def listed(field: int) -> list[int]:
            return [s for s in range(n) if (gs[field] >> s) & 1]

        return {
            "reason": REASONS[gs[L.F_REASON]],
            "seats": seats,
            "values": {s: gs[L.F_VALS + s] / 2.0 for s in seats},
            "losses": {s: 2 if s == double else 1 for s in listed(L.F_LOSERS)},
            "losers": listed(L.F_LOSERS),
            "went_out": listed(L.F_WENT_OUT),
            "bought_in": listed(L.F_BOUGHT_IN),
            "lives_after": [int(x) for x in self.lives[g]],
            "out_after": [bool(x) for x in self.out[g]],
            "knocker": None if gs[L.F_RES_KNOCKER] < 0 else int(gs[L.F_RES_KNOCKER]),
            "blitz_holders": listed(L.F_RES_BLITZ),
            "tie_breaks": int(gs[L.F_TIE_BREAKS]),
            "turn_limit_reached": REASONS[gs[L.F_REASON]] == "turn_limit",
            "rounds_ended": int(gs[L.F_ENDED]),
        }

    # ------------------------------------------------------------------ errors
    def _decks_given(self) -> int:
        return int(self.cfg[L.C_ROUND_DECKS])

    def _where(self, g: int) -> str:
        return " at the discard step" if self.gs[g, L.F_STEP] == DISCARD else " at the draw step"

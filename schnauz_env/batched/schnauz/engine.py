"""Many Schnauz games stepped at once (:class:`BatchedSchnauz`): the contract of every
batched engine (:mod:`schnauz_env.batched.base`: ``reset``, ``step``, the outputs, auto
reset, seeding) for :mod:`schnauz_env.schnauz.engine` under any
:class:`~schnauz_env.schnauz.SchnauzConfig`; row ``g`` is what ``schnauz_v0`` shows.

Its own: the mask has the 14 actions of the rules floor; ``rewards`` are the AEC env's
place rewards, or with ``episode="round"`` its round rewards; :attr:`round_over` says
which games ended a round with the step. For replaying the reference, :meth:`reset`
takes the first dealers beside the decks (:func:`reference_decks`), and
:meth:`queue_replay_decks` the decks of replay deals (``ties="share"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schnauz_env.batched.base import LivesGame, dealer_and_decks
from schnauz_env.batched.jit import HAVE_NUMBA
from schnauz_env.batched.schnauz import loop as K
from schnauz_env.batched.schnauz import state as S
from schnauz_env.schnauz.config import MAX_PLAYERS, SchnauzConfig
from schnauz_env.schnauz.engine import ACTION_NAMES, NUM_ACTIONS, PHASE_NAMES, REASONS
from schnauz_env.schnauz.hands import key_table, min_key
from schnauz_env.schnauz.observation import ObservationLayout

__all__ = ["HAVE_NUMBA", "REPLAY_SLOTS", "BatchedSchnauz", "key_table", "reference_decks"]

#: External mode: room for this many queued replay decks per game.
REPLAY_SLOTS = 16


def rounds_bound(config: SchnauzConfig) -> int:
    """Most rounds a game can last: every round costs at least one life or a seat."""
    return config.num_players * (config.lives + 1)


def reference_decks(
    config: SchnauzConfig, seed: int, count: int | None = None
) -> tuple[int, np.ndarray]:
    """The first dealer and the shuffles the reference draws from ``default_rng(seed)``.

    The reference engine draws ``rng.integers(n)`` for the first dealer, then one
    ``rng.permutation(deck_size)`` per round (replay deals use a generator of their
    own). Returns ``(dealer, perms)`` with ``perms`` of shape ``(count, deck_size)``
    (by default enough rounds for the longest game), ready for
    ``reset(decks=..., dealers=...)``.
    """
    count = count if count is not None else rounds_bound(config)
    return dealer_and_decks(config, seed, count, config.deck_size)


class BatchedSchnauz(LivesGame[SchnauzConfig]):
    """``num_games`` Schnauz games under one rules config, stepped together.

    ``config`` (or rule options as keywords, as for ``schnauz_v0.env``) sets the
    rules. ``observe`` builds the acting player's view after every step.
    ``keep_points`` and ``knock_points`` (whole points) tune :meth:`greedy_actions`,
    as ``keep_at`` and ``knock_at`` tune ``policies.schnauz.GreedyPolicy``.
    """

    FIELDS = S
    KERNELS = K
    ACTION_NAMES = ACTION_NAMES
    PHASE_NAMES = PHASE_NAMES
    GAME = "Schnauz"
    QUEUE_SLOTS = REPLAY_SLOTS
    CONFIG = SchnauzConfig

    def __init__(
        self, *args: Any, keep_points: int = 16, knock_points: int = 26, **kwargs: Any
    ) -> None:
        """:class:`~schnauz_env.batched.base.BatchedGame`'s arguments (``num_games``,
        ``config``, ``seed``, ``observe``, ``auto_reset``, rule options), and the greedy
        player's ``keep_points`` and ``knock_points``."""
        self._greedy_points = (keep_points, knock_points)
        super().__init__(*args, **kwargs)

    def _build(self, config: SchnauzConfig, observe: bool, auto_reset: bool) -> None:
        keep_points, knock_points = self._greedy_points
        b, n = self.num_games, self.num_players
        self.obs = self._outputs(
            ObservationLayout(config), observe, auto_reset, NUM_ACTIONS, MAX_PLAYERS
        )
        self.keys = key_table(config)
        cfg = np.zeros(S.NCFG, dtype=np.int64)
        cfg[S.C_N] = n
        cfg[S.C_NC] = config.deck_size
        cfg[S.C_LIVES] = config.lives
        cfg[S.C_KNOCK_FIRST] = int(config.knock_in_first_circle)
        cfg[S.C_RECYCLE] = int(config.short_stock == "recycle")
        cfg[S.C_FIRE_ALL] = int(config.fire_costs_all)
        cfg[S.C_MAX_TURNS] = config.max_turns
        cfg[S.C_ROUND_EP] = int(config.episode == "round")
        cfg[S.C_FIRST_DEALER] = -1 if config.first_dealer is None else config.first_dealer
        cfg[S.C_KEEP_KEY] = min_key(keep_points)
        cfg[S.C_KNOCK_KEY] = min_key(knock_points)
        self.cfg = cfg
        self.cards = np.full((b, S.CW), -1, dtype=np.int8)
        self.known = np.zeros((b, MAX_PLAYERS), dtype=np.int64)
        self._state = S.State(
            cfg,
            self.keys,
            np.zeros((b, S.NF), dtype=np.int32),
            self.cards,
            self.known,
            np.zeros((b, S.NFL), dtype=np.float64),
            np.zeros((b, S.NRNG), dtype=np.int64),
            np.zeros((1, 1, 1), dtype=np.int8),
        )
        self.perms = self._state.perms
        self.round_over = self._decided = np.zeros(b, dtype=np.int8)
        self._no_counts = np.full(MAX_PLAYERS, -1, dtype=np.int32)

    @property
    def kernel_state(self) -> S.State:
        """The arrays the kernels (``k_reset``, ``k_step``, ``k_vec``, ...) take first."""
        return self._state

    def _set_perms(self, perms: np.ndarray) -> None:
        self.perms = perms
        self._state = self._state._replace(perms=perms)

    def _reset_kernel(self, dealers: np.ndarray, lives: np.ndarray) -> int:
        errors = K.k_reset(
            self._state, dealers, lives, self.mask, self.obs, self.observing, self._all
        )
        self._auto = self.auto_reset and not self.cfg[S.C_EXTERNAL]
        return errors

    # -------------------------------------------------------------------- API
    def queue_replay_decks(self, g: int, decks: np.ndarray) -> None:
        """External mode: the decks game ``g``'s next replay deals take, in order.

        The reference deals replays from ``SchnauzState.replay_rng()``; give here the
        permutations that generator draws (up to 16) before the step that needs them.
        """
        self._queue_decks(g, decks, "queue_replay_decks", "replay", S.F_RPTR, S.F_REND)

    def _play_random_kernel(self, steps: int) -> int:
        return K.k_play_random(self._state, self._rewards, self.obs, steps, self.observing)

    # ---------------------------------------------------------------- state views
    def hands(self, g: int) -> list[list[int]]:
        """The hands of game ``g`` as card ints (the reference's ``state.hands``)."""
        lo = 4 * self.config.min_rank
        rows = self.cards[g, S.O_HANDS : S.O_HANDS + 3 * self.num_players].reshape(-1, 3)
        return [[int(c) + lo for c in row if c >= 0] for row in rows]

    def table(self, g: int) -> list[int]:
        lo = 4 * self.config.min_rank
        return [int(c) + lo for c in self.cards[g, S.O_TABLE : S.O_TABLE + 3] if c >= 0]

    def last_result(self, g: int) -> dict[str, Any] | None:
        """The latest showdown of game ``g``, as fields of the reference's ``RoundResult``."""
        gs = self.gs[g]
        if gs[S.F_REASON] < 0:
            return None
        n = self.num_players
        return {
            "reason": REASONS[gs[S.F_REASON]],
            "losers": [s for s in range(n) if (gs[S.F_LOSERS] >> s) & 1],
            "went_out": [s for s in range(n) if (gs[S.F_WENT_OUT] >> s) & 1],
            "knocker": None if gs[S.F_RES_KNOCKER] < 0 else int(gs[S.F_RES_KNOCKER]),
            "fire_holder": None if gs[S.F_FIRE] < 0 else int(gs[S.F_FIRE]),
            "turn_limit_reached": int(gs[S.F_REASON]) == S.R_TURN_LIMIT,
            "lives_after": [int(x) for x in self.lives[g]],
            "out_after": [bool(x) for x in self.out[g]],
        }

    # ------------------------------------------------------------------ errors
    QUEUE_ERRORS = {
        "ERR_NO_REPLAY_DECK": "needs a replay deal: queue its decks with queue_replay_decks()"
    }

    def _decks_given(self) -> int:
        return int(self.cfg[S.C_ROUND_DECKS])

"""Many Thirteen games (or matches) stepped at once (:class:`BatchedThirteen`): the
contract of every batched engine (:mod:`schnauz_env.batched.base`: ``reset``, ``step``,
the outputs, auto reset, seeding) for :mod:`schnauz_env.thirteen.engine` under any
:class:`~schnauz_env.thirteen.ThirteenConfig`; row ``g`` is what ``thirteen_v0`` shows.

Its own: the mask has 54 actions (a card selected weakest first, *play*, *pass*), and
``obs`` 245 floats; an episode is a game or, with ``episode="match"``, a match.
:attr:`result` tells, per game, whether the step gave a result (a player went out, a
game ended) and :meth:`last_result` what it was. Do not write into the returned
arrays: while a player builds a play, only the card selected is written into their
view. :meth:`reset` takes one deck per game of the episode (:func:`reference_decks`)
and the starting match points.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schnauz_env.batched.base import BatchedGame, check_decks, field_view
from schnauz_env.batched.jit import HAVE_NUMBA
from schnauz_env.batched.thirteen import kernels as K
from schnauz_env.batched.thirteen import layout as L
from schnauz_env.batched.thirteen.tables import instant_names, tables
from schnauz_env.thirteen.combos import CARD_OF
from schnauz_env.thirteen.config import ThirteenConfig
from schnauz_env.thirteen.engine import ACTION_NAMES, NUM_ACTIONS, PHASE_NAMES, REASONS
from schnauz_env.thirteen.observation import ObservationEncoder, ObservationLayout

__all__ = ["HAVE_NUMBA", "BatchedThirteen", "reference_decks"]

DECK_SIZE = L.DECK_SIZE


def reference_decks(config: ThirteenConfig, seed: int, count: int | None = None) -> np.ndarray:
    """The decks the reference deals from ``default_rng(seed)``: one
    ``rng.permutation(52)`` per game (card ints, top first), ``(count, 52)`` int8,
    ready to be stacked for ``reset(decks=...)``. ``count`` defaults to the most games an
    episode can have (1, or ``max_games`` for a match)."""
    if count is None:
        count = config.max_games if config.episode == "match" else 1
    rng = np.random.default_rng(seed)
    cards = np.array([int(c) for c in config.deck_cards], dtype=np.int8)
    return np.stack([cards[rng.permutation(len(cards))] for _ in range(count)])


class BatchedThirteen(BatchedGame[ThirteenConfig]):
    """``num_games`` Thirteen games (or matches) under one rules config, stepped together.

    ``config`` (or rule options as keywords, as for ``thirteen_v0.env``) sets the rules;
    ``observe`` builds the acting player's view after every step.
    """

    FIELDS = L
    KERNELS = K
    ACTION_NAMES = ACTION_NAMES
    PHASE_NAMES = PHASE_NAMES
    GAME = "Thirteen"
    CONFIG = ThirteenConfig

    def _build(self, config: ThirteenConfig, observe: bool, auto_reset: bool) -> None:
        b, n = self.num_games, self.num_players
        self.obs = self._outputs(ObservationLayout(config), observe, auto_reset, NUM_ACTIONS, L.P)
        self.tables = tables()
        cfg = np.zeros(L.NCFG, dtype=np.int64)
        cfg[L.C_N] = n
        cfg[L.C_MATCH] = int(config.episode == "match")
        cfg[L.C_TARGET] = config.target_points
        cfg[L.C_INCLUDE] = int(config.opening == "include")
        cfg[L.C_OUT_CLEARS] = int(config.out_clears_table)
        cfg[L.C_INSTANT] = int(config.instant_wins)
        cfg[L.C_MAX_GAMES] = config.max_games
        cfgf = np.zeros(L.NCFGF, dtype=np.float64)
        cfgf[L.CF_SCORE_SCALE] = ObservationEncoder(config).score_scale
        self.state = L.State(
            cfg=cfg,
            cfgf=cfgf,
            gs=np.zeros((b, L.NF), dtype=np.int32),
            bits=np.zeros((b, L.NB), dtype=np.int64),
            fl=np.zeros((b, L.NL), dtype=np.float64),
            rng=np.zeros((b, L.NRNG), dtype=np.int64),
            deck=np.zeros((b, DECK_SIZE), dtype=np.int8),
            perms=np.zeros((1, 1, DECK_SIZE), dtype=np.int8),
        )
        self.result = self._decided = np.zeros(b, dtype=np.int8)
        """Per game, what the last step decided: 0 nothing, else 1 + the reason of
        :meth:`last_result` (1 a player went out, 2 a game over, 3 an instant win)."""
        self._no_counts = np.full(L.P, -1, dtype=np.int32)
        self._auto = self.auto_reset

    @property
    def kernel_state(self) -> L.State:
        """The arrays the kernels (``k_reset``, ``k_step``, ...) take after the tables."""
        return self.state

    # -------------------------------------------------------------------- API
    def reset(
        self,
        seed: int | None = None,
        decks: np.ndarray | None = None,
        scores: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Start every episode afresh; return ``(obs, mask)`` of the players to act.

        ``decks`` (``(B, K, 52)``: per game, the decks of its first ``K`` games as card
        ints, top first, as :func:`reference_decks` makes them) replaces the games' own
        shuffles, exactly as the reference's ``rng.permutation`` (or a stacked deck);
        auto-reset is then off. ``scores`` (``(B, n)``) sets the starting match points.
        """
        b = self.num_games
        # Every argument is checked before anything changes: a refused reset leaves the
        # games, their generators and their decks as they were.
        if decks is not None:
            decks = check_decks(decks, b, DECK_SIZE, unit="games")
        sc = self._per_seat("scores", scores)
        if scores is not None:
            sc[:, self.num_players :] = 0
        if seed is not None:
            self.seed(seed)
        cfg = self.state.cfg
        if decks is not None:
            self.state = self.state._replace(perms=decks)
            cfg[L.C_DECKS] = decks.shape[1]
            cfg[L.C_EXTERNAL] = 1
        else:
            self.state = self.state._replace(perms=np.zeros((1, 1, DECK_SIZE), dtype=np.int8))
            cfg[L.C_DECKS] = 0
            cfg[L.C_EXTERNAL] = 0
        errors = K.k_reset(
            self.tables, self.state, sc, self.mask, self.obs, self.observing, self._all
        )
        self._auto = self.auto_reset and not cfg[L.C_EXTERNAL]
        return self._started_with(errors)

    def _kernel_args(self) -> tuple[Any, ...]:
        return self.tables, self.state

    def _play_random_kernel(self, steps: int) -> int:
        return K.k_play_random(
            self.tables, self.state, self._rewards, self.obs, steps, self.observing
        )

    # ---------------------------------------------------------------- state views
    games = field_view("F_GAME", "Games finished in each match (the reference's ``game``).")
    scores = field_view("F_SCORES", "``(B, n)`` match points.", per_seat=True)
    points = field_view(
        "F_POINTS", "``(B, n)`` points of each match's latest finished game.", per_seat=True
    )

    @property
    def terminated(self) -> np.ndarray:
        """``(B, n)``: each seat's episode is over (its place is decided, or the game is)."""
        n = self.num_players
        settled = (self.gs[:, L.F_SETTLED, None] >> np.arange(n)) & 1
        return settled.astype(bool) | self.game_over[:, None]

    def legal_actions(self, g: int) -> list[int]:
        """The legal actions of the player to act in game ``g``, ascending."""
        legal = int(self.state.bits[g, L.B_LEGAL])
        return [a for a in range(NUM_ACTIONS) if (legal >> a) & 1]

    def _cards(self, g: int, column: int) -> list[int]:
        x = int(self.state.bits[g, column])
        return [int(CARD_OF[s]) for s in range(DECK_SIZE) if (x >> s) & 1]

    def hands(self, g: int) -> list[list[int]]:
        """The hands of game ``g`` as card ints, weakest first (the reference's ``hands``)."""
        return [self._cards(g, L.B_HAND + s) for s in range(self.num_players)]

    def table(self, g: int) -> list[int]:
        """The play to beat in game ``g`` (card ints, weakest first; empty when clear)."""
        return self._cards(g, L.B_TABLE)

    def selection(self, g: int) -> list[int]:
        """The cards selected for the play being built in game ``g``."""
        return self._cards(g, L.B_SEL)

    def played(self, g: int) -> list[int]:
        """Every card played in the current game of game ``g``, weakest first."""
        return self._cards(g, L.B_PLAYED)

    def finish_order(self, g: int) -> list[int]:
        """Seats out of cards in the current game of game ``g``, in order."""
        gs = self.gs[g]
        return [int(s) for s in gs[L.F_FINISH : L.F_FINISH + gs[L.F_NOUT]]]

    def last_result(self, g: int) -> dict[str, Any] | None:
        """The latest result of game ``g``, as the reference's ``GameResult.to_dict()``."""
        gs = self.gs[g]
        if gs[L.F_REASON] < 0:
            return None
        n = self.num_players
        reason = int(gs[L.F_REASON])
        decided = int(gs[L.F_DECIDED])
        over = reason != L.R_OUT
        return {
            "game": int(gs[L.F_RES_GAME]),
            "reason": REASONS[reason],
            "went_out": int(gs[L.F_WENT_OUT]),
            "finish_order": [
                int(s) for s in gs[L.F_RES_FINISH : L.F_RES_FINISH + gs[L.F_RES_NOUT]]
            ],
            "points": {s: int(gs[L.F_POINTS + s]) for s in range(n)} if over else {},
            "scores": [int(x) for x in gs[L.F_SCORES : L.F_SCORES + n]],
            "places": {s: float(self.places[g, s]) for s in range(n) if (decided >> s) & 1},
            "match_over": bool(gs[L.F_MATCH_OVER]),
            "match_limit_reached": bool(gs[L.F_LIMIT]),
            "instant_win": instant_names()[int(gs[L.F_INSTANT_WIN])],
        }

    # ------------------------------------------------------------------ errors
    def _decks_given(self) -> int:
        return int(self.state.cfg[L.C_DECKS])

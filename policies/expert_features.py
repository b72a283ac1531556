"""``schnauz-expert-v1``: the expert's estimates as features, for a network to build on.

A network trained from the observation has to rediscover, from one-hot cards, what the
``expert`` computes by simulation: how likely each move leaves it with the lowest hand,
how likely a knock now loses. Cloning the expert that way agrees with it on only about
85% of its moves, and reinforcement learning from there has stayed at the expert's
level. This feature set hands the network the expert's own numbers, so it can play the
expert exactly and learn *where to deviate* (residual policy learning): its knock
threshold per situation, a move the estimate undervalues.

The block is :mod:`schnauz_env.schnauz.features`' move features (``schnauz-moves-v1``,
64 numbers) followed by 50 numbers computed with the expert's compiled kernels
(:mod:`policies.expert_jit`: the same opponent model, the same sample counts), in order:

================  ==  ==================================================================
``turn_value``    11  ordinary turns: the expert's value of each move (swap ``i`` with
                      ``j``, swap all, pass): minus the risk of holding the lowest hand
                      (now and after one more swap) and of what the table feeds the next
                      player; 0 outside ordinary turns
``turn_best``     11  one-hot: the move of the highest value (the expert's move unless
                      it knocks or takes a Fire / Schnauz)
``final_loss``    11  final circle: per move, the share of sampled deals in which the
                      players still to reply leave us with the lowest hand
``final_best``    11  one-hot: the move of the least ``final_loss`` (ties: the better hand)
``knock``          3  ordinary turns before any knock: the simulated chance that a knock
                      now loses, the expert's knock limit (first turn of the round), and 1
                      if the expert would knock
``dealer``         3  dealer's choice: the value of keeping, of exchanging, and 1 if the
                      expert keeps
================  ==  ==================================================================

The parameters of those estimates (sample counts, knock share, opponent model, ...) are
frozen with the feature set's version: :data:`V1_PARAMS` holds the values of
:class:`~policies.schnauz.ExpertParams` when v1 shipped, written out, so retuning the
expert changes neither these features nor the moves of a model trained on them (a new
parameter set is a new feature-set name, e.g. ``schnauz-expert-v2``).
``tests/test_expert_features_golden.py`` holds the features of a fixed set of states.

The numbers are Monte Carlo estimates from the seat's observation only (nothing hidden is
used). Each row's samples are drawn from a generator seeded with a hash of that row (and
the feature set's ``seed``), so the features are a deterministic function of the
observation: the same view gives the same numbers in any batch, and a model that uses
them plays the same move every time it sees the same view. Needs numba for speed (the ``fast`` extra): about 30 µs a
row in batches; without it, the same code runs as Python (milliseconds a row).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from policies import expert_jit as EJ
from policies.expert_jit import NUM_MOVES
from policies.schnauz import ExpertParams
from schnauz_env.schnauz.config import SchnauzConfig
from schnauz_env.schnauz.engine import DEALER_CHOICE, FINAL_CIRCLE, TURNS

FEATURES_NAME = "schnauz-expert-v1"
#: Every :class:`~policies.schnauz.ExpertParams` field of ``schnauz-expert-v1``, frozen (the
#: expert's defaults when v1 shipped). Not the live defaults: a model's inputs must not move
#: when the expert is retuned. A new field of ``ExpertParams`` must be added here (a test
#: checks that every field is spelled out).
V1_VALUES: dict[str, Any] = {
    "samples": 48,
    "knock_share": 0.55,
    "lives_slope": 0.08,
    "swim_factor": 0.85,
    "stuck_share": 1.0,
    "min_knock": 19.0,
    "patience": 12,
    "lookahead": 0.5,
    "feed_penalty": 0.25,
    "skill": (14, 8, 2),
    "keep_margin": 0.0,
    "feed_samples": 12,
    "value": "risk",
    "risk_now": 0.6,
    "table_samples": 16,
    "feed_risk": 0.01,
    "final_mc": True,
}
V1_PARAMS = ExpertParams(**V1_VALUES)
TV, TB, FL, FB, KN, DL = 0, 11, 22, 33, 44, 47
EXPERT_SIZE = 50


def _k_values(obs, key, pts, risk, prm, lay, seeds, out):
    """The expert block of every row of ``obs`` into ``out`` (zeros where it is empty);
    row ``r``'s samples are drawn after seeding with ``seeds[r]``."""
    ex = EJ._expert(key, pts, risk, prm, lay)
    owned = EJ._workspace(ex.prm, None)  # np.random, seeded per row below
    ws = EJ._borrow(owned)
    mk, mv = ws.mk, ws.mv
    samples = ex.prm.samples
    for r in range(obs.shape[0]):
        np.random.seed(seeds[r])
        for q in range(out.shape[1]):
            out[r, q] = 0.0
        view = EJ._decode(obs, r, ex.lay, ws)
        if not EJ._usable(view, ex.lay):
            continue
        if view.phase == DEALER_CHOICE:
            keep, exchange = EJ._dealer_values(ex, ws, view)
            out[r, DL] = keep
            out[r, DL + 1] = exchange
            out[r, DL + 2] = 1.0 if EJ._dealer_keeps(ex.prm, keep, exchange) else 0.0
            continue
        if view.nt != 3:
            continue
        EJ._candidates(ex.key, ws)
        if view.phase == TURNS:
            smp = EJ._turn_samples(ex, ws, view)
            best_m = EJ._turn_values(ex, ws, view.nact, smp)
            for m in range(NUM_MOVES):
                out[r, TV + m] = mv[m]
            out[r, TB + best_m] = 1.0
            if view.knocker < 0:  # ExpertPolicy._should_knock, every sample counted
                mine = mk[EJ.M_PASS]
                est = EJ._knock_losses(ex, ws, view, mine, 0.0, False) / samples
                stuck = True
                for m in range(EJ.M_PASS):
                    if mk[m] > mine:
                        stuck = False
                limit = EJ._knock_limit(ex.prm, ws, view, stuck, 1)
                out[r, KN] = est
                out[r, KN + 1] = limit
                hand = ws.hand
                if ex.pts[hand[0], hand[1], hand[2]] >= ex.prm.min_knock and est < limit:
                    out[r, KN + 2] = 1.0
        elif view.phase == FINAL_CIRCLE:
            no = EJ._final_order(view, ws.outp, ws.order)
            if no > 0:
                EJ._deal_samples(ex, ws, view, samples)
            best_m = -1
            for m in range(NUM_MOVES):
                if no > 0:
                    losses = EJ._move_losses(ex.key, ws, view.n, samples, no, m, -1)
                    out[r, FL + m] = losses / samples
                if (
                    best_m < 0
                    or out[r, FL + m] < out[r, FL + best_m]
                    or (out[r, FL + m] == out[r, FL + best_m] and mk[m] > mk[best_m])
                ):
                    best_m = m
            out[r, FB + best_m] = 1.0
    EJ._release(owned)


_kernel: Any = None


def _compiled_kernel() -> Any:
    global _kernel
    if _kernel is None:
        EJ._compile()  # the helpers this kernel calls, as numba functions
        from schnauz_env.batched import jit

        _kernel = jit.njit(_k_values) if EJ._compiled and jit.HAVE_NUMBA else _k_values
    return _kernel


class ExpertFeatures:
    """The ``schnauz-expert-v1`` feature set: ``obs_batch -> obs ++ moves ++ expert``."""

    name = FEATURES_NAME
    #: The expert parameters of this version (frozen; see the module docs).
    params: ExpertParams = V1_PARAMS

    def __init__(self, config: SchnauzConfig, seed: int = 0) -> None:
        from schnauz_env.schnauz.features import MoveFeatures

        self.config = config
        self.moves = MoveFeatures(config)
        self.obs_size = self.moves.obs_size
        self.size = self.moves.size + EXPERT_SIZE
        self._ex = EJ.kernel_inputs(config, self.params)
        # Row hash: a fixed random projection of the observation, its bits as the seed.
        self._mix = np.random.default_rng(seed).random(self.obs_size) * 2.0**20
        self._kernel = _compiled_kernel()

    def seeds(self, obs: np.ndarray) -> np.ndarray:
        """The per-row seeds of a batch: a hash of each observation (uint32 range)."""
        h = np.asarray(obs, dtype=np.float64) @ self._mix
        return (np.floor(h * 4096.0) % 2**32).astype(np.int64)

    def expert_block(self, obs: np.ndarray) -> np.ndarray:
        """The 50 expert numbers of a batch ``(B, obs_size)`` of observations."""
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"observations of shape {obs.shape}, expected (B, {self.obs_size})")
        out = np.zeros((obs.shape[0], EXPERT_SIZE), dtype=np.float64)
        if obs.shape[0]:
            seeds = self.seeds(obs)
            self._kernel(obs, *self._ex, seeds, out)
        return out.astype(np.float32)

    def features(self, obs: np.ndarray) -> np.ndarray:
        """The whole feature block (move features, then the expert's numbers)."""
        obs = np.asarray(obs, dtype=np.float32)
        single = obs.ndim == 1
        batch = obs[None] if single else obs
        out = np.concatenate([self.moves.features(batch), self.expert_block(batch)], axis=-1)
        return out[0] if single else out

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` with its feature block appended (last axis)."""
        obs = np.asarray(obs, dtype=np.float32)
        return np.concatenate([obs, self.features(obs)], axis=-1)

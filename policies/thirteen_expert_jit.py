"""``expert-jit`` for Thirteen: the ``expert`` Thirteen player compiled with numba, for batches.

:class:`ThirteenExpertJitPolicy` is a compiled copy of :class:`policies.thirteen.ExpertPolicy`
(the reference; its module docstring explains the ideas): the same plan from the
cheapest partition of the hand, the same leads, replies and passes, the same tunables
(``spend_penalty``, ``margin``), many times faster when called with a batch
(:meth:`ThirteenExpertJitPolicy.act_batch`; ``bench/thirteen_expert_jit_speed.py``). It
exists to be the opponent and the teacher of Thirteen training runs, and its kernel
computes the ``thirteen-expert-v1`` features (:mod:`policies.thirteen_features`).

**The same moves.** The reference draws no random number: its move is a function of
the observation. The kernels follow it step by step, so that every tie is broken the
same way:

* the legal plays are enumerated shape by shape (kind, lowest rank, cards) in the order
  of :func:`~schnauz_env.thirteen.combos.plays_strengths`, each shape's suit choices in
  the same (itertools) order, filtered by the opening card and the cards already
  selected; per shape the kernels keep the cheapest choice of suits (the reference's
  ``cheapest_suits``: the least sum of strengths, the first on a tie) and the one with
  the strongest top card (its ``_concrete``: the first on a tie);
* :func:`~policies.thirteen.decompose` (the cheapest partition of a hand into groups) is
  the same search, memoised per decision over the sub-hands of the hand (a mixed-radix
  index of the cards left per rank) and run with an explicit stack; the group costs are
  the reference's own :func:`~policies.thirteen._group_cost`, tabulated, and every
  score is the reference's arithmetic in the reference's order, so the floats are equal
  to the last bit and ``min`` keeps the same first minimum;
* "can the unseen cards beat it" (:func:`~schnauz_env.thirteen.combos.can_beat`) reads
  the unseen cards per rank, as the reference does.

``tests/test_thirteen_expert_jit.py`` holds the two players to the same move on every
decision of many games (2, 3 and 4 players, every rule option), and the golden file of
``thirteen-expert-v1`` holds the features.

The rest follows :mod:`policies.scat_expert_jit`: numba is imported only when the first
policy or feature set is built (the kernels are plain module-level Python until their
:class:`~policies.jit_support.KernelSet` rebinds them to ``numba.njit(cache=True)``
versions; without numba they stay Python, correct and slow). The action ids
(:mod:`schnauz_env.thirteen.engine`), the combination kinds and ranks
(:mod:`schnauz_env.thirteen.combos`) and the observation layout
(:class:`~schnauz_env.thirteen.observation.ObservationLayout`'s blocks, in a record)
come by import; the tunables come in a record (:data:`PARAMS_DTYPE`), the arrays one
decision works in as a :class:`Workspace`.

The one difference: should a caller's action mask forbid the expert's move (never with
the engine's masks; the reference raises ``RuntimeError``), the first legal action is
played.
"""

from __future__ import annotations

from collections import namedtuple
from itertools import combinations
from typing import Any

import numpy as np

from policies import jit_support as support
from policies.base import register_policy
from policies.jit_support import first_legal
from policies.thirteen import ExpertPolicy, _group_cost
from schnauz_env.thirteen.combos import (
    ACE,
    DOUBLE_SEQUENCE,
    NUM_KINDS,
    QUAD,
    SEQUENCE,
    SINGLE,
    TRIPLE,
    TWO,
)
from schnauz_env.thirteen.config import HAND_SIZE, MAX_PLAYERS, ThirteenConfig
from schnauz_env.thirteen.engine import NUM_ACTIONS, NUM_CARD_ACTIONS, PASS, PLAY
from schnauz_env.thirteen.observation import SEAT_FEATURES, ObservationLayout

NC = NUM_CARD_ACTIONS  # cards, by strength
NR = TWO + 1  # ranks
#: The most cards of one rank.
PER_RANK = NC // NR
#: The most sub-hands of a hand (cards left per rank): 2**13, thirteen ranks of one card.
MAX_SUBHANDS = 1 << HAND_SIZE
#: The most shapes (kind, lowest rank, cards) of one decision's plays: of a kind 4 * 13,
#: sequences of 3..12 ranks, double sequences of 3..6 pairs.
MAX_SHAPES = (
    4 * NR + sum(ACE + 2 - n for n in range(3, ACE + 2)) + sum(ACE + 2 - n for n in range(3, 7))
)
#: The most blocks of shapes (a kind and a length) of one decision's plays.
MAX_BLOCKS = PER_RANK + (ACE + 2 - 3) + 4
#: The most partition options of one sub-hand: of a kind 1..4, sequences and double
#: sequences of 3..12 ranks.
MAX_OPTIONS = PER_RANK + 2 * (ACE + 1)
#: The explicit stack of the partition search: each of the at most 13 levels pushes its options.
STACK = HAND_SIZE * MAX_OPTIONS + 1
NO_GROUP = -1
#: 5**rank: a sub-hand's key is its cards per rank in base 5 (the cache's key).
P5 = np.array([5**q for q in range(NR)], dtype=np.int64)
#: Entries of the partition cache (a prime: a key's slot is the key modulo it).
CACHE_SIZE = 524287
#: The cache's ``cinfo``: groups * INFO + the first group (:func:`_pack`).
INFO = 4096

#: What a group left in hand costs (:func:`policies.thirteen._group_cost`), by kind,
#: lowest rank and cards (NaN where there is no such group).
GROUP_COST = np.full((NUM_KINDS, NR, NC // 4 + 1), np.nan)
for _r in range(NR):
    for _k in range(1, PER_RANK + 1):
        GROUP_COST[_k - 1, _r, _k] = _group_cost(_k - 1, _r, _k)
    for _n in range(3, ACE + 2 - _r):
        GROUP_COST[SEQUENCE, _r, _n] = _group_cost(SEQUENCE, _r, _n)
        if 2 * _n < GROUP_COST.shape[2]:
            GROUP_COST[DOUBLE_SEQUENCE, _r, 2 * _n] = _group_cost(DOUBLE_SEQUENCE, _r, 2 * _n)

#: ``itertools.combinations(range(n), m)`` in order: COMBS[n, m, i] is the i-th (its
#: first ``m`` entries), NCOMBS[n, m] how many there are.
COMBS = np.zeros((PER_RANK + 1, PER_RANK + 1, 6, PER_RANK), dtype=np.int64)
NCOMBS = np.zeros((PER_RANK + 1, PER_RANK + 1), dtype=np.int64)
for _n in range(PER_RANK + 1):
    for _m in range(PER_RANK + 1):
        for _i, _c in enumerate(combinations(range(_n), _m)):
            COMBS[_n, _m, _i, :_m] = _c
            NCOMBS[_n, _m] += 1

# ------------------------------------------------------------------ what the kernels take
#: The observation blocks the kernels read (:class:`~schnauz_env.thirteen.observation.ObservationLayout`).
OBS_BLOCKS = ("hand", "selected", "table", "played", "seats", "to_act")
#: Where those blocks start, the players at the table, and where the ``flags`` block
#: starts (a field of its own name: a recarray's ``flags`` is numpy's, in the fallback).
LAYOUT_DTYPE = support.layout_dtype(OBS_BLOCKS, [("n", np.int64), ("flag_block", np.int64)])
#: The tunables of :class:`~policies.thirteen.ExpertPolicy` the kernels read (:func:`param_record`).
PARAMS_DTYPE = support.params_dtype(ExpertPolicy, ("spend_penalty", "margin"))

#: The arrays one decision works in (:func:`_workspace`): the decoded view (the ``hand``,
#: the selected cards ``sel`` and the ``table``, strengths ascending; the hand's cards
#: per rank ``gcards``/``gn``; the unseen cards' count ``ucount`` and strongest card
#: ``utop`` per rank; ``opp_has[c]``: an opponent holding cards holds ``c``), the
#: shapes found (``skind``, ``slo``, ``ssize``, their ``cheap`` and ``strong`` suit
#: choices, ``sidx`` by kind, rank and cards), the partition search (the weights ``w``
#: of the sub-hand index, the memo ``stamp``/``mcost``/``mng``/``mgroup``/``mrest``,
#: the ``stack``, the options ``okind``/``olo``/``osize``/``ochild``/``ockey``, the
#: memo's keys ``mkey`` and a key's digits ``d``), the ``blocks`` of shapes and the
#: hand's ``run``\ s (:func:`_plays`), ``ints``: numbers (:data:`I_GEN`,
#: ...), ``gcost``: :data:`GROUP_COST` (an argument, so that a cached kernel never keeps
#: an old table when the reference's costs are retuned), and the partition cache
#: ``ckey``/``ccost``/``cinfo`` (:func:`partition_cache`, kept across calls).
Workspace = namedtuple(
    "Workspace",
    [
        "hand",
        "sel",
        "table",
        "gcards",
        "gn",
        "ucount",
        "utop",
        "opp_has",
        "skind",
        "slo",
        "ssize",
        "cheap",
        "strong",
        "sidx",
        "w",
        "stamp",
        "mcost",
        "mng",
        "mgroup",
        "mrest",
        "stack",
        "okind",
        "olo",
        "osize",
        "ochild",
        "ockey",
        "mkey",
        "d",
        "blocks",
        "run",
        "ints",
        "gcost",
        "ckey",
        "ccost",
        "cinfo",
    ],
)
#: ``Workspace.ints``: the memo's generation, the shapes found.
I_GEN, I_SHAPES = 0, 1
#: The numbers of a decoded observation (:func:`_decode`): hand, selection and table
#: sizes, the position to act (-1: none), the opening-card and declare flags, the fewest
#: cards an opponent holds (13: none).
View = namedtuple("View", ["nh", "k", "tn", "to_act", "opening", "declare", "min_opp"])


#: The kernels and the helpers they call, each marked where it is defined:
#: ``@_kernels.jit`` compiles it as a function of its own, ``@_kernels.inline`` inlines
#: it into its callers (numba's IR inlining: the small hot helpers).
_kernels = support.KernelSet(
    globals(),
    jit_names=("unmanaged_fields",),
    what="the compiled Thirteen expert",
    inline_imports=(first_legal,),
)


@_kernels.jit
def _workspace(gcost, ckey, ccost, cinfo):
    """Fresh arrays for :class:`Workspace` (one set per kernel call), with ``gcost`` and
    the cache."""
    return Workspace(
        np.zeros(NC + 1, dtype=np.int64),
        np.zeros(NC + 1, dtype=np.int64),
        np.zeros(NC + 1, dtype=np.int64),
        np.zeros((NR, PER_RANK), dtype=np.int64),
        np.zeros(NR, dtype=np.int64),
        np.zeros(NR, dtype=np.int64),
        np.zeros(NR, dtype=np.int64),
        np.zeros(HAND_SIZE + 2, dtype=np.bool_),
        np.zeros(MAX_SHAPES, dtype=np.int64),
        np.zeros(MAX_SHAPES, dtype=np.int64),
        np.zeros(MAX_SHAPES, dtype=np.int64),
        np.zeros((MAX_SHAPES, HAND_SIZE), dtype=np.int64),
        np.zeros((MAX_SHAPES, HAND_SIZE), dtype=np.int64),
        np.full((NUM_KINDS, NR, HAND_SIZE + 1), -1, dtype=np.int64),
        np.zeros(NR, dtype=np.int64),
        np.full(MAX_SUBHANDS, -1, dtype=np.int64),
        np.empty(MAX_SUBHANDS, dtype=np.float64),  # the memo: read only where stamped
        np.empty(MAX_SUBHANDS, dtype=np.int64),
        np.empty(MAX_SUBHANDS, dtype=np.int64),
        np.empty(MAX_SUBHANDS, dtype=np.int64),
        np.zeros(STACK, dtype=np.int64),
        np.zeros(MAX_OPTIONS, dtype=np.int64),
        np.zeros(MAX_OPTIONS, dtype=np.int64),
        np.zeros(MAX_OPTIONS, dtype=np.int64),
        np.zeros(MAX_OPTIONS, dtype=np.int64),
        np.zeros(MAX_OPTIONS, dtype=np.int64),
        np.empty(MAX_SUBHANDS, dtype=np.int64),
        np.zeros(NR, dtype=np.int64),
        np.zeros((MAX_BLOCKS, 4), dtype=np.int64),
        np.zeros((PER_RANK + 1, NR + 1), dtype=np.int64),
        np.zeros(2, dtype=np.int64),
        gcost,
        ckey,
        ccost,
        cinfo,
    )


def unmanaged_fields(ws):  # replaced by schnauz_env.batched.jit.unmanaged_fields when compiled
    """``ws`` with its arrays re-viewed without reference counting (valid while the
    kernel that made them holds ``ws``): every helper call would count 29 references."""
    return ws


# ------------------------------------------------------------------ decoding
@_kernels.inline
def _cards(obs, r, base, out):
    """The strengths set in the 52-card block at ``base`` of row ``r`` into ``out``
    (ascending); returns how many."""
    n = 0
    for s in range(NC):
        if obs[r, base + s] > 0.5:
            out[n] = s
            n += 1
    return n


@_kernels.jit
def _decode(obs, r, lay, ws):
    """What the reference's ``decode_observation`` and ``choose`` read from row ``r``:
    the hand by rank, the selection, the table, the unseen cards per rank, the
    opponents' card counts."""
    nh = _cards(obs, r, lay.hand, ws.hand)
    k = _cards(obs, r, lay.selected, ws.sel)
    tn = _cards(obs, r, lay.table, ws.table)
    for q in range(NR):
        ws.gn[q] = 0
        ws.ucount[q] = 0
        ws.utop[q] = -1
    for i in range(nh):
        q = ws.hand[i] >> 2
        ws.gcards[q, ws.gn[q]] = ws.hand[i]
        ws.gn[q] += 1
    for s in range(NC):  # unseen: neither played (the table's included) nor in the hand
        if obs[r, lay.played + s] <= 0.5 and obs[r, lay.hand + s] <= 0.5:
            ws.ucount[s >> 2] += 1
            ws.utop[s >> 2] = s
    for c in range(HAND_SIZE + 2):
        ws.opp_has[c] = False
    min_opp = HAND_SIZE
    for pos in range(1, lay.n):
        f = lay.seats + SEAT_FEATURES * pos
        if obs[r, f + 1] > 0.5:  # still holding cards
            left = int(np.floor(np.float64(obs[r, f + 2]) * HAND_SIZE + 0.5))
            left = min(max(left, 0), HAND_SIZE + 1)
            ws.opp_has[left] = True
            min_opp = min(min_opp, left)
    to_act = -1
    for pos in range(MAX_PLAYERS):
        if obs[r, lay.to_act + pos] > 0.5:
            to_act = pos
            break
    opening = obs[r, lay.flag_block + 1] > 0.5
    declare = obs[r, lay.flag_block + 2] > 0.5
    return View(nh, k, tn, to_act, opening, declare, min_opp)


# ------------------------------------------------------------------ combinations
@_kernels.jit
def _classify(ss, k):
    """classify_strengths of ``ss[:k]`` (ascending): its kind, or -1 (not a combination)."""
    if k == 0:
        return -1
    lo, hi = ss[0] >> 2, ss[k - 1] >> 2
    if lo == hi:
        return k - 1 if k <= 4 else -1
    if hi == TWO or k < 3:
        return -1
    if hi - lo == k - 1:
        run = True
        for i in range(k):
            if ss[i] >> 2 != lo + i:
                run = False
                break
        if run:
            return SEQUENCE
    if k >= 6 and k % 2 == 0 and hi - lo == k // 2 - 1:
        for i in range(0, k, 2):
            q = lo + i // 2
            if ss[i] >> 2 != q or ss[i + 1] >> 2 != q:
                return -1
        return DOUBLE_SEQUENCE
    return -1


@_kernels.inline
def _has_run(ws, length, need, top):
    """combos._has_run on the unseen cards."""
    run = 0
    for q in range(ACE + 1):
        run = run + 1 if ws.ucount[q] >= need else 0
        if run >= length and ws.utop[q] > top:
            return True
    return False


@_kernels.inline
def _can_beat(ws, kind, size, top):
    """combos.can_beat(unseen, Combo(kind, size, top))."""
    top_rank = top >> 2
    if kind <= QUAD:
        for q in range(top_rank, NR):
            if ws.ucount[q] >= size and ws.utop[q] > top:
                return True
    else:
        need = 1 if kind == SEQUENCE else 2
        length = size if kind == SEQUENCE else size // 2
        if _has_run(ws, length, need, top):
            return True
    if top_rank == TWO and kind <= TRIPLE:
        if kind == SINGLE:
            for q in range(NR):
                if ws.ucount[q] == 4:
                    return True
        return _has_run(ws, 3 + kind, 2, -1)
    return False


@_kernels.inline
def _shape(ws, kind, lo, npos, m, min_top, must, k):
    """One shape of plays (``npos`` consecutive ranks from ``lo``, ``m`` cards of each):
    appended with its cheapest and its strongest suit choice if it has one that beats
    ``min_top``, holds ``must`` (-1: any) and begins with the ``k`` selected cards.

    The reference lists a shape's suit choices position by position (a rank's choice is
    one of its ``itertools.combinations``; ``itertools.product`` over the ranks, the
    last fastest) and keeps the first of the least sum of strengths and the first of the
    strongest top card. Each condition binds one position alone (the selected cards
    theirs, the opening card its rank's, the table's top the last), and the sum adds up
    over positions, so the first cheapest choice is each position's first cheapest
    allowed one; the first strongest is each position's first allowed one, the last
    position's first strongest."""
    size = npos * m
    if k > size or (must >= 0 and not lo <= must >> 2 < lo + npos):
        return
    for j in range(npos):
        if ws.gn[lo + j] < m:
            return
    ns = ws.ints[I_SHAPES]
    for j in range(npos):
        g = lo + j
        n = ws.gn[g]
        last = j == npos - 1
        cheap_i, cheap_sum, first_i, strong_i, strong_top = -1, 0, -1, -1, 0
        for c in range(NCOMBS[n, m]):
            ok = True
            total = 0
            has_must = must < 0 or must >> 2 != g
            card = 0
            for t in range(m):
                card = ws.gcards[g, COMBS[n, m, c, t]]
                if j * m + t < k and card != ws.sel[j * m + t]:
                    ok = False
                has_must = has_must or card == must
                total += card
            if not ok or not has_must or (last and card <= min_top):
                continue
            if cheap_i < 0 or total < cheap_sum:
                cheap_i, cheap_sum = c, total
            if first_i < 0:
                first_i = c
            if strong_i < 0 or card > strong_top:
                strong_i, strong_top = c, card
        if cheap_i < 0:
            return
        pick = strong_i if last else first_i
        for t in range(m):
            ws.cheap[ns, j * m + t] = ws.gcards[g, COMBS[n, m, cheap_i, t]]
            ws.strong[ns, j * m + t] = ws.gcards[g, COMBS[n, m, pick, t]]
    ws.skind[ns] = kind
    ws.slo[ns] = lo
    ws.ssize[ns] = size
    ws.sidx[kind, lo, size] = ns
    ws.ints[I_SHAPES] = ns + 1


@_kernels.inline
def _block(ws, nb, kind, npos, m, min_top):
    """Append a block of shapes (every lowest rank of one kind and length) to ``ws.blocks``;
    returns the new number of blocks."""
    ws.blocks[nb, 0], ws.blocks[nb, 1], ws.blocks[nb, 2], ws.blocks[nb, 3] = kind, npos, m, min_top
    return nb + 1


@_kernels.jit
def _plays(ws, leading, tkind, tsize, ttop, must, k):
    """The shapes of plays_strengths(hand, table, must) that begin with the selection,
    in its order (:func:`_shape`); returns how many. The blocks (a kind and length) come
    in the reference's order, each by lowest rank; a shape the hand cannot make (too
    few cards on one of its ranks: ``ws.run``, the ranks in a row from each rank with at
    least ``m`` cards) or without the opening card is passed over before it is looked at."""
    for i in range(ws.ints[I_SHAPES]):
        ws.sidx[ws.skind[i], ws.slo[i], ws.ssize[i]] = -1
    ws.ints[I_SHAPES] = 0
    run = ws.run
    for m in range(1, PER_RANK + 1):
        run[m, NR] = 0
        for q in range(NR - 1, -1, -1):
            run[m, q] = run[m, q + 1] + 1 if ws.gn[q] >= m else 0
    nb = 0
    if leading:
        for size in range(1, PER_RANK + 1):
            nb = _block(ws, nb, size - 1, 1, size, -1)
        for length in range(3, ACE + 2):
            nb = _block(ws, nb, SEQUENCE, length, 1, -1)
        for pairs in range(3, 7):
            nb = _block(ws, nb, DOUBLE_SEQUENCE, pairs, 2, -1)
    else:
        if tkind <= QUAD:
            nb = _block(ws, nb, tkind, 1, tsize, ttop)
        elif tkind == SEQUENCE:
            nb = _block(ws, nb, SEQUENCE, tsize, 1, ttop)
        else:
            nb = _block(ws, nb, DOUBLE_SEQUENCE, tsize // 2, 2, ttop)
        if ttop >> 2 == TWO and tkind <= TRIPLE:
            if tkind == SINGLE:
                nb = _block(ws, nb, QUAD, 1, 4, -1)
            for pairs in range(3 + tkind, 7):
                nb = _block(ws, nb, DOUBLE_SEQUENCE, pairs, 2, -1)
    for b in range(nb):
        kind, npos, m, min_top = ws.blocks[b, 0], ws.blocks[b, 1], ws.blocks[b, 2], ws.blocks[b, 3]
        top = NR - 1 if npos == 1 else ACE - npos + 1  # of a kind: any rank; runs: to the ace
        for lo in range(top + 1):
            if run[m, lo] < npos or (must >= 0 and not lo <= must >> 2 < lo + npos):
                continue
            _shape(ws, kind, lo, npos, m, min_top, must, k)
    return ws.ints[I_SHAPES]


# ------------------------------------------------------------------ the partition
@_kernels.inline
def _options(ws, s, key):
    """decompose's options of the sub-hand with index ``s`` and key ``key`` into ``ws.o*``
    (kind, lowest rank, cards, and the index and key of what is left), in decompose's
    order; returns how many (-1: the sub-hand is empty)."""
    w, d = ws.w, ws.d
    x = key
    r = -1
    for q in range(NR):  # the cards per rank: base-5 digits (a division by a constant)
        d[q] = x % 5
        x //= 5
        if r < 0 and d[q] > 0:
            r = q
    if r < 0:
        return -1
    n = 0
    for c in range(1, d[r] + 1):
        ws.okind[n], ws.olo[n], ws.osize[n] = c - 1, r, c
        ws.ochild[n], ws.ockey[n] = s - c * w[r], key - c * P5[r]
        n += 1
    if r <= ACE - 2:
        run1 = 0
        run2 = 0
        while r + run1 <= ACE and d[r + run1] >= 1:
            run1 += 1
        while r + run2 <= ACE and d[r + run2] >= 2:
            run2 += 1
        dw = w[r] + w[r + 1]
        dk = P5[r] + P5[r + 1]
        for length in range(3, run1 + 1):
            dw += w[r + length - 1]
            dk += P5[r + length - 1]
            ws.okind[n], ws.olo[n], ws.osize[n] = SEQUENCE, r, length
            ws.ochild[n], ws.ockey[n] = s - dw, key - dk
            n += 1
        dw = 2 * (w[r] + w[r + 1])
        dk = 2 * (P5[r] + P5[r + 1])
        for pairs in range(3, run2 + 1):
            dw += 2 * w[r + pairs - 1]
            dk += 2 * P5[r + pairs - 1]
            ws.okind[n], ws.olo[n], ws.osize[n] = DOUBLE_SEQUENCE, r, 2 * pairs
            ws.ochild[n], ws.ockey[n] = s - dw, key - dk
            n += 1
    return n


@_kernels.inline
def _pack(kind, lo, size):
    """A group as one number (:data:`NO_GROUP`: none)."""
    return (kind * NR + lo) * (HAND_SIZE + 1) + size


@_kernels.inline
def _group_delta(w, g):
    """What the packed group ``g`` weighs under the per-rank weights ``w`` (its cards'
    share of a sub-hand index or key)."""
    size = g % (HAND_SIZE + 1)
    lo = (g // (HAND_SIZE + 1)) % NR
    kind = g // ((HAND_SIZE + 1) * NR)
    if kind in (SEQUENCE, DOUBLE_SEQUENCE):
        per = 1 if kind == SEQUENCE else 2
        total = 0
        for q in range(lo, lo + size // per):
            total += per * w[q]
        return total
    return size * w[lo]


@_kernels.inline
def _recall(ws, s, key):
    """Whether the sub-hand with index ``s`` and key ``key`` is solved: in the memo, or
    in the cache (then copied into the memo)."""
    gen = ws.ints[I_GEN]
    if ws.stamp[s] == gen:
        return True
    h = key % CACHE_SIZE
    if ws.ckey[h] != key:
        return False
    g = ws.cinfo[h] % INFO
    ws.mcost[s], ws.mng[s], ws.mgroup[s] = ws.ccost[h], ws.cinfo[h] // INFO, g
    ws.mrest[s] = s if g == NO_GROUP else s - _group_delta(ws.w, g)
    ws.stamp[s] = gen
    return True


@_kernels.inline
def _decompose(ws, root, key):
    """decompose of the sub-hand with index ``root`` (key ``key``: its cards per rank in
    base 5), into the memo: ``mcost`` (the cheapest partition's cost), ``mng`` (its
    groups), ``mgroup`` (its first group, packed by :func:`_pack`; NO_GROUP: none) and
    ``mrest`` (the index of the rest). Solved sub-hands are also kept by key in the
    cache (``ckey``, ``ccost``, ``cinfo``: groups and first group), across rows and
    calls, as the reference keeps them in its ``lru_cache`` (:func:`_recall`); what
    neither knows is searched (:func:`_search`)."""
    if not _recall(ws, root, key):
        _search(ws, root, key)


@_kernels.jit
def _search(ws, root, key):
    """The search of :func:`_decompose`: every sub-hand a sub-hand needs is solved
    first (an explicit stack); the memo alone guarantees it ends (the cache may forget)."""
    gen = ws.ints[I_GEN]
    stamp, stack = ws.stamp, ws.stack
    ws.mkey[root] = key
    stack[0] = root
    sp = 1
    while sp > 0:
        s = stack[sp - 1]
        key = ws.mkey[s]
        if _recall(ws, s, key):
            sp -= 1
            continue
        n = _options(ws, s, key)
        if n < 0:
            ws.mcost[s], ws.mng[s], ws.mgroup[s], ws.mrest[s] = 0.0, 0, NO_GROUP, s
            stamp[s] = gen
            sp -= 1
            continue
        waiting = False
        for i in range(n):
            if stamp[ws.ochild[i]] != gen:
                ws.mkey[ws.ochild[i]] = ws.ockey[i]
                stack[sp] = ws.ochild[i]
                sp += 1
                waiting = True
        if waiting:
            continue
        best = np.inf
        bi = 0
        for i in range(n):
            cost = ws.mcost[ws.ochild[i]] + ws.gcost[ws.okind[i], ws.olo[i], ws.osize[i]]
            if cost < best:
                best = cost
                bi = i
        child = ws.ochild[bi]
        g = _pack(ws.okind[bi], ws.olo[bi], ws.osize[bi])
        ws.mcost[s], ws.mng[s], ws.mgroup[s], ws.mrest[s] = best, ws.mng[child] + 1, g, child
        stamp[s] = gen
        h = key % CACHE_SIZE
        ws.ckey[h], ws.ccost[h], ws.cinfo[h] = key, best, ws.mng[s] * INFO + g
        sp -= 1


@_kernels.inline
def _without(ws, root, key, cards, size):
    """The sub-hand index and key of the hand (index ``root``, key ``key``) without
    ``cards[:size]``."""
    for i in range(size):
        root -= ws.w[cards[i] >> 2]
        key -= P5[cards[i] >> 2]
    return root, key


# ------------------------------------------------------------------ the decisions
@_kernels.inline
def _next(ws, plan, size, k):
    """next_action: the action that continues ``plan`` after the ``k`` selected cards."""
    return PLAY if k == size else plan[k]


@_kernels.jit
def _lead(ws, prm, view, root, key, ns):
    """ExpertPolicy._lead: the shape to lead (an index of ``ws.strong`` as a negative
    ``-1 - i``, of ``ws.cheap`` as ``i``)."""
    _decompose(ws, root, key)
    s = root
    sk = key
    complete = True
    ngroups = 0
    nboss = 0
    boss = -1
    boss_top = NC
    while ws.mgroup[s] != NO_GROUP:
        g = ws.mgroup[s]
        size = g % (HAND_SIZE + 1)
        lo = (g // (HAND_SIZE + 1)) % NR
        kind = g // ((HAND_SIZE + 1) * NR)
        ngroups += 1
        i = ws.sidx[kind, lo, size]
        if i < 0:
            complete = False
        else:
            top = ws.strong[i, size - 1]
            if not _can_beat(ws, kind, size, top):
                nboss += 1
                if top < boss_top:
                    boss_top = top
                    boss = i
        s = ws.mrest[s]
        sk -= _group_delta(P5, g)
        _decompose(ws, s, sk)  # the rest of a partition the cache knew is not solved yet
    if complete and nboss > 0 and ngroups - nboss <= 1:
        return -1 - boss
    best = np.inf
    bi = 0
    for i in range(ns):
        size = ws.ssize[i]
        top = ws.cheap[i, size - 1]
        child, ckey = _without(ws, root, key, ws.cheap[i], size)
        _decompose(ws, child, ckey)
        cost = ws.mcost[child]
        if ws.opp_has[size] and _can_beat(ws, ws.skind[i], size, top):  # not a boss
            cost += 1.0 + 0.3 * (1 - top / 51)  # an opponent could go out on it
        score = cost + 0.001 * top
        if score < best:
            best = score
            bi = i
    return bi


@_kernels.jit
def _respond(ws, prm, view, root, key, ns, allow_pass):
    """ExpertPolicy._respond: the shape to play (an index of ``ws.cheap``; -1: pass)."""
    _decompose(ws, root, key)
    base = ws.mcost[root]
    now = ws.mng[root]
    danger = view.min_opp <= 2
    best = np.inf
    bi = 0
    for i in range(ns):
        size = ws.ssize[i]
        kind = ws.skind[i]
        top = ws.cheap[i, size - 1]
        child, ckey = _without(ws, root, key, ws.cheap[i], size)
        _decompose(ws, child, ckey)
        cost = ws.mcost[child]
        precious = top >> 2 == TWO or kind in (QUAD, DOUBLE_SEQUENCE)
        if precious and not danger and view.min_opp > 3 and ws.mng[child] > 2:
            cost += prm.spend_penalty
        if danger:
            cost -= 0.3 * top / 51  # beat high: keep them from going out
        if cost < best:
            best = cost
            bi = i
    if not allow_pass:
        return bi
    pass_cost = base + (1.0 if danger else 0.0)
    size = ws.ssize[bi]
    if now <= 2 and not _can_beat(ws, ws.skind[bi], size, ws.cheap[bi, size - 1]):
        return bi
    return bi if best < pass_cost - prm.margin else -1


@_kernels.jit
def _plan(ws, prm, view):
    """ExpertPolicy.plan_action of the decoded row: the action to take."""
    nh, k = view.nh, view.k
    must = ws.hand[0] if view.opening and nh > 0 else -1
    tkind = _classify(ws.table, view.tn)
    leading = tkind < 0  # a clear table (or, never, one that is no combination)
    ttop = ws.table[view.tn - 1] if not leading else -1
    ns = _plays(ws, leading, tkind, view.tn, ttop, must, k)
    if ns == 0:
        return PASS
    for i in range(ns):
        if ws.ssize[i] == nh:  # out of cards with one play: the whole hand
            return _next(ws, ws.hand, nh, k)
    ws.ints[I_GEN] += 1  # a new hand: a new memo
    w = ws.w
    w[0] = 1
    for q in range(1, NR):
        w[q] = w[q - 1] * (ws.gn[q - 1] + 1)
    root = w[NR - 1] * (ws.gn[NR - 1] + 1) - 1
    key = 0
    for q in range(NR):
        key += ws.gn[q] * P5[q]
    if leading:
        i = _lead(ws, prm, view, root, key, ns)
        if i < 0:
            return _next(ws, ws.strong[-1 - i], ws.ssize[-1 - i], k)
        return _next(ws, ws.cheap[i], ws.ssize[i], k)
    i = _respond(ws, prm, view, root, key, ns, k == 0)
    return PASS if i < 0 else _next(ws, ws.cheap[i], ws.ssize[i], k)


@_kernels.jit
def _decide(obs, r, masks, prm, lay, ws):
    """ExpertPolicy.act of row ``r`` (-1: an empty mask)."""
    legal = first_legal(masks, r)
    if legal < 0:
        return -1
    many = False
    for a in range(legal + 1, masks.shape[1]):
        if masks[r, a]:
            many = True
            break
    if not many:  # the only legal action
        return legal
    view = _decode(obs, r, lay, ws)
    return _plan(ws, prm, view)


@_kernels.jit
def _k_act(obs, masks, gcost, ckey, ccost, cinfo, prm, lay, actions):
    """The expert's move for every row into ``actions`` (-1: no legal move)."""
    prm = prm[0]
    lay = lay[0]
    ws = _workspace(gcost, ckey, ccost, cinfo)
    u = unmanaged_fields(ws)
    for r in range(obs.shape[0]):
        a = _decide(obs, r, masks, prm, lay, u)
        legal = a < 0 or masks[r, a]  # an illegal move: never with the engine's masks
        actions[r] = a if legal else first_legal(masks, r)
    ws.ints[I_GEN] = 0  # ws is alive (and its arrays with it) until here


@_kernels.jit
def _k_features(obs, gcost, ckey, ccost, cinfo, prm, lay, out):
    """The ``thirteen-expert-v1`` block of every row into ``out`` (zeros on entry): the
    one-hot of the expert's next action on the observer's turn."""
    prm = prm[0]
    lay = lay[0]
    ws = _workspace(gcost, ckey, ccost, cinfo)
    u = unmanaged_fields(ws)
    for r in range(obs.shape[0]):
        view = _decode(obs, r, lay, u)
        if view.to_act != 0 or view.nh == 0:
            continue
        out[r, PLAY if view.declare else _plan(u, prm, view)] = 1.0
    ws.ints[I_GEN] = 0  # ws is alive (and its arrays with it) until here


def _run(kernel_name: str, *args: Any) -> None:
    """Call a kernel by name, compiled on first use."""
    _kernels.compile()
    globals()[kernel_name](*args)


# ------------------------------------------------------------------ records
_cache: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


def partition_cache() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The partition cache every kernel call shares (keys, -1: empty; costs; groups and
    first group), made on first use: a solved sub-hand is a pure function of its key."""
    global _cache
    if _cache is None:
        _cache = (
            np.full(CACHE_SIZE, -1, dtype=np.int64),
            np.zeros(CACHE_SIZE, dtype=np.float64),
            np.zeros(CACHE_SIZE, dtype=np.int64),
        )
    return _cache


def layout_record(config: ThirteenConfig) -> np.ndarray:
    """The observation offsets and the players the kernels decode with (:data:`LAYOUT_DTYPE`)."""
    if not isinstance(config, ThirteenConfig):
        raise ValueError(f"the Thirteen expert needs a ThirteenConfig, got {type(config).__name__}")
    layout = ObservationLayout(config)
    flags = layout.slices["flags"].start
    return support.observation_record(LAYOUT_DTYPE, layout, n=config.num_players, flag_block=flags)


def param_record(expert: Any) -> np.ndarray:
    """The tunables of ``expert`` (an :class:`~policies.thirteen.ExpertPolicy` or anything
    with its two attributes) as the kernels read them (:data:`PARAMS_DTYPE`)."""
    return support.record(
        PARAMS_DTYPE, **{name: float(getattr(expert, name)) for name in PARAMS_DTYPE.names}
    )


# ------------------------------------------------------------------ the policy
@register_policy("thirteen", "expert-jit")
class ThirteenExpertJitPolicy(support.CompiledExpert, ExpertPolicy):
    """The Thirteen ``expert`` compiled with numba: the same moves; batches with :meth:`act_batch`
    (``(B, obs)`` observations and ``(B, 54)`` masks).

    Its tunables are the reference's (class attributes, or set on the instance), whose
    methods it inherits; only the moves are compiled."""

    name = "expert-jit"
    game = "thirteen"
    param_record = staticmethod(param_record)
    num_actions = NUM_ACTIONS
    rows_what = "the Thirteen observation"

    def __init__(self, config: Any = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(config, seed, **kwargs)
        self._compiled_init(layout_record(self.config))
        _kernels.compile()

    def _decide(
        self, obs: np.ndarray, masks: np.ndarray, turns: np.ndarray | None, actions: np.ndarray
    ) -> None:
        cache = partition_cache()
        _run("_k_act", obs, masks, GROUP_COST, *cache, self._params(), self._lay, actions)


def features_kernel(obs: np.ndarray, expert: Any, lay: np.ndarray, out: np.ndarray) -> None:
    """The ``thirteen-expert-v1`` block of a batch into ``out`` (float32, zeros on entry):
    one compiled call; ``expert`` supplies the tunables."""
    obs = np.ascontiguousarray(obs, dtype=np.float32)
    _run("_k_features", obs, GROUP_COST, *partition_cache(), param_record(expert), lay, out)

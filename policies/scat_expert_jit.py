"""``expert-jit`` for Scat: the ``expert`` Scat player compiled with numba, for batches.

:class:`ScatExpertJitPolicy` is a compiled copy of :class:`policies.scat.ExpertPolicy`
(the reference; its module docstring explains the ideas): the same knock rule, draw
choice and discard scores, the same tunables (``risk``, ``samples``, ``potential``,
``opponent_draws``, and ``"expert-jit:R"`` for the risk, as ``"expert:R"``), some
50-100 times faster when called with a batch (:meth:`ScatExpertJitPolicy.act_batch`;
``bench/scat_expert_jit_speed.py``). It exists to be the opponent of long training runs,
and its kernels compute the ``scat-expert-v1`` features (:mod:`policies.scat_features`).

**The same moves, not only the same distribution.** The reference's only randomness is
the Monte Carlo knock estimate (:meth:`~policies.scat.ExpertPolicy.lowest_chance`):
per sample it shuffles a list of the unseen cards with the policy's
``numpy.random.Generator`` (``default_rng``: a PCG64). The kernels carry that generator
along: its state goes in as six numbers (:func:`rng_state`), the kernels step PCG64 and
draw the shuffle's bounded integers exactly as numpy does (``random_interval``: masked
rejection sampling of 32-bit outputs, with numpy's buffering of the spare half of each
64-bit output), and the state comes back (:func:`set_rng_state`). So a
``ScatExpertJitPolicy`` and an ``ExpertPolicy`` built with the same seed play the same
move on every decision of the same sequence, and draw the same samples; the feature
kernel seeds a generator per row as ``np.random.default_rng(seed)`` does (numpy's
``SeedSequence`` hash and the PCG64 seeding, :func:`_seed_pcg64`).
``tests/test_scat_expert_jit.py`` proves both, and the golden file of
``scat-expert-v1`` holds the features to the last bit.

The rest follows :mod:`policies.expert_jit`'s design: numba is imported only when the
first policy or feature set is built (the kernels are plain module-level Python until
their :class:`~policies.jit_support.KernelSet` rebinds them to ``numba.njit(cache=True)``
versions; without numba they stay Python: correct and about as slow as the reference). The kernels take the rules'
action ids (:mod:`schnauz_env.scat.engine`), the card points
(:data:`schnauz_env.scat.hands.POINTS`), and the observation layout
(:class:`~schnauz_env.scat.observation.ObservationLayout`'s blocks, in a record) by
import, and pass named structures: the parameters and the layout as records
(:data:`PARAMS_DTYPE`, :data:`LAYOUT_DTYPE`), the decoded observation's cards as a
:class:`Workspace`, its numbers as a :class:`View`.

The one difference: should a caller's action mask forbid the expert's move (never with
the engine's masks), the first legal action is played.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from policies import jit_support as support
from policies.base import register_policy
from policies.jit_support import first_legal
from policies.scat import BLITZ_SCORE, ExpertPolicy
from schnauz_env.scat.config import MAX_PLAYERS, ScatConfig
from schnauz_env.scat.engine import (
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCK,
    NUM_ACTIONS,
    PASS,
)
from schnauz_env.scat.hands import POINTS, TRINCA
from schnauz_env.scat.observation import (
    NC,
    SEAT_AT_TABLE,
    SEAT_FEATURES,
    SEAT_IN_GAME,
    ObservationLayout,
)

MAXP = MAX_PLAYERS
#: Card slots of a hand between draw and discard (four-card Scat: 5), with room to spare.
MAX_HAND = 6
#: The points of every card, as the kernels read them.
POINTS_TABLE = np.array(POINTS, dtype=np.int64)

# ------------------------------------------------------------------ what the kernels take
#: The observation blocks the kernels read (:class:`~schnauz_env.scat.observation.ObservationLayout`).
OBS_BLOCKS = ("hand", "discard_pile", "known", "seats", "knocker", "to_act", "phase", "stock")
#: Where those blocks start, and the rules the kernels need (:func:`layout_record`).
LAYOUT_DTYPE = support.layout_dtype(
    OBS_BLOCKS,
    [
        ("hand_slots", np.int64),
        ("hand_size", np.int64),
        ("trinca", np.bool_),
        ("blitz", np.float64),
    ],
)
#: The tunables of :class:`~policies.scat.ExpertPolicy` the kernels read (:func:`param_record`).
PARAMS_DTYPE = support.params_dtype(
    ExpertPolicy, ("samples", "risk", "potential", "opponent_draws")
)
#: The arrays one row's decision works in (:func:`_workspace`): the decoded view (the
#: ``hand`` in slot order, the ``pool`` of unseen cards ascending, each position's
#: ``known`` cards and their count ``nknown``, whether it is ``out``, the ``located``
#: cards), the Monte Carlo ``deck``, model hands ``h`` and ``rest``, suit totals ``t``
#: and the next player's known points per suit ``nxt_suits``.
Workspace = namedtuple(
    "Workspace",
    ["hand", "pool", "known", "nknown", "out", "located", "deck", "h", "rest", "t", "nxt_suits"],
)
#: The numbers of a decoded observation (:func:`_decode`): players ``n``, hand and pool
#: sizes, the discard pile's top card (-1: empty), the knocker's and the player to act's
#: position (-1: none), the final turns, the discard step, the stock size and the
#: players still in the game.
View = namedtuple(
    "View", ["n", "nh", "npool", "top", "knocker", "to_act", "final", "discard", "stock", "nact"]
)

# ------------------------------------------------------------------ numpy's generator
# PCG64 as numpy steps it (a 128-bit LCG, XSL-RR output), on pairs of uint64 words: a
# generator's state is six words, ST_* below. Every constant is a uint64, so that numba
# never mixes signed and unsigned integers (which it would do in float64).
ST_HI, ST_LO, INC_HI, INC_LO, HAS32, SPARE32 = range(6)
RNG_WORDS = 6
_MUL_HI, _MUL_LO = np.uint64(0x2360ED051FC65DA4), np.uint64(0x4385DF649FCCF645)
_U0, _U1, _U16, _U32, _U58, _U64 = (np.uint64(k) for k in (0, 1, 16, 32, 58, 64))
_U2, _U4, _U8, _U63 = np.uint64(2), np.uint64(4), np.uint64(8), np.uint64(63)
_M32 = np.uint64(0xFFFFFFFF)
# numpy.random.SeedSequence's hash constants (numpy/random/bit_generator.pyx).
_INIT_A, _MULT_A = np.uint64(0x43B0D7E5), np.uint64(0x931E8875)
_INIT_B, _MULT_B = np.uint64(0x8B51F9DD), np.uint64(0x58F38DED)
_MIX_L, _MIX_R = np.uint64(0xCA01F9DD), np.uint64(0x4973F715)


#: The kernels and the helpers they call, each marked where it is defined:
#: ``@_kernels.jit`` compiles it as a function of its own, ``@_kernels.inline`` inlines
#: it into its callers (numba's IR inlining: the small hot helpers).
_kernels = support.KernelSet(
    globals(), what="the compiled Scat expert", inline_imports=(first_legal,)
)


@_kernels.inline
def _mul64(a, b):
    """The 128-bit product of two uint64 words, as ``(high, low)`` words."""
    a0, a1 = a & _M32, a >> _U32
    b0, b1 = b & _M32, b >> _U32
    p0, p1, p2 = a0 * b0, a0 * b1, a1 * b0
    mid = (p0 >> _U32) + (p1 & _M32) + (p2 & _M32)
    return a1 * b1 + (p1 >> _U32) + (p2 >> _U32) + (mid >> _U32), (p0 & _M32) | (mid << _U32)


@_kernels.inline
def _pcg_step(st):
    """state = state * multiplier + increment (mod 2**128)."""
    hi, lo = _mul64(st[ST_LO], _MUL_LO)
    hi += st[ST_LO] * _MUL_HI + st[ST_HI] * _MUL_LO
    lo2 = lo + st[INC_LO]
    st[ST_HI] = hi + st[INC_HI] + (_U1 if lo2 < lo else _U0)
    st[ST_LO] = lo2


@_kernels.inline
def _next64(st):
    """pcg64_next64: step, then the XSL-RR output of the new state."""
    _pcg_step(st)
    hi = st[ST_HI]
    x = hi ^ st[ST_LO]
    rot = hi >> _U58
    return (x >> rot) | (x << ((_U64 - rot) & _U63))


@_kernels.inline
def _next32(st):
    """pcg64_next32: the low half of a 64-bit output, keeping the high half for next time."""
    if st[HAS32] != _U0:
        st[HAS32] = _U0
        return st[SPARE32]
    x = _next64(st)
    st[HAS32] = _U1
    st[SPARE32] = x >> _U32
    return x & _M32


@_kernels.inline
def _random_interval(st, top):
    """numpy's random_interval: uniform on 0..top (< 2**32) by masked rejection."""
    if top == 0:
        return 0
    mx = np.uint64(top)
    mask = mx | (mx >> _U1)
    mask |= mask >> _U2
    mask |= mask >> _U4
    mask |= mask >> _U8
    mask |= mask >> _U16
    v = _next32(st) & mask
    while v > mx:
        v = _next32(st) & mask
    return np.int64(v)


@_kernels.jit
def _shuffle(st, a, n):
    """Generator.shuffle of ``a[:n]`` (the same draws, the same permutation)."""
    for i in range(n - 1, 0, -1):
        j = _random_interval(st, i)
        a[i], a[j] = a[j], a[i]


@_kernels.inline
def _hashmix(value, hc):
    """SeedSequence's hashmix of a 32-bit ``value``; returns ``(hash, next hash constant)``."""
    value = (value ^ hc) & _M32
    hc = (hc * _MULT_A) & _M32
    value = (value * hc) & _M32
    return value ^ (value >> _U16), hc


@_kernels.jit
def _seed_pcg64(st, seed):
    """``st`` := the state of ``np.random.default_rng(seed)`` for ``0 <= seed < 2**32``:
    SeedSequence(seed).generate_state(4, uint64), then pcg64_set_seed."""
    pool = np.empty(4, dtype=np.uint64)
    hc = _INIT_A
    for i in range(4):
        pool[i], hc = _hashmix(np.uint64(seed) if i == 0 else _U0, hc)
    for src in range(4):
        for dst in range(4):
            if src != dst:
                h, hc = _hashmix(pool[src], hc)
                r = (_MIX_L * pool[dst] - _MIX_R * h) & _M32
                pool[dst] = r ^ (r >> _U16)
    words = np.empty(4, dtype=np.uint64)  # generate_state: 8 uint32, read as 4 uint64
    hb = _INIT_B
    for i in range(8):
        v = (pool[i % 4] ^ hb) & _M32
        hb = (hb * _MULT_B) & _M32
        v = (v * hb) & _M32
        v ^= v >> _U16
        if i % 2 == 0:
            words[i // 2] = v
        else:
            words[i // 2] |= v << _U32
    # pcg64_srandom_r(initstate = words[0:2], initseq = words[2:4]), high word first
    st[INC_HI] = (words[2] << _U1) | (words[3] >> _U63)
    st[INC_LO] = (words[3] << _U1) | _U1
    st[ST_HI] = _U0
    st[ST_LO] = _U0
    _pcg_step(st)
    lo = st[ST_LO] + words[1]
    st[ST_HI] = st[ST_HI] + words[0] + (_U1 if lo < st[ST_LO] else _U0)
    st[ST_LO] = lo
    _pcg_step(st)
    st[HAS32] = _U0
    st[SPARE32] = _U0


# ------------------------------------------------------------------ hand helpers
@_kernels.inline
def _value(pts, lay, cards, n):
    """hand_value of ``cards[:n]``: the best suit total, 30.5 for a trinca of three."""
    t0 = t1 = t2 = t3 = 0
    for q in range(n):
        c = cards[q]
        s = c & 3
        if s == 0:
            t0 += pts[c]
        elif s == 1:
            t1 += pts[c]
        elif s == 2:
            t2 += pts[c]
        else:
            t3 += pts[c]
    best = float(max(max(t0, t1), max(t2, t3)))
    if lay.trinca and n == 3 and best < TRINCA and cards[0] >> 2 == cards[1] >> 2 == cards[2] >> 2:
        return TRINCA
    return best


@_kernels.inline
def _sort(cards, n):
    """Sort ``cards[:n]`` in place (insertion sort: a few cards, mostly in order)."""
    for i in range(1, n):
        c = cards[i]
        j = i
        while j > 0 and cards[j - 1] > c:
            cards[j] = cards[j - 1]
            j -= 1
        cards[j] = c


@_kernels.inline
def _totals(pts, cards, n, t):
    """The points per suit of ``cards[:n]`` into ``t``."""
    for s in range(4):
        t[s] = 0
    for q in range(n):
        t[cards[q] & 3] += pts[cards[q]]


@_kernels.inline
def _value_without(pts, lay, cards, n, i, t):
    """hand_value of ``cards[:n]`` without ``cards[i]``, given their suit totals ``t``."""
    c = cards[i]
    t[c & 3] -= pts[c]
    v = float(max(max(t[0], t[1]), max(t[2], t[3])))
    t[c & 3] += pts[c]
    if lay.trinca and n == 4 and v < TRINCA:
        rank = -1
        for q in range(n):
            if q != i:
                if rank < 0:
                    rank = cards[q] >> 2
                elif cards[q] >> 2 != rank:
                    return v
        return TRINCA
    return v


@_kernels.inline
def _best_keep(pts, lay, cards, n, t):
    """best_keep of ``cards[:n]``: ``(value, index)`` of the best hand left by throwing one
    card (the first such index on a tie); ``t`` is scratch for the suit totals."""
    _totals(pts, cards, n, t)
    best, best_i = -1.0, 0
    for i in range(n):
        v = _value_without(pts, lay, cards, n, i, t)
        if v > best:
            best, best_i = v, i
    return best, best_i


@_kernels.inline
def _draw_value(pts, lay, hand, nh, t, base, c):
    """The best hand's value after drawing ``c`` into ``hand[:nh]`` (best_keep's value),
    given the hand's suit totals ``t`` (restored on return) and its own value ``base``
    (the value of throwing ``c`` again)."""
    best = base
    t[c & 3] += pts[c]
    for i in range(nh):
        x = hand[i]
        t[x & 3] -= pts[x]
        v = float(max(max(t[0], t[1]), max(t[2], t[3])))
        t[x & 3] += pts[x]
        if lay.trinca and nh == 3 and v < TRINCA:  # kept: c and the hand but x
            same = True
            for q in range(nh):
                if q != i and hand[q] >> 2 != c >> 2:
                    same = False
            if same:
                v = TRINCA
        if v > best:
            best = v
    t[c & 3] -= pts[c]
    return best


@_kernels.inline
def _expected_draw(pts, lay, hand, nh, ws, npool):
    """expected_draw: the mean best hand after drawing one card of the pool."""
    base = _value(pts, lay, hand, nh)
    if npool == 0:
        return base
    _totals(pts, hand, nh, ws.t)
    total = 0.0
    for p in range(npool):
        total += _draw_value(pts, lay, hand, nh, ws.t, base, ws.pool[p])
    return total / npool


@_kernels.inline
def _expected_gain(pts, lay, hand, nh, ws, npool):
    """expected_gain: the mean improvement of ``hand[:nh]`` from one more pool card."""
    if npool == 0:
        return 0.0
    base = _value(pts, lay, hand, nh)
    _totals(pts, hand, nh, ws.t)
    total = 0.0
    for p in range(npool):
        v = _draw_value(pts, lay, hand, nh, ws.t, base, ws.pool[p])
        if v > base:
            total += v - base
    return total / npool


# ------------------------------------------------------------------ decoding
@_kernels.jit
def _workspace():
    """The arrays of one row's decision (:class:`Workspace`)."""
    return Workspace(
        np.zeros(MAX_HAND, dtype=np.int64),
        np.zeros(NC, dtype=np.int64),
        np.zeros((MAXP, MAX_HAND), dtype=np.int64),
        np.zeros(MAXP, dtype=np.int64),
        np.zeros(MAXP, dtype=np.int64),
        np.zeros(NC, dtype=np.bool_),
        np.zeros(NC, dtype=np.int64),
        np.zeros(MAX_HAND + 1, dtype=np.int64),
        np.zeros(MAX_HAND + 1, dtype=np.int64),
        np.zeros(4, dtype=np.int64),
        np.zeros(4, dtype=np.int64),
    )


@_kernels.inline
def _first_hot(obs, r, start, size):
    """The first nonzero entry of ``obs[r, start:start + size]`` (-1: none)."""
    for k in range(size):
        if obs[r, start + k] != 0:
            return k
    return -1


@_kernels.jit
def _decode(obs, r, lay, ws):
    """decode_observation of row ``r`` into ``ws``; returns its :class:`View`."""
    hand, pool, known, nknown, out = ws.hand, ws.pool, ws.known, ws.nknown, ws.out
    located = ws.located
    for c in range(NC):
        located[c] = False
    nh = 0
    for i in range(lay.hand_slots):  # a slot's card: its first one (argmax of a one-hot)
        base = lay.hand + i * NC
        for c in range(NC):
            if obs[r, base + c] != 0:
                hand[nh] = c
                nh += 1
                located[c] = True
                break
    top, top_w = -1, 0.0
    for c in range(NC):  # the top of the pile weighs most (1.0)
        w = obs[r, lay.discard_pile + c]
        if w != 0:
            located[c] = True
            if w >= top_w:
                top, top_w = c, w
    total = 0.0
    for k in range(MAXP):
        total += obs[r, lay.seats + SEAT_FEATURES * k + SEAT_AT_TABLE]
    n = int(total)
    nact = 0
    for k in range(MAXP):
        nknown[k] = 0
        out[k] = 1
    for k in range(min(n, MAXP)):
        out[k] = 0 if obs[r, lay.seats + SEAT_FEATURES * k + SEAT_IN_GAME] != 0 else 1
        nact += 1 - out[k]
        if k > 0:
            base = lay.known + (k - 1) * NC
            for c in range(NC):
                if obs[r, base + c] != 0:
                    if nknown[k] < MAX_HAND:
                        known[k, nknown[k]] = c
                    nknown[k] += 1
                    located[c] = True
    npool = 0
    for c in range(NC):
        if not located[c]:
            pool[npool] = c
            npool += 1
    phase = _first_hot(obs, r, lay.phase, 4)
    return View(
        n,
        nh,
        npool,
        top,
        _first_hot(obs, r, lay.knocker, MAXP),
        _first_hot(obs, r, lay.to_act, MAXP),
        phase >= 2,
        phase >= 0 and phase % 2 == 1,
        int(np.floor(obs[r, lay.stock] * NC + 0.5)),
        nact,
    )


# ------------------------------------------------------------------ the decisions
@_kernels.jit
def _discard_scores(pts, prm, lay, ws, view, scores):
    """ExpertPolicy.discard_scores into ``scores[:nh]``; returns the first best index."""
    hand, nh = ws.hand, view.nh
    nxt = -1
    for k in range(1, view.n):
        if not ws.out[k]:
            nxt = k
            break
    nxt_suits = ws.nxt_suits
    for q in range(4):
        nxt_suits[q] = 0
    if nxt >= 0:
        for q in range(min(ws.nknown[nxt], MAX_HAND)):
            c = ws.known[nxt, q]
            nxt_suits[c & 3] += pts[c]
    rest = ws.rest
    best_i = 0
    for i in range(nh):
        m = 0
        for q in range(nh):
            if q != i:
                rest[m] = hand[q]
                m += 1
        x = hand[i]
        v = _value(pts, lay, rest, nh - 1)
        if v == lay.blitz and not view.final:
            score = BLITZ_SCORE
        else:
            score = v
            if not view.final:
                score += prm.potential * _expected_gain(pts, lay, rest, nh - 1, ws, view.npool)
                if nxt_suits[x & 3]:  # feeding the next player the suit it collects
                    score -= 0.05 * pts[x]
            score -= 0.001 * pts[x]  # on a tie keep the higher card
        scores[i] = score
        if score > scores[best_i]:
            best_i = i
    return best_i


@_kernels.jit
def _lowest_chance(pts, prm, lay, ws, view, st):
    """ExpertPolicy.lowest_chance, drawing from the generator state ``st``: the share of
    ``samples`` deals of the unseen cards in which the hand is strictly the lowest after
    every opponent's final turn. Only the shuffle draws random numbers, so a sample
    stops at the first opponent who ends no better than the hand (the same count)."""
    mine = _value(pts, lay, ws.hand, view.nh)
    m = view.nact
    initial_stock = 52 - lay.hand_size * m - 1
    rounds_played = max(0, initial_stock - view.stock) / m
    draws = min(int(rounds_played * prm.opponent_draws) + 1, 6)
    size = lay.hand_size
    deck, h = ws.deck, ws.h
    strict = 0
    for _ in range(prm.samples):
        for q in range(view.npool):
            deck[q] = ws.pool[q]
        _shuffle(st, deck, view.npool)
        left = view.npool
        lowest = 99.0
        for k in range(1, view.n):
            if ws.out[k]:
                continue
            nk = min(ws.nknown[k], MAX_HAND)
            for q in range(nk):
                h[q] = ws.known[k, q]
            while nk < size and left > 0:
                left -= 1
                h[nk] = deck[left]
                nk += 1
            _sort(h, nk)  # the reference sorts the hand at each draw: keep it sorted
            for _ in range(draws + 1):  # past draws, then the final turn
                if left == 0:
                    break
                left -= 1
                h[nk] = deck[left]
                _sort(h, nk + 1)
                _, i = _best_keep(pts, lay, h, nk + 1, ws.t)
                for q in range(i, nk):
                    h[q] = h[q + 1]
            lowest = min(lowest, _value(pts, lay, h, nk))
            if lowest <= mine:  # decided: the opponents draw no random numbers
                break
        if mine < lowest:
            strict += 1
    return strict / prm.samples


@_kernels.inline
def _with_top(pts, lay, ws, view):
    """The best hand keeping the discard pile's top card (-1.0: the pile is empty)."""
    if view.top < 0:
        return -1.0
    _totals(pts, ws.hand, view.nh, ws.t)
    base = _value(pts, lay, ws.hand, view.nh)
    return _draw_value(pts, lay, ws.hand, view.nh, ws.t, base, view.top)


@_kernels.jit
def _decide(obs, r, masks, pts, prm, lay, ws, st, scores):
    """ExpertPolicy.act of row ``r`` (-1: no hand or an empty mask)."""
    legal = first_legal(masks, r)
    view = _decode(obs, r, lay, ws)
    if legal < 0 or view.nh == 0:
        return -1
    if view.discard:
        return DISCARD_BASE + _discard_scores(pts, prm, lay, ws, view, scores)
    now = _value(pts, lay, ws.hand, view.nh)
    knock_limit = prm.risk / view.nact
    if masks[r, KNOCK] and now >= 20 and _lowest_chance(pts, prm, lay, ws, view, st) < knock_limit:
        return KNOCK
    with_top = _with_top(pts, lay, ws, view)
    if with_top == lay.blitz and not view.final:
        return DRAW_DISCARD
    if masks[r, DRAW_STOCK]:
        if with_top > now and with_top >= _expected_draw(
            pts, lay, ws.hand, view.nh, ws, view.npool
        ):
            return DRAW_DISCARD
        return DRAW_STOCK
    if with_top > now:  # the stock is empty: improve from the discard pile, else end
        return DRAW_DISCARD
    if masks[r, KNOCK]:
        return KNOCK
    return PASS if masks[r, PASS] else legal


@_kernels.jit
def _k_act(obs, masks, pts, prm, lay, st, actions):
    """The expert's move for every row into ``actions`` (-1: no hand, or no legal move),
    drawing from the generator state ``st`` row after row."""
    prm = prm[0]
    lay = lay[0]
    ws = _workspace()
    scores = np.zeros(MAX_HAND, dtype=np.float64)
    for r in range(obs.shape[0]):
        a = _decide(obs, r, masks, pts, prm, lay, ws, st, scores)
        legal = a < 0 or masks[r, a]  # an illegal move: never with the engine's masks
        actions[r] = a if legal else first_legal(masks, r)


# The feature block of scat-expert-v1 (policies.scat_features.BLOCKS), by offset.
F_DRAW, F_NOW, F_TOP, F_EXPECTED, F_TAKE, F_CHANCE, F_LIMIT, F_KNOCK = range(8)
F_SCORES, F_BEST = 8, 13
#: Hand values are divided by this in the feature block.
F_SCALE = 31.0


@_kernels.jit
def _k_features(obs, pts, prm, lay, seeds, out):
    """The ``scat-expert-v1`` block of every row into ``out`` (zeros on entry); a row's
    samples are drawn from ``np.random.default_rng(seeds[r])``'s generator."""
    prm = prm[0]
    lay = lay[0]
    ws = _workspace()
    scores = np.zeros(MAX_HAND, dtype=np.float64)
    st = np.zeros(RNG_WORDS, dtype=np.uint64)
    for r in range(obs.shape[0]):
        view = _decode(obs, r, lay, ws)
        if view.to_act != 0 or view.nh == 0:
            continue
        if view.discard:
            best = _discard_scores(pts, prm, lay, ws, view, scores)
            for i in range(view.nh):
                out[r, F_SCORES + i] = 2.0 if scores[i] >= BLITZ_SCORE else scores[i] / F_SCALE
            out[r, F_BEST + best] = 1.0
            continue
        out[r, F_DRAW] = 1.0
        now = _value(pts, lay, ws.hand, view.nh)
        out[r, F_NOW] = now / F_SCALE
        with_top = _with_top(pts, lay, ws, view)
        if view.top >= 0:
            out[r, F_TOP] = with_top / F_SCALE
        draw = _expected_draw(pts, lay, ws.hand, view.nh, ws, view.npool)
        out[r, F_EXPECTED] = draw / F_SCALE
        take = (with_top == lay.blitz and not view.final) or (with_top > now and with_top >= draw)
        out[r, F_TAKE] = 1.0 if take else 0.0
        limit = prm.risk / view.nact
        out[r, F_LIMIT] = limit
        if view.knocker < 0 and not view.final and now >= 20:
            _seed_pcg64(st, seeds[r])
            chance = _lowest_chance(pts, prm, lay, ws, view, st)
            out[r, F_CHANCE] = chance
            out[r, F_KNOCK] = 1.0 if chance < limit else 0.0


def _run(kernel_name: str, *args: Any) -> None:
    """Call a kernel by name, compiled on first use; numpy's overflow warnings of the
    uint64 arithmetic are silenced for the plain-Python fallback, where they are meant."""
    _kernels.compile()
    kernel = globals()[kernel_name]
    if hasattr(kernel, "py_func"):  # compiled: numba wraps its integers silently
        kernel(*args)
        return
    with np.errstate(over="ignore"):
        kernel(*args)


# ------------------------------------------------------------------ records and state
def layout_record(config: ScatConfig) -> np.ndarray:
    """The observation offsets and the rules the kernels decode with (:data:`LAYOUT_DTYPE`)."""
    rules = {"hand_size": config.hand_size, "trinca": config.trinca}
    layout = ObservationLayout(config)
    blitz = float(config.blitz_value)
    return support.observation_record(
        LAYOUT_DTYPE, layout, hand_slots=layout.hand_slots, blitz=blitz, **rules
    )


def param_record(expert: Any) -> np.ndarray:
    """The tunables of ``expert`` (an :class:`~policies.scat.ExpertPolicy` or anything
    with its four attributes) as the kernels read them (:data:`PARAMS_DTYPE`)."""
    if int(expert.samples) < 1:
        raise ValueError(f"samples must be >= 1, got {expert.samples!r}")
    return support.record(
        PARAMS_DTYPE, **{name: getattr(expert, name) for name in PARAMS_DTYPE.names}
    )


def rng_state(rng: np.random.Generator) -> np.ndarray:
    """The state of a PCG64 ``rng`` as the kernels step it (:data:`RNG_WORDS` uint64)."""
    state = rng.bit_generator.state
    if state.get("bit_generator") != "PCG64":
        raise ValueError(
            f"the compiled Scat expert steps PCG64 generators (np.random.default_rng), "
            f"not {state.get('bit_generator')!r}"
        )
    s, inc = state["state"]["state"], state["state"]["inc"]
    mask = (1 << 64) - 1
    words = (s >> 64, s & mask, inc >> 64, inc & mask, state["has_uint32"], state["uinteger"])
    return np.array(words, dtype=np.uint64)


def set_rng_state(rng: np.random.Generator, st: np.ndarray) -> None:
    """Give ``rng`` the state ``st`` (:func:`rng_state`'s words, after a kernel stepped them)."""
    w = [int(x) for x in st]
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": (w[ST_HI] << 64) | w[ST_LO], "inc": (w[INC_HI] << 64) | w[INC_LO]},
        "has_uint32": w[HAS32],
        "uinteger": w[SPARE32],
    }


# ------------------------------------------------------------------ the policy
@register_policy("scat", "expert-jit")
class ScatExpertJitPolicy(support.CompiledExpert, ExpertPolicy):
    """The Scat ``expert`` compiled with numba: the same moves; batches with :meth:`act_batch`
    (``(B, obs)`` observations and ``(B, 9)`` masks, the moves drawn from the policy's
    generator as the reference draws them).

    Its tunables (and ``"expert-jit:R"`` for the risk) are the reference's, whose
    methods it inherits; only the moves are compiled."""

    name = "expert-jit"
    game = "scat"
    param_record = staticmethod(param_record)
    num_actions = NUM_ACTIONS
    no_action = (
        "an observation shows no hand, or its action mask is empty: there is no "
        "legal action to choose"
    )

    def __init__(
        self, config: Any = None, seed: int | None = None, arg: str | None = None, **_: Any
    ) -> None:
        super().__init__(config, seed, arg)
        if arg:
            self.name = f"expert-jit:{arg}"
        self._compiled_init(layout_record(self.config))
        _kernels.compile()

    @property
    def rows_what(self) -> str:
        """The hand size, which decides the observation's size."""
        return f"hand size {self.config.hand_size}"

    def _decide(
        self, obs: np.ndarray, masks: np.ndarray, turns: np.ndarray | None, actions: np.ndarray
    ) -> None:
        st = rng_state(self.rng)
        _run("_k_act", obs, masks, POINTS_TABLE, self._params(), self._lay, st, actions)
        set_rng_state(self.rng, st)


def features_kernel(
    obs: np.ndarray, expert: Any, lay: np.ndarray, seeds: np.ndarray, out: np.ndarray
) -> None:
    """The ``scat-expert-v1`` block of a batch into ``out`` (float32, zeros on entry):
    one compiled call; ``expert`` supplies the tunables, ``seeds`` each row's seed."""
    _run("_k_features", obs, POINTS_TABLE, param_record(expert), lay, seeds, out)

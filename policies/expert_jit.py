"""``expert-jit``: the ``expert`` Schnauz player compiled with numba, for batches of seats.

:class:`ExpertJitPolicy` is a compiled copy of :class:`policies.schnauz.ExpertPolicy`
(the reference; its module docstring explains the ideas): the same decisions, the
same :class:`~policies.schnauz.ExpertParams` and the same ``"expert-jit:knob=value"``
arguments (parsed by :func:`policies.schnauz.parse_expert_arg`), some 75 times faster
when called with a batch (:meth:`ExpertJitPolicy.act_batch`: about 7 µs a move against
the reference's 0.57 ms on one core; ``bench/expert_jit_speed.py``). It exists to be the
opponent of long training runs.

It is a second implementation of a baseline, so ``tests/test_expert_jit.py`` proves it
agrees with the reference: the deterministic parts (hand tables, observation decoding,
the candidate moves, the best reply, the risk of the lowest hand, the final-circle and
knock arithmetic) are compared exactly on many random inputs, and the moves of both
players on thousands of states of real games agree as often as two differently seeded
experts agree with each other (the Monte Carlo estimates are random in both).

What differs, by necessity or on purpose:

* **Randomness.** The player draws from a splitmix64 stream (:func:`_uniform`,
  seeded at every call from the policy's ``numpy.random.Generator``), not from
  Python's ``random``; the estimates have the same distributions, not the same
  samples. (Until December 2026 it drew from numba's ``np.random``, a Mersenne
  Twister several times dearer a number: games against ``expert-jit`` measured before
  then do not replay game for game, their figures only within their intervals. The
  feature kernel of :mod:`policies.expert_features` still draws from ``np.random``.)
  Opponent hands are dealt lazily (a knock check stops dealing once a sample is
  decided), the Monte Carlo loops stop once their outcome is certain, a final-circle
  sample is settled without replies when a best reply cannot change it, and an
  ordinary turn's moves are valued only when the player does not knock: none of which
  changes a decision.
* **Only the default ``value="risk"``** hand value is compiled; ``value="points"``
  raises ``ValueError``. ``final_mc=False`` is supported.
* **Turn counters** (the ``patience`` of :meth:`~policies.schnauz.ExpertPolicy.knock_limit`):
  :meth:`ExpertJitPolicy.act` keeps one, exactly like the reference.
  :meth:`ExpertJitPolicy.act_batch` with ``games`` keeps one per game *and seat* (a
  seat within a round is told apart by where it sees the dealer), so one object can
  play every opponent seat of many parallel games; without ``games`` every row is a
  single decision with its first turn of the round.
* **Illegal masks.** The expert's move is always legal under the engine's masks;
  should a caller's mask forbid it anyway, the first legal action is played.

numba is imported only when the first policy is built (importing :mod:`policies`
stays cheap): the kernels below are plain module-level Python until
:func:`_compile` rebinds them to ``numba.njit(cache=True)`` versions. Without numba
they stay plain Python: correct, about as slow as the reference, and drawing from (and
seeding) numpy's global generator.

The kernels take the rules' own action ids, phases and observation layout by import
(:mod:`schnauz_env.schnauz.engine`, :mod:`~schnauz_env.schnauz.observation`), and pass
named structures between them: the parameters and the layout as records
(:data:`PARAMS_DTYPE`, :data:`LAYOUT_DTYPE`), the tables as an :class:`Expert`, the
scratch arrays as a :class:`Workspace` and a decoded observation's numbers as a
:class:`View`.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import fields as dataclass_fields

import numpy as np

from policies.base import register_policy
from policies.jit_support import (
    CompiledExpert,
    KernelSet,
    layout_dtype,
    observation_record,
    params_dtype,
    record,
    takes_games,
)
from policies.schnauz import (
    SURVIVE,
    ExpertParams,
    TunablePolicy,
    hand_tables,
    lowest_risk,
    parse_expert_arg,
)
from schnauz_env.schnauz.config import MAX_PLAYERS, SchnauzConfig
from schnauz_env.schnauz.engine import (
    DEALER_CHOICE,
    EXCHANGE,
    FINAL_CIRCLE,
    KEEP,
    KNOCK,
    NUM_ACTIONS,
    OVER,
    PASS,
    SWAP_ALL,
    SWAP_BASE,
)
from schnauz_env.schnauz.hands import INSTANT_KEY
from schnauz_env.schnauz.observation import (
    SEAT_AT_TABLE,
    SEAT_FEATURES,
    SEAT_IN_GAME,
    SEAT_LIVES,
    SEAT_SWIMMING,
    ObservationLayout,
)

MAXP = MAX_PLAYERS
#: The turn moves but knock, move ``m`` being action ``SWAP_BASE + m``: the nine swaps
#: (hand slot ``i``, table slot ``j`` is ``m = 3 * i + j``), then swap all, then pass.
NUM_MOVES = NUM_ACTIONS - SWAP_BASE - 1
M_SWAP_ALL, M_PASS = SWAP_ALL - SWAP_BASE, PASS - SWAP_BASE

# Turn-counter modes of _k_turns.
MODE_SINGLE, MODE_GAMES = 1, 2

# ------------------------------------------------------------------ what the kernels take
# The kernels pass named structures, not long positional lists: numpy records for the
# parameters and the observation layout (one-element record arrays from Python, cheap to
# hand to a compiled function; their fields are read by name), and named tuples, which
# numba compiles like structs, for the rest.

#: The :class:`~policies.schnauz.ExpertParams` fields only ``value="points"`` reads, which
#: is not compiled (:func:`param_record` refuses it).
_NOT_COMPILED = ("lookahead", "feed_penalty", "value")
#: The :class:`~policies.schnauz.ExpertParams` the kernels read (:func:`param_record`): every
#: field but the points-only ones, in order, typed by its default.
PARAMS_DTYPE = params_dtype(
    ExpertParams, [f.name for f in dataclass_fields(ExpertParams) if f.name not in _NOT_COMPILED]
)
#: The observation blocks the kernels read (:class:`~schnauz_env.schnauz.observation.ObservationLayout`).
OBS_BLOCKS = ("hand", "table", "out_of_play", "known", "seats", "dealer", "knocker", "phase")
#: Where those blocks start, and the sizes to decode the observation (:func:`layout_record`).
LAYOUT_DTYPE = layout_dtype(
    OBS_BLOCKS,
    [(name, np.int64) for name in ("num_cards", "lowest_card", "lives_scale", "players")],
)
#: Everything the kernels read and never write, for one config and parameter set
#: (:func:`_expert`): ``key`` / ``pts`` (:func:`jit_tables`), ``risk``
#: (:func:`risk_table`), the parameters ``prm`` and the layout ``lay`` (records).
Expert = namedtuple("Expert", ["key", "pts", "risk", "prm", "lay"])
#: The arrays one row's decision works in (:func:`_workspace`): the decoded view
#: (``hand``, ``table``, each position's ``known`` cards and their count ``nknown``,
#: ``lives``, ``outp`` (out), ``swim``, the ``unseen`` cards), the samples (``pool`` and
#: ``perm`` of cards, random ``tables``, model ``hands[sample, position]``), the
#: candidate moves (new hand ``mh``, new table ``mt``, hand key ``mk``, turn value ``mv``),
#: the final circle's reply ``order`` and the knock estimate's ``deal`` (one sample, its
#: own so that the ordinary turn's samples in ``hands`` outlive it), and the state of the
#: random stream ``rng`` (:func:`_uniform`).
Workspace = namedtuple(
    "Workspace",
    [
        "hand",
        "table",
        "known",
        "nknown",
        "lives",
        "outp",
        "swim",
        "unseen",
        "pool",
        "perm",
        "tables",
        "hands",
        "mh",
        "mt",
        "mk",
        "mv",
        "order",
        "deal",
        "rng",
    ],
)
#: The numbers of a decoded observation (:func:`_decode`; the cards are in the
#: :class:`Workspace`): players ``n``, hand / table / unseen card counts, the dealer's
#: and the knocker's position (-1: nobody knocked), the phase and the active players.
View = namedtuple("View", ["n", "nh", "nt", "nu", "dealer", "knocker", "phase", "nact"])
#: The samples of an ordinary turn (:func:`_turn_samples`): the next player ``nxt``
#: (-1: none), how many of its model hands (``hands[:nfeed, nxt]``) and random tables.
TurnSamples = namedtuple("TurnSamples", ["nxt", "nfeed", "ntab"])


def unmanaged(x):  # replaced by schnauz_env.batched.jit.unmanaged in _compile
    return x


#: The kernels and the helpers they call, each marked where it is defined:
#: ``@_kernels.jit`` compiles it as a function of its own, ``@_kernels.inline`` inlines
#: it into its callers (numba's IR inlining): the small helpers, and every step that
#: takes the Workspace. A call passes a named tuple by value, and copying the workspace's
#: eighteen array structs at each call cost the single-row act() about 10%; inlined, it
#: costs nothing.
_kernels = KernelSet(globals(), jit_names=("unmanaged",))


# ------------------------------------------------------------------ hand helpers
@_kernels.inline
def _best_reply(key, a, b, c, x, y, z):
    """policies.schnauz.best_reply on scalars: ``(key, h0, h1, h2, t0, t1, t2)``."""
    best = key[a, b, c]
    h0, h1, h2, t0, t1, t2 = a, b, c, x, y, z
    for j in range(3):
        if j == 0:
            t, r1, r2 = x, y, z
        elif j == 1:
            t, r1, r2 = y, x, z
        else:
            t, r1, r2 = z, x, y
        k = key[t, b, c]
        if k > best:
            best, h0, h1, h2, t0, t1, t2 = k, t, b, c, a, r1, r2
        k = key[a, t, c]
        if k > best:
            best, h0, h1, h2, t0, t1, t2 = k, a, t, c, b, r1, r2
        k = key[a, b, t]
        if k > best:
            best, h0, h1, h2, t0, t1, t2 = k, a, b, t, c, r1, r2
    k = key[x, y, z]
    if k > best:
        best, h0, h1, h2, t0, t1, t2 = k, x, y, z, a, b, c
    return best, h0, h1, h2, t0, t1, t2


@_kernels.inline
def _gain(ex, a, b, c, x, y, z):
    """Points the hand ``a b c`` gains by its best reply on the table ``x y z``."""
    _, h0, h1, h2, _, _, _ = _best_reply(ex.key, a, b, c, x, y, z)
    return ex.pts[h0, h1, h2] - ex.pts[a, b, c]


@_kernels.inline
def _risk(ex, players, a, b, c):
    """policies.schnauz.lowest_risk of the hand ``a b c`` among ``players`` (a table lookup)."""
    return ex.risk[players, int(2.0 * ex.pts[a, b, c])]


@_kernels.jit
def _hand_risk(ex, players, a, b, c, tables, ntab):
    """ExpertPolicy._hand_risk: the risk now blended with the risk after one more swap
    from each of the random ``tables[:ntab]``."""
    key = ex.key
    now = _risk(ex, players, a, b, c)
    if ntab == 0:
        return now
    later = 0.0
    for q in range(ntab):
        _, h0, h1, h2, _, _, _ = _best_reply(key, a, b, c, tables[q, 0], tables[q, 1], tables[q, 2])
        later += _risk(ex, players, h0, h1, h2)
    w = ex.prm.risk_now
    return w * now + (1.0 - w) * later / ntab


@_kernels.inline
def _candidates(key, ws):
    """policies.schnauz.candidates of ``ws.hand`` and ``ws.table`` into ``ws.mh``,
    ``ws.mt`` and their keys ``ws.mk`` (move ``m`` is action ``SWAP_BASE + m``)."""
    hand, table, mh, mt, mk = ws.hand, ws.table, ws.mh, ws.mt, ws.mk
    for i in range(3):
        for j in range(3):
            m = 3 * i + j
            for q in range(3):
                mh[m, q] = hand[q]
                mt[m, q] = table[q]
            mh[m, i] = table[j]
            mt[m, j] = hand[i]
    for q in range(3):
        mh[M_SWAP_ALL, q] = table[q]
        mt[M_SWAP_ALL, q] = hand[q]
        mh[M_PASS, q] = hand[q]
        mt[M_PASS, q] = table[q]
    for m in range(NUM_MOVES):
        mk[m] = key[mh[m, 0], mh[m, 1], mh[m, 2]]


# ------------------------------------------------------------------ decoding
@_kernels.inline
def _decode(obs, r, lay, ws):
    """decode_observation of row ``r`` into the cards of ``ws``; returns its :class:`View`."""
    hand, table, known, nknown = ws.hand, ws.table, ws.known, ws.nknown
    lives, outp, swim, unseen = ws.lives, ws.outp, ws.swim, ws.unseen
    nc = lay.num_cards
    lo = lay.lowest_card
    located = np.int64(0)
    nh = 0
    for i in range(3):
        base = lay.hand + i * nc
        for j in range(nc):
            if obs[r, base + j] != 0 and nh < 3:
                hand[nh] = j + lo
                nh += 1
                located |= np.int64(1) << (j + lo)
    nt = 0
    for i in range(3):
        base = lay.table + i * nc
        for j in range(nc):
            if obs[r, base + j] != 0 and nt < 3:
                table[nt] = j + lo
                nt += 1
                located |= np.int64(1) << (j + lo)
    base = lay.out_of_play
    for j in range(nc):
        if obs[r, base + j] != 0:
            located |= np.int64(1) << (j + lo)
    seats = lay.seats
    total = 0.0
    for k in range(MAXP):
        total += obs[r, seats + SEAT_FEATURES * k + SEAT_AT_TABLE]
    n = int(np.floor(total + 0.5))
    scale = lay.lives_scale
    for k in range(MAXP):
        nknown[k] = 0
        lives[k] = 0
        outp[k] = 0
        swim[k] = 0
    nact = 0
    for k in range(min(n, MAXP)):
        f = seats + SEAT_FEATURES * k
        outp[k] = 0 if obs[r, f + SEAT_IN_GAME] > 0.5 else 1
        swim[k] = 1 if obs[r, f + SEAT_SWIMMING] > 0.5 else 0
        lives[k] = int(np.floor(obs[r, f + SEAT_LIVES] * scale + 0.5))
        if not outp[k]:
            nact += 1
        if k > 0:
            base = lay.known + (k - 1) * nc
            for j in range(nc):
                if obs[r, base + j] != 0:
                    if nknown[k] < 3:
                        known[k, nknown[k]] = j + lo
                    nknown[k] += 1
                    located |= np.int64(1) << (j + lo)
    nu = 0
    for j in range(nc):
        if not (located >> (j + lo)) & 1:
            unseen[nu] = j + lo
            nu += 1
    dealer = 0
    for k in range(MAXP):
        if obs[r, lay.dealer + k] != 0:
            dealer = k
            break
    knocker = -1
    for k in range(MAXP):
        if obs[r, lay.knocker + k] != 0:
            knocker = k
            break
    phase = OVER
    for k in range(3):
        if obs[r, lay.phase + k] != 0:
            phase = k  # DEALER_CHOICE, TURNS, FINAL_CIRCLE are 0, 1, 2
            break
    return View(n, nh, nt, nu, dealer, knocker, phase, nact)


# ------------------------------------------------------------------ randomness
#: splitmix64 (Steele, Lea and Flood 2014; Vigna's reference constants): the state's
#: increment and the two multipliers of the output mix.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@_kernels.jit
def _uniform(rng):
    """A uniform number in [0, 1): from the splitmix64 stream of state ``rng[0]`` (a
    uint64 array, advanced), or from numba's ``np.random`` when ``rng`` is None.

    Not inlined: numba compiles it once per type of ``rng`` and drops the branch not
    taken, so each kind of caller pays for its own generator only. splitmix64 takes a
    few integer operations a number where numba's Mersenne Twister takes ~7 ns (two
    32-bit outputs per double); it is the player's stream (:func:`_k_act`), while the
    feature kernel (:mod:`policies.expert_features`) keeps ``np.random``, so the
    features a trained model was given stay the same numbers."""
    if rng is None:
        return np.random.random()
    else:
        z = rng[0] + _GOLDEN
        rng[0] = z
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z = z ^ (z >> np.uint64(31))
        return (z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@_kernels.jit
def _deal(key, known, nknown, p, pool, m, draws, hands, s, remove, rng):
    """sample_hands for position ``p``: its known cards and the best of ``draws`` random
    completions from ``pool[:m]`` into ``hands[s, p]``, drawn from ``rng``
    (:func:`_uniform`); returns the new pool size (the dealt cards are removed from the
    pool when ``remove``). Called in the innermost
    loops, so it takes its arrays one by one (a whole :class:`Workspace` costs a copy)."""
    k = 3 - nknown[p]
    if k <= 0:
        for q in range(3):
            hands[s, p, q] = known[p, q]
        return m
    k0 = known[p, 0]
    k1 = known[p, 1]
    best_key = -1
    bi = bj = bx = -1
    for _ in range(draws):
        i = int(_uniform(rng) * m)
        j = -1
        x = -1
        if k == 1:
            kk = key[k0, k1, pool[i]]
        else:
            j = int(_uniform(rng) * m)
            while j == i:
                j = int(_uniform(rng) * m)
            if k == 2:
                kk = key[k0, pool[i], pool[j]]
            else:
                x = int(_uniform(rng) * m)
                while x in (i, j):
                    x = int(_uniform(rng) * m)
                kk = key[pool[i], pool[j], pool[x]]
        if kk > best_key:
            best_key = kk
            bi, bj, bx = i, j, x
    if k == 1:
        hands[s, p, 0], hands[s, p, 1], hands[s, p, 2] = k0, k1, pool[bi]
    elif k == 2:
        hands[s, p, 0], hands[s, p, 1], hands[s, p, 2] = k0, pool[bi], pool[bj]
    else:
        hands[s, p, 0], hands[s, p, 1], hands[s, p, 2] = pool[bi], pool[bj], pool[bx]
    if remove:  # drop the used pool slots, highest index first
        if bi < bj:
            bi, bj = bj, bi
        if bj < bx:
            bj, bx = bx, bj
        if bi < bj:
            bi, bj = bj, bi
        for idx in (bi, bj, bx):
            if idx >= 0:
                m -= 1
                pool[idx] = pool[m]
    return m


@_kernels.inline
def _draws(prm, nknown):
    """How many random draws the opponent model takes for a hand with ``nknown`` known cards."""
    return prm.skill[2 - nknown] if nknown < 3 else 0


@_kernels.inline
def _draw_distinct(perm, m, count, rng):
    """Move ``count`` uniformly drawn distinct entries of ``perm[:m]`` to its front."""
    for q in range(count):
        i = q + int(_uniform(rng) * (m - q))
        perm[q], perm[i] = perm[i], perm[q]


@_kernels.inline
def _random_tables(ws, nu, count):
    """ExpertPolicy._random_tables: ``count`` random tables of unseen cards into
    ``ws.tables``; returns how many (0 if fewer than three cards are unseen)."""
    if nu < 3:
        return 0
    perm, tables = ws.perm, ws.tables
    for i in range(nu):
        perm[i] = ws.unseen[i]
    for q in range(count):
        _draw_distinct(perm, nu, 3, ws.rng)
        tables[q, 0], tables[q, 1], tables[q, 2] = perm[0], perm[1], perm[2]
    return count


# ------------------------------------------------------------------ knocking
@_kernels.inline
def _knock_limit(prm, ws, view, stuck, turns):
    """ExpertPolicy.knock_limit."""
    lives = ws.lives
    others = 0
    for k in range(1, view.n):
        if not ws.outp[k]:
            others += lives[k]
    nact = view.nact
    share = prm.stuck_share if stuck else prm.knock_share
    limit = share / nact
    limit *= 1.0 + prm.lives_slope * (lives[0] - others / (nact - 1))
    if ws.swim[0]:
        limit *= prm.swim_factor
    patience = prm.patience
    if turns > patience:
        limit *= 1.0 + (turns - patience) / patience
    return limit


@_kernels.inline
def _knock_loses(ex, ws, view, mine):
    """One sample of the knock estimate: after a deal from the opponent model and every
    other player's best reply in seat order, is the hand of key ``mine`` the lowest?"""
    pool, hands = ws.pool, ws.deal
    for i in range(view.nu):
        pool[i] = ws.unseen[i]
    m = view.nu
    x, y, z = ws.table[0], ws.table[1], ws.table[2]
    for p in range(1, view.n):  # deal as sample_hands does, in seat order, as needed
        if ws.outp[p]:
            continue
        draws = _draws(ex.prm, ws.nknown[p])
        m = _deal(ex.key, ws.known, ws.nknown, p, pool, m, draws, hands, 0, True, ws.rng)
        k, _, _, _, x, y, z = _best_reply(
            ex.key, hands[0, p, 0], hands[0, p, 1], hands[0, p, 2], x, y, z
        )
        if k < mine:
            return False
    return True


@_kernels.jit
def _knock_losses(ex, ws, view, mine, limit, decide):
    """In how many of ``prm.samples`` sampled deals a knock with the hand of key ``mine``
    loses (ExpertPolicy._should_knock). With ``decide`` the count stops as soon as
    whether ``losses / samples < limit`` is certain (it then only answers that)."""
    samples = ex.prm.samples
    losses = 0
    for s in range(samples):
        if _knock_loses(ex, ws, view, mine):
            losses += 1
        if decide:
            if losses / samples >= limit:  # it can only grow: no knock
                return losses
            if (losses + samples - 1 - s) / samples < limit:  # even if every other sample loses
                return losses
    return losses


@_kernels.inline
def _should_knock(ex, ws, view, turns, stuck):
    """ExpertPolicy._should_knock: the chance of the lowest hand after every other
    player's best reply, from the opponent model, below the knock limit."""
    a, b, c = ws.hand[0], ws.hand[1], ws.hand[2]
    if ex.pts[a, b, c] < ex.prm.min_knock:
        return False
    limit = _knock_limit(ex.prm, ws, view, stuck, turns)
    losses = _knock_losses(ex, ws, view, ex.key[a, b, c], limit, True)
    return losses / ex.prm.samples < limit


# ------------------------------------------------------------------ final circle
@_kernels.inline
def _final_order(view, outp, order):
    """The active positions that still reply before the knocker, into ``order``; their count."""
    n = view.n
    no = 0
    k = 1 % n
    while k != view.knocker and k != 0:
        if not outp[k]:
            order[no] = k
            no += 1
        k = (k + 1) % n
    return no


@_kernels.inline
def _deal_samples(ex, ws, view, samples):
    """``samples`` deals of sample_hands (every opponent) into ``ws.hands[:samples]``."""
    pool = ws.pool
    for s in range(samples):
        for i in range(view.nu):
            pool[i] = ws.unseen[i]
        mleft = view.nu
        for p in range(1, view.n):
            if not ws.outp[p]:
                draws = _draws(ex.prm, ws.nknown[p])
                mleft = _deal(
                    ex.key, ws.known, ws.nknown, p, pool, mleft, draws, ws.hands, s, True, ws.rng
                )


@_kernels.inline
def _reply_index(order, no, p):
    """Where position ``p`` replies in ``order[:no]`` (-1: it does not reply)."""
    for i in range(no):
        if order[i] == p:
            return i
    return -1


@_kernels.jit
def _move_losses(key, ws, n, samples, no, m, cap):
    """In how many of the sampled deals ``ws.hands[:samples]`` move ``m`` is left the
    lowest hand once ``ws.order[:no]`` have made their best replies; counting stops at
    ``cap`` losses (``cap < 0``: never).

    A best reply never lowers a hand's key, so a sample is settled without replying
    when a player who does not reply holds a hand below the move's (no loss) or every
    hand starts at or above it (a loss); otherwise the replies are played in order only
    up to the last replier that starts below it, and stop at the first that ends below
    it. The count is that of replaying every reply and then comparing every hand."""
    hands, order, outp, mt = ws.hands, ws.order, ws.outp, ws.mt
    mine = ws.mk[m]
    losses = 0
    for s in range(samples):
        last = -1  # the last replier (index into order) whose hand starts below mine
        lowest = True
        for p in range(1, n):
            if outp[p] or key[hands[s, p, 0], hands[s, p, 1], hands[s, p, 2]] >= mine:
                continue
            i = _reply_index(order, no, p)
            if i < 0:  # stays below mine: not the lowest, whatever the replies
                lowest = False
                break
            last = max(last, i)
        if lowest and last >= 0:
            x, y, z = mt[m, 0], mt[m, 1], mt[m, 2]
            for i in range(last + 1):
                p = order[i]
                k, _, _, _, x, y, z = _best_reply(
                    key, hands[s, p, 0], hands[s, p, 1], hands[s, p, 2], x, y, z
                )
                if k < mine:
                    lowest = False
                    break
        if lowest:
            losses += 1
            if 0 <= cap <= losses:
                break
    return losses


@_kernels.inline
def _final_choice(key, ws, n, samples, no):
    """The scoring of ExpertPolicy._final_move given the sampled ``ws.hands[:samples]``."""
    mk = ws.mk
    # The five best moves by hand key, stable (the reference's sorted(...)[:5]).
    ranked = np.empty(5, dtype=np.int64)
    used = np.zeros(NUM_MOVES, dtype=np.bool_)
    for q in range(5):
        bm = -1
        for m in range(NUM_MOVES):
            if not used[m] and (bm < 0 or mk[m] > mk[bm]):
                bm = m
        used[bm] = True
        ranked[q] = bm
    best_losses = -1
    best_mine = 0
    best_action = PASS
    for q in range(5):
        m = ranked[q]
        mine = mk[m]
        # Not better than the best so far once it loses this often: stop counting there
        # (exact: losses only grow).
        cap = -1
        if best_losses >= 0:
            cap = best_losses + (1 if mine > best_mine else 0)
        losses = _move_losses(key, ws, n, samples, no, m, cap)
        if best_losses < 0 or losses < best_losses or (losses == best_losses and mine > best_mine):
            best_losses, best_mine, best_action = losses, mine, SWAP_BASE + m
    return best_action


@_kernels.inline
def _final_move(ex, ws, view):
    """ExpertPolicy._final_move: the move with the least simulated chance of the lowest
    hand once the players up to the knocker have replied."""
    no = _final_order(view, ws.outp, ws.order)
    mk = ws.mk
    if no == 0 or not ex.prm.final_mc:  # the best hand, PASS on equal keys
        best_m = 0
        for m in range(1, NUM_MOVES):
            if mk[m] > mk[best_m] or (mk[m] == mk[best_m] and m == M_PASS):
                best_m = m
        return SWAP_BASE + best_m
    samples = ex.prm.samples
    _deal_samples(ex, ws, view, samples)
    return _final_choice(ex.key, ws, view.n, samples, no)


# ------------------------------------------------------------------ ordinary turns
@_kernels.inline
def _turn_samples(ex, ws, view):
    """The samples of move_values: the next player's model hands (``ws.hands[:nfeed, nxt]``)
    and random tables (``ws.tables[:ntab]``); returns their :class:`TurnSamples`."""
    prm = ex.prm
    nxt = -1
    for p in range(1, view.n):
        if not ws.outp[p]:
            nxt = p
            break
    nfeed = 0
    if prm.feed_risk != 0.0 and nxt >= 0:
        # sample_hands deals the next player first, from the full pool: only its hand matters.
        nfeed = prm.feed_samples
        draws = _draws(prm, ws.nknown[nxt])
        for s in range(nfeed):
            _deal(
                ex.key,
                ws.known,
                ws.nknown,
                nxt,
                ws.unseen,
                view.nu,
                draws,
                ws.hands,
                s,
                False,
                ws.rng,
            )
    ntab = _random_tables(ws, view.nu, prm.table_samples)
    return TurnSamples(nxt, nfeed, ntab)


@_kernels.inline
def _turn_value(ex, ws, nact, smp, m):
    """ExpertPolicy.move_values of move ``m``: minus its risk and what it feeds the next player."""
    mh, mt, hands = ws.mh, ws.mt, ws.hands
    v = -_hand_risk(ex, nact, mh[m, 0], mh[m, 1], mh[m, 2], ws.tables, smp.ntab)
    if smp.nfeed > 0:
        nxt = smp.nxt
        feed = 0.0
        for s in range(smp.nfeed):
            feed += _gain(
                ex,
                hands[s, nxt, 0],
                hands[s, nxt, 1],
                hands[s, nxt, 2],
                mt[m, 0],
                mt[m, 1],
                mt[m, 2],
            )
        v -= ex.prm.feed_risk * (feed / smp.nfeed)
    return v


@_kernels.inline
def _first_best(mv):
    """The move ExpertPolicy._turn_move picks from the values ``mv``: scanning in move
    order, a move replaces the best so far only if it is worth more by over 1e-9."""
    best_v = 0.0
    best_m = -1
    for m in range(NUM_MOVES):
        if best_m < 0 or mv[m] > best_v + 1e-9:
            best_v = mv[m]
            best_m = m
    return best_m


@_kernels.inline
def _turn_values(ex, ws, nact, smp):
    """ExpertPolicy.move_values of every move into ``ws.mv``, given the samples ``smp``;
    returns the best move (:func:`_first_best`)."""
    for m in range(NUM_MOVES):
        ws.mv[m] = _turn_value(ex, ws, nact, smp, m)
    return _first_best(ws.mv)


#: How far below the value of a move already valued a move's bound must be for
#: :func:`_turn_best` to skip it.
PRUNE_MARGIN = 1e-6


@_kernels.inline
def _turn_bound(ex, ws, nact, smp, m):
    """An upper bound of :func:`_turn_value` of move ``m`` that needs no samples: minus
    the risk-now share of its risk. The rest of the risk is a mean of probabilities, so
    at least 0 when ``0 <= risk_now <= 1``; what the move feeds the next player is a gain
    in points, never negative (a best reply keeps the hand unless it finds a higher key,
    and hand keys are ordered by points: tests/test_expert_jit.py checks every deck), so
    its penalty is at least 0 when ``feed_risk >= 0``."""
    now = _risk(ex, nact, ws.mh[m, 0], ws.mh[m, 1], ws.mh[m, 2])
    return -ex.prm.risk_now * now if smp.ntab > 0 else -now


@_kernels.inline
def _turn_best(ex, ws, nact, smp):
    """:func:`_turn_values`' best move, valuing only the moves that can be it.

    The move of the highest bound (:func:`_turn_bound`) is valued first; a move whose
    bound is more than ``PRUNE_MARGIN`` below the best value found so far is skipped
    (its ``ws.mv`` is -inf), the others are valued, and :func:`_first_best` picks from
    ``ws.mv`` as before. The choice is the same: a skipped move is worth over 1e-6 less
    than the best, and the 1e-9 steps of :func:`_first_best` can carry a difference at
    most eleven steps up, so only among moves far below the best. The samples are drawn
    before (:func:`_turn_samples`), so the random stream is the same too. About two
    moves in three are skipped in real games. With other parameters
    (``risk_now`` outside [0, 1], ``feed_risk < 0``) every move is valued."""
    prm, mv = ex.prm, ws.mv
    if not (0.0 <= prm.risk_now <= 1.0 and prm.feed_risk >= 0.0):
        return _turn_values(ex, ws, nact, smp)
    first = 0
    for m in range(NUM_MOVES):
        mv[m] = _turn_bound(ex, ws, nact, smp, m)
        if mv[m] > mv[first]:
            first = m
    value_first = _turn_value(ex, ws, nact, smp, first)
    found = value_first  # the best value so far
    for m in range(NUM_MOVES):
        if m == first:
            mv[m] = value_first
        elif mv[m] < found - PRUNE_MARGIN:
            mv[m] = -np.inf
        else:
            mv[m] = _turn_value(ex, ws, nact, smp, m)
            found = max(found, mv[m])
    return _first_best(mv)


@_kernels.inline
def _improving(ex, ws):
    """ExpertPolicy._turn_move's second move: the last move that raises the hand's key,
    or PASS (the knock limit is the stuck one when there is none)."""
    mk = ws.mk
    now = ex.key[ws.hand[0], ws.hand[1], ws.hand[2]]
    improving = PASS
    for m in range(M_PASS):
        if mk[m] > now:
            improving = SWAP_BASE + m
    return improving


# ------------------------------------------------------------------ dealer's choice
@_kernels.inline
def _dealer_values(ex, ws, view):
    """The values (minus risk) of keeping and of exchanging: ``(keep, exchange)``."""
    prm = ex.prm
    nu = view.nu
    nact = view.nact
    perm, tables = ws.perm, ws.tables
    ntab = _random_tables(ws, nu, prm.table_samples)
    a, b, c = ws.hand[0], ws.hand[1], ws.hand[2]
    keep = -_hand_risk(ex, nact, a, b, c, tables, ntab)
    nxt = False
    for p in range(1, view.n):
        if not ws.outp[p]:
            nxt = True
            break
    for i in range(nu):
        perm[i] = ws.unseen[i]
    m = prm.feed_samples
    exchange = 0.0
    feed = 0.0
    for _ in range(m):
        _draw_distinct(perm, nu, 9, ws.rng)
        exchange -= _hand_risk(ex, nact, perm[0], perm[1], perm[2], tables, ntab)
        if nxt:
            o0, o1, o2 = perm[3], perm[4], perm[5]
            feed += _gain(ex, o0, o1, o2, a, b, c) - _gain(
                ex, o0, o1, o2, perm[6], perm[7], perm[8]
            )
    return keep, exchange / m - prm.feed_risk * feed / m


@_kernels.inline
def _dealer_keeps(prm, keep, exchange):
    """ExpertPolicy._dealer_choice_risk's rule: keep unless exchanging is worth more."""
    return keep >= exchange - prm.keep_margin


# ------------------------------------------------------------------ one decision
@_kernels.jit
def _workspace(prm, rng):
    """The :class:`Workspace` one row's decision works in, allocated once per batch;
    ``rng`` is its random stream (:func:`_uniform`: a uint64 state array, or None)."""
    nsmp = max(prm.samples, prm.feed_samples, 1)
    return Workspace(
        np.zeros(3, dtype=np.int64),  # hand
        np.zeros(3, dtype=np.int64),  # table
        np.zeros((MAXP, 3), dtype=np.int64),  # known
        np.zeros(MAXP, dtype=np.int64),  # nknown
        np.zeros(MAXP, dtype=np.int64),  # lives
        np.zeros(MAXP, dtype=np.int64),  # outp
        np.zeros(MAXP, dtype=np.int64),  # swim
        np.zeros(64, dtype=np.int64),  # unseen
        np.zeros(64, dtype=np.int64),  # pool
        np.zeros(64, dtype=np.int64),  # perm
        np.zeros((max(prm.table_samples, 1), 3), dtype=np.int64),  # tables
        np.zeros((nsmp, MAXP, 3), dtype=np.int64),  # hands
        np.zeros((NUM_MOVES, 3), dtype=np.int64),  # mh
        np.zeros((NUM_MOVES, 3), dtype=np.int64),  # mt
        np.zeros(NUM_MOVES, dtype=np.int64),  # mk
        np.zeros(NUM_MOVES, dtype=np.float64),  # mv
        np.zeros(MAXP, dtype=np.int64),  # order
        np.zeros((1, MAXP, 3), dtype=np.int64),  # deal
        rng,
    )


@_kernels.inline
def _usable(view, lay):
    """Whether a decoded observation is one this config decides: its table size, a hand."""
    return view.n == lay.players and view.nh == 3


@_kernels.jit
def _decide(obs, r, mask, turns, ex, ws):
    """ExpertPolicy.act for row ``r`` (its turn counter already updated to ``turns``),
    working in ``ws``; -1 if the row does not match the config."""
    view = _decode(obs, r, ex.lay, ws)
    if not _usable(view, ex.lay):
        return -1
    if view.phase == DEALER_CHOICE:
        keep, exchange = _dealer_values(ex, ws, view)
        return KEEP if _dealer_keeps(ex.prm, keep, exchange) else EXCHANGE
    if view.nt != 3:
        return -1
    _candidates(ex.key, ws)
    mk = ws.mk
    top = -1
    top_action = PASS
    for m in range(M_PASS):  # max over (key, action): the later action on equal keys
        if mk[m] >= top:
            top = mk[m]
            top_action = SWAP_BASE + m
    if top >= INSTANT_KEY and mask[r, top_action]:
        return top_action
    if view.phase == FINAL_CIRCLE:
        return _final_move(ex, ws, view)
    # ExpertPolicy._turn_move, then _should_knock: the turn's samples are drawn before the
    # knock's (the same random stream), but its moves are valued only if it does not knock.
    improving = _improving(ex, ws)
    smp = _turn_samples(ex, ws, view)
    if mask[r, KNOCK] and _should_knock(ex, ws, view, turns, improving == PASS):
        return KNOCK
    return SWAP_BASE + _turn_best(ex, ws, view.nact, smp)


@_kernels.inline
def _expert(key, pts, risk, prm, lay):
    """The :class:`Expert` of a kernel's (caller-owned) arguments, its arrays unmanaged
    and its one-element record arrays as records."""
    return Expert(unmanaged(key), unmanaged(pts), unmanaged(risk), prm[0], lay[0])


@_kernels.jit
def _unmanaged_rng(rng):
    """:func:`unmanaged` of a state array; None stays None (compiled per type, like
    :func:`_uniform`)."""
    if rng is None:
        return rng
    else:
        return unmanaged(rng)


@_kernels.jit
def _borrow(ws):
    """The arrays of ``ws`` without reference counting (:func:`unmanaged`): valid while
    ``ws`` itself is alive, which the kernel ensures with :func:`_release`."""
    return Workspace(
        unmanaged(ws.hand),
        unmanaged(ws.table),
        unmanaged(ws.known),
        unmanaged(ws.nknown),
        unmanaged(ws.lives),
        unmanaged(ws.outp),
        unmanaged(ws.swim),
        unmanaged(ws.unseen),
        unmanaged(ws.pool),
        unmanaged(ws.perm),
        unmanaged(ws.tables),
        unmanaged(ws.hands),
        unmanaged(ws.mh),
        unmanaged(ws.mt),
        unmanaged(ws.mk),
        unmanaged(ws.mv),
        unmanaged(ws.order),
        unmanaged(ws.deal),
        _unmanaged_rng(ws.rng),
    )


@_kernels.jit
def _release(ws):
    """The last use of a workspace whose arrays were borrowed: numba frees a value after
    its last use, so the borrowed views are valid up to this call."""
    return ws.hand.shape[0]


@_kernels.jit
def _k_act(obs, masks, turns, key, pts, risk, prm, lay, rng, actions):
    """The expert's move for every row of ``obs`` / ``masks`` into ``actions``
    (-1: the row does not match the config), drawing from the splitmix64 stream whose
    state is ``rng[0]`` (a one-element uint64 array, advanced)."""
    obs = unmanaged(obs)
    masks = unmanaged(masks)
    turns = unmanaged(turns)
    actions = unmanaged(actions)
    ex = _expert(key, pts, risk, prm, lay)
    owned = _workspace(ex.prm, rng)
    ws = _borrow(owned)
    for r in range(obs.shape[0]):
        a = _decide(obs, r, masks, turns[r], ex, ws)
        if a >= 0 and not masks[r, a]:  # never with the engine's masks
            for q in range(masks.shape[1]):
                if masks[r, q]:
                    a = q
                    break
        actions[r] = a
    _release(owned)


#: Turn-counter state of some games (:meth:`ExpertJitPolicy._counters`): per game the
#: round id and its epoch, per game and seat slot the epoch its count is of and the count.
Counters = namedtuple("Counters", ["rid", "epoch", "slot_epoch", "slot_turns"])


@_kernels.jit
def _k_turns(obs, lay, games, mode, rid, epoch, slot_epoch, slot_turns, turns):
    """Count each row's own turns this round into ``turns``.

    ``MODE_SINGLE``: one counter (state row 0), reset when (lives, out, dealer) as this
    seat sees them change, exactly ExpertPolicy's. ``MODE_GAMES``: per game ``games[r]``
    the round is (lives, out) as seen from the dealer (the same for every seat), and a
    counter per seat, told apart by the dealer's position relative to it.
    """
    lay = lay[0]
    seats = lay.seats
    scale = lay.lives_scale
    n = lay.players
    cur = np.zeros(2 * MAXP + 1, dtype=np.int64)
    rel = np.zeros(2 * MAXP, dtype=np.int64)
    for r in range(obs.shape[0]):
        dealer = 0
        for k in range(MAXP):
            if obs[r, lay.dealer + k] != 0:
                dealer = k
                break
        for k in range(MAXP):
            rel[k] = 0
            rel[MAXP + k] = 0
        for k in range(n):
            f = seats + SEAT_FEATURES * k
            rel[k] = int(np.floor(obs[r, f + SEAT_LIVES] * scale + 0.5))
            rel[MAXP + k] = 0 if obs[r, f + SEAT_IN_GAME] > 0.5 else 1
        if mode == MODE_SINGLE:
            g = 0
            slot = 0
            for k in range(2 * MAXP):
                cur[k] = rel[k]
            cur[2 * MAXP] = dealer
        else:
            g = games[r]
            slot = dealer
            for k in range(2 * MAXP):
                cur[k] = 0
            for k in range(n):
                j = (dealer + k) % n
                cur[k] = rel[j]
                cur[MAXP + k] = rel[MAXP + j]
            cur[2 * MAXP] = 0
        same = True
        for k in range(2 * MAXP + 1):
            if rid[g, k] != cur[k]:
                same = False
                break
        if not same:
            for k in range(2 * MAXP + 1):
                rid[g, k] = cur[k]
            epoch[g] += 1
        if slot_epoch[g, slot] != epoch[g]:
            slot_epoch[g, slot] = epoch[g]
            slot_turns[g, slot] = 0
        slot_turns[g, slot] += 1
        turns[r] = slot_turns[g, slot]


_compiled = False


def _compile() -> None:
    """Rebind the kernels (and the helpers they call) to their numba versions, once
    (:class:`~policies.jit_support.KernelSet`: thread-safe; without numba it only warns)."""
    global _compiled
    _kernels.compile()
    _compiled = True


# ------------------------------------------------------------------ per-config data
_TABLES: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}


def jit_tables(config: SchnauzConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(key, pts)`` as (52, 52, 52) int64 / float64 arrays: the expert's
    :class:`~policies.schnauz.HandTables` of ``config``'s deck and tie rule (cached)."""
    k = (config.deck, config.ties)
    if k not in _TABLES:
        t = hand_tables(config)
        _TABLES[k] = (np.array(t.key, dtype=np.int64), np.array(t.pts, dtype=np.float64))
    return _TABLES[k]


def risk_table() -> np.ndarray:
    """``risk[players, half_points]`` = :func:`policies.schnauz.lowest_risk` (as computed
    by it, so the floats are the reference's)."""
    out = np.zeros((MAXP + 1, len(SURVIVE)), dtype=np.float64)
    for players in range(1, MAXP + 1):
        for half in range(len(SURVIVE)):
            out[players, half] = lowest_risk(half / 2, players)
    return out


def layout_record(config: SchnauzConfig) -> np.ndarray:
    """The observation offsets and sizes the kernels decode with (:data:`LAYOUT_DTYPE`)."""
    layout = ObservationLayout(config)
    return observation_record(
        LAYOUT_DTYPE,
        layout,
        num_cards=layout.num_cards,
        lowest_card=int(config.deck_cards[0]),
        lives_scale=max(config.lives, 1),
        players=config.num_players,
    )


def param_record(params: ExpertParams) -> np.ndarray:
    """The parameters the kernels read (:data:`PARAMS_DTYPE`); ``ValueError`` for what is
    not compiled or out of range."""
    if params.value != "risk":
        raise ValueError(
            f"expert-jit supports only the risk value (value='risk'), not {params.value!r}; "
            "use 'expert' for value='points'"
        )
    skill = params.skill
    skill = (skill,) * 3 if isinstance(skill, int) else tuple(skill)
    if len(skill) != 3 or min(skill) < 1:
        raise ValueError(f"skill must be three draw counts >= 1, got {params.skill!r}")
    for name in ("samples", "feed_samples", "patience"):
        if getattr(params, name) < 1:
            raise ValueError(f"{name} must be >= 1, got {getattr(params, name)!r}")
    values = {name: getattr(params, name) for name in PARAMS_DTYPE.names}
    values.update(skill=skill, table_samples=max(params.table_samples, 0))
    return record(PARAMS_DTYPE, **values)


def kernel_inputs(config: SchnauzConfig, params: ExpertParams) -> Expert:
    """The arrays of the :class:`Expert` of ``config`` and ``params``, as the kernels take
    them (``prm`` and ``lay`` as one-element record arrays)."""
    key, pts = jit_tables(config)
    return Expert(key, pts, risk_table(), param_record(params), layout_record(config))


# ------------------------------------------------------------------ the policy
@register_policy("schnauz", "expert-jit")
class ExpertJitPolicy(CompiledExpert, TunablePolicy[ExpertParams]):
    """The ``expert`` compiled with numba; batched moves with :meth:`act_batch`
    (:class:`~policies.jit_support.CompiledExpert`'s, on the turns of :meth:`_turns`).
    Its tunables are the expert's (``"expert-jit:knock_share=0.5,samples=64"``)."""

    name = "expert-jit"
    params_class = ExpertParams
    #: :meth:`act_batch` takes the games' indices as a third argument (see :meth:`_turns`).
    per_game = True
    num_actions = NUM_ACTIONS
    #: The argument's errors name the expert's parameters.
    _parse_arg = staticmethod(parse_expert_arg)

    def _setup(self, seed: int | None) -> None:
        self._ex = kernel_inputs(self.config, self.params)
        self._lay = self._ex.lay
        self._size = int(self._lay["obs_size"][0])
        _compile()
        self._single = self._counters(1)
        self._games = self._counters(0)

    @staticmethod
    def _counters(games: int) -> Counters:
        """Turn-counter state of ``games`` games (:class:`Counters`)."""
        return Counters(
            np.full((games, 2 * MAXP + 1), -1, dtype=np.int64),
            np.zeros(games, dtype=np.int64),
            np.full((games, MAXP), -1, dtype=np.int64),
            np.zeros((games, MAXP), dtype=np.int64),
        )

    def reset(self, seed: int | None = None) -> None:
        """A new game: reseed when ``seed`` is given, and forget every turn counter."""
        super().reset(seed)
        self._single = self._counters(1)
        self._games = self._counters(0)

    @property
    def rows_what(self) -> str:
        """The deck, which decides the observation's size."""
        return f"deck {self.config.deck}"

    @property
    def no_action(self) -> str:  # type: ignore[override]
        """The error when a row has no move: it does not fit this config, or shows no hand."""
        return (
            f"an observation does not match this config ({self.config.num_players} "
            "players) or shows no hand"
        )

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """One move, on this seat's turns counted as the reference expert counts them."""
        obs = self._rows(np.asarray(observation)[None])
        turns = np.zeros(1, dtype=np.int64)
        _k_turns(obs, self._lay, turns, MODE_SINGLE, *self._single, turns)
        return int(self._moves(obs, np.asarray(action_mask)[None], turns)[0])

    act_batch = takes_games(CompiledExpert.act_batch)

    # -------------------------------------------------------------- internals
    def _turns(self, obs: np.ndarray, games: np.ndarray | None) -> np.ndarray:
        """Each row's turn of the round (the expert grows bolder after ``patience`` turns).

        ``games`` (one int per row) names the game each row belongs to: the policy then
        counts each seat's turns per game, so one object can play any seats of many
        parallel games. Without ``games`` every row is a single decision (its first turn
        of the round).
        """
        b = obs.shape[0]
        turns = np.ones(b, dtype=np.int64)
        if games is not None and b:
            games = np.ascontiguousarray(games, dtype=np.int64).reshape(-1)
            if games.shape != (b,) or games.min() < 0:
                raise ValueError(f"games must be {b} indices >= 0, one per row")
            self._grow(int(games.max()) + 1)
            _k_turns(obs, self._lay, games, MODE_GAMES, *self._games, turns)
        return turns

    def _grow(self, games: int) -> None:
        have = self._games.epoch.shape[0]
        if games > have:
            more = self._counters(max(games, 2 * have) - have)
            self._games = Counters(
                *(np.concatenate([a, m]) for a, m in zip(self._games, more, strict=True))
            )

    def _decide(
        self, obs: np.ndarray, masks: np.ndarray, turns: np.ndarray | None, actions: np.ndarray
    ) -> None:
        stream = self.rng.integers(2**64, size=1, dtype=np.uint64)  # a new start per call
        with np.errstate(over="ignore"):  # splitmix64 wraps (numpy scalars warn without numba)
            _k_act(obs, masks, turns, *self._ex, stream, actions)

"""``expert-jit``: the ``expert`` Schnauz player compiled with numba, for batches of seats.

:class:`ExpertJitPolicy` is a compiled copy of :class:`policies.schnauz.ExpertPolicy`
(the reference; its module docstring explains the ideas): the same decisions, the
same :class:`~policies.schnauz.ExpertParams` and the same ``"expert-jit:knob=value"``
arguments (parsed by :func:`policies.schnauz.parse_expert_arg`), some 40 times faster
when called with a batch (:meth:`ExpertJitPolicy.act_batch`: about 15 µs a move against
the reference's 0.7 ms on one core; ``bench/expert_jit_speed.py``). It exists to be the
opponent of long training runs.

It is a second implementation of a baseline, so ``tests/test_expert_jit.py`` proves it
agrees with the reference: the deterministic parts (hand tables, observation decoding,
the candidate moves, the best reply, the risk of the lowest hand, the final-circle and
knock arithmetic) are compared exactly on many random inputs, and the moves of both
players on thousands of states of real games agree as often as two differently seeded
experts agree with each other (the Monte Carlo estimates are random in both).

What differs, by necessity or on purpose:

* **Randomness.** The kernels draw from numba's own ``np.random`` (seeded at every
  call from the policy's ``numpy.random.Generator``), not from Python's ``random``;
  the estimates have the same distributions, not the same samples. Opponent hands
  are dealt lazily (a knock check stops dealing once a sample is decided) and the
  Monte Carlo loops stop once their outcome is certain, which changes no decision.
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
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from policies.base import Policy, register_policy

if TYPE_CHECKING:
    from policies.schnauz import ExpertParams
    from schnauz_env.schnauz.config import SchnauzConfig

# Actions and phases (the engine's values; checked against it in the tests).
KEEP, EXCHANGE, SWAP_ALL, PASS, KNOCK = 0, 1, 11, 12, 13
DEALER_CHOICE, TURNS, FINAL_CIRCLE, OVER = 0, 1, 2, 3
SCHNAUZ_KEY = 2 << 20  # hand keys at or above this are Schnauz or Fire
MAXP = 6

# Layout vector: where the blocks start in the observation (see _layout_vector).
L_HAND, L_TABLE, L_OOP, L_KNOWN, L_SEATS, L_DEALER, L_KNOCKER, L_PHASE = range(8)
L_NC, L_LO, L_LSCALE, L_N, L_SIZE = 8, 9, 10, 11, 12
NLAY = 13

# Parameter vector (see _param_vector).
P_SAMPLES, P_KNOCK_SHARE, P_LIVES_SLOPE, P_SWIM, P_STUCK, P_MIN_KNOCK, P_PATIENCE = range(7)
P_SKILL, P_KEEP_MARGIN, P_FEED_SAMPLES, P_RISK_NOW, P_TABLE_SAMPLES = 7, 10, 11, 12, 13
P_FEED_RISK, P_FINAL_MC = 14, 15
NPRM = 16

# Turn-counter modes of _k_turns.
MODE_SINGLE, MODE_GAMES = 1, 2


def unmanaged(x):  # replaced by schnauz_env.batched._jit.unmanaged in _compile
    return x


# ------------------------------------------------------------------ hand helpers
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


def _gain(key, pts, a, b, c, x, y, z):
    """Points the hand ``a b c`` gains by its best reply on the table ``x y z``."""
    _, h0, h1, h2, _, _, _ = _best_reply(key, a, b, c, x, y, z)
    return pts[h0, h1, h2] - pts[a, b, c]


def _hand_risk(key, pts, risk, players, a, b, c, tables, ntab, w):
    """ExpertPolicy._hand_risk: the risk now blended with the risk after one more swap."""
    now = risk[players, int(2.0 * pts[a, b, c])]
    if ntab == 0:
        return now
    later = 0.0
    for q in range(ntab):
        _, h0, h1, h2, _, _, _ = _best_reply(key, a, b, c, tables[q, 0], tables[q, 1], tables[q, 2])
        later += risk[players, int(2.0 * pts[h0, h1, h2])]
    return w * now + (1.0 - w) * later / ntab


def _candidates(hand, table, mh, mt, mk, key):
    """policies.schnauz.candidates: move ``m`` is action ``2 + m`` (swaps, swap all, pass)."""
    for i in range(3):
        for j in range(3):
            m = 3 * i + j
            for q in range(3):
                mh[m, q] = hand[q]
                mt[m, q] = table[q]
            mh[m, i] = table[j]
            mt[m, j] = hand[i]
    for q in range(3):
        mh[9, q] = table[q]
        mt[9, q] = hand[q]
        mh[10, q] = hand[q]
        mt[10, q] = table[q]
    for m in range(11):
        mk[m] = key[mh[m, 0], mh[m, 1], mh[m, 2]]


# ------------------------------------------------------------------ decoding
def _decode(obs, r, lay, hand, table, known, nknown, lives, outp, swim, unseen):
    """decode_observation of row ``r``, into the given arrays.

    Returns ``(n, hand size, table size, unseen count, dealer, knocker or -1, phase)``.
    """
    nc = lay[L_NC]
    lo = lay[L_LO]
    located = np.int64(0)
    nh = 0
    for i in range(3):
        base = lay[L_HAND] + i * nc
        for j in range(nc):
            if obs[r, base + j] != 0 and nh < 3:
                hand[nh] = j + lo
                nh += 1
                located |= np.int64(1) << (j + lo)
    nt = 0
    for i in range(3):
        base = lay[L_TABLE] + i * nc
        for j in range(nc):
            if obs[r, base + j] != 0 and nt < 3:
                table[nt] = j + lo
                nt += 1
                located |= np.int64(1) << (j + lo)
    base = lay[L_OOP]
    for j in range(nc):
        if obs[r, base + j] != 0:
            located |= np.int64(1) << (j + lo)
    seats = lay[L_SEATS]
    total = 0.0
    for k in range(MAXP):
        total += obs[r, seats + 4 * k]
    n = int(np.floor(total + 0.5))
    scale = lay[L_LSCALE]
    for k in range(MAXP):
        nknown[k] = 0
        lives[k] = 0
        outp[k] = 0
        swim[k] = 0
    for k in range(min(n, MAXP)):
        f = seats + 4 * k
        outp[k] = 0 if obs[r, f + 1] > 0.5 else 1
        swim[k] = 1 if obs[r, f + 2] > 0.5 else 0
        lives[k] = int(np.floor(obs[r, f + 3] * scale + 0.5))
        if k > 0:
            base = lay[L_KNOWN] + (k - 1) * nc
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
        if obs[r, lay[L_DEALER] + k] != 0:
            dealer = k
            break
    knocker = -1
    for k in range(MAXP):
        if obs[r, lay[L_KNOCKER] + k] != 0:
            knocker = k
            break
    phase = OVER
    for k in range(3):
        if obs[r, lay[L_PHASE] + k] != 0:
            phase = k  # DEALER_CHOICE, TURNS, FINAL_CIRCLE are 0, 1, 2
            break
    return n, nh, nt, nu, dealer, knocker, phase


# ------------------------------------------------------------------ randomness
def _deal(key, known, nknown, p, pool, m, draws, hands, s, remove):
    """sample_hands for position ``p``: its known cards and the best of ``draws`` random
    completions from ``pool[:m]`` into ``hands[s, p]``; returns the new pool size (the
    dealt cards are removed from the pool when ``remove``)."""
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
        i = int(np.random.random() * m)
        j = -1
        x = -1
        if k == 1:
            kk = key[k0, k1, pool[i]]
        else:
            j = int(np.random.random() * m)
            while j == i:
                j = int(np.random.random() * m)
            if k == 2:
                kk = key[k0, pool[i], pool[j]]
            else:
                x = int(np.random.random() * m)
                while x in (i, j):
                    x = int(np.random.random() * m)
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


def _draw_distinct(perm, m, count):
    """Move ``count`` uniformly drawn distinct entries of ``perm[:m]`` to its front."""
    for q in range(count):
        i = q + int(np.random.random() * (m - q))
        perm[q], perm[i] = perm[i], perm[q]


def _random_tables(unseen, nu, perm, count, tables):
    """ExpertPolicy._random_tables: ``count`` random tables of unseen cards (0 if too few)."""
    if nu < 3:
        return 0
    for i in range(nu):
        perm[i] = unseen[i]
    for q in range(count):
        _draw_distinct(perm, nu, 3)
        tables[q, 0], tables[q, 1], tables[q, 2] = perm[0], perm[1], perm[2]
    return count


# ------------------------------------------------------------------ decisions
def _knock_limit(prm, stuck, turns, n, lives, outp, swim):
    """ExpertPolicy.knock_limit."""
    nact = 0
    others = 0
    for k in range(n):
        if not outp[k]:
            nact += 1
            if k > 0:
                others += lives[k]
    share = prm[P_STUCK] if stuck else prm[P_KNOCK_SHARE]
    limit = share / nact
    limit *= 1.0 + prm[P_LIVES_SLOPE] * (lives[0] - others / (nact - 1))
    if swim[0]:
        limit *= prm[P_SWIM]
    patience = int(prm[P_PATIENCE])
    if turns > patience:
        limit *= 1.0 + (turns - patience) / patience
    return limit


def _knock_loses(key, prm, table, known, nknown, n, outp, unseen, nu, pool, hands, mine):
    """One sample of the knock estimate: after a deal from the opponent model and every
    other player's best reply in seat order, is the hand of key ``mine`` the lowest?"""
    for i in range(nu):
        pool[i] = unseen[i]
    m = nu
    x, y, z = table[0], table[1], table[2]
    for p in range(1, n):  # deal as sample_hands does, in seat order, as needed
        if outp[p]:
            continue
        draws = int(prm[P_SKILL + 2 - nknown[p]]) if nknown[p] < 3 else 0
        m = _deal(key, known, nknown, p, pool, m, draws, hands, 0, True)
        k, _, _, _, x, y, z = _best_reply(
            key, hands[0, p, 0], hands[0, p, 1], hands[0, p, 2], x, y, z
        )
        if k < mine:
            return False
    return True


def _should_knock(
    key,
    pts,
    prm,
    hand,
    table,
    known,
    nknown,
    n,
    lives,
    outp,
    swim,
    turns,
    stuck,
    unseen,
    nu,
    pool,
    hands,
):
    """ExpertPolicy._should_knock: the chance of the lowest hand after every other
    player's best reply, from the opponent model, below the knock limit."""
    a, b, c = hand[0], hand[1], hand[2]
    if pts[a, b, c] < prm[P_MIN_KNOCK]:
        return False
    limit = _knock_limit(prm, stuck, turns, n, lives, outp, swim)
    mine = key[a, b, c]
    samples = int(prm[P_SAMPLES])
    losses = 0
    for s in range(samples):
        if _knock_loses(key, prm, table, known, nknown, n, outp, unseen, nu, pool, hands, mine):
            losses += 1
        if losses / samples >= limit:  # it can only grow: no knock
            return False
        if (losses + samples - 1 - s) / samples < limit:  # even if every other sample loses
            return True
    return losses / samples < limit


def _final_move(
    key,
    prm,
    hand,
    known,
    nknown,
    n,
    outp,
    knocker,
    unseen,
    nu,
    pool,
    hands,
    work,
    mh,
    mt,
    mk,
    order,
):
    """ExpertPolicy._final_move: the move with the least simulated chance of the lowest
    hand once the players up to the knocker have replied."""
    no = _final_order(n, outp, knocker, order)
    if no == 0 or prm[P_FINAL_MC] == 0.0:  # the best hand, PASS on equal keys
        best_m = 0
        for m in range(1, 11):
            if mk[m] > mk[best_m] or (mk[m] == mk[best_m] and m == 10):
                best_m = m
        return 2 + best_m
    samples = int(prm[P_SAMPLES])
    _deal_samples(key, prm, known, nknown, n, outp, unseen, nu, pool, hands, samples)
    return _final_choice(key, n, outp, hands, samples, order, no, work, mt, mk)


def _final_order(n, outp, knocker, order):
    """The active positions that still reply before the knocker, into ``order``; their count."""
    no = 0
    k = 1 % n
    while k != knocker and k != 0:
        if not outp[k]:
            order[no] = k
            no += 1
        k = (k + 1) % n
    return no


def _deal_samples(key, prm, known, nknown, n, outp, unseen, nu, pool, hands, samples):
    """``samples`` deals of sample_hands (every opponent) into ``hands[:samples]``."""
    for s in range(samples):
        for i in range(nu):
            pool[i] = unseen[i]
        mleft = nu
        for p in range(1, n):
            if not outp[p]:
                draws = int(prm[P_SKILL + 2 - nknown[p]]) if nknown[p] < 3 else 0
                mleft = _deal(key, known, nknown, p, pool, mleft, draws, hands, s, True)


def _move_losses(key, n, outp, hands, samples, order, no, work, mt, mine, m, cap):
    """In how many of the sampled deals move ``m`` (hand key ``mine``) is left the lowest
    hand once ``order[:no]`` have made their best replies; counting stops at ``cap``
    losses (``cap < 0``: never)."""
    losses = 0
    for s in range(samples):
        for p in range(n):
            for c in range(3):
                work[p, c] = hands[s, p, c]
        x, y, z = mt[m, 0], mt[m, 1], mt[m, 2]
        for i in range(no):
            p = order[i]
            _, h0, h1, h2, x, y, z = _best_reply(key, work[p, 0], work[p, 1], work[p, 2], x, y, z)
            work[p, 0], work[p, 1], work[p, 2] = h0, h1, h2
        lowest = True
        for p in range(1, n):
            if not outp[p] and key[work[p, 0], work[p, 1], work[p, 2]] < mine:
                lowest = False
                break
        if lowest:
            losses += 1
            if 0 <= cap <= losses:
                break
    return losses


def _final_choice(key, n, outp, hands, samples, order, no, work, mt, mk):
    """The scoring of ExpertPolicy._final_move given the sampled ``hands[:samples]``."""
    # The five best moves by hand key, stable (the reference's sorted(...)[:5]).
    ranked = np.empty(5, dtype=np.int64)
    used = np.zeros(11, dtype=np.bool_)
    for q in range(5):
        bm = -1
        for m in range(11):
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
        losses = _move_losses(key, n, outp, hands, samples, order, no, work, mt, mine, m, cap)
        if best_losses < 0 or losses < best_losses or (losses == best_losses and mine > best_mine):
            best_losses, best_mine, best_action = losses, mine, 2 + m
    return best_action


def _turn_move(
    key,
    pts,
    risk,
    prm,
    hand,
    n,
    outp,
    nact,
    known,
    nknown,
    unseen,
    nu,
    perm,
    tables,
    hands,
    mh,
    mt,
    mk,
):
    """ExpertPolicy._turn_move: ``(the move of least risk, an improving move or PASS)``."""
    now = key[hand[0], hand[1], hand[2]]
    improving = PASS
    for m in range(10):
        if mk[m] > now:
            improving = 2 + m
    nxt, nfeed, ntab = _turn_samples(
        key, prm, n, outp, known, nknown, unseen, nu, perm, tables, hands
    )
    best = _turn_choice(key, pts, risk, prm, nact, mh, mt, tables, ntab, hands, nfeed, nxt)
    return best, improving


def _turn_samples(key, prm, n, outp, known, nknown, unseen, nu, perm, tables, hands):
    """The samples of move_values: the next player's model hands (``hands[:nfeed, nxt]``)
    and random tables (``tables[:ntab]``); returns ``(nxt, nfeed, ntab)``."""
    nxt = -1
    for p in range(1, n):
        if not outp[p]:
            nxt = p
            break
    nfeed = 0
    if prm[P_FEED_RISK] != 0.0 and nxt >= 0:
        # sample_hands deals the next player first, from the full pool: only its hand matters.
        nfeed = int(prm[P_FEED_SAMPLES])
        draws = int(prm[P_SKILL + 2 - nknown[nxt]]) if nknown[nxt] < 3 else 0
        for s in range(nfeed):
            _deal(key, known, nknown, nxt, unseen, nu, draws, hands, s, False)
    ntab = _random_tables(unseen, nu, perm, int(prm[P_TABLE_SAMPLES]), tables)
    return nxt, nfeed, ntab


def _turn_value(key, pts, risk, prm, nact, mh, mt, tables, ntab, hands, nfeed, nxt, m):
    """ExpertPolicy.move_values of move ``m``: minus its risk and what it feeds the next player."""
    v = -_hand_risk(
        key, pts, risk, nact, mh[m, 0], mh[m, 1], mh[m, 2], tables, ntab, prm[P_RISK_NOW]
    )
    if nfeed > 0:
        feed = 0.0
        for s in range(nfeed):
            feed += _gain(
                key,
                pts,
                hands[s, nxt, 0],
                hands[s, nxt, 1],
                hands[s, nxt, 2],
                mt[m, 0],
                mt[m, 1],
                mt[m, 2],
            )
        v -= prm[P_FEED_RISK] * (feed / nfeed)
    return v


def _turn_choice(key, pts, risk, prm, nact, mh, mt, tables, ntab, hands, nfeed, nxt):
    """ExpertPolicy.move_values and the best of them, given the random ``tables[:ntab]``
    and the next player's model hands ``hands[:nfeed, nxt]``."""
    best_v = 0.0
    best_a = -1
    for m in range(11):
        v = _turn_value(key, pts, risk, prm, nact, mh, mt, tables, ntab, hands, nfeed, nxt, m)
        if best_a < 0 or v > best_v + 1e-9:
            best_v = v
            best_a = 2 + m
    return best_a


def _dealer_choice(key, pts, risk, prm, hand, n, outp, nact, unseen, nu, perm, tables):
    """ExpertPolicy._dealer_choice_risk: keep or exchange, whichever leaves less risk."""
    keep, exchange = _dealer_values(
        key, pts, risk, prm, hand, n, outp, nact, unseen, nu, perm, tables
    )
    return KEEP if keep >= exchange - prm[P_KEEP_MARGIN] else EXCHANGE


def _dealer_values(key, pts, risk, prm, hand, n, outp, nact, unseen, nu, perm, tables):
    """The values (minus risk) of keeping and of exchanging: ``(keep, exchange)``."""
    ntab = _random_tables(unseen, nu, perm, int(prm[P_TABLE_SAMPLES]), tables)
    w = prm[P_RISK_NOW]
    a, b, c = hand[0], hand[1], hand[2]
    keep = -_hand_risk(key, pts, risk, nact, a, b, c, tables, ntab, w)
    nxt = False
    for p in range(1, n):
        if not outp[p]:
            nxt = True
            break
    for i in range(nu):
        perm[i] = unseen[i]
    m = int(prm[P_FEED_SAMPLES])
    exchange = 0.0
    feed = 0.0
    for _ in range(m):
        _draw_distinct(perm, nu, 9)
        exchange -= _hand_risk(key, pts, risk, nact, perm[0], perm[1], perm[2], tables, ntab, w)
        if nxt:
            o0, o1, o2 = perm[3], perm[4], perm[5]
            feed += _gain(key, pts, o0, o1, o2, a, b, c) - _gain(
                key, pts, o0, o1, o2, perm[6], perm[7], perm[8]
            )
    return keep, exchange / m - prm[P_FEED_RISK] * feed / m


def _workspace(prm):
    """The scratch arrays one row's decision works in, allocated once per batch:
    ``(hand, table, known, nknown, lives, outp, swim, unseen, pool, perm, tables, hands,
    work, mh, mt, mk, order)``."""
    nsmp = max(int(prm[P_SAMPLES]), int(prm[P_FEED_SAMPLES]), 1)
    return (
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
        np.zeros((max(int(prm[P_TABLE_SAMPLES]), 1), 3), dtype=np.int64),  # tables
        np.zeros((nsmp, MAXP, 3), dtype=np.int64),  # hands
        np.zeros((MAXP, 3), dtype=np.int64),  # work
        np.zeros((11, 3), dtype=np.int64),  # mh
        np.zeros((11, 3), dtype=np.int64),  # mt
        np.zeros(11, dtype=np.int64),  # mk
        np.zeros(MAXP, dtype=np.int64),  # order
    )


def _decide(obs, r, mask, turns, lay, prm, key, pts, risk, ws):
    """ExpertPolicy.act for row ``r`` (its turn counter already updated to ``turns``),
    working in the arrays of ``ws`` (:func:`_workspace`)."""
    # fmt: off
    (hand, table, known, nknown, lives, outp, swim, unseen, pool, perm, tables, hands,
     work, mh, mt, mk, order) = ws
    # fmt: on
    n, nh, nt, nu, dealer, knocker, phase = _decode(
        obs, r, lay, hand, table, known, nknown, lives, outp, swim, unseen
    )
    if n != lay[L_N] or nh != 3:
        return -1
    nact = 0
    for k in range(n):
        if not outp[k]:
            nact += 1
    if phase == DEALER_CHOICE:
        return _dealer_choice(key, pts, risk, prm, hand, n, outp, nact, unseen, nu, perm, tables)
    if nt != 3:
        return -1
    _candidates(hand, table, mh, mt, mk, key)
    top = -1
    top_action = PASS
    for m in range(10):  # max over (key, action): the later action on equal keys
        if mk[m] >= top:
            top = mk[m]
            top_action = 2 + m
    if top >= SCHNAUZ_KEY and mask[r, top_action]:
        return top_action
    if phase == FINAL_CIRCLE:
        return _final_move(
            key,
            prm,
            hand,
            known,
            nknown,
            n,
            outp,
            knocker,
            unseen,
            nu,
            pool,
            hands,
            work,
            mh,
            mt,
            mk,
            order,
        )
    best, improving = _turn_move(
        key,
        pts,
        risk,
        prm,
        hand,
        n,
        outp,
        nact,
        known,
        nknown,
        unseen,
        nu,
        perm,
        tables,
        hands,
        mh,
        mt,
        mk,
    )
    if mask[r, KNOCK] and _should_knock(
        key,
        pts,
        prm,
        hand,
        table,
        known,
        nknown,
        n,
        lives,
        outp,
        swim,
        turns,
        improving == PASS,
        unseen,
        nu,
        pool,
        hands,
    ):
        return KNOCK
    return best


def _k_act(obs, masks, turns, lay, prm, key, pts, risk, seed, actions):
    """The expert's move for every row of ``obs`` / ``masks`` into ``actions``
    (-1: the row does not match the config)."""
    np.random.seed(seed)
    obs = unmanaged(obs)
    masks = unmanaged(masks)
    turns = unmanaged(turns)
    lay = unmanaged(lay)
    prm = unmanaged(prm)
    key = unmanaged(key)
    pts = unmanaged(pts)
    risk = unmanaged(risk)
    actions = unmanaged(actions)
    ws = _workspace(prm)
    for r in range(obs.shape[0]):
        a = _decide(obs, r, masks, turns[r], lay, prm, key, pts, risk, ws)
        if a >= 0 and not masks[r, a]:  # never with the engine's masks
            for q in range(masks.shape[1]):
                if masks[r, q]:
                    a = q
                    break
        actions[r] = a


def _k_turns(obs, lay, games, mode, rid, epoch, slot_epoch, slot_turns, turns):
    """Count each row's own turns this round into ``turns``.

    ``MODE_SINGLE``: one counter (state row 0), reset when (lives, out, dealer) as this
    seat sees them change, exactly ExpertPolicy's. ``MODE_GAMES``: per game ``games[r]``
    the round is (lives, out) as seen from the dealer (the same for every seat), and a
    counter per seat, told apart by the dealer's position relative to it.
    """
    seats = lay[L_SEATS]
    scale = lay[L_LSCALE]
    n = lay[L_N]
    cur = np.zeros(2 * MAXP + 1, dtype=np.int64)
    rel = np.zeros(2 * MAXP, dtype=np.int64)
    for r in range(obs.shape[0]):
        dealer = 0
        for k in range(MAXP):
            if obs[r, lay[L_DEALER] + k] != 0:
                dealer = k
                break
        for k in range(MAXP):
            rel[k] = 0
            rel[MAXP + k] = 0
        for k in range(n):
            f = seats + 4 * k
            rel[k] = int(np.floor(obs[r, f + 3] * scale + 0.5))
            rel[MAXP + k] = 0 if obs[r, f + 1] > 0.5 else 1
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


_HELPERS = (
    "_workspace",
    "_best_reply",
    "_gain",
    "_hand_risk",
    "_candidates",
    "_decode",
    "_deal",
    "_draw_distinct",
    "_random_tables",
    "_knock_limit",
    "_knock_loses",
    "_should_knock",
    "_final_order",
    "_deal_samples",
    "_move_losses",
    "_turn_samples",
    "_turn_value",
    "_dealer_values",
    "_final_move",
    "_final_choice",
    "_turn_move",
    "_turn_choice",
    "_dealer_choice",
    "_decide",
)
_INLINE = ("_best_reply", "_gain", "_draw_distinct")
_KERNELS = ("_k_act", "_k_turns")
_compiled = False


def _compile() -> None:
    """Rebind the kernels (and the helpers they call) to their numba versions, once.

    numba resolves a kernel's global names when it first compiles it, so the helpers
    are rebound before any kernel runs. Without numba this only warns (once).
    """
    global _compiled
    if _compiled:
        return
    from schnauz_env.batched import _jit

    _jit.warn_if_slow()
    g = globals()
    g["unmanaged"] = _jit.unmanaged
    for name in _HELPERS + _KERNELS:
        g[name] = _jit.njit(g[name], inline=name in _INLINE)
    _compiled = True


# ------------------------------------------------------------------ per-config data
_TABLES: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}


def jit_tables(config: SchnauzConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(key, pts)`` as (52, 52, 52) int64 / float64 arrays: the expert's
    :class:`~policies.schnauz.HandTables` of ``config``'s deck and tie rule (cached)."""
    k = (config.deck, config.ties)
    if k not in _TABLES:
        from policies.schnauz import hand_tables

        t = hand_tables(config)
        _TABLES[k] = (np.array(t.key, dtype=np.int64), np.array(t.pts, dtype=np.float64))
    return _TABLES[k]


def risk_table() -> np.ndarray:
    """``risk[players, half_points]`` = :func:`policies.schnauz.lowest_risk` (as computed
    by it, so the floats are the reference's)."""
    from policies.schnauz import SURVIVE, lowest_risk

    out = np.zeros((MAXP + 1, len(SURVIVE)), dtype=np.float64)
    for players in range(1, MAXP + 1):
        for half in range(len(SURVIVE)):
            out[players, half] = lowest_risk(half / 2, players)
    return out


def layout_vector(config: SchnauzConfig) -> np.ndarray:
    """The observation offsets (``L_*``) the kernels decode with."""
    from schnauz_env.schnauz.observation import ObservationLayout

    layout = ObservationLayout(config)
    s = layout.slices
    lay = np.zeros(NLAY, dtype=np.int64)
    for i, name in enumerate(("hand", "table", "out_of_play", "known", "seats", "dealer")):
        lay[i] = s[name].start
    lay[L_KNOCKER] = s["knocker"].start
    lay[L_PHASE] = s["phase"].start
    lay[L_NC] = layout.num_cards
    lay[L_LO] = 4 * config.min_rank
    lay[L_LSCALE] = max(config.lives, 1)
    lay[L_N] = config.num_players
    lay[L_SIZE] = layout.size
    return lay


def param_vector(params: ExpertParams) -> np.ndarray:
    """The parameters (``P_*``) the kernels read; ``ValueError`` for what is not compiled."""
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
    prm = np.zeros(NPRM, dtype=np.float64)
    prm[P_SAMPLES] = params.samples
    prm[P_KNOCK_SHARE] = params.knock_share
    prm[P_LIVES_SLOPE] = params.lives_slope
    prm[P_SWIM] = params.swim_factor
    prm[P_STUCK] = params.stuck_share
    prm[P_MIN_KNOCK] = params.min_knock
    prm[P_PATIENCE] = params.patience
    prm[P_SKILL : P_SKILL + 3] = skill
    prm[P_KEEP_MARGIN] = params.keep_margin
    prm[P_FEED_SAMPLES] = params.feed_samples
    prm[P_RISK_NOW] = params.risk_now
    prm[P_TABLE_SAMPLES] = max(params.table_samples, 0)
    prm[P_FEED_RISK] = params.feed_risk
    prm[P_FINAL_MC] = 1.0 if params.final_mc else 0.0
    return prm


# ------------------------------------------------------------------ the policy
@register_policy("schnauz", "expert-jit")
class ExpertJitPolicy(Policy):
    """The ``expert`` compiled with numba; batched moves with :meth:`act_batch`."""

    name = "expert-jit"
    game = "schnauz"
    #: :meth:`act_batch` takes the games' indices as a third argument (see there).
    per_game = True

    def __init__(
        self,
        config: Any = None,
        seed: int | None = None,
        arg: str | None = None,
        params: ExpertParams | None = None,
        **overrides: Any,
    ) -> None:
        from policies.schnauz import ExpertParams, parse_expert_arg
        from schnauz_env.schnauz.config import SchnauzConfig

        super().__init__(config if config is not None else SchnauzConfig(), seed)
        params = params or ExpertParams()
        if arg:  # "expert-jit:knock_share=0.5,samples=64"
            overrides.update(parse_expert_arg(arg, params))
            self.name = f"expert-jit:{arg}"
        self.params = replace(params, **overrides) if overrides else params
        self._prm = param_vector(self.params)
        self._key, self._pts = jit_tables(self.config)
        self._risk = risk_table()
        self._lay = layout_vector(self.config)
        self._size = int(self._lay[L_SIZE])
        _compile()
        self._single = self._counters(1)
        self._games = self._counters(0)

    @staticmethod
    def _counters(games: int) -> list[np.ndarray]:
        """Turn-counter state of ``games`` games: round id, round epoch, per seat slot."""
        return [
            np.full((games, 2 * MAXP + 1), -1, dtype=np.int64),
            np.zeros(games, dtype=np.int64),
            np.full((games, MAXP), -1, dtype=np.int64),
            np.zeros((games, MAXP), dtype=np.int64),
        ]

    def reset(self, seed: int | None = None) -> None:
        """A new game: reseed when ``seed`` is given, and forget every turn counter."""
        super().reset(seed)
        self._single = self._counters(1)
        self._games = self._counters(0)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs = self._check(np.asarray(observation)[None])
        turns = np.zeros(1, dtype=np.int64)
        _k_turns(obs, self._lay, turns, MODE_SINGLE, *self._single, turns)
        return int(self._run(obs, np.asarray(action_mask)[None], turns)[0])

    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        games: np.ndarray | None = None,
    ) -> np.ndarray:
        """Moves for ``(B, obs)`` observations and ``(B, 14)`` masks.

        ``games`` (one int per row) names the game each row belongs to: the policy then
        counts each seat's turns per game (the expert grows bolder after ``patience``
        turns in a round), so one object can play any seats of many parallel games.
        Without ``games`` every row is a single decision (its first turn of the round).
        """
        obs = self._check(observations)
        b = obs.shape[0]
        turns = np.ones(b, dtype=np.int64)
        if games is not None and b:
            games = np.ascontiguousarray(games, dtype=np.int64).reshape(-1)
            if games.shape != (b,) or games.min() < 0:
                raise ValueError(f"games must be {b} indices >= 0, one per row")
            self._grow(int(games.max()) + 1)
            _k_turns(obs, self._lay, games, MODE_GAMES, *self._games, turns)
        return self._run(obs, action_masks, turns)

    act_batch.per_game = True  # type: ignore[attr-defined]  # seen through the bound method

    # -------------------------------------------------------------- internals
    def _check(self, observations: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self._size:
            raise ValueError(
                f"observations of shape {obs.shape} do not match this config "
                f"(deck {self.config.deck}: expected (B, {self._size}))"
            )
        return obs

    def _grow(self, games: int) -> None:
        have = self._games[1].shape[0]
        if games > have:
            more = self._counters(max(games, 2 * have) - have)
            self._games = [np.concatenate([a, m]) for a, m in zip(self._games, more, strict=True)]

    def _run(self, obs: np.ndarray, action_masks: np.ndarray, turns: np.ndarray) -> np.ndarray:
        masks = np.ascontiguousarray(action_masks, dtype=np.int8)
        if masks.shape != (obs.shape[0], 14):
            raise ValueError(f"action masks of shape {masks.shape}: expected ({obs.shape[0]}, 14)")
        actions = np.zeros(obs.shape[0], dtype=np.int64)
        if obs.shape[0] == 0:
            return actions
        seed = int(self.rng.integers(2**32))
        _k_act(
            obs, masks, turns, self._lay, self._prm, self._key, self._pts, self._risk, seed, actions
        )
        if (actions < 0).any():
            raise ValueError(
                f"an observation does not match this config ({self.config.num_players} "
                "players) or shows no hand"
            )
        return actions

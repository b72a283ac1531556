"""The greedy Schnauz player's move, written once for Python and for the compiled engine.

:func:`greedy_move` is :class:`policies.schnauz.GreedyPolicy`'s move (the policy calls
it) and, compiled, the batched engine's built-in ``"greedy"`` opponent
(:func:`schnauz_env.batched.schnauz.bots.greedy_action`). It is plain Python in the
subset numba compiles, and this module imports no numba, so the policy costs no
compiler.
"""

from __future__ import annotations

from typing import Any

from schnauz_env.schnauz import engine as E


def greedy_move(
    keys: Any,
    hand: Any,
    table: Any,
    phase: int,
    knock_allowed: bool,
    keep_key: int,
    knock_key: int,
) -> int:
    """The greedy player's action: maximise the hand now.

    Dealer's choice: keep a hand whose key is at least ``keep_key``, else exchange. A
    turn: knock (when ``knock_allowed``) with a key of at least ``knock_key``; else the
    first swap, in action order, of those giving the strongest hand, if it beats the
    hand held; else pass. ``keys`` is :func:`~schnauz_env.schnauz.hands.key_table`;
    ``hand`` and ``table`` are three local card ids each, sorted (as the engine keeps
    them; the table is not read at the dealer's choice). Thresholds in points become
    keys with :func:`~schnauz_env.schnauz.hands.min_key`.
    """
    a = int(hand[0])
    b = int(hand[1])
    c = int(hand[2])
    cur = keys[a, b, c]
    if phase == E.DEALER_CHOICE:
        return E.KEEP if cur >= keep_key else E.EXCHANGE
    if knock_allowed and cur >= knock_key:
        return E.KNOCK
    best = cur
    best_a = E.PASS
    for i in range(3):
        # slot i leaves; the two kept cards stay in order and t goes where it sorts
        if i == 0:
            x, y = b, c
        elif i == 1:
            x, y = a, c
        else:
            x, y = a, b
        for j in range(3):
            t = int(table[j])
            if t < x:
                key = keys[t, x, y]
            elif t < y:
                key = keys[x, t, y]
            else:
                key = keys[x, y, t]
            if key > best:
                best = key
                best_a = E.swap_action(i, j)
    if keys[int(table[0]), int(table[1]), int(table[2])] > best:
        best_a = E.SWAP_ALL
    return best_a

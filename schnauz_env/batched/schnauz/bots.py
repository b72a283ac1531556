"""The batched engine's built-in players: uniformly random, and greedy.

Both move inside the compiled loops (:mod:`~schnauz_env.batched.schnauz.loop`), with no
Python between moves: :func:`random_action` draws from the game's own generator,
:func:`greedy_action` is :func:`~schnauz_env.batched.schnauz.greedy.greedy_move`
compiled (the very function ``policies.schnauz.GreedyPolicy`` calls).
"""

from __future__ import annotations

from schnauz_env.batched.common import rand_below
from schnauz_env.batched.jit import jitable, njit
from schnauz_env.batched.schnauz.greedy import greedy_move
from schnauz_env.batched.schnauz.rules import knock_ok
from schnauz_env.batched.schnauz.state import (
    C_KEEP_KEY,
    C_KNOCK_KEY,
    F_CURRENT,
    F_PHASE,
    O_HANDS,
    O_TABLE,
    RNG_PLAY,
)
from schnauz_env.schnauz.engine import DEALER_CHOICE, OVER, SWAP_BASE, swap_action

jitable(swap_action)  # called by name inside greedy_move
greedy = njit(greedy_move, inline=True)


@njit(inline=True)
def random_action(cfg, gs, rng, g):
    """A uniformly random legal action (drawn from the game's play generator)."""
    phase = gs[g, F_PHASE]
    if phase == DEALER_CHOICE:
        return rand_below(rng, g, RNG_PLAY, 2)  # keep or exchange
    if knock_ok(cfg, gs, g):
        return SWAP_BASE + rand_below(rng, g, RNG_PLAY, 12)  # a swap, swap all, pass, knock
    if phase == OVER:
        return -1
    return SWAP_BASE + rand_below(rng, g, RNG_PLAY, 11)


@njit(inline=True)
def greedy_action(cfg, keys, gs, cards, g):
    """``policies.schnauz.GreedyPolicy``'s move for the player to act in game ``g``
    (-1 when it is over), with the thresholds ``cfg[C_KEEP_KEY]``, ``cfg[C_KNOCK_KEY]``."""
    phase = gs[g, F_PHASE]
    if phase == OVER:
        return -1
    h = O_HANDS + 3 * gs[g, F_CURRENT]
    t = O_TABLE
    return greedy(
        keys,
        (cards[g, h], cards[g, h + 1], cards[g, h + 2]),
        (cards[g, t], cards[g, t + 1], cards[g, t + 2]),
        phase,
        knock_ok(cfg, gs, g),
        cfg[C_KEEP_KEY],
        cfg[C_KNOCK_KEY],
    )

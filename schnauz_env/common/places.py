"""Final places and what they pay: the rewards of every game, in one place.

RULES.md (environment conventions): in a whole-game episode a seat's return is the
value of its final place, +1 for the winner down to -1 for the last, linearly; every
step is zero-sum. In a single-round episode the seats that lost share -1 each, the
others share what the losers paid.

The AEC environments (:class:`schnauz_env.common.aec.CardGameEnv`) pay with these
functions, and the batched engines compile the same function objects with numba
(:func:`schnauz_env.batched.jit.jitable`), so both pay equal rewards to the bit.
They are therefore written in the Python that numba compiles: scalars, indexing and
loops; ``places``, ``decided``, ``returns`` and ``rewards`` may be lists (or a dict
keyed by seat, for ``places``) in Python and arrays in compiled code.
"""

from __future__ import annotations

import functools
from typing import Any


def place_value(place: float, n: int) -> float:
    """The return of final place ``place`` (1 = best) of ``n``: +1 down to -1, linearly."""
    return 1.0 - 2.0 * (place - 1.0) / (n - 1)


def shared_place(players: int, going: int) -> float:
    """The place of each of ``going`` seats that go out together from ``players`` seats:
    they share the mean of the ``going`` worst places."""
    return players - (going - 1) / 2.0


def single_round_reward(lost: bool, losers: int, seats: int) -> float:
    """A seat's reward in a single-round episode of ``seats`` seats with ``losers`` losers.

    A loser pays 1, the others share what the losers paid; nobody is paid anything when
    nobody or everybody lost.
    """
    if not 0 < losers < seats:
        return 0.0
    return -1.0 if lost else losers / (seats - losers)


def settle_places(
    n: int, places: Any, decided: Any, count: int, playing: int, returns: Any, rewards: Any
) -> int:
    """Pay a result that decided the final places of ``decided[:count]`` (whole games).

    Each of those seats gets what brings its return to its place's value
    (``place_value(places[s], n) - returns[s]``); the seats still playing (the bits of
    ``playing``) share the opposite of their sum equally, so the step is zero-sum.
    The sum runs in the order of ``decided`` (the result's order), as float sums
    depend on it. Writes ``rewards[s]`` and adds it to ``returns[s]`` for every seat
    paid; the other entries are left as they are. Returns how many playing seats
    shared (0 when none did: nothing decided, or nobody left playing).
    """
    total = 0.0
    for i in range(count):
        s = decided[i]
        d = place_value(places[s], n) - returns[s]
        rewards[s] = d
        total += d
    sharing = 0
    for s in range(n):
        if (playing >> s) & 1:
            sharing += 1
    if count == 0 or sharing == 0:
        sharing = 0
    else:
        share = -total / sharing
        for s in range(n):
            if (playing >> s) & 1:
                rewards[s] = share
                returns[s] += share
    for i in range(count):
        s = decided[i]
        returns[s] += rewards[s]
    return sharing


@functools.cache
def fair_win_chance(mine: int, others: tuple[int, ...]) -> float:
    """The chance that a player with ``mine`` life units wins, if every later round's
    loser is drawn uniformly from the players still in (``others``: the other players'
    units, sorted, zeros left out). Each round costs one player one unit, as in Schnauz."""
    if mine <= 0:
        return 0.0
    if not others:
        return 1.0
    total = fair_win_chance(mine - 1, others)
    for j in range(len(others)):
        rest = (*others[:j], others[j] - 1, *others[j + 1 :])
        total += fair_win_chance(mine, tuple(sorted(u for u in rest if u > 0)))
    return total / (len(others) + 1)

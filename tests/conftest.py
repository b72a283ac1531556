"""Helpers shared by the Schnauz tests: stacked decks and scripted play.

Tests import these directly (``from conftest import stack``); pytest puts this
directory on ``sys.path``.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor

from schnauz_env.cards import format_card, parse_card, parse_cards
from schnauz_env.schnauz import SchnauzConfig, SchnauzState, swap_action


def stack(
    hands: Mapping[int, str],
    then: Iterable[str] = (),
    dealer: int = 0,
    deck: str = "A7",
) -> list[str]:
    """A stacked deck (card codes, top first) that deals ``hands`` around the table.

    RULES.md "Stacked decks": each player receives three cards at once, starting
    left of the dealer and ending with the dealer; the next three cards are the
    dealer's choice cards; each all-pass refresh takes the next three. ``hands``
    maps every seat in the round to its three cards; ``then`` lists the following
    groups (choice cards, refreshes, ...). The rest of the deck follows in deck order.
    """
    order = sorted(hands, key=lambda s: (s <= dealer, s))  # left of the dealer first
    top: list[str] = []
    for seat in order:
        cards = hands[seat].split()
        assert len(cards) == 3, f"seat {seat} needs three cards, got {hands[seat]!r}"
        top += cards
    for group in then:
        top += group.split()
    parsed = [int(parse_card(c)) for c in top]
    assert len(set(parsed)) == len(parsed), f"a card is stacked twice: {top}"
    all_cards = [int(c) for c in SchnauzConfig(num_players=2, deck=deck).deck_cards]
    assert set(parsed) <= set(all_cards), f"a stacked card is not in deck {deck}: {top}"
    return [format_card(c) for c in parsed] + [
        format_card(c) for c in all_cards if c not in set(parsed)
    ]


def cards(codes: str) -> list[int]:
    """Card codes as the engine's sorted int list (hands and the table are sorted)."""
    return sorted(int(c) for c in parse_cards(codes))


def swap(state: SchnauzState, give: str, take: str) -> int:
    """The action by which the player to act gives hand card ``give`` for table card ``take``."""
    g, t = int(parse_card(give)), int(parse_card(take))
    hand = state.hands[state.current]
    assert g in hand, f"{give} is not in the hand of seat {state.current}"
    assert t in state.table, f"{take} is not on the table"
    return swap_action(hand.index(g), state.table.index(t))


def env_steps(env, actions: Iterable) -> list[dict[str, float]]:
    """Step an AEC env through ``actions`` (ints, or callables state -> int).

    Agents whose episode has ended are stepped with ``None`` first, as PettingZoo
    requires. Returns the ``rewards`` dict after every step taken (dead steps
    included), so tests can check zero-sum per step.
    """
    seen = []
    for action in actions:
        seen += drain_dead(env)
        if callable(action):
            action = action(env.unwrapped.game)
        env.step(action)
        seen.append(dict(env.rewards))
    return seen


def drain_dead(env) -> list[dict[str, float]]:
    """Step every terminated agent selected to act with ``None``."""
    seen = []
    while env.agents and (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    ):
        env.step(None)
        seen.append(dict(env.rewards))
    return seen


def place_value(place: float, n: int) -> float:
    """RULES/env docstring: a game's return for final place ``place`` of ``n``."""
    return 1.0 - 2.0 * (place - 1.0) / (n - 1.0)


def run_in_workers(run: Callable[[int], Mapping[str, int]], count: int) -> dict[str, int]:
    """``run(k)`` for every ``k < count`` on two forked worker processes (in this process
    where fork is missing or there is one core), and the totals of the counts it returns,
    key by key (the differential tests' configs). Compile the kernels before calling, so
    that the workers inherit them instead of compiling each."""
    workers = min(2, os.cpu_count() or 1)
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            results = list(pool.map(run, range(count)))
    else:
        results = [run(k) for k in range(count)]
    totals: dict[str, int] = {}
    for stats in results:
        for key, v in stats.items():
            totals[key] = totals.get(key, 0) + v
    print("differential totals:", totals)
    return totals

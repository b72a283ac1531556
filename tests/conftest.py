"""Helpers shared by the Schnauz tests: stacked decks and scripted play.

Tests import these directly (``from conftest import stack``); pytest puts this
directory on ``sys.path``.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import Any

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


def golden_positions(
    game: str, count: int, seed: int, pick: Callable[[Any, Any], tuple[bool, int]]
) -> Any:
    """Observations of ``count`` positions met in seeded four-player games of ``game``
    (the golden files of the feature sets). ``pick(state, rng) -> (keep, action)`` says
    whether to keep the position and which move to make; only the rules engine and
    numpy's generator decide them, no policy that could be retuned."""
    import numpy as np

    from schnauz_env.games import game_module

    module = game_module(game)
    config = module.Config(num_players=4)
    enc = module.ObservationEncoder(config)
    rng = np.random.default_rng(seed)
    obs = []
    game_no = 0
    while len(obs) < count:
        state = module.new_game(config, np.random.default_rng([seed, game_no]))
        game_no += 1
        while not state.game_over and len(obs) < count:
            keep, action = pick(state, rng)
            if keep:
                obs.append(enc.encode(state, state.current))
            state.apply(action)
    return np.stack(obs).astype(np.float32)


def write_golden(path: Any, features: Any, positions: Any) -> None:
    """Write a feature set's golden file: the positions and their feature block."""
    import numpy as np

    from schnauz_env.common.files import atomic_write

    block = features.features(positions)
    save = lambda f: np.savez_compressed(f, obs=positions, features=block)  # noqa: E731
    atomic_write(path, save, overwrite=True, binary=True)
    print(f"wrote {path}: {len(positions)} positions")

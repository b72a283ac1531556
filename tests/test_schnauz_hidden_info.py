"""Hidden cards never reach an observation (RULES.md "Environment conventions").

A seat sees its own hand, the table, the cards out of play, the cards other players
publicly took from the table (and still hold), lives, dealer, knock, passes and the
stock size. Everything else (other players' other cards, the stock and its order)
must not change its observation; a card it can see must.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import stack, swap
from hypothesis import given, settings
from hypothesis import strategies as st

from schnauz_env import schnauz_v0
from schnauz_env.schnauz import (
    DEALER_CHOICE,
    FINAL_CIRCLE,
    KEEP,
    OVER,
    SWAP_ALL,
    TURNS,
    ObservationEncoder,
    SchnauzConfig,
    SchnauzState,
    new_game,
)


# ------------------------------------------------------------ stacked decks, env level
def observe_all(env) -> dict[str, list[float]]:
    return {a: env.observe(a)["observation"].tolist() for a in env.possible_agents}


def run(deck: list[str], moves: list) -> list[dict[str, list[float]]]:
    """Every agent's observation after the reset and after each move."""
    env = schnauz_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    seen = [observe_all(env)]
    for move in moves:
        env.step(move(env.unwrapped.game) if callable(move) else move)
        seen.append(observe_all(env))
    return seen


def give(card: str, take: str):
    return lambda game: swap(game, card, take)


BASE = {1: "7C 8S 9H", 2: "7S 8H 9D", 0: "8D 10S JS"}
MOVES = [KEEP, give("9H", "QC"), give("8H", "9H"), give("JS", "7H"), 12, 12, 12]


def test_other_hands_and_stock_order_are_invisible():
    a = stack(BASE, ["QC 7H 8C", "10H JH QS"])
    # seat 2's cards other than 8H (which it gives away publicly) differ; the stock
    # below the table cards and the refresh (laid face up by the all-pass) is reversed
    b_top = stack({1: "7C 8S 9H", 2: "KD 8H AS", 0: "8D 10S JS"}, ["QC 7H 8C", "10H JH QS"])
    b = b_top[:15] + list(reversed(b_top[15:]))
    assert sorted(a) == sorted(b) and a != b
    seen_a, seen_b = run(a, MOVES), run(b, MOVES)
    for obs_a, obs_b in zip(seen_a, seen_b, strict=True):
        assert obs_a["player_1"] == obs_b["player_1"]
        assert obs_a["player_0"] == obs_b["player_0"]
    assert seen_a[0]["player_2"] != seen_b[0]["player_2"]  # seat 2 sees its own hand


def test_the_dealers_new_hand_after_exchange_is_invisible():
    a = stack(BASE, ["QC 7H 8C"])
    b = stack(BASE, ["AD KH 10C"])
    moves = [1, give("7C", "8D"), 12]  # exchange; seat 1 takes 8D from the table
    seen_a, seen_b = run(a, moves), run(b, moves)
    for obs_a, obs_b in zip(seen_a[1:], seen_b[1:], strict=True):
        assert obs_a["player_1"] == obs_b["player_1"]
        assert obs_a["player_2"] == obs_b["player_2"]
        assert obs_a["player_0"] != obs_b["player_0"]  # the dealer sees the new hand


def test_the_dealers_choice_cards_are_invisible_until_laid_out():
    a = stack(BASE, ["QC 7H 8C"])
    b = stack(BASE, ["AD KH 10C"])
    seen_a, seen_b = run(a, [KEEP]), run(b, [KEEP])
    assert seen_a[0] == seen_b[0]  # face down: nobody sees them
    for agent in ("player_0", "player_1", "player_2"):
        assert seen_a[1][agent] != seen_b[1][agent]  # face up: everybody does


def test_a_publicly_taken_card_is_visible():
    a = stack(BASE, ["QC 7H 8C"])
    b = stack(BASE, ["KC 7H 8C"])
    seen_a = run(a, [KEEP, give("7C", "QC")])
    seen_b = run(b, [KEEP, give("7C", "KC")])
    # the table now holds the same cards (7♣ 7♥ 8♣); only seat 1's known take differs
    assert seen_a[-1]["player_2"] != seen_b[-1]["player_2"]
    assert seen_a[-1]["player_0"] != seen_b[-1]["player_0"]


def test_own_hand_is_visible():
    a = stack(BASE, ["QC 7H 8C"])
    b = stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "8D 10S QS"}, ["QC 7H 8C"])
    seen_a, seen_b = run(a, [KEEP]), run(b, [KEEP])
    assert seen_a[1]["player_0"] != seen_b[1]["player_0"]
    assert seen_a[1]["player_1"] == seen_b[1]["player_1"]


# ------------------------------------------------------------ random states, engine level
class PublicTracker:
    """Who publicly took which card, followed from the moves alone (not from the engine)."""

    def __init__(self, state: SchnauzState) -> None:
        self.round = state.round
        self.taken: list[set[int]] = [set() for _ in range(state.n)]

    def before(self, state: SchnauzState, action: int) -> None:
        if state.phase in (TURNS, FINAL_CIRCLE):
            seat = state.current
            if action == SWAP_ALL:
                self.taken[seat] = set(state.table)
            elif 2 <= action <= 10:
                i, j = divmod(action - 2, 3)
                self.taken[seat].discard(state.hands[seat][i])
                self.taken[seat].add(state.table[j])

    def after(self, state: SchnauzState) -> None:
        if state.round != self.round:  # a new deal: nothing is known
            self.round = state.round
            self.taken = [set() for _ in range(state.n)]


def hidden_permutation(state: SchnauzState, seat: int, rng: np.random.Generator) -> SchnauzState:
    """A copy in which the cards ``seat`` cannot see are dealt out again at random."""
    other = state.clone()
    slots: list[tuple[str, int, int]] = []
    for s in range(state.n):
        if s != seat and not state.out[s]:
            for i, c in enumerate(state.hands[s]):
                if c not in state.known[s]:
                    slots.append(("hand", s, i))
    for k in range(state.pos, len(state.deck)):
        slots.append(("stock", 0, k))

    def get(slot):
        kind, s, i = slot
        return state.hands[s][i] if kind == "hand" else state.deck[i]

    pool = [get(slot) for slot in slots]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    for (kind, s, i), c in zip(slots, pool, strict=True):
        if kind == "hand":
            other.hands[s][i] = c
        else:
            other.deck[i] = c
    for h in other.hands:
        h.sort()
    return other


def deck_cards(config: SchnauzConfig) -> list[int]:
    return sorted(int(c) for c in config.deck_cards)


def random_states(seed: int, config: SchnauzConfig, every: int = 3, limit: int = 60):
    """States met in random play (including dealer's choices and final circles)."""
    rng = np.random.default_rng(seed)
    state = new_game(config, np.random.default_rng(seed))
    tracker = PublicTracker(state)
    steps = 0
    while not state.game_over and steps < limit * every:
        if steps % every == 0:
            known = [{c for c in tracker.taken[s] if c in state.hands[s]} for s in range(state.n)]
            assert state.known == known, "the public record of taken cards is wrong"
            yield state
        legal = state.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        tracker.before(state, action)
        state.apply(action)
        tracker.after(state)
        steps += 1


CONFIGS = [
    SchnauzConfig(num_players=2),
    SchnauzConfig(num_players=3, deck="A9", short_stock="recycle"),
    SchnauzConfig(num_players=4, deck="A5", knock_in_first_circle=False),
    SchnauzConfig(num_players=5, lives=0, ties="share"),
    SchnauzConfig(num_players=6, deck="A9", lives=1, fire_costs_all=True),
    SchnauzConfig(num_players=6, deck="A5", lives=2),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.deck}")
def test_hidden_cards_never_reach_the_observation(config):
    encoder = ObservationEncoder(config)
    rng = np.random.default_rng(0)
    changed_hidden = changed_other_view = 0
    phases = set()
    for seed in range(25):
        for state in random_states(seed, config):
            phases.add(state.phase)
            for seat in state.active:
                view = encoder.encode(state, seat)
                other = hidden_permutation(state, seat, rng)
                assert sorted(
                    [
                        *other.table,
                        *other.stock,
                        *other.out_of_play,
                        *(c for h in other.hands for c in h),
                    ]
                ) == deck_cards(config)
                assert np.array_equal(encoder.encode(other, seat), view)
                # the engine's own sampler keeps the view too
                det = state.determinize(seat, np.random.default_rng(seed))
                assert np.array_equal(encoder.encode(det, seat), view)
                assert det.hands[seat] == state.hands[seat] and det.table == state.table
                if other.hands != state.hands or other.stock != state.stock:
                    changed_hidden += 1
                    if any(
                        not np.array_equal(encoder.encode(other, s), encoder.encode(state, s))
                        for s in other.active
                        if s != seat
                    ):
                        changed_other_view += 1
    assert {DEALER_CHOICE, TURNS, FINAL_CIRCLE} <= phases
    assert changed_hidden > 100  # the permutations did move hidden cards
    assert changed_other_view > 50  # ... which the players holding them do see


def visible_change(state: SchnauzState, seat: int, rng: np.random.Generator) -> SchnauzState | None:
    """A copy in which one card ``seat`` can see is swapped with a stock card."""
    if state.stock_size == 0:
        return None
    other = state.clone()
    k = state.pos + int(rng.integers(state.stock_size))
    choices = [("hand", seat, i) for i in range(len(state.hands[seat]))]
    choices += [("table", 0, j) for j in range(len(state.table))]
    choices += [("oop", 0, j) for j in range(len(state.out_of_play))]
    for s in state.active:
        if s != seat:
            choices += [
                ("known", s, i) for i, c in enumerate(state.hands[s]) if c in state.known[s]
            ]
    kind, s, i = choices[int(rng.integers(len(choices)))]
    fresh = other.deck[k]
    if kind == "table":
        other.deck[k], other.table[i] = other.table[i], fresh
        other.table.sort()
    elif kind == "oop":
        other.deck[k], other.out_of_play[i] = other.out_of_play[i], fresh
    else:
        old = other.hands[s][i]
        other.deck[k], other.hands[s][i] = old, fresh
        other.hands[s].sort()
        if kind == "known":
            other.known[s] = (other.known[s] - {old}) | {fresh}
    return other


@pytest.mark.parametrize("config", CONFIGS[:3], ids=lambda c: f"{c.num_players}p-{c.deck}")
def test_visible_cards_do_reach_the_observation(config):
    encoder = ObservationEncoder(config)
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(10):
        for state in random_states(seed, config):
            for seat in state.active:
                other = visible_change(state, seat, rng)
                if other is None or state.phase == OVER:
                    continue
                assert not np.array_equal(encoder.encode(other, seat), encoder.encode(state, seat))
                checked += 1
    assert checked > 100


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 6),
    deck=st.sampled_from(["A7", "A9", "A5"]),
    lives=st.integers(0, 3),
    steps=st.integers(0, 120),
)
def test_hidden_permutation_property(seed, n, deck, lives, steps):
    config = SchnauzConfig(num_players=n, deck=deck, lives=lives)
    encoder = ObservationEncoder(config)
    rng = np.random.default_rng(seed)
    state = new_game(config, np.random.default_rng(seed))
    for _ in range(steps):
        if state.game_over:
            break
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    for seat in state.active:
        view = encoder.encode(state, seat)
        for _ in range(3):
            assert np.array_equal(encoder.encode(hidden_permutation(state, seat, rng), seat), view)
            assert np.array_equal(encoder.encode(state.determinize(seat, rng), seat), view)

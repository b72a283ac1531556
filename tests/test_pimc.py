"""The determinized Monte Carlo search (``pimc``): legal moves, a move that depends on the
seat's information only, values that are the win-chance formula, and the budget."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba", reason="pimc plays the shipped model and expert-jit")

from policies import make_policy
from policies.evaluation import evaluate
from policies.ismcts import determinize
from policies.pimc import PimcParams, PIMCPolicy, units_after, win_chance
from policies.schnauz import hand_tables
from schnauz_env.common.places import fair_win_chance
from schnauz_env.schnauz import SchnauzConfig, new_game
from schnauz_env.schnauz.engine import DEALER_CHOICE, FINAL_CIRCLE, KNOCK, TURNS
from schnauz_env.schnauz.infoset import decode_observation
from schnauz_env.schnauz.observation import ObservationEncoder


def positions(config: SchnauzConfig, games: int, seed: int = 0):
    """(state, observation, mask) of the player to act at every decision of ``games``
    random games."""
    enc = ObservationEncoder(config)
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = new_game(config, np.random.default_rng([seed, g]))
        while not state.game_over:
            yield state, enc.encode(state, state.current), state.legal_mask()
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])


def hidden_cards_moved(state, seed: int):
    """The same position with every card the player to act cannot locate dealt again:
    what that player sees is unchanged."""
    enc = ObservationEncoder(state.config)
    seat = state.current
    obs = enc.encode(state, seat)
    rng = np.random.default_rng(seed)
    for _ in range(200):
        other = state.clone()
        hidden = [
            (p, i)
            for p in range(other.n)
            if p != seat and not other.out[p]
            for i, c in enumerate(other.hands[p])
            if c not in other.known[p]
        ]
        stock = list(range(other.pos, len(other.deck)))
        cards = [other.hands[p][i] for p, i in hidden] + [other.deck[k] for k in stock]
        cards = [cards[k] for k in rng.permutation(len(cards))]
        for (p, i), c in zip(hidden, cards, strict=False):
            other.hands[p][i] = c
        for k, c in zip(stock, cards[len(hidden) :], strict=True):
            other.deck[k] = c
        for p in range(other.n):
            other.hands[p] = sorted(other.hands[p])
        if np.array_equal(enc.encode(other, seat), obs) and other.hands != state.hands:
            return other
    return None


def test_pimc_plays_legal_moves_at_every_table_size():
    for players in (2, 4, 6):
        config = SchnauzConfig(num_players=players)
        policy = PIMCPolicy(config, seed=1, determinizations=2)
        for k, (_, obs, mask) in enumerate(positions(config, games=2, seed=players)):
            assert mask[policy.act(obs, mask)]
            if k == 25:
                break


def test_the_move_depends_on_the_seats_information_only():
    """Two positions that differ only in cards the player to act cannot see get the same
    move from equally seeded searches: the search reads the observation, nothing else."""
    config = SchnauzConfig()
    enc = ObservationEncoder(config)
    checked = 0
    for state, obs, _ in positions(config, games=3, seed=9):
        if state.phase not in (TURNS, FINAL_CIRCLE) or checked >= 12:
            continue
        other = hidden_cards_moved(state, seed=checked)
        if other is None:
            continue
        moves = []
        for s in (state, other):
            o = enc.encode(s, s.current)
            assert np.array_equal(o, obs)
            moves.append(PIMCPolicy(config, seed=4, determinizations=3).act(o, s.legal_mask()))
        assert moves[0] == moves[1]
        checked += 1
    assert checked == 12


def test_determinizations_keep_what_the_seat_knows_and_are_possible():
    config = SchnauzConfig(num_players=4, episode="round")
    rng = np.random.default_rng(0)
    key = hand_tables(config).key
    for k, (state, obs, mask) in enumerate(positions(SchnauzConfig(), games=2, seed=3)):
        if state.phase == DEALER_CHOICE:
            continue
        view = decode_observation(obs, SchnauzConfig())
        drawn, possible = determinize(view, config, rng, random.Random(k), mask, key)
        assert possible and drawn.current == 0
        assert sorted(drawn.hands[0]) == sorted(view.hand) and drawn.table == list(view.table)
        for p in range(1, drawn.n):
            assert view.known[p] <= set(drawn.hands[p])
        if k > 60:
            break


def test_values_are_the_fair_win_chance_of_the_lives_left():
    """A round's value is ``fair_win_chance`` of the seat's life units (lives + 1 while in)
    against the others': a lost life costs what it costs at this table."""
    config = SchnauzConfig(num_players=3, episode="round")
    for state, _, _ in positions(config, games=4, seed=2):
        if state.phase != TURNS or KNOCK not in state.legal_actions():
            continue
        result = state.apply(KNOCK)
        while result is None:
            result = state.apply(state.legal_actions()[-1])
        units = units_after(result)
        for seat in range(3):
            lives, out = result.lives_after[seat], result.out_after[seat]
            assert units[seat] == (0 if out else lives + 1)
            others = tuple(sorted(u for s, u in enumerate(units) if s != seat and u > 0))
            assert win_chance(units, seat) == fair_win_chance(units[seat], others)
        assert sum(win_chance(units, s) for s in range(3)) == pytest.approx(1.0)
        return
    pytest.fail("no position to knock from")


def test_the_budget_is_named_and_checked():
    policy = make_policy("pimc:5", game="schnauz", config=SchnauzConfig(), seed=0)
    assert policy.params.determinizations == 5 and policy.name == "pimc:5"
    policy = make_policy("pimc:determinizations=7,width=4", config=SchnauzConfig(), seed=0)
    assert policy.params == PimcParams(determinizations=7, width=4)
    assert PIMCPolicy(params=PimcParams(width=2), confidence=2.0).params == PimcParams(
        width=2, confidence=2.0
    )
    with pytest.raises(ValueError, match="unknown pimc parameter 'depth'"):
        make_policy("pimc:depth=3", game="schnauz", config=SchnauzConfig(), seed=0)
    with pytest.raises(ValueError, match="width of at least 1"):
        make_policy("pimc:width=0", game="schnauz", config=SchnauzConfig(), seed=0)
    with pytest.raises(ValueError, match="bad pimc budget 'many'"):
        make_policy("pimc:many", game="schnauz", config=SchnauzConfig(), seed=0)
    with pytest.raises(ValueError, match=r"budget of at least 1 \(determinizations\)"):
        PIMCPolicy(SchnauzConfig(), determinizations=0)
    with pytest.raises(ValueError, match="unknown player 'nobody'"):
        PIMCPolicy(SchnauzConfig(), opponents="nobody")


def test_an_evaluation_is_reproducible():
    runs = [
        evaluate(["pimc:2", "expert-jit"], players=2, games=4, seed=6, workers=1) for _ in range(2)
    ]
    assert [p.wins for p in runs[0].policies] == [p.wins for p in runs[1].policies]
    assert runs[0].games == 4

"""Random play: invariants over many games of mixed configurations.

10,000 games in all: 9,000 on the rules engine, 1,000 through the environment
(500 through ``env()``, 500 through ``raw_env``). Checked at every step: no card
created or lost, the player to act always has a legal action, the mask is exactly
the legal actions; per game: sampled illegal actions are rejected and change
nothing, every legal action is accepted, the game ends within the bound that the
lives and the turn guard imply, rewards are zero-sum and returns are place values.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import place_value

from schnauz_env import schnauz_v0
from schnauz_env.schnauz import (
    DEALER_CHOICE,
    NUM_ACTIONS,
    OVER,
    SchnauzConfig,
    SchnauzState,
    new_game,
)
from schnauz_env.schnauz.hands import FIRE, category_of

pytestmark = pytest.mark.slow

ENGINE_GAMES, ENGINE_CHUNKS = 9000, 6
ENV_GAMES = 500  # per env flavour


def random_config(rnd: random.Random) -> SchnauzConfig:
    return SchnauzConfig(
        num_players=rnd.randint(2, 6),
        deck=rnd.choice(["A7", "A9", "A5"]),
        lives=rnd.randint(0, 3),
        knock_in_first_circle=rnd.random() < 0.5,
        short_stock=rnd.choice(["showdown", "recycle"]),
        ties=rnd.choice(["break", "share"]),
        fire_costs_all=rnd.random() < 0.3,
        max_turns=rnd.choice([500, 500, 500, rnd.randint(1, 40)]),
        episode="round" if rnd.random() < 0.15 else "game",
    )


def snapshot(state: SchnauzState) -> tuple:
    return (
        [list(h) for h in state.hands],
        list(state.table),
        list(state.deck),
        state.pos,
        list(state.out_of_play),
        [set(k) for k in state.known],
        list(state.lives),
        list(state.out),
        state.dealer,
        state.current,
        state.phase,
        state.passes,
        state.turns,
        state.knocker,
        state.final_left,
        state.round,
        list(state.places),
        state.game_over,
    )


def check_cards(state: SchnauzState, deck: list[int]) -> None:
    held = [c for h in state.hands for c in h]
    assert sorted(held + state.table + state.deck[state.pos :] + state.out_of_play) == deck
    if not state.game_over:
        assert all(len(state.hands[s]) == (0 if state.out[s] else 3) for s in range(state.n))
        assert len(state.table) == (0 if state.phase == DEALER_CHOICE else 3)


def illegal_choices(state: SchnauzState, rnd: random.Random) -> list:
    legal = state.legal_actions()
    illegal = [a for a in range(NUM_ACTIONS) if a not in legal]
    picks = rnd.sample(illegal, min(2, len(illegal)))
    return [*picks, rnd.choice([-1, NUM_ACTIONS, 99])]


def check_result(result, lives_before: list[int], out_before: list[bool], config) -> None:
    seats = sorted(result.hands)
    assert seats == [s for s in range(len(out_before)) if not out_before[s]]
    assert result.losers and set(result.losers) <= set(seats)
    assert result.turn_limit_reached is (result.reason == "turn_limit")
    low = min(result.keys.values())
    fire = [s for s in seats if category_of(result.keys[s]) == FIRE]
    if config.fire_costs_all and fire:
        assert sorted(result.losers) == sorted(set(seats) - set(fire))
    elif result.replays:
        assert len(result.losers) == 1
    else:
        assert sorted(result.losers) == [s for s in seats if result.keys[s] == low]
        if config.ties == "break":
            assert len(result.losers) == 1
    for s in seats:
        if s in result.losers and lives_before[s] > 0:
            assert result.lives_after[s] == lives_before[s] - 1 and not result.out_after[s]
        elif s in result.losers:
            assert result.out_after[s] and s in result.went_out
        else:
            assert result.lives_after[s] == lives_before[s] and not result.out_after[s]


def play_engine_game(seed: int) -> int:
    rnd = random.Random(seed)
    config = random_config(rnd)
    deck = sorted(int(c) for c in config.deck_cards)
    state = new_game(config, np.random.default_rng(seed))
    bound = config.num_players * (config.lives + 1) * (config.max_turns + 1)
    probe_steps = {rnd.randrange(40) for _ in range(2)}
    steps = 0
    while not state.game_over:
        assert steps <= bound, f"game {seed} did not end within {bound} steps"
        legal = state.legal_actions()
        assert legal, "the player to act has no legal action"
        if steps in probe_steps:
            before = snapshot(state)
            for bad in illegal_choices(state, rnd):
                with pytest.raises(ValueError):
                    state.apply(bad)
                assert snapshot(state) == before
            for a in legal:  # every legal action is accepted
                state.clone().apply(a)
            mask = state.legal_mask()
            assert [a for a in range(NUM_ACTIONS) if mask[a]] == list(legal)
        lives, out = list(state.lives), list(state.out)
        result = state.apply(legal[rnd.randrange(len(legal))])
        check_cards(state, deck)
        if result is not None:
            check_result(result, lives, out, config)
        steps += 1
    assert state.phase == OVER and state.legal_actions() == ()
    if config.episode == "game":
        assert state.num_active == 1
        places = state.places
        assert all(p is not None for p in places)
        assert places[state.active[0]] == 1.0
        assert sum(place_value(p, state.n) for p in places) == pytest.approx(0.0)
    else:
        assert state.round == 1
    return steps


@pytest.mark.parametrize("chunk", range(ENGINE_CHUNKS))
def test_engine_random_play(chunk):
    per = ENGINE_GAMES // ENGINE_CHUNKS
    total = sum(play_engine_game(seed) for seed in range(chunk * per, (chunk + 1) * per))
    assert total > per * 5


# ------------------------------------------------------------------ through the env
def env_snapshot(env) -> tuple:
    agent = env.agent_selection
    obs = env.observe(agent)
    return (agent, obs["observation"].tolist(), obs["action_mask"].tolist(), snapshot(env.game))


def play_env_game(seed: int, wrapped: bool) -> None:
    rnd = random.Random(10**6 + seed)
    config = random_config(rnd)
    options = config.to_dict()
    env = schnauz_v0.env(**options) if wrapped else schnauz_v0.raw_env(**options)
    raw = env.unwrapped
    env.reset(seed=seed)
    agents = list(env.possible_agents)
    returns = dict.fromkeys(agents, 0.0)
    step_sums = dict.fromkeys(agents, 0.0)
    deck = sorted(int(c) for c in config.deck_cards)
    bound = 2 * config.num_players * (config.lives + 1) * (config.max_turns + 2)
    probe = rnd.randrange(30)
    steps = 0
    while env.agents:
        assert steps <= bound
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        returns[agent] += reward
        assert set(info) >= {"lives", "out", "round", "last_showdown"}
        if term or trunc:
            env.step(None)
        else:
            mask = obs["action_mask"]
            assert env.observation_space(agent)["observation"].contains(obs["observation"])
            legal = np.flatnonzero(mask)
            assert len(legal) > 0
            assert raw.agent_name_mapping[agent] == raw.game.current
            assert list(legal) == list(raw.game.legal_actions())
            other = agents[(agents.index(agent) + 1) % len(agents)]
            if other in env.agents:
                assert not env.observe(other)["action_mask"].any()
            if not wrapped and steps == probe:
                # rejected with ValueError and nothing changes (the pending reward is
                # covered by test_raw_env_illegal_action_leaves_a_pending_reward)
                before = env_snapshot(env)
                for bad in illegal_choices(raw.game, rnd):
                    with pytest.raises(ValueError, match="legal actions"):
                        env.step(bad)
                    assert env_snapshot(env) == before
            env.step(int(legal[rnd.randrange(len(legal))]))
            check_cards(raw.game, deck)
        assert sum(env.rewards.values()) == pytest.approx(0.0, abs=1e-9)
        for a, r in env.rewards.items():
            step_sums[a] += r
        steps += 1
    game = raw.game
    assert game.game_over
    assert returns == pytest.approx(step_sums)
    if config.episode == "game":
        for seat, agent in enumerate(agents):
            assert returns[agent] == pytest.approx(
                place_value(game.places[seat], config.num_players)
            )
    else:
        result = game.last_result
        losers = set(result.losers)
        in_round = set(result.hands)
        for seat, agent in enumerate(agents):
            if seat not in in_round or len(losers) == len(in_round):
                expected = 0.0
            elif seat in losers:
                expected = -1.0
            else:
                expected = len(losers) / (len(in_round) - len(losers))
            assert returns[agent] == pytest.approx(expected)
    assert sum(returns.values()) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
def test_env_random_play(wrapped):
    for seed in range(ENV_GAMES):
        play_env_game(seed, wrapped)

"""The Thirteen AEC environment: PettingZoo API and seeding, rewards, infos, rendering,
and the hidden-information test."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import schnauz_env  # registers the environments
from schnauz_env import thirteen_v0
from schnauz_env.thirteen import (
    NUM_ACTIONS,
    PASS,
    ObservationEncoder,
    ObservationLayout,
    ThirteenConfig,
    new_game,
    play_actions,
    stacked_deck,
    strength,
)

SUITED = [
    "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S",
    "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C",
    "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2D",
    "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 2H",
]


def place_value(place: float, n: int) -> float:
    return 1.0 - 2.0 * (place - 1.0) / (n - 1.0)


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("episode", ["game", "match"])
def test_api(num_players, episode):
    api_test(thirteen_v0.env(num_players=num_players, episode=episode), num_cycles=300)


def test_seed():
    seed_test(thirteen_v0.env, num_cycles=300)


def test_registry_and_spaces():
    env = pettingzoo.make("aec", "schnauz_env/thirteen_v0", num_players=3)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.action_space("player_0").n == NUM_ACTIONS == 54
    assert env.observation_space("player_0")["observation"].shape == (245,)
    assert schnauz_env.ENV_IDS["schnauz_env/thirteen_v0"] == "schnauz_env.thirteen_v0:env"


def test_bad_options_say_what_is_allowed():
    with pytest.raises(ValueError, match="allowed options: num_players"):
        thirteen_v0.env(jokers=True)
    with pytest.raises(ValueError, match="2 to 4 players"):
        thirteen_v0.env(num_players=6)
    with pytest.raises(ValueError, match="invalid render_mode"):
        thirteen_v0.env(render_mode="video")


def _drain(env, rewards):
    while env.agents and env.terminations[env.agent_selection]:
        env.step(None)
        rewards.append(dict(env.rewards))


def _play(env, cards: str, rewards: list) -> None:
    _drain(env, rewards)
    for a in play_actions(cards):
        env.step(a)
        rewards.append(dict(env.rewards))


def _pass(env, rewards: list) -> None:
    _drain(env, rewards)
    env.step(PASS)
    rewards.append(dict(env.rewards))


def test_rewards_follow_the_order_of_going_out():
    env = thirteen_v0.env()
    env.reset(options={"deck": stacked_deck(SUITED), "dealer": 2})  # dealer is ignored
    rewards: list[dict[str, float]] = []
    for seat in range(4):
        assert env.agent_selection == f"player_{seat}"
        _play(env, SUITED[seat].rsplit(" ", 1)[0], rewards)
    for _ in range(3):
        _pass(env, rewards)
    _play(env, "2H", rewards)  # player_3 is out first: +1 at once
    assert env.rewards["player_3"] == pytest.approx(1.0)
    assert env.terminations["player_3"]
    _drain(env, rewards)
    assert "player_3" not in env.agents
    for _ in range(3):
        _pass(env, rewards)
    _play(env, "2S", rewards)
    _play(env, "2C", rewards)
    _drain(env, rewards)
    assert env.agents == []
    for r in rewards:
        assert sum(r.values()) == pytest.approx(0.0)
    totals = {a: sum(r.get(a, 0.0) for r in rewards) for a in env.possible_agents}
    expected = {"player_3": 1.0, "player_0": 1 / 3, "player_1": -1 / 3, "player_2": -1.0}
    assert totals == pytest.approx(expected)
    assert env.unwrapped.infos == {}  # every agent is gone


def test_match_rewards_come_at_the_end_by_score():
    env = thirteen_v0.raw_env(num_players=2, episode="match", target_points=2)
    env.reset(seed=5)
    rewards = []
    rng = np.random.default_rng(0)
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        rewards.append(dict(env.rewards))
    game = env.game
    assert game.game >= 2 and max(game.scores) >= 2
    assert all(v == 0.0 for r in rewards[:-1] for v in r.values())
    winner = int(np.argmax(game.scores))
    assert rewards[-1][f"player_{winner}"] == pytest.approx(1.0)
    assert sum(rewards[-1].values()) == pytest.approx(0.0)


def test_infos_report_scores_and_results():
    env = thirteen_v0.raw_env(num_players=4)
    env.reset(options={"deck": stacked_deck(SUITED)})
    assert env.infos["player_0"] == {
        "scores": {f"player_{s}": 0 for s in range(4)},
        "game": 0,
        "finish_order": [],
        "last_result": None,
    }
    for seat in range(4):
        for a in play_actions(SUITED[seat].rsplit(" ", 1)[0]):
            env.step(a)
    for _ in range(3):
        env.step(PASS)
    for a in play_actions("2H"):
        env.step(a)
    info = env.infos["player_0"]
    assert info["finish_order"] == ["player_3"]
    assert info["last_result"]["reason"] == "out" and info["last_result"]["places"] == {
        "player_3": 1.0
    }


def test_illegal_action_under_env_costs_the_offender():
    env = thirteen_v0.env()
    env.reset(seed=0)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    env.step(bad)  # PettingZoo logs the illegal move and ends the game
    assert env.rewards[agent] == -1.0
    assert all(env.terminations.values())
    raw = thirteen_v0.raw_env()
    raw.reset(seed=0)
    with pytest.raises(ValueError, match=r"legal actions: 0 \(select 3S\)"):
        raw.step(PASS)


def test_render_text_hides_other_hands_from_a_seat():
    env = thirteen_v0.raw_env(render_mode="ansi", render_seat=1)
    env.reset(options={"deck": stacked_deck(SUITED)})
    text = env.render()
    assert "3♣ 4♣" in text and "3♠ 4♠" not in text and "13 cards" in text
    env.render_seat = None
    assert "3♠ 4♠" in env.render()
    assert env.action_to_string(0) == "select 3♠"


def test_observation_layout_is_documented():
    layout = ObservationLayout()
    assert layout.describe() == [
        ("hand", 0, 52),
        ("selected", 52, 104),
        ("table", 104, 156),
        ("table_kind", 156, 162),
        ("table_by", 162, 166),
        ("passed", 166, 170),
        ("played", 170, 222),
        ("seats", 222, 234),
        ("scores", 234, 238),
        ("to_act", 238, 242),
        ("flags", 242, 245),
    ]


def test_observation_blocks_from_a_seat():
    config = ThirteenConfig()
    state = new_game(config, np.random.default_rng(0), deck=stacked_deck(SUITED))
    for a in play_actions("3S 4S 5S"):
        state.apply(a)
    state.apply(strength("4C"))  # seat 1 is selecting
    enc = ObservationEncoder(config)
    lay = ObservationLayout()
    obs1 = enc.encode(state, 1)
    assert np.flatnonzero(obs1[lay["selected"]]).tolist() == [strength("4C")]
    assert np.flatnonzero(obs1[lay["table"]]).tolist() == [strength(c) for c in ("3S", "4S", "5S")]
    assert obs1[lay["table_kind"]].tolist() == [0, 0, 0, 0, 1, 0]
    assert obs1[lay["table_by"]].tolist() == [0, 0, 0, 1]  # seat 0 is 3 to seat 1's left
    assert obs1[lay["to_act"]].tolist() == [1, 0, 0, 0]
    seats = obs1[lay["seats"]].reshape(4, 3)
    assert seats[3].tolist() == pytest.approx([1, 1, 10 / 13])  # seat 0 as seen by seat 1
    obs0 = enc.encode(state, 0)
    assert obs0[lay["selected"]].sum() == 0  # seat 1's selection is its own secret
    assert obs0[lay["flags"]].tolist() == [0, 0, 0]


def _redeal_hidden(state, seat: int, rng: np.random.Generator):
    """A copy in which the cards ``seat`` cannot see are dealt again at random
    (same hand sizes), built here independently of the engine's determinize()."""
    other = state.clone()
    pool = list(state.undealt) + [c for s in range(state.n) if s != seat for c in state.hands[s]]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    k = 0
    for s in range(state.n):
        if s != seat:
            m = len(state.hands[s])
            other.hands[s] = sorted(pool[k : k + m], key=strength)
            k += m
    other.undealt = pool[k:]
    return other


def test_hidden_cards_never_reach_another_seat():
    """Redealing every card a seat cannot see leaves its observation unchanged, over
    random states of random games (2-4 players, games and matches)."""
    rng = np.random.default_rng(1)
    checked = 0
    for g in range(40):
        config = ThirteenConfig(num_players=2 + g % 3, episode=("game", "match")[g % 2])
        enc = ObservationEncoder(config)
        state = new_game(config, np.random.default_rng(g))
        steps = 0
        while not state.game_over and steps < 400:
            if not state.selection and rng.random() < 0.2:
                for seat in range(state.n):
                    obs = enc.encode(state, seat)
                    other = _redeal_hidden(state, seat, rng)
                    assert np.array_equal(enc.encode(other, seat), obs)
                    assert np.array_equal(enc.encode(state.determinize(seat, rng), seat), obs)
                    checked += 1
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
            steps += 1
    assert checked > 500


def test_random_env_episodes_are_zero_sum_and_pay_places():
    rng = np.random.default_rng(2)
    for episode in range(60):
        n = 2 + episode % 3
        env = thirteen_v0.env(num_players=n)
        env.reset(seed=episode)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for _agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            assert mask.sum() >= 1
            env.step(int(rng.choice(np.flatnonzero(mask))))
            assert sum(env.rewards.values()) == pytest.approx(0.0)
            for a, r in env.rewards.items():
                totals[a] += r
        game = env.unwrapped.game
        assert sorted(game.places) == [float(p) for p in range(1, n + 1)]
        for s, a in enumerate(env.possible_agents):
            assert totals[a] == pytest.approx(place_value(game.places[s], n))

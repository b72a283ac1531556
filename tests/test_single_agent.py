"""The Gymnasium single-agent view: checkers, the learner credited its own reward, and
opponents from a seeded pool."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import stack

from policies import Policy
from policies.pool import OpponentPool
from schnauz_env.schnauz import KEEP, KNOCK, PASS
from schnauz_env.wrappers import PlayerPool, SingleAgentEnv


class Passer(Policy):
    """An opponent that keeps as dealer and otherwise always passes."""

    name = "passer"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return KEEP if action_mask[KEEP] else PASS


class Uniform(Policy):
    name = "uniform"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(action_mask)))


# Seat 0 holds 30 (10C JC QC), seat 1 holds 10 (7S 8H 10D); the table gets 9S 9H 9D.
STRONG_0 = {1: "7S 8H 10D", 0: "10C JC QC"}
STRONG_1 = {1: "10C JC QC", 0: "7S 8H 10D"}


def play_out(env: SingleAgentEnv, deck: list[str], moves: list[int], rules_seat: int):
    obs, info = env.reset(seed=3, options={"deck": deck, "dealer": 0, "seat": rules_seat})
    assert info["seat"] == rules_seat
    total, done, t = 0.0, False, 0
    while not done:
        obs, reward, done, truncated, info = env.step(moves[t])
        total += reward
        t += 1
    return total, info


@pytest.mark.parametrize("episode", ["round", "game"])
@pytest.mark.parametrize(("hands", "learner_wins"), [(STRONG_0, True), (STRONG_1, False)])
def test_learner_gets_its_own_reward_as_dealer(episode, hands, learner_wins):
    # Learner = seat 0 = dealer: keep, (seat 1 passes), knock, (seat 1 passes) -> showdown.
    env = SingleAgentEnv(
        rules={"episode": episode, "lives": 0},
        table_sizes=(2,),
        opponents=[Passer(None)],
        seed=0,
    )
    deck = stack(hands, ["9S 9H 9D"], dealer=0)
    total, info = play_out(env, deck, [KEEP, KNOCK], rules_seat=0)
    assert total == (1.0 if learner_wins else -1.0)
    loser = "player_1" if learner_wins else "player_0"
    assert info["last_showdown"]["losers"] == [loser]


@pytest.mark.parametrize(("hands", "learner_wins"), [(STRONG_1, True), (STRONG_0, False)])
def test_learner_gets_its_own_reward_when_not_dealing(hands, learner_wins):
    # Learner = seat 1: the dealer (seat 0, passer) keeps; learner knocks; seat 0 passes.
    env = SingleAgentEnv(
        rules={"episode": "round"}, table_sizes=(2,), opponents=[Passer(None)], seed=0
    )
    deck = stack(hands, ["9S 9H 9D"], dealer=0)
    total, info = play_out(env, deck, [KNOCK], rules_seat=1)
    assert total == (1.0 if learner_wins else -1.0)


def test_returns_are_place_values_over_random_games():
    env = SingleAgentEnv(table_sizes=(2, 3, 4, 5, 6), opponents=[Uniform(None)], seed=5)
    rng = np.random.default_rng(1)
    for ep in range(60):
        obs, info = env.reset(seed=ep)
        n = info["table_size"]
        total, done = 0.0, False
        while not done:
            assert env.observation_space.contains(obs)
            obs, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            total += r
        places = {1.0 - 2.0 * (p - 1) / (n - 1) for p in range(1, n + 1)}
        assert min(abs(total - v) for v in places) < 1e-9


def test_without_infos_the_episodes_are_the_same():
    runs = []
    for infos in (True, False):
        env = SingleAgentEnv(
            table_sizes=(3, 4), opponents=OpponentPool(["greedy"]), seed=4, infos=infos
        )
        rng = np.random.default_rng(2)
        trace = []
        for ep in range(5):
            obs, info = env.reset(seed=ep)
            assert ("lives" in info) == infos  # the game's infos only when asked for
            done = False
            while not done:
                assert np.array_equal(info["action_mask"], env.action_masks())
                obs, r, done, _, info = env.step(
                    int(rng.choice(np.flatnonzero(env.action_masks())))
                )
                assert ("lives" in info) == infos
                trace.append((obs.tobytes(), r, done))
        runs.append(trace)
    assert runs[0] == runs[1]
    lean = SingleAgentEnv(table_sizes=(3,), opponents=[Uniform(None)], seed=2, infos=False)
    lean.reset(seed=0)
    illegal = int(np.flatnonzero(~lean.action_masks())[0])
    info = lean.step(illegal)[4]
    assert info.keys() == {"illegal_action", "action_mask"} and info["illegal_action"] == illegal
    assert not info["action_mask"].any()  # the episode is over


def test_illegal_action_loses_or_raises():
    env = SingleAgentEnv(table_sizes=(3,), opponents=[Uniform(None)], seed=2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, done, _, info = env.step(illegal)
    assert (reward, done, info["illegal_action"]) == (-1.0, True, illegal)
    strict = SingleAgentEnv(
        table_sizes=(3,), opponents=[Uniform(None)], seed=2, illegal_action="raise"
    )
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="legal actions"):
        strict.step(illegal)


def test_passes_the_gymnasium_and_sb3_checkers():
    from gymnasium.utils.env_checker import check_env

    check_env(
        SingleAgentEnv(table_sizes=(2, 4, 6), opponents=[Uniform(None)], seed=1),
        skip_render_check=True,
    )
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3.check_env(SingleAgentEnv(table_sizes=(4,), opponents=OpponentPool(["random"]), seed=1))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rules": {"num_players": 4}}, "table_sizes"),
        ({"table_sizes": ()}, "at least one"),
        ({"table_sizes": (7,)}, "num_players"),
        ({"opponents": []}, "empty"),
        ({"opponents": OpponentPool(["nobody"])}, "unknown schnauz policy"),
        ({"opponents": ["greedy"]}, "resolved by policies.pool.OpponentPool"),
        ({"opponents": [42]}, "a policy or a callable"),
        ({"weights": [1, 2]}, "weights"),
        ({"opponents": OpponentPool(["random"]), "weights": [1]}, "give the weights to the pool"),
        ({"seat": 4, "table_sizes": (3, 4)}, "seat 4"),
        ({"rules": {"deck": "A3"}}, "deck"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    env_kwargs = {"opponents": [Uniform(None)], **kwargs}
    with pytest.raises(ValueError, match=message):
        env = SingleAgentEnv(**env_kwargs)
        env.reset(seed=0)


def play_episodes(env: SingleAgentEnv, seeds: list[int | None], moves_seed: int = 0) -> list:
    """Random learner moves over episodes reset with ``seeds``: observations, rewards, seats."""
    rng = np.random.default_rng(moves_seed)
    trace = []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        trace.append((obs.tobytes(), tuple(info["players"])))
        done = False
        while not done:
            obs, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            trace.append((obs.tobytes(), r))
    return trace


def test_a_seed_fixes_the_seating_and_the_opponents_moves():
    # expert samples inside; the pool builds it seeded from the env's generator and the env
    # reseeds every opponent per episode, so one seed gives one run.
    def env() -> SingleAgentEnv:
        pool = OpponentPool(["greedy", "expert", Uniform(None)], [1, 2, 1])
        return SingleAgentEnv(table_sizes=(3, 4), opponents=pool, seed=7)

    runs = [play_episodes(env(), [None, 3, None, None]) for _ in range(2)]
    assert runs[0] == runs[1]
    seated = {name for item in runs[0] if isinstance(item[1], tuple) for name in item[1]}
    assert {"greedy", "expert", "uniform", "learner"} <= seated
    assert play_episodes(env(), [None, 4, None, None]) != runs[0]


def test_the_pool_can_change_between_episodes():
    env = SingleAgentEnv(table_sizes=(3,), opponents=OpponentPool(["greedy"]), seed=1)
    _, info = env.reset(seed=0)
    assert sorted(info["players"]) == ["greedy", "greedy", "learner"]
    env.set_pool(["random"])  # the env's OpponentPool takes names
    _, info = env.reset(seed=0)
    assert sorted(info["players"]) == ["learner", "random", "random"]
    env.add_opponent(Passer(None), weight=1000.0)
    _, info = env.reset(seed=0)
    assert "passer" in info["players"]
    with pytest.raises(ValueError, match="unknown schnauz policy"):
        env.set_pool(["nobody"])
    plain = SingleAgentEnv(table_sizes=(3,), opponents=PlayerPool([Passer(None)]), seed=1)
    with pytest.raises(ValueError, match="is a name"):
        plain.set_pool(["greedy"])


def test_callables_and_policies_share_a_pool():
    calls = []

    def first_legal(obs, mask):
        calls.append(1)
        return int(np.flatnonzero(mask)[0])

    env = SingleAgentEnv(table_sizes=(4,), opponents=[first_legal, Passer(None)], seed=2)
    for _ in play_episodes(env, [0, 1]):
        pass
    assert calls


def test_the_old_path_still_works_with_a_warning():
    with pytest.warns(DeprecationWarning, match="schnauz_env.wrappers"):
        import importlib

        import training.single_agent as old

        importlib.reload(old)
    env = old.SingleAgentEnv(table_sizes=(3,), opponents=["greedy", "random"], seed=5)
    new = SingleAgentEnv(table_sizes=(3,), opponents=OpponentPool(["greedy", "random"]), seed=5)
    assert play_episodes(env, [0, None]) == play_episodes(new, [0, None])

"""The Ray RLlib path: the multi-agent table env, the masking module, its export, and a
tiny real training run (one short iteration on 2 CPUs: train, checkpoint, export, evaluate)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ray.rllib")

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from policies import Policy
from policies.mlp import load_model_policy
from schnauz_env.common.places import place_value
from schnauz_env.schnauz import KEEP, PASS, SchnauzConfig
from training.rllib_env import TableEnv
from training.rllib_module import MASKED_LOGIT, MaskedMLPModule, export_module


def acting(env: TableEnv, obs: dict) -> str:
    """The one agent in ``obs`` that is to act (the others, if any, just finished)."""
    live = [a for a in obs if obs[a]["action_mask"].any()]
    assert live == [env.env.agent_selection], (sorted(obs), env.env.agent_selection)
    return live[0]


def play_random(env: TableEnv, episodes: int, seed: int):
    """Random legal play; yields (returns per learner agent, final infos) per episode."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    returns: dict[str, float] = dict.fromkeys(obs, 0.0)
    finals: dict[str, dict] = {}
    done = 0
    while done < episodes:
        agent = acting(env, obs)
        action = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        assert not any(truncs.values())
        for a, r in rewards.items():
            returns[a] = returns.get(a, 0.0) + r
        for a, t in terms.items():
            if a != "__all__" and t:
                assert a not in finals, f"{a} finished twice"
                finals[a] = infos[a]
        if terms["__all__"]:
            yield returns, finals
            done += 1
            obs, _ = env.reset()
            returns, finals = dict.fromkeys(obs, 0.0), {}
        else:
            assert set(obs) - set(finals) == {env.env.agent_selection}


# ------------------------------------------------------------------ the env


@pytest.mark.parametrize("learner_seats", [1, 2, 3])
def test_each_learner_seat_returns_its_final_place_value(learner_seats):
    env = TableEnv(
        {
            "table_sizes": [3, 4],
            "opponents": ["random", "greedy"],
            "learner_seats": learner_seats,
            "seed": 5,
        }
    )
    for returns, finals in play_random(env, episodes=12, seed=learner_seats):
        assert set(finals) == set(returns)
        assert len(finals) == learner_seats
        assert env.seat_players.count("learner") == learner_seats
        n = finals[next(iter(finals))]["table_size"]
        for agent, info in finals.items():
            assert info["place"] is not None
            assert returns[agent] == pytest.approx(place_value(info["place"], n)), agent
    assert env.illegal_actions == 0


def test_round_episodes_pay_the_loser_minus_one():
    env = TableEnv({"table_sizes": [3], "rules": {"episode": "round"}, "opponents": ["greedy"]})
    total = []
    for returns, _ in play_random(env, episodes=20, seed=0):
        (r,) = returns.values()
        assert r in (-1.0, 0.0) or r == pytest.approx(0.5)  # loser -1, the others share +1
        total.append(r)
    assert -1.0 in total and any(r > 0 for r in total)


def test_copies_on_different_runners_play_different_deals():
    from ray.rllib.env.env_context import EnvContext

    def first_hands(worker: int, vector: int) -> bytes:
        ctx = EnvContext({"table_sizes": [4], "opponents": ["random"], "seed": 0}, worker)
        env = TableEnv(ctx)
        obs, _ = env.reset(seed=0 + worker + vector)  # how RLlib seeds env `vector` of `worker`
        (agent,) = obs
        return agent.encode() + obs[agent]["observation"].tobytes()

    deals = {(w, v): first_hands(w, v) for w in range(3) for v in range(3)}
    assert len(set(deals.values())) == len(deals)  # runner 1 env 1 != runner 2 env 0
    assert first_hands(1, 1) == first_hands(1, 1)  # and a seed still fixes the deal


class Passer(Policy):
    name = "passer"

    def act(self, observation, action_mask):
        return KEEP if action_mask[KEEP] else PASS


def test_opponents_play_inside_the_env_and_the_pool_can_change():
    env = TableEnv({"table_sizes": [4], "opponents": ["greedy"], "seed": 0})
    env.reset(seed=1)
    assert sorted(env.seat_players) == ["greedy", "greedy", "greedy", "learner"]
    env.set_pool([Passer(SchnauzConfig(num_players=4))])
    assert env.pool == ["passer"]
    env.reset(seed=1)
    assert sorted(env.seat_players) == ["learner", "passer", "passer", "passer"]


def test_illegal_action_loses_or_raises():
    env = TableEnv({"table_sizes": [4], "opponents": ["random"], "seed": 0})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    obs, rewards, terms, _, infos = env.step({agent: illegal})
    assert rewards[agent] == -1.0 and terms == {agent: True, "__all__": True}
    assert infos[agent]["illegal_action"] == illegal and env.illegal_actions == 1

    strict = TableEnv({"table_sizes": [4], "opponents": ["random"], "illegal_action": "raise"})
    obs, _ = strict.reset(seed=0)
    (agent,) = obs
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=r"illegal action .* legal:"):
        strict.step({agent: illegal})


def test_the_pool_and_the_deals_are_seeded():
    def run(seed: int) -> tuple:
        env = TableEnv({"table_sizes": [4], "opponents": ["expert", "greedy"], "seed": seed})
        built = env.opponent_pool.player(0, env.configs[4])  # expert, built from the seed
        draws = built.rng.integers(2**31, size=3).tolist()
        trace = [(r, tuple(f.get("place") for f in finals.values()), tuple(env.seat_players))
                 for r, finals in play_random(env, episodes=3, seed=seed)]  # fmt: skip
        return draws, trace

    assert run(3) == run(3)
    assert run(3)[0] != run(4)[0]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"table_sizes": [3], "learner_seats": 4}, "learner_seats"),
        ({"opponents": ["nobody"]}, "unknown schnauz policy"),
        ({"rules": {"num_players": 4}}, "table_sizes"),
        ({"rules": {"deck": "A2"}}, "deck"),
        ({"colour": "red"}, "unknown TableEnv option"),
    ],
)
def test_bad_settings_are_refused(config, message):
    with pytest.raises(ValueError, match=message):
        TableEnv(config)


# ------------------------------------------------------------------ the module


def build_module(env: TableEnv, **model_config) -> MaskedMLPModule:
    agent = env.possible_agents[0]
    return RLModuleSpec(
        module_class=MaskedMLPModule,
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config=model_config,
    ).build()


def observations(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the seats to act in random 4-player games."""
    env = TableEnv({"table_sizes": [4], "opponents": ["random"], "learner_seats": 4})
    obs_list, masks = [], []
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    while len(obs_list) < n:
        agent = acting(env, obs)
        obs_list.append(obs[agent]["observation"])
        masks.append(obs[agent]["action_mask"])
        action = int(rng.choice(np.flatnonzero(masks[-1])))
        obs, _, terms, _, _ = env.step({agent: action})
        if terms["__all__"]:
            obs, _ = env.reset()
    return np.stack(obs_list), np.stack(masks)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_export_plays_exactly_like_the_torch_module(tmp_path, activation):
    env = TableEnv({"table_sizes": [4], "opponents": ["random"]})
    module = build_module(env, hidden=[64, 32], activation=activation)
    torch.manual_seed(0)
    with torch.no_grad():  # weights far from the near-uniform start, so argmaxes differ
        for p in module.pi.parameters():
            p.normal_(0.0, 0.5)
    obs, masks = observations()
    batch = {
        Columns.OBS: {"observation": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}
    }
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    path = export_module(module, tmp_path / "m.npz", "schnauz", SchnauzConfig(), [4])
    policy = load_model_policy(path, config=SchnauzConfig(num_players=4))
    assert policy.meta["trainer"] == "rllib" and policy.meta["activation"] == activation
    np.testing.assert_allclose(policy.logits(obs)[masks == 1], logits[masks == 1], atol=1e-4)
    chosen = policy.act_batch(obs, masks)
    np.testing.assert_array_equal(chosen, logits.argmax(axis=1))
    assert masks[np.arange(len(chosen)), chosen].all()
    assert len(set(chosen.tolist())) > 3  # a real comparison, not a constant answer


def test_masked_actions_are_never_sampled_and_the_loss_terms_stay_finite():
    env = TableEnv({"table_sizes": [4], "opponents": ["random"]})
    module = build_module(env)
    obs, masks = observations(100, seed=1)
    batch = {
        Columns.OBS: {"observation": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}
    }
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    assert (logits.detach().numpy()[masks == 0] == MASKED_LOGIT).all()
    dist = TorchCategorical.from_logits(logits)
    torch.manual_seed(0)
    samples = torch.stack([dist.sample() for _ in range(200)]).numpy()
    assert masks[np.arange(len(masks))[None, :], samples].all()
    assert torch.isfinite(dist.entropy()).all()
    assert torch.isfinite(dist.kl(TorchCategorical.from_logits(logits * 0.5))).all()
    values = module.compute_values(batch)
    assert values.shape == (len(obs),)


def test_module_takes_rllibs_observations_key_too():
    import gymnasium as gym

    space = gym.spaces.Dict(
        {
            "observations": gym.spaces.Box(0.0, 1.0, (10,), np.float32),
            "action_mask": gym.spaces.Box(0, 1, (3,), np.int8),
        }
    )
    module = RLModuleSpec(
        module_class=MaskedMLPModule, observation_space=space, action_space=gym.spaces.Discrete(3)
    ).build()
    out = module.forward_inference(
        {
            Columns.OBS: {
                "observations": torch.zeros(2, 10),
                "action_mask": torch.tensor([[0, 1, 0], [1, 0, 1]]),
            }
        }
    )[Columns.ACTION_DIST_INPUTS]
    assert out.argmax(dim=1).tolist()[0] == 1 and out[1, 1] == MASKED_LOGIT
    bad = gym.spaces.Dict({"observations": space["observations"]})
    with pytest.raises(ValueError, match="action_mask"):
        RLModuleSpec(
            module_class=MaskedMLPModule, observation_space=bad, action_space=gym.spaces.Discrete(3)
        ).build()


# ------------------------------------------------------------------ a tiny real run


#: The tiny run's rules, given on its command line as --rules knock_in_first_circle=false.
RULES = {"knock_in_first_circle": False}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """Two short PPO iterations from the command line on 2 CPUs (one remote env runner), a
    snapshot after the first."""
    import ray

    from training.rllib_train import main

    out = tmp_path_factory.mktemp("rllib_runs")
    try:
        main(
            ["--iterations", "2", "--table-sizes", "3", "4", "--opponents", "random", "greedy",
             "--rules", "knock_in_first_circle=false",
             "--self-play-every", "1", "--self-play-keep", "1", "--num-cpus", "2",
             "--num-env-runners", "1", "--train-batch-size", "256", "--batch-size", "128",
             "--n-epochs", "1", "--net-arch", "32", "32", "--checkpoint-every", "0",
             "--eval-every", "0", "--eval-games", "8", "--eval-opponents", "greedy",
             "--run-dir", str(out), "--run-name", "tiny"]
        )  # fmt: skip
        yield out / "tiny"
    finally:
        ray.shutdown()


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_tiny_run_trains_without_illegal_actions_and_snapshots_reach_the_runners(tiny_run):
    rows = read_csv(tiny_run / "progress.csv")
    assert [r["iteration"] for r in rows] == ["1", "2"]
    assert int(rows[-1]["env_steps"]) >= 2 * 256
    assert all(r["illegal_actions"] == "0" for r in rows)
    assert float(rows[-1]["env_steps_per_s"]) > 0
    assert rows[0]["pool"] == "random greedy"
    # The pool read back from the remote env runner after the snapshot was pushed.
    assert rows[1]["pool"] == "random greedy snapshot_iter_1"
    assert (tiny_run / "snapshots" / "snapshot_iter_1.npz").is_file()


def test_tiny_run_checkpoint_export_and_evaluation_agree(tiny_run):
    from ray.rllib.core.rl_module.rl_module import RLModule

    ckpt = tiny_run / "checkpoints" / "iter_2"
    module_dir = ckpt / "learner_group" / "learner" / "rl_module" / "learner"
    assert module_dir.is_dir(), sorted(p.name for p in ckpt.iterdir())
    module = RLModule.from_checkpoint(module_dir)
    policy = load_model_policy(tiny_run / "model.npz", config=SchnauzConfig(num_players=4, **RULES))
    assert policy.meta["table_sizes"] == [3, 4] and policy.meta["iteration"] == 2
    assert policy.meta["rules"]["knock_in_first_circle"] is False
    obs, masks = observations(100, seed=2)
    batch = {
        Columns.OBS: {"observation": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}
    }
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    np.testing.assert_array_equal(policy.act_batch(obs, masks), logits.argmax(axis=1))
    (row,) = read_csv(tiny_run / "eval.csv")
    assert row["iteration"] == "2"
    assert (
        0.0
        <= float(row["win_greedy_lo"])
        <= float(row["win_greedy"])
        <= float(row["win_greedy_hi"])
    )
    assert (tiny_run / "learning_curve.png").stat().st_size > 0


def test_exported_model_plays_in_the_harness_and_by_name(tiny_run):
    from policies import make_policy
    from policies.evaluation import evaluate

    path = str(tiny_run / "model.npz")
    config = SchnauzConfig(num_players=3, **RULES)
    assert make_policy(path, game="schnauz", config=config).name == "model"
    result = evaluate(
        [path, "greedy", "random"], players=3, games=6, workers=1, seed=3, options=RULES
    )
    assert result.stats(path).seat_games == 6


def test_a_run_resumes_from_its_checkpoint(tiny_run, tmp_path):
    from training.rllib_train import Args, train

    args = Args(
        iterations=1,
        table_sizes=(3, 4),
        opponents=("random", "greedy"),
        rules=("knock_in_first_circle=false",),
        num_env_runners=0,
        train_batch_size=256,
        batch_size=128,
        n_epochs=1,
        net_arch=(32, 32),
        checkpoint_every=0,
        eval_every=0,
        eval_games=4,
        eval_opponents=("random",),
        run_dir=str(tmp_path),
        run_name="resumed",
        resume=str(tiny_run / "checkpoints" / "iter_2"),
    )
    out = train(args)
    (row,) = read_csv(out / "progress.csv")
    before = read_csv(tiny_run / "progress.csv")[-1]
    assert row["iteration"] == "3"
    assert int(row["env_steps"]) >= int(before["env_steps"]) + 256
    assert (out / "checkpoints" / "iter_3").is_dir()

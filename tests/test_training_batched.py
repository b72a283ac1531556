"""Training on the batched VecEnv: the opponent pool seated in batched games, the feature
and reward wrappers, and a tiny real run that resumes from saved teacher data and a
checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from policies.mlp import load_model_policy, read_model
from policies.pool import OpponentPool
from schnauz_env.schnauz import SchnauzConfig
from schnauz_env.schnauz.features import MoveFeatures
from schnauz_env.vector import SchnauzVecEnv
from schnauz_env.wrappers.vec_env import FeatureVecEnv
from training.rewards import (
    LivesRewardVecEnv,
    WinChanceRewardVecEnv,
    WinRewardVecEnv,
    fair_win_chance,
)

CONFIG = SchnauzConfig(num_players=4)


def random_steps(venv, steps: int, seed: int = 0, reset: bool = True):
    """Random legal learner moves (after a reset unless the caller did it): yields
    (obs, rewards, dones, infos) per step."""
    rng = np.random.default_rng(seed)
    if reset:
        venv.reset()
    for _ in range(steps):
        masks = venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        yield venv.step(actions)


def mix_of(opponents, num_games, weights=None, **kwargs) -> OpponentPool:
    """An opponent pool seated in ``num_games`` batched games."""
    kwargs.setdefault("seed", 0)
    return OpponentPool(opponents, weights, config=CONFIG, num_games=num_games, **kwargs)


def test_the_mix_seats_opponents_in_proportion_to_their_weights():
    mix = mix_of(["random", "greedy", "expert"], 40, weights=[1, 1, 2], seed=3)
    assert np.bincount(mix.assignment, minlength=3).tolist() == [10, 10, 20]
    mix.set_pool(["random", "greedy"], [3, 1])
    assert np.bincount(mix.assignment, minlength=2).tolist() == [30, 10]
    with pytest.raises(ValueError, match="empty"):
        mix.set_pool([])
    with pytest.raises(ValueError, match="positive sum"):
        mix.set_pool(["random"], [-1.0])
    with pytest.raises(ValueError, match="one number >= 0 per opponent"):
        mix.set_pool(["random", "greedy"], [1.0])
    with pytest.raises(ValueError, match="unknown schnauz policy 'nobody'"):
        mix.set_pool(["nobody"])


@pytest.mark.parametrize("name", ["greedy", "expert"])
def test_worker_processes_play_the_same_moves_as_this_process(name: str):
    # expert samples: its moves are reseeded per game and call, so the same games unfold
    # whether it runs here or in workers (and greedy is deterministic anyway).
    runs = []
    for workers in (0, 2, 0):
        mix = mix_of([name], 6, seed=0, workers=workers, parallel=(name,))
        venv = SchnauzVecEnv(num_envs=6, config=CONFIG, opponent=mix, seed=5)
        runs.append([o.copy() for o, *_ in random_steps(venv, 25)])
        mix.close()
    for other in runs[1:]:
        assert all(np.array_equal(a, b) for a, b in zip(runs[0], other, strict=True))


def test_each_game_faces_its_assigned_opponent():
    seen: dict[int, set[int]] = {}

    class Spy:
        per_game = True

        def __call__(self, obs, masks, games):
            for g in games:
                seen.setdefault(int(g), set()).add(int(mix.assignment[g]))
            return mix(obs, masks, games)

    mix = mix_of(["random", "greedy"], 8, seed=1)
    venv = SchnauzVecEnv(num_envs=8, config=CONFIG, opponent=Spy(), seed=2)
    for _ in random_steps(venv, 30):
        pass
    assert sorted(seen) == list(range(8)) and all(len(v) == 1 for v in seen.values())


def test_the_mix_gives_per_game_policies_their_game_indices():
    # expert-jit keeps its turn counters per game: the mix must say which game a row is.
    calls = []
    mix = mix_of(["random", "greedy"], 8, seed=1)
    policy = mix.policies[0]
    plain = policy.act_batch

    def per_game(obs, masks, games):
        calls.append(np.asarray(games).copy())
        return plain(obs, masks)

    per_game.per_game = True
    policy.act_batch = per_game
    venv = SchnauzVecEnv(num_envs=8, config=CONFIG, opponent=mix, seed=2)
    for _ in random_steps(venv, 20):
        pass
    assert calls and all((mix.assignment[g] == 0).all() for g in calls)


def test_policy_objects_and_callables_join_the_mix_and_a_seed_fixes_the_run():
    from policies import make_policy

    snapshot = make_policy("greedy", config=CONFIG, seed=0)  # e.g. a loaded self-play model

    def first_legal(obs, mask):
        return int(np.flatnonzero(mask)[0])

    runs = []
    for _ in range(2):
        mix = mix_of(["expert", snapshot, first_legal], 9, seed=4)
        venv = SchnauzVecEnv(num_envs=9, config=CONFIG, opponent=mix, seed=3)
        runs.append([o.copy() for o, *_ in random_steps(venv, 25)])
        assert sorted(np.bincount(mix.assignment).tolist()) == [3, 3, 3]
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))
    with pytest.raises(ValueError, match="rules config and an int seed"):
        OpponentPool(["greedy"], num_games=4)


def test_the_old_opponent_mix_is_the_pool_with_a_warning():
    import importlib

    with pytest.warns(DeprecationWarning, match="training.opponents is deprecated"):
        from training import opponents

        importlib.reload(opponents)
    with pytest.warns(DeprecationWarning, match="policies.pool.OpponentPool"):
        old = opponents.OpponentMix(["random", "greedy", "expert"], CONFIG, 12, [1, 1, 2], seed=3)
    new = mix_of(["random", "greedy", "expert"], 12, [1, 1, 2], seed=3)
    assert np.array_equal(old.assignment, new.assignment)
    assert opponents.LivesRewardVecEnv is LivesRewardVecEnv
    assert opponents.FeatureVecEnv is FeatureVecEnv


def test_win_reward_pays_only_the_winner_at_the_end():
    venv = WinRewardVecEnv(SchnauzVecEnv(num_envs=16, config=CONFIG, opponent="greedy", seed=4), 4)
    ends = 0
    for _, rewards, dones, infos in random_steps(venv, 300):
        assert not rewards[~dones].any()
        for i in np.flatnonzero(dones):
            want = 1.0 if infos[i]["place"] == 1 else -1.0 / 3
            assert rewards[i] == pytest.approx(want)
            ends += 1
    assert ends > 10


def test_lives_reward_charges_every_life_the_learner_loses_after_its_first_move():
    venv = LivesRewardVecEnv(
        SchnauzVecEnv(num_envs=16, config=CONFIG, opponent="random", seed=5), CONFIG
    )
    full = CONFIG.lives + 1
    start = venv.units(venv.reset())
    total = np.zeros(16)
    outs = wins = 0
    for obs, rewards, dones, infos in random_steps(venv, 600, seed=0, reset=False):
        # -1 a lost round, more if later rounds also end before its next move
        assert (rewards <= 0).all() and (rewards == np.round(rewards)).all()
        total += rewards
        for i in np.flatnonzero(dones):
            end = venv.units(infos[i]["terminal_observation"])
            # charged = lost after the first move = what is gone minus what went before it
            assert total[i] == -(start[i] - end)
            if infos[i]["place"] == 1:
                wins += 1
                assert end >= 1
            else:
                outs += 1
                assert end == 0 and total[i] == -start[i] and start[i] <= full
            total[i] = 0.0
            start[i] = venv.units(obs[i])
    assert outs > 20 and wins > 5


def test_fair_win_chance_is_a_fair_share_and_a_martingale():
    # equals win a fair share; two players with one unit each: a coin flip
    for n in range(2, 7):
        assert fair_win_chance(4, (4,) * (n - 1)) == pytest.approx(1 / n)
    assert fair_win_chance(1, (1,)) == pytest.approx(0.5)
    assert fair_win_chance(2, (1,)) == pytest.approx(0.75)
    assert fair_win_chance(0, (3, 3)) == 0.0 and fair_win_chance(2, ()) == 1.0
    # more units never hurt; the chances of all players add up to 1
    units = (3, 1, 4, 2)
    total = sum(
        fair_win_chance(u, tuple(sorted(units[:i] + units[i + 1 :]))) for i, u in enumerate(units)
    )
    assert total == pytest.approx(1.0)
    assert fair_win_chance(3, (2, 4)) > fair_win_chance(2, (2, 4)) > fair_win_chance(2, (3, 4))


@pytest.mark.parametrize("game", ["schnauz", "scat"])
def test_win_chance_reward_adds_up_to_the_win_from_the_first_move(game):
    from schnauz_env.games import game_module
    from schnauz_env.vector import vec_env_class

    config = game_module(game).Config(num_players=4)
    seats = game_module(game).config.MAX_PLAYERS
    venv = WinChanceRewardVecEnv(
        vec_env_class(game)(num_envs=16, config=config, opponent="random", seed=7),
        config,
        scale=3.0,
        game=game,
    )
    obs = venv.reset()
    start = venv.potential(obs)
    assert ((start > 0) & (start < 1)).all()
    total = np.zeros(16)
    ends = wins = 0
    for obs, rewards, dones, infos in random_steps(venv, 600, seed=1, reset=False):
        total += rewards
        # over a game the shaped rewards add up to the win, less the chance at the start
        for i in np.flatnonzero(dones):
            won = infos[i]["place"] == 1
            assert total[i] == pytest.approx(3.0 * (float(won) - start[i]), abs=1e-5)
            ends += 1
            wins += won
            total[i] = 0.0
            start[i] = venv.potential(obs[i])
    assert ends > 20 and 0 < wins < ends
    assert venv.all_units(obs).shape == (16, seats)
    assert np.array_equal(venv.all_units(obs)[:, 0], venv.units(obs))


def test_feature_wrapper_appends_the_features_everywhere():
    feats = MoveFeatures(CONFIG)
    inner = SchnauzVecEnv(num_envs=4, config=CONFIG, opponent="random", seed=6)
    venv = FeatureVecEnv(inner, feats)
    assert venv.observation_space.shape == (436 + feats.size,)
    terminal = 0
    for obs, _, dones, infos in random_steps(venv, 80):
        assert np.array_equal(obs[:, :436], inner._obs)
        assert np.array_equal(obs, feats(obs[:, :436]))
        for i in np.flatnonzero(dones):
            t = infos[i]["terminal_observation"]
            assert t.shape == (436 + feats.size,) and np.array_equal(t, feats(t[:436]))
            terminal += 1
    assert terminal > 0
    assert np.array_equal(venv.action_masks(), inner.action_masks())


@pytest.fixture(scope="module")
def teacher_data(tmp_path_factory) -> Path:
    from training.pretrain import collect

    path = tmp_path_factory.mktemp("teacher") / "pretrain_data.npz"
    np.savez_compressed(path, **collect("greedy", "schnauz", CONFIG, games=3, seed=0, workers=1))
    return path


def tiny_run(run_dir: Path, **change) -> dict:
    """Settings of a tiny batched run at a table of four (``change`` wins)."""
    settings = dict(
        vec_env="batched",
        table_sizes=(4,),
        num_envs=8,
        n_steps=32,
        batch_size=128,
        n_epochs=1,
        total_steps=512,
        eval_every=0,
        eval_games=4,
        eval_opponents=("greedy",),
        run_dir=str(run_dir),
        progress_bar=False,
    )
    return {**settings, **change}


@pytest.fixture(scope="module")
def batched_run(teacher_data: Path, tmp_path_factory) -> Path:
    from training.train import Args, train

    out = tmp_path_factory.mktemp("runs")
    first = train(
        Args(
            **tiny_run(out, n_steps=64, batch_size=256, total_steps=1024),
            opponents=("random", "greedy", "expert"),
            opponent_weights=(1, 1, 2),
            opponent_workers=1,
            reward="win",
            self_play_every=512,
            pretrain_data=(str(teacher_data),),
            pretrain_epochs=1,
            run_name="first",
        )
    )
    return train(
        Args(
            **tiny_run(out, n_steps=64, batch_size=256),
            opponents=("greedy",),
            init_model=str(first / "model.zip"),
            reward="win-chance",
            run_name="resumed",
        )
    )


def test_a_tiny_batched_run_resumes_and_exports_a_featured_model(batched_run: Path):
    first = batched_run.parent / "first"
    assert json.loads((first / "args.json").read_text())["reward"] == "win"
    assert json.loads((batched_run / "args.json").read_text())["reward"] == "win-chance"
    assert list((first / "snapshots").glob("*.npz")), "self-play snapshots joined the mix"
    for run in (first, batched_run):
        _, meta = read_model(run / "model.npz")
        assert meta["features"] == MoveFeatures.name and meta["table_sizes"] == [4]
        policy = load_model_policy(run / "model.npz", config=CONFIG)
        venv = SchnauzVecEnv(num_envs=4, config=CONFIG, opponent="greedy", seed=0)
        obs = venv.reset()
        for _ in range(30):
            acts = policy.act_batch(obs, venv.action_masks())
            assert venv.action_masks()[np.arange(4), acts].all()
            obs, *_ = venv.step(acts)
    # The resumed run started from the first one's weights, then trained on.
    w_first, _ = read_model(first / "model.npz")
    w_resumed, _ = read_model(batched_run / "model.npz")
    assert not np.array_equal(w_first[0][0], w_resumed[0][0])
    assert np.abs(w_first[0][0] - w_resumed[0][0]).mean() < np.abs(w_first[0][0]).mean()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"reward": "win"}, "--reward win needs --vec-env batched"),
        ({"vec_env": "batched", "table_sizes": (3, 4)}, "one table size"),
        ({"pretrain_data": ("/nonexistent.npz",)}, "is not teacher data"),
        (
            {"game": "thirteen", "reward": "win-chance"},
            "--reward win-chance is for the games played for lives",
        ),
    ],
)
def test_bad_settings_are_refused_before_training(change, message, tmp_path):
    from training.train import Args, train

    args = Args(total_steps=64, num_envs=1, run_dir=str(tmp_path), progress_bar=False, **change)
    with pytest.raises(ValueError, match=message):
        train(args)


def test_teacher_data_command_is_reproducible_and_checks_its_input(tmp_path, capsys):
    from training.pretrain import main

    for name in ("a", "b"):
        main(["--teacher", "greedy", "--games", "3", "--seed", "2", "--workers", "2",
              "--out", str(tmp_path / f"{name}.npz")])  # fmt: skip
    with np.load(tmp_path / "a.npz") as a, np.load(tmp_path / "b.npz") as b:
        assert a["obs"].shape[1] == 436 and len(a["actions"]) > 50
        for key in ("obs", "masks", "actions", "returns"):
            assert np.array_equal(a[key], b[key])
    for argv, message in (
        (["--teacher", "nobody"], "unknown schnauz policy"),
        (["--rules", "deck=A8"], "allowed decks"),
    ):
        with pytest.raises(SystemExit) as exit_:
            main([*argv, "--games", "1", "--out", str(tmp_path / "x.npz")])
        assert exit_.value.code == 2  # a usage error: one line naming what is wrong
        assert message in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()


def test_chained_learning_curve(tmp_path, capsys):
    from training.curve import combine, main

    for name, rows in (("a", [(0, 0.2), (100, 0.25), (200, 0.3)]), ("b", [(50, 0.35), (150, 0.4)])):
        (tmp_path / name).mkdir()
        lines = ["step,win_expert,win_expert_lo,win_expert_hi"]
        lines += [f"{s},{w},{w - 0.05},{w + 0.05}" for s, w in rows]
        (tmp_path / name / "eval.csv").write_text("\n".join(lines) + "\n")
    rows = combine([(tmp_path / "a", 0), (tmp_path / "b", 100)])
    # b started from a's step-100 checkpoint: a's later row (200) gives way to b's.
    assert [(int(r["step"]), float(r["win_expert"])) for r in rows] == [
        (0, 0.2), (100, 0.25), (150, 0.35), (250, 0.4)
    ]  # fmt: skip
    # b started from a's step-50 checkpoint but evaluated first at 200: a's rows after 50
    # are not on the chain even where b has no row yet.
    rows = combine([(tmp_path / "a", 0), (tmp_path / "b", 50)])
    assert [int(r["step"]) for r in rows] == [0, 100, 200]
    assert [float(r["win_expert"]) for r in rows] == [0.2, 0.35, 0.4]
    main([str(tmp_path / "a"), f"{tmp_path / 'b'}@100", "--out", str(tmp_path / "c.png")])
    assert (tmp_path / "c.png").stat().st_size > 1000 and (tmp_path / "c.csv").is_file()
    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path / "nothing"), "--out", str(tmp_path / "d.png")])
    assert exit_.value.code == 2 and "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([f"{tmp_path / 'a'}@ten", "--out", str(tmp_path / "d.png")])


def test_a_tiny_run_against_expert_jit_with_expert_features_and_the_lives_reward(tmp_path):
    from training.train import Args, train

    run = train(
        Args(
            **tiny_run(
                tmp_path,
                opponents=("expert-jit",),
                reward="lives",
                features="schnauz-expert-v1",
                learning_rate=2e-4,
                lr_schedule="linear",
                eval_opponents=("expert-jit",),
                run_name="lives",
            )
        )
    )
    _, meta = read_model(run / "model.npz")
    assert meta["features"] == "schnauz-expert-v1"
    from sb3_contrib import MaskablePPO

    schedule = MaskablePPO.load(run / "model.zip").lr_schedule  # decays to 0 at the end
    assert schedule(1.0) == pytest.approx(2e-4) and schedule(0.25) == pytest.approx(5e-5)
    policy = load_model_policy(run / "model.npz", "schnauz", CONFIG)
    from policies import make_policy

    expert_jit = make_policy("expert-jit", game="schnauz", config=CONFIG, seed=1)
    venv = SchnauzVecEnv(num_envs=4, config=CONFIG, opponent=expert_jit.act_batch, seed=1)
    obs = venv.reset()
    for _ in range(20):
        masks = venv.action_masks()
        actions = policy.act_batch(obs, masks.astype(np.int8))
        assert masks[np.arange(4), actions].all()
        obs, *_ = venv.step(actions)


def shipped_start(tmp_path: Path, **change) -> dict:
    """Settings of a tiny 5-player run from the shipped 4-player model file's actor."""
    from policies.mlp import models_dir

    settings = tiny_run(
        tmp_path,
        table_sizes=(5,),
        n_epochs=2,
        opponents=("greedy",),
        features="schnauz-expert-v1",
        net_arch=(256, 256),
        init_model=str(models_dir() / "schnauz4_a7.npz"),
        eval_table_size=5,
    )
    return {**settings, **change}


def test_a_run_starts_from_a_model_files_actor_with_a_fresh_critic(tmp_path):
    from training.train import Args, train

    start, _ = read_model(shipped_start(tmp_path)["init_model"])
    # The warm-up covers both updates: the policy does not move.
    frozen = train(Args(**shipped_start(tmp_path, critic_warmup=512, run_name="frozen")))
    kept, meta = read_model(frozen / "model.npz")
    assert meta["table_sizes"] == [5]
    assert len(kept) == len(start)
    for (w0, b0), (w1, b1) in zip(start, kept, strict=True):
        assert np.array_equal(w0, w1) and np.array_equal(b0, b1)
    # Past the warm-up the policy trains on from the file's weights.
    tuned = train(Args(**shipped_start(tmp_path, critic_warmup=256, run_name="tuned")))
    moved, _ = read_model(tuned / "model.npz")
    assert not np.array_equal(start[0][0], moved[0][0])
    assert np.abs(start[0][0] - moved[0][0]).mean() < 0.01 * np.abs(start[0][0]).mean()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"features": "auto"},
            "reads the features 'schnauz-expert-v1'.*--features schnauz-expert-v1",
        ),
        ({"net_arch": (128, 128)}, r"hidden layers \[256, 256\].*--net-arch 256 256"),
        ({"game": "scat", "features": "scat-expert-v1"}, "trained for 'schnauz', not 'scat'"),
        ({"rules": ("deck=A9",)}, "trained under other rules"),
        ({"init_model": "/nonexistent/model.npz"}, "does not exist"),
    ],
)
def test_a_model_file_that_does_not_fit_the_run_is_refused_before_it(change, message, tmp_path):
    from training.train import Args, train

    with pytest.raises(ValueError, match=message):
        train(Args(**shipped_start(tmp_path, **change)))
    assert not list(tmp_path.iterdir()), "no run folder was made"


def test_quick_eval_reports_a_checkpoint_and_refuses_bad_input(tmp_path, capsys):
    from policies.mlp import shipped_model
    from training.quick_eval import main

    main([str(shipped_model("schnauz", CONFIG)), "--games", "24", "--opponent", "random"])
    line = capsys.readouterr().out
    assert "win 1.000" in line or "win 0.9" in line  # the shipped model against random
    with pytest.raises(SystemExit):
        main([str(tmp_path / "missing.npz")])
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(SystemExit) as exit_:
        main([str(bad), "--games", "4"])
    assert exit_.value.code == 2 and "error" in capsys.readouterr().err

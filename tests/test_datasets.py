"""Offline-RL datasets: every seat's decisions from self-play or records (npz), the
single-agent view as a Minari dataset, and behaviour cloning's reader."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import schnauz_env  # noqa: F401  (registers the Gymnasium ids)
from policies.evaluation import evaluate
from schnauz_env.common.places import place_value
from schnauz_env.games import GAMES, env_module
from schnauz_env.records import RecordError, RecordingEnv, read_records
from schnauz_env.wrappers.registration import GYM_IDS, gym_id
from training.datasets import (
    DECISION_ARRAYS,
    build_dataset,
    dataset_meta,
    episodes,
    load_dataset,
    main,
    records_in,
    save_dataset,
    selfplay_records,
)

MIXED = ["random", "greedy", "expert"]


@pytest.fixture(scope="module", params=GAMES)
def played(request):
    game = request.param
    records = selfplay_records(MIXED, game, players=3, games=2, seed=4, workers=1)
    return game, records, build_dataset(records)


def test_every_decision_of_every_seat(played):
    game, records, data = played
    meta = dataset_meta(data)
    n_rows = sum(len(r.actions) for r in records)
    assert meta["game"] == game and meta["decisions"] == n_rows == len(data["actions"])
    assert meta["games"] == len(records) == len(data["seeds"])
    assert set(meta["policies"]) == set(MIXED)
    for key in DECISION_ARRAYS:
        assert len(data[key]) == n_rows
    assert data["obs"].shape[1] == meta["obs_size"]
    assert data["masks"][np.arange(n_rows), data["actions"]].all()  # every action legal
    for g, record in enumerate(records):
        rows = data["games"] == g
        assert [tuple(x) for x in zip(data["seats"][rows], data["actions"][rows], strict=True)] == [
            tuple(a) for a in record.actions
        ]
        n = record.num_players
        assert data["places"][g, :n].tolist() == record.outcome.places
        for s in range(n):
            mine = rows & (data["seats"] == s)
            if not mine.any():
                continue
            # Each seat's rewards add up to its return, which is its place's value.
            assert data["rewards"][mine].sum() == pytest.approx(
                data["game_returns"][g, s], abs=1e-5
            )
            assert data["game_returns"][g, s] == pytest.approx(
                place_value(record.outcome.places[s], n)
            )
            assert (data["returns"][mine] == data["game_returns"][g, s]).all()
            assert data["dones"][mine].sum() == 1 and data["dones"][np.flatnonzero(mine)[-1]]


def test_rewards_are_paid_as_the_single_agent_view_pays_them():
    """Between two decisions of a seat, its reward is what the env paid it meanwhile
    (the first decision also gets what was paid before it): checked on a game played
    here through the AEC env, step by step."""
    for game in GAMES:
        raw = env_module(game).raw_env(num_players=4)
        env = RecordingEnv(raw, game, ["random"] * 4)
        env.reset(seed=12)
        rng = np.random.default_rng(12)
        expected: dict[int, list[float]] = {s: [] for s in range(4)}
        pending = [0.0] * 4
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            s = env.agent_name_mapping[agent]
            if expected[s]:
                expected[s][-1] += pending[s]
                pending[s] = 0.0
            expected[s].append(pending[s])
            pending[s] = 0.0
            env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
            for a, r in env.rewards.items():
                pending[env.agent_name_mapping[a]] += r
        data = build_dataset([env.record()])
        for s in range(4):
            got = data["rewards"][data["seats"] == s]
            want = expected[s]
            if want:
                want[-1] += pending[s]
            assert got == pytest.approx(np.array(want, dtype=np.float32), abs=1e-6)


def test_from_a_folder_of_records_and_saved_as_npz(tmp_path):
    evaluate(MIXED, game="scat", players=3, games=3, workers=1, seed=1, record=tmp_path / "eval")
    (tmp_path / "eval" / "results.json").write_text("{}")  # not a record: skipped
    records = read_records(tmp_path / "eval" / "records.jsonl")
    data = build_dataset(records_in([tmp_path / "eval"]))
    assert dataset_meta(data)["decisions"] == sum(len(r.actions) for r in records)
    path = save_dataset(tmp_path / "data.npz", data)
    again = load_dataset(path)
    assert set(again) == set(data)
    for k in data:
        np.testing.assert_array_equal(again[k], data[k])
    with pytest.raises(FileExistsError):
        save_dataset(path, data)
    # Behaviour cloning reads the file as teacher data.
    from training.pretrain import load_data

    teacher = load_data([str(path)], obs_size=data["obs"].shape[1])
    np.testing.assert_array_equal(teacher["actions"], data["actions"])


def test_refuses_mixed_games_rules_and_unfinished_games():
    a = selfplay_records(["random"], "schnauz", players=3, games=1, seed=1, workers=1)
    b = selfplay_records(["random"], "thirteen", players=3, games=1, seed=1, workers=1)
    c = selfplay_records(
        ["random"], "schnauz", players=3, games=1, seed=1, workers=1, rules={"lives": 2}
    )
    with pytest.raises(RecordError, match="game of thirteen"):
        build_dataset(a + b)
    with pytest.raises(RecordError, match="other rules: lives=2"):
        build_dataset(a + c)
    raw = env_module("schnauz").raw_env(num_players=3)
    env = RecordingEnv(raw, "schnauz", ["random"] * 3)
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    with pytest.raises(RecordError, match="did not finish"):
        build_dataset([env.record()])
    with pytest.raises(ValueError, match="no records"):
        build_dataset([])


def test_the_single_agent_episodes(played):
    game, records, data = played
    eps = list(episodes(data))
    with_moves = {(int(g), int(s)) for g, s in zip(data["games"], data["seats"], strict=True)}
    assert len(eps) == len(with_moves)
    for ep in eps:
        t = len(ep["actions"])
        assert ep["observations"].shape == (t + 1, data["obs"].shape[1])
        assert ep["infos"]["action_mask"].shape == (t + 1, data["masks"].shape[1])
        assert not ep["infos"]["action_mask"][-1].any()  # the final observation: no move
        assert ep["infos"]["action_mask"][np.arange(t), ep["actions"]].all()
        assert ep["terminations"][-1] and not ep["terminations"][:-1].any()


def test_gymnasium_ids_make_the_single_agent_view():
    for env_id, game in GYM_IDS.items():
        assert gym_id(game) == env_id
        env = gymnasium.make(env_id, opponents=["random", "greedy"], table_sizes=[3])
        obs, info = env.reset(seed=0)
        assert obs.shape == env.observation_space.shape
        mask = env.unwrapped.action_masks()
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
        assert info["table_size"] == 3
        env.close()


# ------------------------------------------------------------------ Minari


def test_minari_dataset_loads_and_recovers_its_env(played, tmp_path, monkeypatch):
    minari = pytest.importorskip("minari")
    from training.datasets import load_minari, to_minari

    game, records, data = played
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    dataset_id = f"schnauz_env/{game}/mixed-v0"
    to_minari(data, dataset_id)
    loaded = minari.load_dataset(dataset_id)
    eps = list(episodes(data))
    assert loaded.total_episodes == len(eps)
    assert loaded.total_steps == len(data["actions"])
    for ep, mine in zip(loaded.iterate_episodes(), eps, strict=True):
        np.testing.assert_array_equal(ep.observations, mine["observations"])
        np.testing.assert_array_equal(ep.actions, mine["actions"])
        np.testing.assert_array_equal(ep.infos["action_mask"], mine["infos"]["action_mask"])
        np.testing.assert_allclose(ep.rewards, mine["rewards"])
    env = loaded.recover_environment()
    assert env.spec.id == gym_id(game)
    assert env.spec.kwargs["opponents"] == list(dataset_meta(data)["policies"])
    obs, _ = env.reset(seed=1)
    assert obs.shape == data["obs"].shape[1:]
    # Behaviour cloning's view: the same decisions, grouped by seat.
    bc = load_minari(dataset_id)
    order = np.lexsort((np.arange(len(data["actions"])), data["seats"], data["games"]))
    np.testing.assert_array_equal(bc["obs"], data["obs"][order])
    np.testing.assert_array_equal(bc["masks"], data["masks"][order])
    np.testing.assert_array_equal(bc["actions"], data["actions"][order])
    np.testing.assert_allclose(bc["returns"], data["returns"][order], atol=1e-6)
    # ... and training.pretrain reads a Minari id as teacher data.
    from training.pretrain import load_data

    teacher = load_data([dataset_id], obs_size=data["obs"].shape[1])
    for k in bc:
        np.testing.assert_array_equal(teacher[k], bc[k])
    with pytest.raises(ValueError, match="neither teacher data"):
        load_data(["schnauz_env/schnauz/missing-v0"], obs_size=data["obs"].shape[1])


def test_command_line(tmp_path, capsys):
    pytest.importorskip("minari")
    out = tmp_path / "d.npz"
    main([
        "--policies", "random", "--game", "thirteen", "--games", "3", "--workers", "1",
        "--out", str(out), "--save-records", str(tmp_path / "games.jsonl"),
        "--minari-id", "schnauz_env/thirteen/random-v0", "--minari-root", str(tmp_path / "m"),
    ])  # fmt: skip
    text = capsys.readouterr().out
    assert "of 3 games" in text and "Minari dataset schnauz_env/thirteen/random-v0" in text
    assert len(read_records(tmp_path / "games.jsonl")) == 3
    main(["--records", str(tmp_path / "games.jsonl"), "--out", str(tmp_path / "again.npz")])
    np.testing.assert_array_equal(
        load_dataset(out)["obs"], load_dataset(tmp_path / "again.npz")["obs"]
    )
    with pytest.raises(SystemExit) as stop:  # refused before any work, one line, code 2
        main(["--records", str(tmp_path / "games.jsonl"), "--out", str(out)])
    assert stop.value.code == 2 and "exists" in capsys.readouterr().err

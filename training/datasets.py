"""Offline-RL datasets of games, from any policies' self-play or from a folder of records.

Every game goes through its record (:mod:`schnauz_env.records`): self-play is played by
the evaluation harness with recording on, and every record is replayed through the
game's AEC env (so a dataset built from records is checked move by move). Two views of
the same games (``docs/records.md`` documents every array):

* **multi-agent** (:func:`build_dataset`, saved as ``.npz``): every seat's decisions in
  play order, with the seat's observation, action mask, action, reward and return,
  the seat and the game, plus each seat's final observation and each game's outcome.
  Its ``obs``, ``masks``, ``actions`` and ``returns`` are the teacher data of
  behaviour cloning (``training.pretrain.load_data`` reads the file as it is);
* **single-agent** (:func:`to_minari`): one Minari episode per seat and game, as the
  Gymnasium view (``gymnasium.make("schnauz_env/Schnauz-v0")``) would have given it:
  observations, actions, rewards, ``infos["action_mask"]``; the dataset stores that
  env's id and settings (``recover_environment()`` rebuilds it). Needs
  ``pip install "schnauz_env[datasets]"`` (Minari).

Command line::

    python -m training.datasets --policies expert --games 1000 --seed 0 \\
        --out runs/data/schnauz_expert.npz --minari-id schnauz_env/schnauz/expert-v0
    python -m training.datasets --records runs/eval400 --out runs/data/eval400.npz
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from policies.evaluation.runner import RecordOptions, play_tasks, seat_identity
from policies.evaluation.schedule import make_schedule, make_tasks
from policies.registry import available_policies, make_policy
from schnauz_env.common.options import make_config, parse_rules
from schnauz_env.games import game_module
from schnauz_env.records import (
    Record,
    RecordError,
    Replay,
    atomic_write,
    iter_folder,
    write_records,
)
from schnauz_env.wrappers.registration import gym_id
from training.args import fail, parse_args

#: The ``format`` of a multi-agent dataset's ``meta``.
FORMAT = "schnauz_env-dataset"
VERSION = 1
#: The arrays of a multi-agent dataset, per decision (rows in play order).
DECISION_ARRAYS = ("obs", "masks", "actions", "rewards", "returns", "seats", "games", "dones")
#: Per seat and game (its episode's last observation) and per game.
FINAL_ARRAYS = ("final_obs", "final_games", "final_seats")
GAME_ARRAYS = ("num_players", "places", "game_returns", "seeds")
#: Who a Minari dataset names as its author, and how it is told to install what its env needs.
AUTHOR = "schnauz_env developers"
REQUIREMENTS = ["schnauz_env[datasets]"]


# ------------------------------------------------------------------ self-play


def selfplay_records(
    policies: Sequence[str],
    game: str = "schnauz",
    players: int = 4,
    games: int = 1000,
    seed: int = 0,
    rules: dict[str, Any] | None = None,
    workers: int | None = None,
    progress: bool = False,
) -> list[Record]:
    """Play ``games`` games of ``policies`` (names or model files) and return their
    records, in schedule order.

    The policies are seated as ``schnauz-eval`` seats them (one policy fills the table;
    as many as seats sit in order; otherwise every pair plays ``games`` games), on a
    fresh deal per game drawn from ``seed``; ``workers`` processes (default: every core)
    give the same records as one."""
    config = make_config(game_module(game).Config, {"num_players": players, **(rules or {})}, game)
    labels = list(dict.fromkeys(policies))
    for name in labels:
        make_policy(name, game=game, config=config, seed=0)  # fail early on a bad name
    tables = make_schedule(list(policies), players, games, "auto", duplicate=False)
    tasks = make_tasks(tables, duplicate=False, seed=seed)
    recording = RecordOptions(
        seats={label: seat_identity(label, game, config) for label in labels},
        views=True,
        meta={"source": "training.datasets", "run_seed": seed},
    )
    played = play_tasks(
        tasks, game, config, {label: label for label in labels}, workers or os.cpu_count() or 1,
        progress, recording,
    )  # fmt: skip
    played.sort(key=lambda r: (r.table, r.deal, r.rotation))
    return [Record.from_dict(json.loads(r.record)) for r in played if r.record is not None]


# ------------------------------------------------------------------ multi-agent arrays


def build_dataset(records: Iterable[Record]) -> dict[str, np.ndarray]:
    """The multi-agent dataset of ``records`` (see the module docstring and
    ``docs/records.md``): every record is replayed through the env and checked.

    All records must be of one game under one set of rules; the table size may vary
    when the observation size does not. A game that did not finish is refused."""
    cols: dict[str, list[Any]] = {k: [] for k in DECISION_ARRAYS + FINAL_ARRAYS + GAME_ARRAYS}
    first: Record | None = None
    policies: dict[str, None] = {}
    sources: dict[str, None] = {}
    for g, record in enumerate(records):
        if first is None:
            first = record
        _check_same_rules(first, record, g)
        if not record.finished:
            raise RecordError(f"record {g} is a game that did not finish")
        _add_game(cols, record, g)
        policies.update(dict.fromkeys(s.policy for s in record.seats))
        sources.update({str(record.meta.get("source", "")): None})
    if first is None:
        raise ValueError("no records: a dataset needs at least one game")
    gm = game_module(first.game)
    size = gm.ObservationEncoder(first.config()).size
    width = max(cols["num_players"])
    data = {
        "obs": np.asarray(cols["obs"], dtype=np.float32).reshape(-1, size),
        "masks": np.asarray(cols["masks"], dtype=bool).reshape(-1, gm.NUM_ACTIONS),
        "actions": np.asarray(cols["actions"], dtype=np.int64),
        "rewards": np.asarray(cols["rewards"], dtype=np.float32),
        "returns": np.asarray(cols["returns"], dtype=np.float32),
        "seats": np.asarray(cols["seats"], dtype=np.int8),
        "games": np.asarray(cols["games"], dtype=np.int32),
        "dones": np.asarray(cols["dones"], dtype=bool),
        "final_obs": np.asarray(cols["final_obs"], dtype=np.float32).reshape(-1, size),
        "final_games": np.asarray(cols["final_games"], dtype=np.int32),
        "final_seats": np.asarray(cols["final_seats"], dtype=np.int8),
        "num_players": np.asarray(cols["num_players"], dtype=np.int8),
        "places": _padded(cols["places"], width),
        "game_returns": _padded(cols["game_returns"], width),
        "seeds": np.asarray(cols["seeds"], dtype=np.int64),
    }
    rules = {k: v for k, v in first.rules.items() if k != "num_players"}
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "game": first.game,
        "rules": rules,
        "table_sizes": sorted({int(n) for n in cols["num_players"]}),
        "policies": list(policies),
        "sources": [s for s in sources if s],
        "obs_size": size,
        "num_actions": gm.NUM_ACTIONS,
        "games": len(cols["seeds"]),
        "decisions": len(cols["actions"]),
    }
    data["meta"] = np.array(json.dumps(meta))
    return data


def _check_same_rules(first: Record, record: Record, g: int) -> None:
    if record.game != first.game:
        raise RecordError(f"record {g} is a game of {record.game}, record 0 of {first.game}")
    a = {k: v for k, v in first.rules.items() if k != "num_players"}
    b = {k: v for k, v in record.rules.items() if k != "num_players"}
    if a != b:
        diff = ", ".join(
            f"{k}={b.get(k)!r} (record 0: {a.get(k)!r})" for k in a if a[k] != b.get(k)
        )
        raise RecordError(f"record {g} was played under other rules: {diff}")


def _add_game(cols: dict[str, list[Any]], record: Record, g: int) -> None:
    """Replay one record and append its decisions, final observations and outcome."""
    walk = Replay(record)
    env = walk.env
    n = record.num_players
    names = env.possible_agents
    pending = [0.0] * n  # paid to each seat since its last decision (or the deal)
    last_row = [-1] * n
    final: list[np.ndarray | None] = [None] * n
    rows_before = len(cols["actions"])
    for step in walk:
        for s in range(n):
            pending[s] += step.paid[s]
            if final[s] is None and names[s] not in env.agents:
                final[s] = env.observe(names[s])["observation"]  # its episode just ended
        s = step.seat
        if last_row[s] >= 0:
            cols["rewards"][last_row[s]] = pending[s]
            pending[s] = 0.0
        view = env.observe(names[s])
        cols["obs"].append(view["observation"])
        cols["masks"].append(view["action_mask"])
        cols["actions"].append(step.action)
        cols["rewards"].append(0.0)
        cols["seats"].append(s)
        cols["games"].append(g)
        cols["dones"].append(False)
        last_row[s] = len(cols["actions"]) - 1
    result = walk.result()
    for s in range(n):
        pending[s] += walk.paid[s]
        if last_row[s] >= 0:
            cols["rewards"][last_row[s]] = pending[s]
            cols["dones"][last_row[s]] = True
        if final[s] is None:
            final[s] = env.observe(names[s])["observation"]
        cols["final_obs"].append(final[s])
        cols["final_games"].append(g)
        cols["final_seats"].append(s)
    seats = cols["seats"]
    cols["returns"].extend(result.returns[seats[i]] for i in range(rows_before, len(seats)))
    cols["num_players"].append(n)
    cols["places"].append([np.nan if p is None else p for p in result.places])
    cols["game_returns"].append(result.returns)
    cols["seeds"].append(record.seed)


def _padded(rows: list[list[float]], width: int) -> np.ndarray:
    out = np.full((len(rows), width), np.nan, dtype=np.float32)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out


def dataset_meta(data: dict[str, np.ndarray]) -> dict[str, Any]:
    """The ``meta`` of a multi-agent dataset, checked; ``ValueError`` for anything else."""
    try:
        meta = json.loads(str(data["meta"]))
    except (KeyError, ValueError):
        raise ValueError("not a schnauz_env dataset (no meta)") from None
    if meta.get("format") != FORMAT:
        raise ValueError(f"not a schnauz_env dataset: format {meta.get('format')!r}")
    if meta.get("version") != VERSION:
        raise ValueError(
            f"dataset format version {meta.get('version')!r}: this package reads version {VERSION}"
        )
    return meta


def save_dataset(
    path: str | os.PathLike, data: dict[str, np.ndarray], overwrite: bool = False
) -> Path:
    """Write a multi-agent dataset as a compressed ``.npz`` (atomically; an existing file
    is replaced only with ``overwrite``)."""
    dataset_meta(data)
    return atomic_write(path, lambda f: np.savez_compressed(f, **data), overwrite, binary=True)


def load_dataset(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """A multi-agent dataset saved by :func:`save_dataset` (its format checked)."""
    with np.load(path, allow_pickle=False) as f:
        data = {k: f[k] for k in f.files}
    try:
        dataset_meta(data)
    except ValueError as err:
        raise ValueError(f"{os.fspath(path)}: {err}") from None
    return data


def records_in(paths: Sequence[str | os.PathLike]) -> Iterator[Record]:
    """The records of record files and folders (see :func:`schnauz_env.records.iter_folder`)."""
    for path in paths:
        yield from iter_folder(path)


# ------------------------------------------------------------------ Minari


def _minari() -> Any:
    try:
        import minari
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            'Minari datasets need Minari: pip install "schnauz_env[datasets]"'
        ) from None
    return minari


@contextlib.contextmanager
def minari_root(root: str | os.PathLike | None) -> Iterator[None]:
    """Minari's datasets folder set to ``root`` inside the block (``None``: as it is,
    ``$MINARI_DATASETS_PATH`` or ``~/.minari/datasets``)."""
    if root is None:
        yield
        return
    old = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = os.fspath(root)
    try:
        yield
    finally:
        if old is None:
            del os.environ["MINARI_DATASETS_PATH"]
        else:
            os.environ["MINARI_DATASETS_PATH"] = old


def env_spec(meta: dict[str, Any], opponents: Sequence[str] | None = None) -> Any:
    """The Gymnasium spec of the single-agent view a dataset's games were played in:
    the game's registered id with its rules, table sizes and ``opponents`` (default:
    the policies that played, when they are all registered names)."""
    import gymnasium

    game = meta["game"]
    if opponents is None:
        known = set(available_policies(game))
        unknown = [p for p in meta["policies"] if p.partition(":")[0] not in known]
        if unknown:
            raise ValueError(
                f"the env's opponents cannot be model files ({', '.join(unknown)}): "
                "name registered policies as opponents"
            )
        opponents = meta["policies"]
    spec = gymnasium.spec(gym_id(game))
    kwargs = {
        **spec.kwargs,
        "game": game,
        "rules": dict(meta["rules"]),
        "table_sizes": list(meta["table_sizes"]),
        "opponents": list(opponents),
    }
    return replace(spec, kwargs=kwargs)


def episodes(data: dict[str, np.ndarray]) -> Iterator[dict[str, Any]]:
    """The single-agent episodes of a multi-agent dataset: one per seat and game with at
    least one decision, in game then seat order, as Minari stores them (``T+1``
    observations and ``infos``, ``T`` actions, rewards, terminations, truncations)."""
    order = np.lexsort((np.arange(len(data["actions"])), data["seats"], data["games"]))
    keys = data["games"][order].astype(np.int64) * 256 + data["seats"][order]
    cuts = np.flatnonzero(np.diff(keys)) + 1
    final = {
        (int(g), int(s)): i
        for i, (g, s) in enumerate(zip(data["final_games"], data["final_seats"], strict=True))
    }
    for rows in np.split(order, cuts):
        if rows.size == 0:
            continue
        g, s = int(data["games"][rows[0]]), int(data["seats"][rows[0]])
        n = int(data["num_players"][g])
        t = rows.size
        obs = np.concatenate([data["obs"][rows], data["final_obs"][final[g, s]][None]])
        masks = np.concatenate([data["masks"][rows], np.zeros((1, data["masks"].shape[1]), bool)])
        terminations = np.zeros(t, dtype=bool)
        terminations[-1] = True
        yield {
            "observations": obs,
            "actions": data["actions"][rows],
            "rewards": data["rewards"][rows].astype(np.float64),
            "terminations": terminations,
            "truncations": np.zeros(t, dtype=bool),
            "infos": {
                "action_mask": masks.astype(np.int8),
                "seat": np.full(t + 1, s, dtype=np.int64),
                "table_size": np.full(t + 1, n, dtype=np.int64),
            },
            "options": {"num_players": n, "seat": s},
        }


def to_minari(
    data: dict[str, np.ndarray],
    dataset_id: str,
    opponents: Sequence[str] | None = None,
    root: str | os.PathLike | None = None,
    description: str | None = None,
) -> Any:
    """Export the single-agent view of a multi-agent dataset as the Minari dataset
    ``dataset_id`` (e.g. ``"schnauz_env/schnauz/expert-v0"``) under ``root``; returns
    the ``MinariDataset``. ``minari.load_dataset(dataset_id)`` reads it back (with
    ``MINARI_DATASETS_PATH`` set to ``root``)."""
    minari = _minari()
    from minari.data_collector import EpisodeBuffer

    meta = dataset_meta(data)
    spec = env_spec(meta, opponents)
    buffers = []
    for k, ep in enumerate(episodes(data)):
        buffers.append(
            EpisodeBuffer(
                id=k,
                options=ep["options"],
                observations=ep["observations"],
                actions=ep["actions"],
                rewards=ep["rewards"],
                terminations=ep["terminations"],
                truncations=ep["truncations"],
                infos=ep["infos"],
            )
        )
    text = description or (
        f"{meta['games']} games of {meta['game']} ({', '.join(meta['policies'])}) at table "
        f"sizes {meta['table_sizes']}: one episode per seat and game, the single-agent view "
        f"of schnauz_env; infos['action_mask'] holds the legal actions."
    )
    with minari_root(root), warnings.catch_warnings():
        # Minari asks for a code link and an e-mail address; a local dataset has neither.
        warnings.filterwarnings("ignore", "`(code_permalink|author_email)` is set to None")
        return minari.create_dataset_from_buffers(
            dataset_id=dataset_id,
            buffer=buffers,
            env=spec,
            eval_env=spec,
            algorithm_name=f"self-play of {', '.join(meta['policies'])}",
            author=AUTHOR,
            description=text,
            requirements=REQUIREMENTS,
            data_format="hdf5",
        )


def load_minari(dataset: Any, root: str | os.PathLike | None = None) -> dict[str, np.ndarray]:
    """Behaviour-cloning data from a Minari dataset (an id or a ``MinariDataset``): the
    decisions' ``obs``, ``masks`` (from ``infos["action_mask"]``), ``actions`` and
    ``returns`` (each episode's return at every decision), as ``training.pretrain``
    takes them."""
    if isinstance(dataset, (str, os.PathLike)):
        with minari_root(root):
            dataset = _minari().load_dataset(os.fspath(dataset))
    obs, masks, actions, returns = [], [], [], []
    for ep in dataset.iterate_episodes():
        if "action_mask" not in ep.infos:
            raise ValueError("the Minari dataset has no infos['action_mask']")
        obs.append(np.asarray(ep.observations[:-1], dtype=np.float32))
        masks.append(np.asarray(ep.infos["action_mask"][:-1], dtype=bool))
        actions.append(np.asarray(ep.actions, dtype=np.int64))
        returns.append(np.full(len(ep.actions), float(np.sum(ep.rewards)), dtype=np.float32))
    if not obs:
        raise ValueError("the Minari dataset holds no episodes")
    return {
        "obs": np.concatenate(obs),
        "masks": np.concatenate(masks),
        "actions": np.concatenate(actions),
        "returns": np.concatenate(returns),
    }


# ------------------------------------------------------------------ command line


@dataclass
class Args:
    """Build an offline-RL dataset: self-play of policies, or a folder of records."""

    out: str = ""
    """write the multi-agent dataset here (.npz)"""
    policies: tuple[str, ...] = ("expert",)
    """policies that play (names or model files), seated as schnauz-eval seats them"""
    records: tuple[str, ...] = ()
    """build from these record files or folders instead of playing"""
    game: Literal["schnauz", "scat", "thirteen"] = "schnauz"
    """the game (self-play)"""
    players: int = 4
    """table size (self-play)"""
    rules: tuple[str, ...] = ()
    """rule options as key=value (self-play)"""
    games: int = 1000
    """games to play (per pairing when the policies are neither one nor one per seat)"""
    seed: int = 0
    """seed of the deals and the policies"""
    workers: int | None = None
    """processes for self-play (default: every core)"""
    save_records: str = ""
    """also write the self-play games' records here (.jsonl)"""
    minari_id: str = ""
    """also export the single-agent view as this Minari dataset (schnauz_env/schnauz/expert-v0)"""
    minari_root: str = ""
    """Minari's datasets folder (default: $MINARI_DATASETS_PATH or ~/.minari/datasets)"""
    opponents: tuple[str, ...] = ()
    """the Minari env's opponents (default: the policies that played)"""
    overwrite: bool = False
    """replace an existing --out file"""


def main(argv: list[str] | None = None) -> None:
    """Command line (see the module docstring)."""
    prog = "python -m training.datasets"
    args = parse_args(Args, argv, Args.__doc__ or "", prog)
    if not args.out and not args.minari_id:
        fail(prog, "give --out FILE.npz and/or --minari-id ID")
    # Before any game is played: an existing file would throw the games away at the end.
    if args.out and Path(args.out).exists() and not args.overwrite:
        fail(prog, f"--out {args.out} exists; choose another name (or --overwrite)")
    if args.save_records and Path(args.save_records).exists():
        fail(prog, f"--save-records {args.save_records} exists; choose another name")
    start = time.time()
    try:
        if args.records:
            records: Iterable[Record] = records_in(args.records)
            what = f"records in {', '.join(args.records)}"
        else:
            if args.games < 1 or (args.workers is not None and args.workers < 1):
                raise ValueError("--games and --workers must be >= 1")
            rules = parse_rules(game_module(args.game).Config, args.rules)
            records = selfplay_records(
                args.policies, args.game, args.players, args.games, args.seed, rules,
                args.workers, progress=True,
            )  # fmt: skip
            what = f"{len(records)} games of {' '.join(args.policies)}"
            if args.save_records:
                print(f"wrote {write_records(args.save_records, records)}")
        data = build_dataset(records)
        meta = dataset_meta(data)
        if args.out:
            path = save_dataset(args.out, data, overwrite=args.overwrite)
            print(f"{meta['decisions']} decisions of {meta['games']} games ({what}) -> {path}")
        if args.minari_id:
            to_minari(data, args.minari_id, args.opponents or None, args.minari_root or None)
            print(f"Minari dataset {args.minari_id} ({len(list(episodes(data)))} episodes)")
    except (ValueError, FileExistsError, ModuleNotFoundError) as err:
        fail(prog, str(err))
    print(f"done in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()

"""Settings shared by the SB3 (``train.py``) and RLlib (``rllib_train.py``) trainers, and
the one way every training script reads its command line.

Each trainer's ``Args`` dataclass extends :class:`TableArgs` (the game, the rules, the
table, the opponent pool, the evaluations, the run directory) and :class:`PPOArgs` (the
PPO settings both trainers have), so both command lines name and document these the
same way, with SB3's names (``--learning-rate``, ``--batch-size``, ``--n-epochs``,
``--gae-lambda``, ``--ent-coef``, ``--clip-range``). A numeric setting's range is written
in its type (``Annotated[int, Range(1)]``) and checked by :func:`check_ranges`.
:func:`parse_args` reads a command line with tyro, :func:`run_command` checks and runs a
trainer's settings; :func:`rule_options` reads ``--rules key=value ...`` with the one rules
parser of every command (:func:`schnauz_env.common.options.parse_rules`).
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple, NoReturn, TypeVar, get_type_hints

from schnauz_env.common.options import parse_rules
from schnauz_env.games import game_module

T = TypeVar("T")

#: The low end of a float setting that must be positive: ``Range(POSITIVE)`` (its error
#: says "must be > 0").
POSITIVE = 1e-300


class Range(NamedTuple):
    """The range of a numeric setting, both ends inclusive (``None``: no bound), written in
    the setting's type: ``batch_size: Annotated[int, Range(1)] = 512``. A tuple setting's
    every item is checked; ``None``, where the type allows it, is not."""

    low: float | None = None
    high: float | None = None


@dataclass
class TableArgs:
    game: Literal["schnauz", "scat", "thirteen"] = "schnauz"
    """the game to train"""
    rules: tuple[str, ...] = ()
    """rule options as key=value (e.g. deck=A9 lives=2 knock_in_first_circle=false); the
    table size comes from --table-sizes"""
    table_sizes: Annotated[tuple[int, ...], Range(2)] = (4,)
    """table sizes to sample per episode"""
    opponents: tuple[str, ...] = ("random", "greedy", "expert")
    """the opponent pool: policy names or model files"""
    opponent_weights: Annotated[tuple[float, ...], Range(0.0)] = ()
    """sampling weight per opponent (default: uniform)"""
    self_play_keep: Annotated[int, Range(1)] = 3
    """keep at most this many self-play snapshots in the pool (oldest dropped)"""
    seed: Annotated[int, Range(0)] = 0
    """seed of the environments, the opponents, torch and the evaluation deals"""
    eval_games: Annotated[int, Range(1)] = 200
    """duplicate games per baseline at each evaluation"""
    eval_opponents: tuple[str, ...] = ("random", "greedy", "expert")
    """baselines to evaluate against (the learner against copies of each)"""
    eval_table_size: Annotated[int, Range(2)] = 4
    """table size of the evaluations"""
    run_dir: str = "runs"
    """parent directory of the run"""
    run_name: str = ""
    """run directory name (default: from the settings)"""


@dataclass
class PPOArgs:
    learning_rate: Annotated[float, Range(POSITIVE)] = 3e-4
    """Adam learning rate"""
    batch_size: Annotated[int, Range(1)] = 512
    """PPO minibatch size"""
    n_epochs: Annotated[int, Range(1)] = 5
    """PPO epochs over each batch of experience"""
    gamma: Annotated[float, Range(0.0, 1.0)] = 0.997
    """discount factor"""
    gae_lambda: Annotated[float, Range(0.0, 1.0)] = 0.95
    """GAE lambda"""
    ent_coef: Annotated[float, Range(0.0)] = 0.01
    """entropy bonus"""
    clip_range: Annotated[float, Range(POSITIVE)] = 0.2
    """PPO clip range (smaller keeps a cloned start from being unlearnt)"""
    net_arch: Annotated[tuple[int, ...], Range(1)] = (128, 128)
    """hidden layers of the policy and value networks"""


#: Tuple settings that may not be empty.
NOT_EMPTY = ("table_sizes", "opponents", "net_arch")


def flag(name: str) -> str:
    """The command-line flag of the settings field ``name`` (``batch_size`` -> ``--batch-size``)."""
    return "--" + name.replace("_", "-")


def ranges(cls: type) -> dict[str, Range]:
    """The :class:`Range` of each setting of the settings dataclass ``cls`` that has one,
    read from the settings' types, in field order."""
    hints = get_type_hints(cls, include_extras=True)
    out = {}
    for f in fields(cls):
        found = [m for m in getattr(hints[f.name], "__metadata__", ()) if isinstance(m, Range)]
        if found:
            out[f.name] = found[0]
    return out


def check_ranges(args: Any) -> None:
    """``ValueError`` naming the flag of an empty tuple setting of ``args`` in
    :data:`NOT_EMPTY`, or of the first setting outside its :class:`Range`."""
    names = {f.name for f in fields(args)}
    for name in NOT_EMPTY:
        if name in names and not getattr(args, name):
            raise ValueError(f"{flag(name)} needs at least one value")
    for name, (low, high) in ranges(type(args)).items():
        value = getattr(args, name)
        for v in value if isinstance(value, tuple) else (value,):
            if v is None:
                continue
            if v != v or (low is not None and v < low) or (high is not None and v > high):
                if low == POSITIVE:
                    want = "must be > 0"
                elif high is None:
                    want = f"must be at least {low}"
                elif low is None:
                    want = f"must be at most {high}"
                else:
                    want = f"must be in [{low}, {high}]"
                raise ValueError(f"{flag(name)} {want}, got {v}")


def check_table_args(args: TableArgs) -> None:
    """Every setting's range (:func:`check_ranges`, the trainer's own settings too) and
    how the shared settings fit together; ``ValueError`` naming the flag. The rules and
    opponents are checked when the first environment is built."""
    check_ranges(args)
    if args.opponent_weights and len(args.opponent_weights) != len(args.opponents):
        raise ValueError(
            f"--opponent-weights gives {len(args.opponent_weights)} weights for "
            f"{len(args.opponents)} opponents"
        )
    if args.opponent_weights and sum(args.opponent_weights) <= 0:
        raise ValueError("--opponent-weights must not all be 0")
    name = args.run_name
    if name and (name in (".", "..") or "/" in name or "\\" in name):
        raise ValueError(f"--run-name must be a plain folder name, got {name!r}")
    parent = Path(args.run_dir)
    if parent.exists() and not parent.is_dir():
        raise ValueError(f"--run-dir {parent} is a file, not a folder")
    resuming = bool(getattr(args, "resume", ""))  # a trainer's --resume: its own run
    if name and not resuming and (parent / name).exists() and any((parent / name).iterdir()):
        raise ValueError(
            f"run {parent / name} exists: a run is never overwritten; choose another --run-name"
        )


def new_run_dir(run_dir: str | Path, name: str) -> Path:
    """Make the run directory ``run_dir/name`` and return it; ``ValueError`` (one line,
    naming the flag) if ``run_dir`` is a file or cannot be made, or if the run exists
    and holds files: a run is never overwritten (its ``eval.csv`` history, checkpoints
    and ``args.json`` would be lost). An empty folder of that name is taken."""
    parent = Path(run_dir)
    if parent.exists() and not parent.is_dir():
        raise ValueError(f"--run-dir {parent} is a file, not a folder")
    out = parent / name
    try:
        parent.mkdir(parents=True, exist_ok=True)
        out.mkdir()
    except FileExistsError:
        if not out.is_dir():
            raise ValueError(f"{out} exists and is a file; choose another --run-name") from None
        held = sum(1 for _ in out.iterdir())
        if held:
            raise ValueError(
                f"run {out} exists ({held} entries): a run is never overwritten; choose another "
                "--run-name (to continue it, start a new run with --init-model from its "
                "checkpoints)"
            ) from None
    except OSError as err:
        raise ValueError(f"cannot make the run directory {out}: {err.strerror}") from None
    return out


def fail(prog: str, message: str) -> NoReturn:
    """A one-line error on stderr and exit code 2 (argparse's code for bad arguments)."""
    print(f"{prog}: error: {' '.join(str(message).split())}", file=sys.stderr)
    raise SystemExit(2)


def rule_options(args: TableArgs) -> dict[str, Any]:
    """``args.rules`` as typed rule options of ``args.game`` (``ValueError`` if invalid)."""
    return parse_rules(game_module(args.game).Config, args.rules)


def default_run_name(args: TableArgs, prefix: str = "") -> str:
    """``args.run_name``, else a name from the game, table sizes, opponents, seed and time."""
    return args.run_name or (
        f"{prefix}{args.game}_n{'-'.join(map(str, args.table_sizes))}_"
        f"{'-'.join(Path(o).stem for o in args.opponents)}_s{args.seed}_{int(time.time())}"
    )


def rename_flags(argv: Sequence[str], renamed: Mapping[str, str], prog: str) -> list[str]:
    """``argv`` with every old flag in ``renamed`` (``"--lr"`` -> ``"--learning-rate"``;
    underscores or hyphens, with or without ``=value``) spelled the new way, each with a
    ``DeprecationWarning``."""
    out = []
    for item in argv:
        flag, eq, value = item.partition("=")
        new = renamed.get(flag.replace("_", "-").rstrip("-")) if flag.startswith("--") else None
        if new is not None:
            warnings.warn(
                f"{prog} {flag} is deprecated; use {new}", DeprecationWarning, stacklevel=3
            )
            item = new + eq + value
        out.append(item)
    return out


def parse_args(
    cls: type[T],
    argv: Sequence[str] | None,
    description: str,
    prog: str,
    renamed: Mapping[str, str] | None = None,
    default: T | None = None,
) -> T:
    """Read ``cls`` (a settings dataclass) from ``argv`` (default ``sys.argv[1:]``) with
    tyro; deprecated flags in ``renamed`` are accepted with a warning. ``default``: the
    settings flags not given take (else the dataclass defaults)."""
    import tyro

    argv = list(sys.argv[1:] if argv is None else argv)
    if renamed:
        argv = rename_flags(argv, renamed, prog)
    shown = io.StringIO()
    try:
        with contextlib.redirect_stderr(shown):
            return tyro.cli(cls, args=argv, prog=prog, description=description, default=default)
    except SystemExit as stop:
        if stop.code in (0, None):
            raise
        fail(prog, _one_line(shown.getvalue()) or f"bad arguments: {' '.join(argv)}")


def flag_value(argv: Sequence[str], flag: str) -> str | None:
    """The value given to ``flag`` in ``argv`` (``--flag value`` or ``--flag=value``; the
    last one wins, as in the parser), else ``None``: for settings that choose the
    defaults of the others, read before the whole command line is parsed."""
    value = None
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith(flag + "="):
            value = arg.split("=", 1)[1]
    return value


def _one_line(box: str) -> str:
    """The message of tyro's error box, as one line: the first block of text between its
    rules, after the box's title. tyro draws the box in Unicode, in ASCII or, on some
    streams, as a title line and dashed rules only."""
    blocks: list[list[str]] = [[]]
    for line in box.splitlines():
        text = line.strip().strip("│╭╮╰╯|+").strip()
        if re.match(r"[─\-]+ \S", text):  # a boxed title: "─ Value error ───"
            continue
        if re.fullmatch(r"[─\-\s]*", text):  # a rule (or an empty line) ends a block
            if blocks[-1]:
                blocks.append([])
            continue
        blocks[-1].append(text)
    blocks = [b for b in blocks if b]
    if len(blocks) > 1 and len(blocks[0]) == 1 and ":" not in blocks[0][0]:
        blocks = blocks[1:]  # an unboxed title: "Value error"
    return " ".join(blocks[0]) if blocks else ""


def run_command(prog: str, args: T, run: Callable[[T], Any]) -> None:
    """A trainer's command, once :func:`parse_args` has read its settings ``args``: check
    them (:func:`check_table_args`), then ``run(args)``; a bad setting ends it with a
    one-line error (exit code 2)."""
    try:
        check_table_args(args)  # type: ignore[arg-type]
        run(args)
    except ValueError as err:
        fail(prog, str(err))

"""Settings shared by the SB3 (``train.py``) and RLlib (``rllib_train.py``) trainers, and
the one way every training script reads its command line.

Each trainer's ``Args`` dataclass extends :class:`TableArgs` (the game, the rules, the
table, the opponent pool, the evaluations, the run directory) and :class:`PPOArgs` (the
PPO settings both trainers have), so both command lines name and document these the
same way, with SB3's names (``--learning-rate``, ``--batch-size``, ``--n-epochs``,
``--gae-lambda``, ``--ent-coef``, ``--clip-range``). :func:`parse_args` reads a command
line with tyro; :func:`rule_options` reads ``--rules key=value ...`` with the one rules
parser of every command (:func:`schnauz_env.common.options.parse_rules`).
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from schnauz_env.common.options import parse_rules
from schnauz_env.games import game_module

T = TypeVar("T")


@dataclass
class TableArgs:
    game: Literal["schnauz", "scat", "thirteen"] = "schnauz"
    """the game to train"""
    rules: tuple[str, ...] = ()
    """rule options as key=value (e.g. deck=A9 lives=2 knock_in_first_circle=false); the
    table size comes from --table-sizes"""
    table_sizes: tuple[int, ...] = (4,)
    """table sizes to sample per episode"""
    opponents: tuple[str, ...] = ("random", "greedy", "expert")
    """the opponent pool: policy names or model files"""
    opponent_weights: tuple[float, ...] = ()
    """sampling weight per opponent (default: uniform)"""
    self_play_keep: int = 3
    """keep at most this many self-play snapshots in the pool (oldest dropped)"""
    seed: int = 0
    """seed of the environments, the opponents, torch and the evaluation deals"""
    eval_games: int = 200
    """duplicate games per baseline at each evaluation"""
    eval_opponents: tuple[str, ...] = ("random", "greedy", "expert")
    """baselines to evaluate against (the learner against copies of each)"""
    eval_table_size: int = 4
    """table size of the evaluations"""
    run_dir: str = "runs"
    """parent directory of the run"""
    run_name: str = ""
    """run directory name (default: from the settings)"""


@dataclass
class PPOArgs:
    learning_rate: float = 3e-4
    """Adam learning rate"""
    batch_size: int = 512
    """PPO minibatch size"""
    n_epochs: int = 5
    """PPO epochs over each batch of experience"""
    gamma: float = 0.997
    """discount factor"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    ent_coef: float = 0.01
    """entropy bonus"""
    clip_range: float = 0.2
    """PPO clip range (smaller keeps a cloned start from being unlearnt)"""
    net_arch: tuple[int, ...] = (128, 128)
    """hidden layers of the policy and value networks"""


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
) -> T:
    """Read ``cls`` (a settings dataclass) from ``argv`` (default ``sys.argv[1:]``) with
    tyro; deprecated flags in ``renamed`` are accepted with a warning."""
    import tyro

    argv = list(sys.argv[1:] if argv is None else argv)
    if renamed:
        argv = rename_flags(argv, renamed, prog)
    return tyro.cli(cls, args=argv, prog=prog, description=description)

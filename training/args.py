"""Settings shared by the SB3 (``train.py``) and RLlib (``rllib_train.py``) trainers.

Each trainer's ``Args`` dataclass extends :class:`TableArgs` (the game, the table, the
opponent pool, the evaluations, the run directory), so both command lines name and
document these the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal


@dataclass
class TableArgs:
    game: Literal["schnauz", "scat", "thirteen"] = "schnauz"
    """the game to train"""
    rules: tuple[str, ...] = ()
    """rule options as key=value (e.g. deck=A9 lives=2 ties=share); the table size comes from --table-sizes"""
    table_sizes: tuple[int, ...] = (4,)
    """table sizes to sample per episode"""
    opponents: tuple[str, ...] = ("random", "greedy", "expert")
    """the opponent pool: policy names or model files"""
    opponent_weights: tuple[float, ...] = ()
    """sampling weight per opponent (default: uniform)"""
    self_play_keep: int = 3
    """keep at most this many self-play snapshots in the pool (oldest dropped)"""
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


def default_run_name(args: TableArgs, prefix: str = "", seed: int = 0) -> str:
    """``args.run_name``, else a name from the game, table sizes, opponents, seed and time."""
    return args.run_name or (
        f"{prefix}{args.game}_n{'-'.join(map(str, args.table_sizes))}_"
        f"{'-'.join(Path(o).stem for o in args.opponents)}_s{seed}_{int(time.time())}"
    )

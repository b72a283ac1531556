"""What the benches of the compiled Scat and Thirteen experts share
(``bench/scat_expert_jit_speed.py``, ``bench/thirteen_expert_jit_speed.py``): the states
to decide, the timer, their command line, and the two short training runs of ``--train N``
(:class:`Training`). A bench script imports it from its own folder (``python
bench/<name>.py``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from training.datasets import build_dataset, selfplay_records

#: Runs training.train with the Python feature rows (what the feature set computed before
#: the compiled kernel), the command line's arguments passed on; formatted with the
#: feature set's ``module`` (in :mod:`policies`) and ``cls``.
PYTHON_FEATURES = """
import runpy, sys
import policies.base, policies.{module}
policies.{module}.{cls}.rows = policies.base.RowFeatures.rows
sys.argv = ["training.train", *sys.argv[1:]]
runpy.run_module("training.train", run_name="__main__", alter_sys=True)
"""


def game_states(game: str, config: Any, games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The observations and masks of every decision of ``games`` games of ``game``'s
    experts (its compiled copy plays the same moves, faster)."""
    records = selfplay_records(
        ["expert-jit"], game=game, players=config.num_players, games=games, seed=seed, workers=1
    )
    data = build_dataset(records)
    return data["obs"], data["masks"].astype(np.int8)


def per_item(fn: Callable[[], Any], items: int) -> float:
    """Microseconds per item of one call of ``fn``."""
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) / items * 1e6


def arguments(doc: str, games: int) -> argparse.Namespace:
    """The command line of a bench (``doc`` its module docstring; ``games`` the default
    of ``--games``)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--games", type=int, default=games, help="games of experts to decide again")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train", type=int, default=0, help="steps of each training run (0: none)")
    return ap.parse_args()


def steady_rate(run: Path) -> float:
    """Env-steps per second of a run's PPO loop after its first rollout (from SB3's
    cumulative ``time/fps``)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (events,) = run.glob("tb/**/events.*")
    acc = EventAccumulator(str(events))
    acc.Reload()
    points = [(e.step, e.step / e.value) for e in acc.Scalars("time/fps")]
    (s0, t0), (s1, t1) = points[0], points[-1]
    return (s1 - s0) / (t1 - t0)


class Training:
    """The ``--train N`` runs of one game: ``python -m training.train --game <game>
    --preset strong`` for ``N`` steps twice, without cloning and with a 4-game final
    evaluation: against ``expert`` opponents with the Python features (the old path),
    and against ``expert-jit`` opponents with the compiled features. Each rate is the
    env-steps per second of the run's PPO loop after its first rollout (read off SB3's
    ``time/fps``, so start-up and compilation do not count).

    ``features`` is the feature set's name, computed in Python by ``cls`` of
    ``policies.<module>`` with its rows put back to ``RowFeatures.rows``; ``extra``
    gives more arguments of ``training.train`` (from the opponents' name)."""

    def __init__(
        self,
        game: str,
        features: str,
        module: str,
        cls: str,
        extra: Callable[[str], Sequence[str]] = lambda opponents: (),
    ) -> None:
        self.game, self.features, self.extra = game, features, extra
        self.python_features = PYTHON_FEATURES.format(module=module, cls=cls)

    def rate(self, steps: int, opponents: str, python_features: bool, run_dir: Path) -> float:
        """The steady env-steps/s of a short ``--preset strong`` run of the game."""
        name = f"{opponents}-{'py' if python_features else 'jit'}"
        args = [
            "--game", self.game, "--preset", "strong", "--opponents", opponents,
            "--features", self.features, "--total-steps", str(steps),
            "--pretrain-teacher", "", "--eval-every", "0", "--eval-games", "4",
            "--select-games", "0", "--last-stage", "1",
            *self.extra(opponents), "--run-dir", str(run_dir), "--run-name", name,
        ]  # fmt: skip
        head = ["-c", self.python_features] if python_features else ["-m", "training.train"]
        subprocess.run([sys.executable, *head, *args], check=True, stdout=subprocess.DEVNULL)
        staged = run_dir / name / "stage_1"  # a preset of stages: its first
        return steady_rate(staged if staged.is_dir() else run_dir / name)

    def report(self, steps: int) -> None:
        """With ``steps`` (``--train``), run the old path and the compiled one and print
        their rates in one line; without, nothing."""
        if not steps:
            return
        with tempfile.TemporaryDirectory() as tmp:
            old = self.rate(steps, "expert", True, Path(tmp))
            new = self.rate(steps, "expert-jit", False, Path(tmp))
        print(
            f"training  expert + python features {old:7.0f} env-steps/s   "
            f"expert-jit + compiled features {new:7.0f} env-steps/s   {new / old:5.1f}x"
        )

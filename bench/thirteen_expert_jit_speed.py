"""The compiled Thirteen expert against the Python one, side by side in one run.

    python bench/thirteen_expert_jit_speed.py                    # moves and feature rows
    python bench/thirteen_expert_jit_speed.py --train 20000      # and two short training runs

The states are the decisions met in seeded games between experts (those with a single
legal action included, as a training run meets them). Both players then decide every
state: ``expert`` one ``act`` call per state, ``expert-jit`` one ``act_batch`` call per
batch; the ``thirteen-expert-v1`` features of the same states are computed row by row in
Python (the reference, ``RowFeatures.rows``) and by the compiled kernel, a batch a call.
Both experts keep what they learn about hands (the reference's ``lru_cache`` of
``decompose``, the kernels' partition cache), so each side is timed twice: from an
empty cache ("cold") and again on the same states ("warm", as in a long run). The
compiled side runs once before it is timed (the first run compiles the kernels and
caches them), on other states.

``--train N`` also runs ``python -m training.train --game thirteen --preset strong`` for
``N`` steps twice, the old path (``expert`` opponents, Python features) and the compiled
one (``expert-jit``, compiled features): ``expert_jit_common.Training`` says how.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from expert_jit_common import Training, arguments, game_states, per_item

from policies import thirteen_expert_jit
from policies.base import RowFeatures
from policies.thirteen import ExpertPolicy, decompose
from policies.thirteen_expert_jit import ThirteenExpertJitPolicy
from policies.thirteen_features import ThirteenExpertFeatures
from schnauz_env.thirteen import ThirteenConfig

TRAINING = Training(
    "thirteen",
    "thirteen-expert-v1",
    "thirteen_features",
    "ThirteenExpertFeatures",
    extra=lambda opponents: ("--eval-opponents", opponents),
)


def forget() -> None:
    """Empty both experts' caches of solved hands."""
    decompose.cache_clear()
    thirteen_expert_jit.partition_cache()[0][:] = -1


def main() -> None:
    args = arguments(__doc__, games=40)
    config = ThirteenConfig(num_players=args.players)
    obs, masks = game_states("thirteen", config, args.games, args.seed)
    n, b = len(obs), args.batch
    batches = range(0, n, b)

    jit = ThirteenExpertJitPolicy(config)
    warm_obs, warm_masks = game_states("thirteen", config, 2, args.seed + 1)
    jit.act_batch(warm_obs, warm_masks)  # compiles once
    feats = ThirteenExpertFeatures(config)
    feats.features(warm_obs)
    out = np.zeros((n, feats.size), dtype=np.float32)
    seeds = np.zeros(n, dtype=np.int64)

    expert = ExpertPolicy(config)
    python_moves = lambda: [expert.act(o, m) for o, m in zip(obs, masks, strict=True)]  # noqa: E731
    jit_moves = lambda: [jit.act_batch(obs[i : i + b], masks[i : i + b]) for i in batches]  # noqa: E731
    python_rows = lambda: RowFeatures.rows(feats, obs, seeds, out)  # noqa: E731
    jit_rows = lambda: [feats.features(obs[i : i + b]) for i in batches]  # noqa: E731
    choice = masks.sum(axis=1) > 1  # the states with a decision to make
    co, cm = obs[choice], masks[choice]
    nc = len(co)
    python_choices = lambda: [expert.act(o, m) for o, m in zip(co, cm, strict=True)]  # noqa: E731
    jit_choices = lambda: [jit.act_batch(co[i : i + b], cm[i : i + b]) for i in range(0, nc, b)]  # noqa: E731
    rates = {}
    for what, python, compiled, items in (
        ("moves", python_moves, jit_moves, n),
        ("choices", python_choices, jit_choices, nc),
        ("rows", python_rows, jit_rows, n),
    ):
        forget()
        cold = per_item(python, items), per_item(compiled, items)
        warm = per_item(python, items), per_item(compiled, items)
        rates[what] = cold, warm

    print(f"{n} states ({nc} with more than one legal action), {args.players} players, batch {b}")
    for what, label, left, right in (
        ("moves", "moves    ", "expert", "expert-jit"),
        ("choices", "choices  ", "expert", "expert-jit"),
        ("rows", "features ", "python", "compiled  "),
    ):
        for name, (py, jt) in zip(("cold", "warm"), rates[what], strict=True):
            print(
                f"{label} {name}  {left} {1e6 / py:9.0f}/s ({py:7.1f} us)   {right} "
                f"{1e6 / jt:9.0f}/s ({jt:6.1f} us)   {py / jt:5.1f}x"
            )
    TRAINING.report(args.train)


if __name__ == "__main__":
    main()

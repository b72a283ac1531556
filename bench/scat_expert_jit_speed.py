"""The compiled Scat expert against the Python one, side by side in one run.

    python bench/scat_expert_jit_speed.py                    # moves and feature rows
    python bench/scat_expert_jit_speed.py --train 20000      # and two short training runs

The states are the decisions met in seeded games between experts. Both players then decide every state: ``expert`` one ``act`` call
per state, ``expert-jit`` one ``act_batch`` call per batch; the ``scat-expert-v1``
features of the same states are computed row by row in Python (the reference,
``RowFeatures.rows``) and by the compiled kernel, a batch a call. The compiled side
runs once before it is timed (the first run compiles the kernels and caches them).

``--train N`` also runs ``python -m training.train --game scat --preset strong`` for
``N`` steps twice, the old path (``expert`` opponents, Python features) and the compiled
one (``expert-jit``, compiled features): ``expert_jit_common.Training`` says how.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from expert_jit_common import Training, arguments, game_states, per_item

from policies.base import RowFeatures
from policies.scat import ExpertPolicy
from policies.scat_expert_jit import ScatExpertJitPolicy
from policies.scat_features import ScatExpertFeatures
from schnauz_env.scat import ScatConfig

TRAINING = Training("scat", "scat-expert-v1", "scat_features", "ScatExpertFeatures")


def main() -> None:
    args = arguments(__doc__, games=20)
    config = ScatConfig(num_players=args.players)
    obs, masks = game_states("scat", config, args.games, args.seed)
    n, b = len(obs), args.batch

    expert = ExpertPolicy(config, seed=1)
    py = per_item(lambda: [expert.act(o, m) for o, m in zip(obs, masks, strict=True)], n)
    jit = ScatExpertJitPolicy(config, seed=1)
    jit.act_batch(obs[:b], masks[:b])  # warm-up (compiles once)
    jt = per_item(
        lambda: [jit.act_batch(obs[i : i + b], masks[i : i + b]) for i in range(0, n, b)], n
    )

    feats = ScatExpertFeatures(config)
    seeds, out = feats.seeds(obs), np.zeros((n, feats.size), dtype=np.float32)
    fpy = per_item(lambda: RowFeatures.rows(feats, obs, seeds, out), n)
    feats.features(obs[:b])  # warm-up
    fjt = per_item(lambda: [feats.features(obs[i : i + b]) for i in range(0, n, b)], n)

    print(
        f"{n} states, {args.players} players, batch {b}\n"
        f"moves     expert {1e6 / py:9.0f}/s ({py:7.1f} us)   expert-jit {1e6 / jt:9.0f}/s "
        f"({jt:6.1f} us)   {py / jt:5.1f}x\n"
        f"features  python {1e6 / fpy:9.0f}/s ({fpy:7.1f} us)   compiled   {1e6 / fjt:9.0f}/s "
        f"({fjt:6.1f} us)   {fpy / fjt:5.1f}x  (scat-expert-v1 rows)"
    )
    TRAINING.report(args.train)


if __name__ == "__main__":
    main()

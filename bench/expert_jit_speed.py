"""Time per move of ``expert`` (Python) and ``expert-jit`` (numba, batched), side by side.

    python bench/expert_jit_speed.py                   # 2000 states, batches of 256
    python bench/expert_jit_speed.py --states 4000 --batch 1024 --players 6 --deck A5

The states are the decisions met in seeded games between ``expert`` players (a tenth
of the moves random, for variety). Both players then decide every state: ``expert``
one ``act`` call per state, ``expert-jit`` one ``act_batch`` call per batch, after a
warm-up call (the first run compiles the kernels and caches them on disk). Both
figures are microseconds per move on one core, measured in the same run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from policies.expert_jit import ExpertJitPolicy
from policies.schnauz import ExpertPolicy
from schnauz_env.schnauz import ObservationEncoder, SchnauzConfig, new_game


def game_states(config: SchnauzConfig, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` observations and masks from games of ``expert`` players."""
    enc = ObservationEncoder(config)
    players = [ExpertPolicy(config, seed=seed + s) for s in range(config.num_players)]
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    g = 0
    while len(obs) < count:
        state = new_game(config, np.random.default_rng(seed * 1000 + g))
        g += 1
        while not state.game_over and len(obs) < count:
            seat = state.current
            o, m = enc.encode(state, seat), state.legal_mask()
            obs.append(o)
            masks.append(m)
            action = players[seat].act(o, m)
            if rng.random() < 0.1:
                legal = state.legal_actions()
                action = legal[rng.integers(len(legal))]
            state.apply(int(action))
    return np.stack(obs), np.stack(masks)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--states", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deck", default="A7")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    config = SchnauzConfig(num_players=args.players, deck=args.deck)
    obs, masks = game_states(config, args.states, args.seed)

    expert = ExpertPolicy(config, seed=1)
    t = time.perf_counter()
    for o, m in zip(obs, masks, strict=True):
        expert.act(o, m)
    py = (time.perf_counter() - t) / len(obs) * 1e6

    jit = ExpertJitPolicy(config, seed=1)
    jit.act_batch(obs[: args.batch], masks[: args.batch])  # warm-up (compiles once)
    t = time.perf_counter()
    for i in range(0, len(obs), args.batch):
        jit.act_batch(obs[i : i + args.batch], masks[i : i + args.batch])
    jt = (time.perf_counter() - t) / len(obs) * 1e6

    print(
        f"{len(obs)} states, {args.players} players, deck {args.deck}, batch {args.batch}\n"
        f"expert      {py:8.1f} us/move  (act, one state a call)\n"
        f"expert-jit  {jt:8.1f} us/move  (act_batch)\n"
        f"ratio       {py / jt:8.1f}x"
    )


if __name__ == "__main__":
    main()

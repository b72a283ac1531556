"""The batched Scat engine without numba: the same kernels as plain Python.

Without numba (or with ``SCHNAUZ_ENV_NO_NUMBA=1``) the kernels run as ordinary
Python: the engine warns how to install the compiled version and, where numba is
installed to compare with, plays exactly the same games.
"""

from __future__ import annotations

from batched_helpers import run_with_and_without_numba, warns_how_to_install

SCRIPT = (
    warns_how_to_install(
        "from schnauz_env.batched import BatchedScat", "BatchedScat(2, num_players=3, seed=0)"
    )
    + """
out = []
for options in ({"num_players": 3, "buy_ins": 1}, {"num_players": 4, "four_card": True}):
    eng = BatchedScat(3, seed=4, **options)
    obs, mask = eng.reset()
    out += [obs.copy(), mask.copy()]
    for k in range(60):
        actions = eng.greedy_actions() if k % 3 == 0 else eng.random_actions()
        obs, mask, rew, ended = eng.step(actions)
        out += [obs.copy(), mask.copy(), rew.copy(), ended.copy(), eng.lives.copy()]
np.savez(OUT, *out)
"""
)


def test_runs_without_numba_and_says_how_to_install_it(tmp_path) -> None:
    slow = run_with_and_without_numba(SCRIPT, tmp_path, "scat")
    assert len(slow) == 2 * (2 + 5 * 60)

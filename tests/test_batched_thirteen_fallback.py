"""The batched Thirteen engine without numba: the same kernels as plain Python.

Without numba (or with ``SCHNAUZ_ENV_NO_NUMBA=1``) the kernels run as ordinary Python:
the same games, very slowly, announced once with a warning naming the install command.
"""

from __future__ import annotations

from batched_helpers import run_with_and_without_numba, warns_how_to_install

SCRIPT = (
    warns_how_to_install(
        "from schnauz_env.batched.thirteen import BatchedThirteen",
        "BatchedThirteen(2, num_players=3, seed=0)",
    )
    + """
eng = BatchedThirteen(3, num_players=3, seed=4, instant_wins=True, episode="match",
                      target_points=2)
obs, mask = eng.reset()
out = [obs.copy(), mask.copy()]
for k in range(150):
    actions = eng.greedy_actions() if k % 3 else eng.random_actions()
    obs, mask, rew, ended = eng.step(actions)
    out += [obs.copy(), mask.copy(), rew.copy(), ended.copy(), eng.result.copy()]
out.append(eng.observe(1))
np.savez(OUT, *out)
"""
)


def test_runs_without_numba_and_plays_the_same_games(tmp_path) -> None:
    """Without numba: a warning naming the install command, and (where numba is installed
    to compare with) exactly the same observations, masks, rewards, ends and results."""
    slow = run_with_and_without_numba(SCRIPT, tmp_path, "thirteen")
    assert len(slow) == 2 + 5 * 150 + 1
    assert any(r.any() for r in slow[4::5])  # rewards were paid

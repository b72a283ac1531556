"""The learner loop's codes, shared by every game's VecEnv kernel (``k_vec``).

A VecEnv over a batched engine keeps, per game, a row of ``vs`` (int32): the learner's
seat, the stage the game waits in, and whether the learner has acted this episode. The
kernels (:func:`schnauz_env.batched.schnauz.loop.k_vec`,
:func:`schnauz_env.batched.scat.vec.k_vec`, :func:`schnauz_env.batched.thirteen.vec.k_vec`)
and the VecEnvs above them (:mod:`schnauz_env.vector`) read these codes from here.
"""

from __future__ import annotations

#: Opponent kinds: a uniformly random legal move or the greedy player's, both drawn in
#: the kernel, or a move given from outside (the kernel stops in ``S_NEED_OPP``).
OPP_RANDOM, OPP_GREEDY, OPP_EXTERNAL = 0, 1, 2
#: Stages: deal a new game, the learner's action is given, an opponent's action is given.
S_RESET, S_READY, S_NEED_OPP = 0, 1, 2
#: Columns of ``vs``: the learner's seat, the stage, the learner acted this episode.
V_LEARNER, V_STAGE, V_ACTED = 0, 1, 2
#: Columns of ``vs`` (a fourth is spare).
V_COLUMNS = 4

"""Training agents (floor 6): SB3 / sb3-contrib and RLlib trainers, behaviour cloning,
reward shaping and learning curves (install: ``pip install -e ".[train]"``).

* :mod:`training.train`: MaskablePPO on the single-agent view or the batched engine;
* :mod:`training.rllib_train`: RLlib's PPO (``.[rllib]``), same setting names;
* :mod:`training.pretrain`: a teacher's decisions and behaviour cloning;
* :mod:`training.rewards`: the reward wrappers (``--reward lives / win-chance / win``);
* :mod:`training.evaluation`: a run's evaluations and learning curve;
  :mod:`training.curve` and :mod:`training.quick_eval`: commands for runs and checkpoints.

The environments the trainers use live below: the single-agent view in
:mod:`schnauz_env.wrappers` and the opponent pool in :mod:`policies.pool`.
"""

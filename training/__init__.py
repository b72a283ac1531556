"""Training agents with stable-baselines3 / sb3-contrib (install: ``pip install -e ".[train]"``).

``training.single_agent`` (a Gymnasium single-agent view of any game) needs only the
core dependencies; ``training.train`` needs the ``train`` extra (torch, SB3).
"""

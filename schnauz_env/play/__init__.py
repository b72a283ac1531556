"""Play against the package's agents in a terminal: ``schnauz play``.

    schnauz play                                  # Schnauz, 4 players, you in seat 0
    schnauz play --game scat --players 3 --opponents expert greedy
    schnauz play --game thirteen --speed 0.2 --seed 7
    schnauz play --rules deck=A9 lives=2 --opponents runs/my_run/model.npz

The command (:mod:`schnauz_env.play.cli`) seats a person at a table of bots and
drives the game's own AEC environment; every rule, every legal move and every
move's name come from the game's engine (``legal_actions``, ``action_to_string``,
the hand labels), so the terminal never re-implements a rule. The screen code is
one module per game (:mod:`~schnauz_env.play.schnauz`, :mod:`~schnauz_env.play.scat`,
:mod:`~schnauz_env.play.thirteen`) on top of :mod:`~schnauz_env.play.common`, drawn
with `rich <https://rich.readthedocs.io>`_ (the ``play`` extra).
"""

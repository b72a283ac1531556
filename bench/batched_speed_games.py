"""Kept for its old command lines: ``bench/batched_speed.py`` with ``--game scat`` as its
default (``--games scat thirteen`` and every other option work as they did).

    python bench/batched_speed_games.py --games scat thirteen --profile
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from batched_speed import main

if __name__ == "__main__":
    main(games=("scat",))

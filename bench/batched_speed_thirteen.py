"""Kept for its old command lines: ``bench/batched_speed.py`` with ``--game thirteen`` as
its default (every option works as it did).

    python bench/batched_speed_thirteen.py --seconds 3 --repeats 5 --profile
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from batched_speed import main

if __name__ == "__main__":
    main(games=("thirteen",))

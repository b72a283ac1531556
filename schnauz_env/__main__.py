"""``python -m schnauz_env``: the demo, :mod:`schnauz_env.demo` (also ``schnauz-demo``)."""

from __future__ import annotations

import sys

from schnauz_env.demo import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())

"""Schnauz (31 / Schwimmen), version 0: ``env()`` and ``raw_env`` (docs: ``schnauz_env.schnauz.env``)."""

from schnauz_env.schnauz.env import env, raw_env

__all__ = ["env", "raw_env"]

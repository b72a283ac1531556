"""Scat (Thirty-One), version 0: ``env()`` and ``raw_env`` (docs: ``schnauz_env.scat.env``)."""

from schnauz_env.scat.env import env, raw_env

__all__ = ["env", "raw_env"]

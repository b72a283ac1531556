"""Thirteen (Tiến lên), version 0: ``env()`` and ``raw_env`` (docs: ``schnauz_env.thirteen.env``)."""

from schnauz_env.thirteen.env import env, raw_env

__all__ = ["env", "raw_env"]

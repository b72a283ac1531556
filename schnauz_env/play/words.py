"""The words the apps use for what happens at the table, in one place: the terminal game
(:mod:`schnauz_env.play`) and the demo (:mod:`schnauz_env.demo`) say the same thing the
same way. Plain strings, no ``rich``: the demo prints them as they are.
"""

from __future__ import annotations

from typing import Any

#: How a Schnauz round ended, by the result's ``reason``.
SCHNAUZ_REASONS = {
    "knock": "after a knock",
    "instant": "Fire or Schnauz ends the round at once",
    "short_stock": "everyone passed and the stock ran short",
    "turn_limit": "the turn limit was reached",
}

#: How a Scat round ended, by the result's ``reason``.
SCAT_REASONS = {
    "blitz_deal": "31 right after the deal",
    "blitz": "Blitz: 31 in one suit",
    "knock": "after a knock",
    "empty_stock": "the stock is empty",
    "turn_limit": "the turn limit was reached",
}

#: What having no lives left is called in each game of lives, and what it means.
ZERO_LIVES = {"schnauz": "swimming", "scat": "on the bus"}
ZERO_MEANING = "no lives left, still in the game; losing one more round puts that player out."


def lives_lost(lost: int, left: int, zero: str) -> str:
    """``"loses a life (2 left)"``, ``"loses 2 lives, now on the bus"``, ..."""
    what = "a life" if lost == 1 else f"{lost} lives"
    return f"loses {what}, now {zero}" if left == 0 else f"loses {what} ({left} left)"


def schnauz_outcome(result: Any, seat: int) -> str:
    """What a Schnauz showdown did to ``seat``: ``"goes out"``, ``"loses a life, now
    swimming"``, ``"loses a life (1 left)"`` or ``""``."""
    if seat in result.went_out:
        return "goes out"
    if seat in result.losers:
        return lives_lost(1, result.lives_after[seat], ZERO_LIVES["schnauz"])
    return ""


def scat_outcome(result: Any, seat: int) -> str:
    """What a Scat round did to ``seat`` (also ``"buys back in with full lives"``)."""
    if seat in result.went_out:
        return "goes out"
    if seat in result.bought_in:
        return "buys back in with full lives"
    lost = result.losses.get(seat, 0)
    if lost:
        return lives_lost(lost, result.lives_after[seat], ZERO_LIVES["scat"])
    return ""


__all__ = [
    "SCAT_REASONS",
    "SCHNAUZ_REASONS",
    "ZERO_LIVES",
    "ZERO_MEANING",
    "lives_lost",
    "scat_outcome",
    "schnauz_outcome",
]

"""Scat (Thirty-One / Trinta e Um): rules engine, hand values, observation encoder and
AEC environment.

The rules (``engine``, ``hands``, ``config``) import neither gymnasium nor PettingZoo;
the environment lives in ``schnauz_env.scat.env`` (``schnauz_env.scat_v0``).
"""

from schnauz_env.cards import Card, format_card, format_cards, parse_card, parse_cards
from schnauz_env.scat import engine
from schnauz_env.scat.config import ScatConfig
from schnauz_env.scat.engine import *  # noqa: F403 (engine.__all__)
from schnauz_env.scat.hands import (
    ScatHand,
    card_points,
    evaluate_hand,
    hand_label,
    hand_value,
    is_blitz,
)
from schnauz_env.scat.observation import ObservationEncoder, ObservationLayout

Config = ScatConfig  # the name every game package exports (see schnauz_env.games)

__all__ = [
    *engine.__all__,
    "Card",
    "Config",
    "ObservationEncoder",
    "ObservationLayout",
    "ScatConfig",
    "ScatHand",
    "card_points",
    "evaluate_hand",
    "format_card",
    "format_cards",
    "hand_label",
    "hand_value",
    "is_blitz",
    "parse_card",
    "parse_cards",
]

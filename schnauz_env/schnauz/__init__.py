"""Schnauz: rules engine, hand evaluation, observation encoder and AEC environment.

The rules (``engine``, ``hands``, ``config``) import neither gymnasium nor PettingZoo;
the environment lives in ``schnauz_env.schnauz.env`` (``schnauz_env.schnauz_v0``).
"""

from schnauz_env.cards import Card, format_card, format_cards, parse_card, parse_cards
from schnauz_env.schnauz import engine
from schnauz_env.schnauz.config import DECK_VARIANTS, SchnauzConfig
from schnauz_env.schnauz.engine import *  # noqa: F403 (engine.__all__)
from schnauz_env.schnauz.hands import HandValue, card_points, evaluate_hand, hand_key, hand_label
from schnauz_env.schnauz.observation import ObservationEncoder, ObservationLayout

Config = SchnauzConfig  # the name every game package exports (see schnauz_env.games)

__all__ = [
    *engine.__all__,
    "DECK_VARIANTS",
    "Card",
    "Config",
    "HandValue",
    "ObservationEncoder",
    "ObservationLayout",
    "SchnauzConfig",
    "card_points",
    "evaluate_hand",
    "format_card",
    "format_cards",
    "hand_key",
    "hand_label",
    "parse_card",
    "parse_cards",
]

"""Thirteen (Tiến lên): card order and combinations, rules engine, observation encoder
and AEC environment.

The rules (``combos``, ``engine``, ``config``) import neither gymnasium nor PettingZoo;
the environment lives in ``schnauz_env.thirteen.env`` (``schnauz_env.thirteen_v0``).
"""

from schnauz_env.cards import Card, format_card, format_cards, parse_card, parse_cards
from schnauz_env.thirteen import engine
from schnauz_env.thirteen.combos import (
    DOUBLE_SEQUENCE,
    KIND_NAMES,
    PAIR,
    QUAD,
    SEQUENCE,
    SINGLE,
    TRIPLE,
    Combo,
    beats,
    card_of,
    classify,
    combo_beats,
    legal_plays,
    sort_cards,
    strength,
)
from schnauz_env.thirteen.config import ThirteenConfig
from schnauz_env.thirteen.engine import *  # noqa: F403 (engine.__all__)
from schnauz_env.thirteen.observation import OBS_VERSION, ObservationEncoder, ObservationLayout

Config = ThirteenConfig  # the name every game package exports (see schnauz_env.games)

__all__ = [
    *engine.__all__,
    "DOUBLE_SEQUENCE",
    "KIND_NAMES",
    "OBS_VERSION",
    "PAIR",
    "QUAD",
    "SEQUENCE",
    "SINGLE",
    "TRIPLE",
    "Card",
    "Combo",
    "Config",
    "ObservationEncoder",
    "ObservationLayout",
    "ThirteenConfig",
    "beats",
    "card_of",
    "classify",
    "combo_beats",
    "format_card",
    "format_cards",
    "legal_plays",
    "parse_card",
    "parse_cards",
    "sort_cards",
    "strength",
]

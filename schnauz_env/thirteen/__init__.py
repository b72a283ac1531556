"""Thirteen (Tiến lên): card order and combinations, rules engine, observation encoder
and AEC environment.

The rules (``combos``, ``engine``, ``config``) import neither gymnasium nor PettingZoo;
the environment lives in ``schnauz_env.thirteen.env`` (``schnauz_env.thirteen_v0``).
"""

from schnauz_env.cards import Card, format_card, format_cards, parse_card, parse_cards
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
from schnauz_env.thirteen.engine import (
    ACTION_NAMES,
    DECLARE,
    NUM_ACTIONS,
    NUM_CARD_ACTIONS,
    OVER,
    PASS,
    PLAY,
    PLAYING,
    GameResult,
    ThirteenState,
    instant_win_of,
    new_game,
    new_position,
    play_actions,
    select_action,
    stacked_deck,
)
from schnauz_env.thirteen.observation import OBS_VERSION, ObservationEncoder, ObservationLayout

Config = ThirteenConfig  # the name every game package exports (see schnauz_env.games)

__all__ = [
    "ACTION_NAMES",
    "DECLARE",
    "DOUBLE_SEQUENCE",
    "KIND_NAMES",
    "NUM_ACTIONS",
    "NUM_CARD_ACTIONS",
    "OBS_VERSION",
    "OVER",
    "PAIR",
    "PASS",
    "PLAY",
    "PLAYING",
    "QUAD",
    "SEQUENCE",
    "SINGLE",
    "TRIPLE",
    "Card",
    "Combo",
    "Config",
    "GameResult",
    "ObservationEncoder",
    "ObservationLayout",
    "ThirteenConfig",
    "ThirteenState",
    "beats",
    "card_of",
    "classify",
    "combo_beats",
    "format_card",
    "format_cards",
    "instant_win_of",
    "legal_plays",
    "new_game",
    "new_position",
    "parse_card",
    "parse_cards",
    "play_actions",
    "select_action",
    "sort_cards",
    "stacked_deck",
    "strength",
]

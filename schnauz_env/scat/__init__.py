"""Scat (Thirty-One / Trinta e Um): rules engine, hand values, observation encoder and
AEC environment.

The rules (``engine``, ``hands``, ``config``) import neither gymnasium nor PettingZoo;
the environment lives in ``schnauz_env.scat.env`` (``schnauz_env.scat_v0``).
"""

from schnauz_env.cards import Card, format_card, format_cards, parse_card, parse_cards
from schnauz_env.scat.config import ScatConfig
from schnauz_env.scat.engine import (
    ACTION_NAMES,
    DISCARD,
    DISCARD_BASE,
    DRAW,
    DRAW_DISCARD,
    DRAW_STOCK,
    FINAL_TURNS,
    KNOCK,
    NUM_ACTIONS,
    OVER,
    PASS,
    TURNS,
    RoundResult,
    ScatState,
    discard_action,
    new_game,
    stack_deck,
)
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
    "ACTION_NAMES",
    "DISCARD",
    "DISCARD_BASE",
    "DRAW",
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "FINAL_TURNS",
    "KNOCK",
    "NUM_ACTIONS",
    "OVER",
    "PASS",
    "TURNS",
    "Card",
    "Config",
    "ObservationEncoder",
    "ObservationLayout",
    "RoundResult",
    "ScatConfig",
    "ScatHand",
    "ScatState",
    "card_points",
    "discard_action",
    "evaluate_hand",
    "format_card",
    "format_cards",
    "hand_label",
    "hand_value",
    "is_blitz",
    "new_game",
    "parse_card",
    "parse_cards",
    "stack_deck",
]

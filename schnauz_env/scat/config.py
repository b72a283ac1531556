"""The Scat rules config: every rule option in one frozen, validated object.

Each field documents the RULES.md §2 **[choice]** or variant it makes switchable;
the defaults are RULES.md's. A config is stored beside every trained model, so a
model is never used under other rules without notice (compare with ``==`` or
:meth:`ScatConfig.to_dict`).
"""

from __future__ import annotations

from dataclasses import dataclass

from schnauz_env.cards import ALL_CARDS, Card
from schnauz_env.common.options import RulesConfig, is_int

MIN_PLAYERS, MAX_PLAYERS = 2, 7


@dataclass(frozen=True)
class ScatConfig(RulesConfig):
    """Rules of a Scat game (RULES.md §2). Invalid values raise ``ValueError``."""

    game_name = "Scat"

    num_players: int = 4
    """Players at the table, 2 to 7."""
    lives: int = 3
    """Lives (tokens) each player starts with. A player with 0 lives is *on the bus*
    and still plays; losing a life then eliminates. 0 = everyone starts on the bus."""
    knock_on_first_turn: bool = False
    """[choice, seed: "most houses"] ``False`` (default): no knocking on your own first
    turn of a round. ``True`` allows a knock on any turn before the first knock."""
    no_trinca: bool = False
    """Variant *no trinca*: three of a kind counts only its suit total (not 30.5)."""
    four_card: bool = False
    """Variant *four-card Scat*: 4-card hands, 41 in one suit is the blitz, no trinca."""
    buy_ins: int = 0
    """Variant *buy-in*: how many times each player, on being eliminated, re-enters at
    once with full lives (0 = off). Re-entering is automatic: it can only improve a
    player's final place, so it is not a decision."""
    max_turns: int = 500
    """[choice] Termination guard: a round that reaches this many turns before a knock
    ends with a showdown (no knocker), reported as ``turn_limit_reached``."""
    first_dealer: int | None = None
    """[choice] Seat of the first dealer; ``None`` draws it from the seeded generator."""
    episode: str = "game"
    """``"game"``: an episode is a whole game, until one player is left. ``"round"``:
    an episode is a single round (deal to showdown)."""

    def __post_init__(self) -> None:
        self.numpy_ints_as_ints()
        if not is_int(self.num_players):
            raise self.invalid("num_players", "must be an integer from 2 to 7")
        if not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise self.invalid("num_players", "Scat is for 2 to 7 players")
        if not is_int(self.lives) or self.lives < 0:
            raise self.invalid("lives", "must be an integer >= 0")
        if not is_int(self.buy_ins) or self.buy_ins < 0:
            raise self.invalid("buy_ins", "must be an integer >= 0 (0 = no buy-in)")
        if not is_int(self.max_turns) or self.max_turns < 1:
            raise self.invalid("max_turns", "must be a positive integer")
        if self.first_dealer is not None and (
            not is_int(self.first_dealer) or not 0 <= self.first_dealer < self.num_players
        ):
            raise self.invalid(
                "first_dealer",
                f"must be None or a seat 0..{self.num_players - 1}",
            )
        self.check_choice("episode", "allowed: 'game', 'round'", ("game", "round"))
        self.check_flags("knock_on_first_turn", "no_trinca", "four_card")

    # ------------------------------------------------------------ derived
    @property
    def hand_size(self) -> int:
        """Cards in a hand between turns: 3, or 4 in four-card Scat."""
        return 4 if self.four_card else 3

    @property
    def trinca(self) -> bool:
        """Whether three of a kind counts 30.5 (off with ``no_trinca`` or ``four_card``)."""
        return not (self.no_trinca or self.four_card)

    @property
    def blitz_value(self) -> int:
        """31, or 41 in four-card Scat."""
        return 41 if self.four_card else 31

    @property
    def deck_cards(self) -> tuple[Card, ...]:
        """The 52 cards, ordered by card index (rank-major: ``2C 2S 2H 2D 3C …``)."""
        return ALL_CARDS

    @property
    def deck_size(self) -> int:
        return 52

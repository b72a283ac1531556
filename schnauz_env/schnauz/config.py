"""The Schnauz rules config: every rule option in one frozen, validated object.

Each field documents the RULES.md **[choice]** it makes switchable; the defaults are
RULES.md's. A config is stored beside every trained model, so a model is never used
under other rules without notice (compare with ``==`` or :meth:`SchnauzConfig.to_dict`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from schnauz_env.cards import Card, deck_of

#: Deck variants: name -> lowest rank index (A7 = 7..A, A9 = 9..A, A5 = 5..A).
DECK_VARIANTS: dict[str, int] = {"A7": 5, "A9": 7, "A5": 3}
MIN_PLAYERS, MAX_PLAYERS = 2, 6


@dataclass(frozen=True)
class SchnauzConfig:
    """Rules of a Schnauz game (RULES.md §1). Invalid values raise ``ValueError``."""

    num_players: int = 4
    """Players at the table, 2 to 6."""
    deck: str = "A7"
    """Deck variant: ``"A7"`` (7..A, 32 cards), ``"A9"`` (9..A, 24) or ``"A5"`` (5..A, 40)."""
    lives: int = 3
    """Tokens each player starts with (0 = everyone starts swimming)."""
    knock_in_first_circle: bool = True
    """[choice] Knocking allowed during the first circle of turns of a round. ``False``
    forbids a knock until every player in the round has had a turn."""
    short_stock: str = "showdown"
    """[choice] An all-pass circle when the stock holds fewer than three cards:
    ``"showdown"`` ends the round with a showdown; ``"recycle"`` first puts the cards
    taken out of play back under the stock (in the order they left), and only if that
    is still too few ends with a showdown."""
    ties: str = "break"
    """[choice] ``"break"``: equal points are decided by the scoring suit (♣ > ♠ > ♥ > ♦)
    and then the ranks, equal thirty-and-a-halfs by rank (K > Q > J > 10), the scoring
    suit on equal sums is the higher suit, two Schnauz hands by suit, so every showdown
    has exactly one lowest hand. ``"share"``: equal values are equal and everyone tied
    for lowest loses a life."""
    fire_costs_all: bool = False
    """[choice] Fire at a showdown costs every other player a life (instead of only
    the lowest hand losing one)."""
    max_turns: int = 500
    """[choice] Termination guard: a round that reaches this many turns ends with a
    showdown, and ``turn_limit_reached`` is reported in the round result."""
    first_dealer: int | None = None
    """[choice] Seat of the first dealer; ``None`` draws it from the seeded generator."""
    episode: str = "game"
    """``"game"``: an episode is a whole game, until one player is left. ``"round"``:
    an episode is a single round (deal to showdown)."""

    def __post_init__(self) -> None:
        def bad(name: str, value: Any, allowed: str) -> ValueError:
            return ValueError(f"invalid Schnauz option {name}={value!r}: {allowed}")

        if not isinstance(self.num_players, int) or isinstance(self.num_players, bool):
            raise bad("num_players", self.num_players, "must be an integer from 2 to 6")
        if not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise bad("num_players", self.num_players, "Schnauz is for 2 to 6 players")
        if self.deck not in DECK_VARIANTS:
            raise bad("deck", self.deck, "allowed decks are 'A7' (32 cards), 'A9' (24), 'A5' (40)")
        if 3 * self.num_players + 3 > len(self.deck_cards):
            raise bad(
                "num_players",
                self.num_players,
                f"a round needs {3 * self.num_players + 3} cards but deck {self.deck} has "
                f"{len(self.deck_cards)}",
            )
        if not isinstance(self.lives, int) or isinstance(self.lives, bool) or self.lives < 0:
            raise bad("lives", self.lives, "must be an integer >= 0")
        if self.short_stock not in ("showdown", "recycle"):
            raise bad("short_stock", self.short_stock, "allowed: 'showdown', 'recycle'")
        if self.ties not in ("break", "share"):
            raise bad("ties", self.ties, "allowed: 'break', 'share'")
        if not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise bad("max_turns", self.max_turns, "must be a positive integer")
        if self.first_dealer is not None and (
            not isinstance(self.first_dealer, int) or not 0 <= self.first_dealer < self.num_players
        ):
            raise bad(
                "first_dealer",
                self.first_dealer,
                f"must be None or a seat 0..{self.num_players - 1}",
            )
        if self.episode not in ("game", "round"):
            raise bad("episode", self.episode, "allowed: 'game', 'round'")
        for name in ("knock_in_first_circle", "fire_costs_all"):
            if not isinstance(getattr(self, name), bool):
                raise bad(name, getattr(self, name), "must be True or False")

    @property
    def deck_cards(self) -> tuple[Card, ...]:
        """The variant's cards, ordered by card index (rank-major)."""
        return deck_of(DECK_VARIANTS[self.deck])

    @property
    def deck_size(self) -> int:
        return 4 * (13 - DECK_VARIANTS[self.deck])

    @property
    def min_rank(self) -> int:
        return DECK_VARIANTS[self.deck]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SchnauzConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown Schnauz option(s) {', '.join(unknown)}; allowed: {', '.join(sorted(known))}"
            )
        return cls(**data)

    @classmethod
    def option_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

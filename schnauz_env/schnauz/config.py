"""The Schnauz rules config: every rule option in one frozen, validated object.

Each field documents the RULES.md **[choice]** it makes switchable; the defaults are
RULES.md's. A config is stored beside every trained model, so a model is never used
under other rules without notice (compare with ``==`` or :meth:`SchnauzConfig.to_dict`).
"""

from __future__ import annotations

from dataclasses import dataclass

from schnauz_env.cards import Card, deck_of
from schnauz_env.common.options import RulesConfig, is_int

#: Deck variants: name -> lowest rank index (A7 = 7..A, A9 = 9..A, A5 = 5..A).
DECK_VARIANTS: dict[str, int] = {"A7": 5, "A9": 7, "A5": 3}
MIN_PLAYERS, MAX_PLAYERS = 2, 6


@dataclass(frozen=True)
class SchnauzConfig(RulesConfig):
    """Rules of a Schnauz game (RULES.md §1). Invalid values raise ``ValueError``."""

    game_name = "Schnauz"

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
        self.numpy_ints_as_ints()
        if not is_int(self.num_players):
            raise self.invalid("num_players", "must be an integer from 2 to 6")
        if not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise self.invalid("num_players", "Schnauz is for 2 to 6 players")
        allowed_decks = "allowed decks are 'A7' (32 cards), 'A9' (24), 'A5' (40)"
        if not isinstance(self.deck, str) and self.deck is not None:
            allowed_decks += (
                "; the deck option is the variant's name: a stacked deck (card codes) is "
                "a reset option, reset(options={'deck': [...]})"
            )
        self.check_choice("deck", allowed_decks, tuple(DECK_VARIANTS))
        if 3 * self.num_players + 3 > len(self.deck_cards):
            raise self.invalid(
                "num_players",
                f"a round needs {3 * self.num_players + 3} cards but deck {self.deck} has "
                f"{len(self.deck_cards)}",
            )
        self.check_int("lives", "must be an integer >= 0", 0)
        self.check_choice("short_stock", "allowed: 'showdown', 'recycle'", ("showdown", "recycle"))
        self.check_choice("ties", "allowed: 'break', 'share'", ("break", "share"))
        self.check_int("max_turns", "must be a positive integer", 1)
        if self.first_dealer is not None:
            n = self.num_players
            self.check_int("first_dealer", f"must be None or a seat 0..{n - 1}", 0, n - 1)
        self.check_choice("episode", "allowed: 'game', 'round'", ("game", "round"))
        self.check_flags("knock_in_first_circle", "fire_costs_all")

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

"""The Thirteen rules config: every rule option in one frozen, validated object.

Each field documents the RULES.md §3 **[choice]** it makes switchable; the defaults
are RULES.md's. A config is stored beside every trained model, so a model is never
used under other rules without notice (compare with ``==`` or :meth:`ThirteenConfig.to_dict`).
"""

from __future__ import annotations

from dataclasses import dataclass

from schnauz_env.cards import ALL_CARDS, Card
from schnauz_env.common.options import RulesConfig, is_int

MIN_PLAYERS, MAX_PLAYERS = 2, 4
HAND_SIZE = 13


@dataclass(frozen=True)
class ThirteenConfig(RulesConfig):
    """Rules of a Thirteen game or match (RULES.md §3). Invalid values raise ``ValueError``."""

    game_name = "Thirteen"

    num_players: int = 4
    """[choice] Players at the table, 2 to 4; each is dealt 13 cards (with fewer than
    four players the rest of the deck stays face down, unseen, for the whole game)."""
    episode: str = "game"
    """``"game"``: an episode is a single game; places are the order in which players
    go out. ``"match"``: games follow one another until a player has at least
    ``target_points`` and the top score is not shared; places are by final score."""
    target_points: int = 10
    """Points that end a match (RULES.md: 10). Ignored with ``episode="game"``."""
    opening: str = "include"
    """[choice] The first game of a match (or a single game) is led by the holder of
    3♠ — with fewer than four players, of the lowest card dealt if 3♠ is not dealt.
    ``"include"``: that first play must include the card (RULES.md). ``"free"``: the
    holder leads any combination."""
    out_clears_table: bool = False
    """[choice] When a player plays their last card. ``False`` (RULES.md): the others
    may still beat that play; once all of them have passed the table clears and the
    next player to the left of the one who went out (who still has cards) leads.
    ``True``: the table clears at once and that player leads."""
    instant_wins: bool = False
    """[choice] Instant wins (RULES.md: none). ``True``: a player dealt four 2s or a
    dragon (a card of every rank 3 to A) wins the game on the spot: their only action
    is to declare it; they take first place (n−1 points) and everyone else shares the
    remaining places with 0 points. Several such hands: the first in turn order from
    the leader wins."""
    max_games: int = 100
    """[choice] Termination guard for matches: a match that reaches this many games
    ends with the scores as they stand (tied players share places); reported as
    ``match_limit_reached`` in the result. Never binds in ordinary play."""

    def __post_init__(self) -> None:
        self.numpy_ints_as_ints()
        if not is_int(self.num_players) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise self.invalid("num_players", "Thirteen is for 2 to 4 players")
        self.check_choice("episode", "allowed: 'game', 'match'", ("game", "match"))
        if not is_int(self.target_points) or self.target_points < 1:
            raise self.invalid("target_points", "must be a positive integer")
        self.check_choice("opening", "allowed: 'include', 'free'", ("include", "free"))
        self.check_flags("out_clears_table", "instant_wins")
        if not is_int(self.max_games) or self.max_games < 1:
            raise self.invalid("max_games", "must be a positive integer")

    @property
    def deck_cards(self) -> tuple[Card, ...]:
        """The 52 cards, ordered by card index (``schnauz_env.cards`` order)."""
        return ALL_CARDS

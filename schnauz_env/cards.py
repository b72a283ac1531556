"""Cards shared by every game in the package.

A card is a small integer ``rank * 4 + suit`` over the 52-card French deck, wrapped
in :class:`Card` (an ``int`` subclass) so it prints as its code and still indexes
arrays at full speed.

===========  =============================================================
ranks        ``2 3 4 5 6 7 8 9 10 J Q K A`` (rank index 0..12)
suits        ``C`` ♣, ``S`` ♠, ``H`` ♥, ``D`` ♦ (suit index 0..3)
card code    rank then suit letter: ``7C``, ``10H``, ``QS``, ``AD``; lower case
             is accepted, anything else raises :class:`ValueError` naming it
===========  =============================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("C", "S", "H", "D")
SUIT_SYMBOLS: tuple[str, ...] = ("♣", "♠", "♥", "♦")
SUIT_NAMES: tuple[str, ...] = ("clubs", "spades", "hearts", "diamonds")

_RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}


class Card(int):
    """One card: an ``int`` (``rank * 4 + suit``) that knows its rank, suit and code.

    >>> c = Card.from_code("10h")
    >>> c.rank_name, c.suit_name, str(c), int(c)
    ('10', 'H', '10H', 34)
    """

    __slots__ = ()

    def __new__(cls, value: int) -> Card:
        value = int(value)
        if not 0 <= value < 52:
            raise ValueError(f"card index {value} is out of range 0..51")
        return super().__new__(cls, value)

    @classmethod
    def from_code(cls, code: str) -> Card:
        return parse_card(code)

    @property
    def rank(self) -> int:
        """Rank index: 0 for ``2`` up to 12 for ``A``."""
        return int(self) >> 2

    @property
    def suit(self) -> int:
        """Suit index: 0 ♣, 1 ♠, 2 ♥, 3 ♦."""
        return int(self) & 3

    @property
    def rank_name(self) -> str:
        return RANKS[self.rank]

    @property
    def suit_name(self) -> str:
        return SUITS[self.suit]

    @property
    def code(self) -> str:
        return RANKS[self.rank] + SUITS[self.suit]

    @property
    def symbol(self) -> str:
        """The card with its suit symbol, e.g. ``10♥``."""
        return RANKS[self.rank] + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code!r})"


ALL_CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))
#: Card codes and symbol forms by card index, for fast formatting.
CODES: tuple[str, ...] = tuple(c.code for c in ALL_CARDS)
SYMBOLS: tuple[str, ...] = tuple(c.symbol for c in ALL_CARDS)


def card_points(card: int) -> int:
    """Points of one card in the 31 family (Schnauz, Scat): number cards their face
    value, J = Q = K = 10, A = 11."""
    r = int(card) >> 2
    if r == 12:
        return 11
    return 10 if r >= 8 else r + 2


def make_card(rank: int, suit: int) -> Card:
    """The card of rank index ``rank`` (0 = ``2`` .. 12 = ``A``) and suit index ``suit``."""
    return ALL_CARDS[rank * 4 + suit]


def parse_card(code: str | int) -> Card:
    """Parse a card code such as ``"7C"``, ``"10h"``, ``"QS"`` or ``"AD"``.

    A :class:`Card` (or a plain int 0..51) is returned as a :class:`Card`. Anything
    else raises :class:`ValueError` with a message naming the bad code.
    """
    if isinstance(code, Card):
        return code
    if isinstance(code, int) and not isinstance(code, bool):
        if 0 <= code < 52:
            return ALL_CARDS[code]
        raise ValueError(f"bad card {code!r}: a card index must be in 0..51")
    if not isinstance(code, str):
        raise ValueError(f"bad card {code!r}: expected a card code such as '7C', '10H', 'QS'")
    text = code.strip().upper()
    rank, suit = text[:-1], text[-1:]
    if rank == "1" or rank == "T":  # neither is a valid code; say what is
        rank = ""
    if rank not in _RANK_INDEX or suit not in _SUIT_INDEX:
        raise ValueError(
            f"bad card code {code!r}: a code is a rank (2-10, J, Q, K, A) followed by a "
            "suit letter (C, S, H, D), e.g. '7C', '10H', 'QS', 'AD'"
        )
    return ALL_CARDS[_RANK_INDEX[rank] * 4 + _SUIT_INDEX[suit]]


def parse_cards(codes: Iterable[str | int] | str) -> list[Card]:
    """Parse several card codes; a single string may separate them by spaces or commas."""
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    return [parse_card(c) for c in codes]


def format_card(card: int, symbols: bool = False) -> str:
    """The code of a card (``"10H"``), or with ``symbols=True`` its symbol form (``"10♥"``)."""
    return (SYMBOLS if symbols else CODES)[int(card)]


def format_cards(cards: Iterable[int], symbols: bool = False, sep: str = " ") -> str:
    """Format several cards, e.g. ``"7C 10H QS"``."""
    table = SYMBOLS if symbols else CODES
    return sep.join([table[int(c)] for c in cards])


@cache
def deck_of(min_rank: int, max_rank: int = 12) -> tuple[Card, ...]:
    """All cards with rank index in ``min_rank..max_rank``, ordered by card index
    (one tuple per range, built once)."""
    return tuple(ALL_CARDS[r * 4 + s] for r in range(min_rank, max_rank + 1) for s in range(4))


def validate_deck(
    deck: Sequence[str | int], expected: Sequence[int], what: str = "deck"
) -> list[Card]:
    """Parse a stacked deck and check it is exactly ``expected`` (each card once).

    Raises :class:`ValueError` saying which cards are bad, missing, duplicated or foreign.
    """
    if isinstance(deck, str) or not isinstance(deck, Sequence):
        raise ValueError(f"{what} must be a list of card codes, got {type(deck).__name__}")
    cards = [parse_card(c) for c in deck]
    expected_set = set(int(c) for c in expected)
    seen: set[int] = set()
    dupes = []
    for c in cards:
        if int(c) in seen:
            dupes.append(c.code)
        seen.add(int(c))
    foreign = sorted(seen - expected_set)
    missing = sorted(expected_set - seen)
    problems = []
    if dupes:
        problems.append("duplicated: " + " ".join(dupes))
    if foreign:
        problems.append("not in this deck: " + format_cards(foreign))
    if missing:
        problems.append("missing: " + format_cards(missing))
    if problems or len(cards) != len(expected_set):
        raise ValueError(
            f"malformed {what}: it must hold each of the {len(expected_set)} cards exactly once "
            f"(got {len(cards)} cards; " + "; ".join(problems or ["wrong length"]) + ")"
        )
    return cards

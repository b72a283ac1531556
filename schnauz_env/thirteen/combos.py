"""Thirteen card order and combinations (RULES.md §3): pure functions, no environment imports.

Cards are the package's ints (``rank * 4 + suit``, :mod:`schnauz_env.cards`). Thirteen
orders them its own way, by **strength** ``0..51``: rank first (3 low .. A, 2 high),
then suit (♠ < ♣ < ♦ < ♥)::

    >>> from schnauz_env.thirteen.combos import strength, classify, beats
    >>> [strength(c) for c in ("3S", "3C", "3D", "3H", "4S", "2H")]
    [0, 1, 2, 3, 4, 51]
    >>> classify("5C 6D 4S")
    Combo(kind='sequence', size=3, top='6D')
    >>> beats("4S 4H 5C 5D 6S 6C", "2S")         # a 3-pair double sequence on a single 2
    True
    >>> beats("4S 4H 5C 5D 6S 6C", "2S 2C")      # ... but not on a pair of 2s
    False

The combinations: single; pair; triple; four of a kind (all of one rank);
sequence (3 or more consecutive ranks, any suits, never a 2); double sequence
(3 or more consecutive pairs, never a 2). A combination's **top** is its strongest card.

Beating: the same kind with the same number of cards and a higher top; and the
bombs: four of a kind or a double sequence of 3+ pairs on a single 2, a double
sequence of 4+ pairs on a pair of 2s, of 5+ pairs on three 2s. A bomb is beaten only
by the same kind of bomb of the same size with a higher top (the ordinary rule).

The engine works on strengths throughout (``strength`` / ``card_of``); the functions
taking card codes are for tests, policies and people.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations, product
from typing import NamedTuple

from schnauz_env.cards import ALL_CARDS, Card, parse_cards

SINGLE, PAIR, TRIPLE, QUAD, SEQUENCE, DOUBLE_SEQUENCE = range(6)
KIND_NAMES: tuple[str, ...] = (
    "single",
    "pair",
    "triple",
    "four of a kind",
    "sequence",
    "double sequence",
)
NUM_KINDS = len(KIND_NAMES)

#: Thirteen ranks, low to high (rank index 0 = 3 .. 11 = A, 12 = 2).
RANK_ORDER: tuple[str, ...] = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
TWO = 12  # Thirteen rank index of the 2s
ACE = 11
#: Suit strength by ``schnauz_env.cards`` suit index (C, S, H, D): ♠ 0 < ♣ 1 < ♦ 2 < ♥ 3.
SUIT_STRENGTH: tuple[int, ...] = (1, 0, 3, 2)

#: strength of each card int, and the card int of each strength.
STRENGTH: tuple[int, ...] = tuple(((c >> 2) - 1) % 13 * 4 + SUIT_STRENGTH[c & 3] for c in range(52))
CARD_OF: tuple[Card, ...] = tuple(sorted(ALL_CARDS, key=lambda c: STRENGTH[c]))


def strength(card: int | str) -> int:
    """A card's Thirteen strength, 0 (3♠) .. 51 (2♥); accepts a card int or code."""
    if isinstance(card, str):
        card = parse_cards(card)[0]
    return STRENGTH[int(card)]


def card_of(s: int) -> Card:
    """The card of strength ``s`` (0 = 3♠ .. 51 = 2♥)."""
    return CARD_OF[s]


def sort_cards(cards: Iterable[int]) -> list[int]:
    """Cards (ints) sorted weakest first in Thirteen order."""
    return sorted((int(c) for c in cards), key=STRENGTH.__getitem__)


class Combo(NamedTuple):
    """A recognised combination: its kind, number of cards and top card's strength."""

    kind: int
    size: int
    top: int

    @property
    def is_bomb_on_twos(self) -> bool:
        """Four of a kind or a double sequence (the only plays that can beat 2s)."""
        return self.kind == QUAD or self.kind == DOUBLE_SEQUENCE

    @property
    def label(self) -> str:
        """E.g. ``"pair"``, ``"sequence of 5"``, ``"double sequence of 3 pairs"``."""
        return combo_label(self)

    def __repr__(self) -> str:
        return f"Combo(kind={KIND_NAMES[self.kind]!r}, size={self.size}, top={CARD_OF[self.top].code!r})"


def combo_label(combo: Combo) -> str:
    if combo.kind == SEQUENCE:
        return f"sequence of {combo.size}"
    if combo.kind == DOUBLE_SEQUENCE:
        return f"double sequence of {combo.size // 2} pairs"
    return KIND_NAMES[combo.kind]


# ------------------------------------------------------------- on strengths
def classify_strengths(ss: tuple[int, ...] | list[int]) -> Combo | None:
    """The combination formed by strengths ``ss`` (sorted ascending), or ``None``."""
    k = len(ss)
    if k == 0:
        return None
    lo, hi = ss[0] >> 2, ss[-1] >> 2
    if lo == hi:
        return Combo(k - 1, k, ss[-1]) if k <= 4 else None
    if hi == TWO or k < 3:
        return None
    if hi - lo == k - 1 and all((ss[i] >> 2) == lo + i for i in range(k)):
        return Combo(SEQUENCE, k, ss[-1])
    if k >= 6 and k % 2 == 0 and hi - lo == k // 2 - 1:
        for i in range(0, k, 2):
            r = lo + i // 2
            if ss[i] >> 2 != r or ss[i + 1] >> 2 != r:
                return None
        return Combo(DOUBLE_SEQUENCE, k, ss[-1])
    return None


def combo_beats(play: Combo, table: Combo) -> bool:
    """Whether combination ``play`` may be played on ``table`` (RULES.md §3, Beating/Bombs)."""
    if play.kind == table.kind and play.size == table.size:
        return play.top > table.top
    if table.top >> 2 == TWO and table.kind <= TRIPLE:
        if table.kind == SINGLE:
            return play.kind == QUAD or play.kind == DOUBLE_SEQUENCE
        if table.kind == PAIR:
            return play.kind == DOUBLE_SEQUENCE and play.size >= 8
        return play.kind == DOUBLE_SEQUENCE and play.size >= 10
    return False


def _by_rank(hand: Iterable[int]) -> list[list[int]]:
    groups: list[list[int]] = [[] for _ in range(13)]
    for s in sorted(hand):
        groups[s >> 2].append(s)
    return groups


def _sequences(groups: list[list[int]], length: int, min_top: int) -> list[tuple[int, ...]]:
    """Sequences of ``length`` cards (any suits) with top strength > ``min_top``."""
    out: list[tuple[int, ...]] = []
    for start in range(0, ACE - length + 2):
        top_rank = start + length - 1
        if (top_rank * 4 + 3) <= min_top:
            continue
        parts = groups[start : top_rank + 1]
        if all(parts):
            out.extend(p for p in product(*parts) if p[-1] > min_top)
    return out


def _double_sequences(groups: list[list[int]], pairs: int, min_top: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for start in range(0, ACE - pairs + 2):
        top_rank = start + pairs - 1
        if (top_rank * 4 + 3) <= min_top:
            continue
        parts = groups[start : top_rank + 1]
        if all(len(g) >= 2 for g in parts):
            for choice in product(*(list(combinations(g, 2)) for g in parts)):
                if choice[-1][1] > min_top:
                    out.append(tuple(s for pair in choice for s in pair))
    return out


def _of_a_kind(groups: list[list[int]], size: int, min_top: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for g in groups:
        if len(g) >= size and g[-1] > min_top:
            out.extend(c for c in combinations(g, size) if c[-1] > min_top)
    return out


def plays_strengths(
    hand: Iterable[int], table: Combo | None = None, must_include: int | None = None
) -> list[tuple[int, ...]]:
    """Every legal play from ``hand`` (strengths) as ascending strength tuples.

    ``table`` is the combination to beat (``None``: leading, any combination);
    ``must_include`` a strength every play must contain (the opening card).
    Each play appears once; the order is by kind, then size, then cards.
    """
    groups = _by_rank(hand)
    out: list[tuple[int, ...]] = []
    if table is None:
        out.extend((s,) for g in groups for s in g)
        for size in (2, 3, 4):
            out.extend(_of_a_kind(groups, size, -1))
        for length in range(3, 13):
            seqs = _sequences(groups, length, -1)
            if not seqs:  # no run of this length, so none longer
                break
            out.extend(seqs)
        for pairs in range(3, 7):
            dseqs = _double_sequences(groups, pairs, -1)
            if not dseqs:
                break
            out.extend(dseqs)
    else:
        kind, size, top = table
        if kind <= QUAD:
            out.extend(_of_a_kind(groups, size, top))
        elif kind == SEQUENCE:
            out.extend(_sequences(groups, size, top))
        else:
            out.extend(_double_sequences(groups, size // 2, top))
        if top >> 2 == TWO and kind <= TRIPLE:
            if kind == SINGLE:
                out.extend(_of_a_kind(groups, 4, -1))
            for pairs in range(3 + kind, 7):
                out.extend(_double_sequences(groups, pairs, -1))
    if must_include is not None:
        out = [p for p in out if must_include in p]
    return out


def can_beat(hand: Iterable[int], table: Combo) -> bool:
    """Whether some play from ``hand`` (strengths) beats ``table``; no enumeration,
    so it is cheap on large card sets (e.g. every card a player has not seen)."""
    groups = _by_rank(hand)
    kind, size, top = table
    top_rank = top >> 2
    if kind <= QUAD:
        for r in range(top_rank, 13):
            g = groups[r]
            if len(g) >= size and g[-1] > top:
                return True
    else:  # a sequence or a double sequence
        need = 1 if kind == SEQUENCE else 2
        length = size if kind == SEQUENCE else size // 2
        if _has_run(groups, length, need, top):
            return True
    if top_rank == TWO and kind <= TRIPLE:
        if kind == SINGLE and any(len(g) == 4 for g in groups):
            return True
        return _has_run(groups, 3 + kind, 2, -1)
    return False


def _has_run(groups: list[list[int]], length: int, need: int, top: int) -> bool:
    """A run of at least ``length`` ranks below the 2s, each with ``need`` cards, whose
    top rank's best card beats ``top`` (a longer run contains a run of ``length``)."""
    run = 0
    for r in range(ACE + 1):
        g = groups[r]
        run = run + 1 if len(g) >= need else 0
        if run >= length and g[-1] > top:
            return True
    return False


# ------------------------------------------------------------ on card codes
def _strengths(cards: Iterable[int | str] | str) -> tuple[int, ...]:
    if isinstance(cards, str):
        cards = parse_cards(cards)
    else:
        cards = [c if isinstance(c, int) else parse_cards(c)[0] for c in cards]
    return tuple(sorted(STRENGTH[int(c)] for c in cards))


def classify(cards: Iterable[int | str] | str) -> Combo | None:
    """The combination the cards form (card ints or codes, any order), or ``None``."""
    ss = _strengths(cards)
    if len(set(ss)) != len(ss):
        raise ValueError(f"a card appears twice in {cards!r}")
    return classify_strengths(ss)


def beats(play: Iterable[int | str] | str, table: Iterable[int | str] | str) -> bool:
    """Whether the cards ``play`` may be played on the cards ``table``.

    Raises ``ValueError`` if either is not a combination.
    """
    p, t = classify(play), classify(table)
    if p is None or t is None:
        raise ValueError(
            f"not a combination: {play!r}" if p is None else f"not a combination: {table!r}"
        )
    return combo_beats(p, t)


def legal_plays(
    hand: Iterable[int | str] | str,
    table: Iterable[int | str] | str | None = None,
    must_include: int | str | None = None,
) -> list[list[Card]]:
    """Every legal play from ``hand`` on ``table`` (``None`` or empty: leading), as cards."""
    t = None
    if table is not None:
        ts = _strengths(table)
        if ts:
            t = classify_strengths(ts)
            if t is None:
                raise ValueError(f"not a combination: {table!r}")
    must = None if must_include is None else strength(must_include)
    return [[CARD_OF[s] for s in p] for p in plays_strengths(_strengths(hand), t, must)]

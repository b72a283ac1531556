"""What the rules engines share: checking and naming actions, copying a state, dealing
from stacked decks, and (for the games of lives, Schnauz and Scat) seats going out, the
stock and the redeal of hidden cards.

No gymnasium or PettingZoo import, like the engines themselves. Each game's state class
subclasses :class:`EngineState` (Thirteen) or :class:`LivesState` (Schnauz, Scat) and
keeps its own rules: ``legal_actions``, ``apply``, ``action_to_string``, the rounds.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from functools import cache
from typing import Any, ClassVar, TypeVar

import numpy as np

from schnauz_env.cards import Card, validate_deck

S = TypeVar("S", bound="EngineState")
L = TypeVar("L", bound="LivesState")

#: How often :meth:`LivesState.determinize` (and Thirteen's) draws a deal again that
#: contradicts what the rules tell the seat, before it keeps the last one (reached only
#: by states no game can reach: a real game's constraints hold for most deals).
MAX_DEAL_TRIES = 100


def action_index(action: Any) -> int:
    """``action`` as an ``int``: a Python or numpy integer (also a 0-d integer array).

    Anything else (a float, a string, a bool, ``None``, an array of several values)
    raises ``TypeError`` naming its type: an action is an index into the action table.
    """
    if type(action) is int:
        return action
    if isinstance(action, (np.integer, np.ndarray)) and not isinstance(action, np.bool_):
        arr = np.asarray(action)
        if arr.ndim == 0 and np.issubdtype(arr.dtype, np.integer):
            return int(arr)
        what = f"an array of shape {arr.shape} and dtype {arr.dtype}"
    else:
        what = f"{type(action).__name__} {action!r}"
    raise TypeError(f"an action must be an integer (int or numpy integer), got {what}")


#: How many masks of distinct sets of legal actions a state class keeps (each game has
#: few such sets; Thirteen's most).
MAX_MASKS = 4096


class EngineState:
    """Base of the engines' state classes (slotted; the subclass names every slot).

    A subclass sets :attr:`num_actions` and :attr:`over_phase` and holds at least
    ``current``, ``phase``, ``game_over``, ``rng``, ``config``, ``pending_decks``,
    ``deal_on_demand`` and ``awaiting_deal``.

    **Deals on demand** (``new_game(..., deal_on_demand=True)``), for adapters whose
    chance events are explicit (OpenSpiel's): when a round (Thirteen: a game) is to be
    dealt and no stacked deck is left, the state does not shuffle ``rng`` but waits,
    with :attr:`awaiting_deal` set, until :meth:`deal` hands it the deck. Off by
    default, which changes nothing.
    """

    __slots__ = ()
    #: Size of the game's action table, and the phase value of a finished game.
    num_actions: ClassVar[int]
    over_phase: ClassVar[int]
    #: The mask of each tuple of legal actions met so far (:meth:`legal_mask` copies it).
    _masks: ClassVar[dict[tuple[int, ...], np.ndarray]] = {}

    n: int
    current: int
    phase: int
    game_over: bool
    rng: np.random.Generator
    config: Any
    pending_decks: list[list[int]]
    #: Deals wait for :meth:`deal` instead of shuffling ``rng`` (see the class docstring).
    deal_on_demand: bool
    #: A deal is due and waits for :meth:`deal` (only with :attr:`deal_on_demand`).
    awaiting_deal: bool

    def legal_actions(self) -> tuple[int, ...]:
        raise NotImplementedError

    def action_to_string(self, action: int, symbols: bool = False) -> str:
        raise NotImplementedError

    def clone(self: S, rng: np.random.Generator | None = None) -> S:
        raise NotImplementedError

    def deal(self, deck: Sequence[Any]) -> Any:
        """Deal the round (Thirteen: the game) this state awaits from ``deck`` (the
        variant's cards once each, card codes or ints, first = top) and return what the
        deal decided (Scat: the result of a blitz after the deal; otherwise ``None``).

        ``RuntimeError`` unless :attr:`awaiting_deal`; ``ValueError`` saying what is
        wrong with ``deck`` (the state is left unchanged either way)."""
        if not self.awaiting_deal:
            raise RuntimeError(
                "deal() called but no deal is awaited: a state waits for one only when "
                "new_game(..., deal_on_demand=True) made it and a round is to be dealt"
            )
        self.pending_decks.append(stacked_decks(deck, None, self.config.deck_cards)[0])
        self.awaiting_deal = False
        return self._deal_awaited()

    def _wait_for_deal(self) -> bool:
        """Whether the deal due now waits for :meth:`deal` (deals on demand and no
        stacked deck left); sets :attr:`awaiting_deal` if so."""
        if self.deal_on_demand and not self.pending_decks:
            self.awaiting_deal = True
            return True
        return False

    def _deal_awaited(self) -> Any:
        """Deal the awaited round from the stacked deck :meth:`deal` just added."""
        raise NotImplementedError

    def legal_mask(self) -> np.ndarray:
        """A new ``(num_actions,)`` int8 mask: 1 exactly for the legal actions."""
        legal = self.legal_actions()
        mask = self._masks.get(legal)
        if mask is None:
            mask = np.zeros(self.num_actions, dtype=np.int8)
            mask[list(legal)] = 1
            if len(self._masks) < MAX_MASKS:
                self._masks[tuple(legal)] = mask
        return mask.copy()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._masks = {}

    def is_legal(self, action: int) -> bool:
        return action in self.legal_actions()

    def _checked(self, action: Any) -> int:
        """``action`` as an ``int`` if it is legal now; ``TypeError`` naming its type if
        it is no integer, ``ValueError`` naming the legal actions if it is not legal
        (the state is left unchanged either way)."""
        if type(action) is not int:
            action = action_index(action)
        legal = self.legal_actions()
        if action not in legal:
            self._raise_illegal(action, legal)
        return action

    def _raise_illegal(self, action: int, legal: tuple[int, ...]) -> None:
        if self.game_over or self.phase == self.over_phase:
            raise ValueError(f"action {action!r} given but the game is over; call reset()")
        names = ", ".join(f"{a} ({self.action_to_string(a)})" for a in legal)
        num = self.num_actions
        valid = 0 <= action < num
        what = "is not legal now" if valid else f"is not an action (0..{num - 1})"
        raise ValueError(
            f"action {action!r} {what} for seat {self.current}{self._where()}; "
            f"legal actions: {names}"
        )

    def _where(self) -> str:
        """Where the game stands, for the message about an illegal action."""
        return ""

    def _check_seat(self, seat: Any) -> int:
        """``seat`` as an ``int`` if it is a seat of this table; ``ValueError`` otherwise."""
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
            raise TypeError(f"seat must be an integer, got {type(seat).__name__} {seat!r}")
        if not 0 <= seat < self.n:
            raise ValueError(f"invalid seat {seat!r}: must be a seat 0..{self.n - 1}")
        return int(seat)

    def _copy(self: S, rng: np.random.Generator | None) -> S:
        """A copy sharing every slot's value, with ``rng`` or a copy of this state's
        generator; ``clone`` then copies the containers the engine changes in place."""
        cls = type(self)
        new = cls.__new__(cls)
        for name in self.__slots__:
            setattr(new, name, getattr(self, name))
        new.rng = rng if rng is not None else copy.deepcopy(self.rng)
        return new


class LivesState(EngineState):
    """Base of the games of lives (Schnauz, Scat): seats lose lives until they are out,
    the stock is ``deck[pos:]`` (top card first), and ``known[s]`` holds the cards seat
    ``s`` took face up and everyone saw it take.

    A subclass holds at least ``config``, ``n``, ``out``, ``lives``, ``hands``, ``known``,
    ``deck``, ``pos``, ``places``, ``pending_decks``, ``round``, ``dealer`` and
    ``last_result`` besides :class:`EngineState`'s, and names its phases in
    ``phase_names``.
    """

    __slots__ = ()
    phase_names: ClassVar[tuple[str, ...]]

    n: int
    out: list[bool]
    lives: list[int]
    hands: list[list[int]]
    known: list[set[int]]
    deck: list[int]
    pos: int
    places: list[float | None]
    pending_decks: list[list[int]]
    round: int
    dealer: int
    config: Any
    last_result: Any

    def _deal_awaited(self) -> Any:
        return self._start_round()  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ queries
    @property
    def active(self) -> list[int]:
        """Seats still in the game, in seat order."""
        return [s for s in range(self.n) if not self.out[s]]

    @property
    def num_active(self) -> int:
        """Seats still in the game."""
        return self.out.count(False)

    @property
    def stock(self) -> list[int]:
        """The stock, top card first."""
        return self.deck[self.pos :]

    @property
    def stock_size(self) -> int:
        return len(self.deck) - self.pos

    def next_active(self, seat: int) -> int:
        """The next seat to the left of ``seat`` that is still in the game."""
        n, out = self.n, self.out
        s = (seat + 1) % n
        while out[s]:
            s = (s + 1) % n
        return s

    # ---------------------------------------------------------------- rounds
    def _go_out(self, going_out: list[int], players: int) -> tuple[dict[int, float], list[int]]:
        """Put ``going_out`` out of a round of ``players`` seats: they share the mean of the
        worst places, and a last seat left in wins. Returns the places this decided and
        the seats still in."""
        places: dict[int, float] = {}
        if going_out:
            shared = players - (len(going_out) - 1) / 2.0
            for s in going_out:
                self.out[s] = True
                self.places[s] = shared
                places[s] = shared
        remaining = self.active
        if len(remaining) == 1:
            self.places[remaining[0]] = 1.0
            places[remaining[0]] = 1.0
        return places, remaining

    def _next_round(self, result: Any, remaining: list[int]) -> bool:
        """Record ``result`` as the round's; end the game if one seat is left or an
        episode is one round (``False``), else pass the deal to the left (``True``:
        the caller deals the next round)."""
        self.last_result = result
        self.round += 1
        if len(remaining) == 1 or self.config.episode == "round":
            self.phase = self.over_phase
            self.game_over = True
            return False
        self.dealer = self.next_active(self.dealer)
        return True

    # ------------------------------------------------------ hidden information
    def visible_hand(self, s: int, seat: int | None) -> list[int | None]:
        """Seat ``s``'s hand as ``seat`` sees it (``None``: a spectator seeing every hand):
        the cards ``s`` is known to hold first, then ``None`` for each card ``seat``
        cannot see (their order would tell more than the table knows)."""
        hand = self.hands[s]
        if seat is None or s == seat:
            return list(hand)
        known = [c for c in hand if c in self.known[s]]
        return [*known, *([None] * (len(hand) - len(known)))]

    def unseen_cards(self, seat: int) -> list[int]:
        """Cards of this round ``seat`` cannot locate: others' unknown cards and the stock."""
        hidden = list(self.deck[self.pos :])
        for s in range(self.n):
            if s != seat and not self.out[s]:
                hidden.extend(c for c in self.hands[s] if c not in self.known[s])
        return sorted(hidden)

    def sealed_seats(self, seat: int) -> list[int]:
        """Opponents of ``seat`` whose hands the rules say cannot end the round now: the
        game checks a hand when it is dealt or changed, and ends the round on a hand
        that ends it (Schnauz's Fire or Schnauz, Scat's blitz). A fact every seat knows,
        which :meth:`determinize` keeps. The base class knows of none."""
        return []

    def ends_round(self, hand: list[int]) -> bool:
        """Whether ``hand`` would end the round at once when checked (see :meth:`sealed_seats`)."""
        return False

    def determinize(self: L, seat: int, rng: np.random.Generator) -> L:
        """A copy in which every card ``seat`` cannot see is redealt at random.

        Other players' unknown hand cards and the stock are shuffled among
        themselves; everything ``seat`` knows (its own hand, the face-up cards, the
        cards others are known to hold, lives, counts) is kept, and so is what the
        rules tell it: no hand of :meth:`sealed_seats` ends the round (a deal that
        breaks this is drawn again, at most :data:`MAX_DEAL_TRIES` times). The copy
        depends on ``seat``'s information and ``rng`` only: the cards dealt from the deck
        (``deck[:pos]``, which hold the others' starting hands and blind draws) are
        the same cards with the hidden ones replaced, in card order; and the copy uses
        ``rng`` for everything random from then on (later rounds' shuffles and the
        round's extra deals, which :func:`round_rng` seeds from the deck). This is the
        sampling step of information-set search.
        """
        seat = self._check_seat(seat)
        known = self.known
        hidden_seats = [s for s in range(self.n) if s != seat and not self.out[s]]
        hidden_old = {c for s in hidden_seats for c in self.hands[s] if c not in known[s]}
        pool = self.unseen_cards(seat)
        sealed = self.sealed_seats(seat)
        for _ in range(MAX_DEAL_TRIES):
            order = rng.permutation(len(pool))
            shuffled = [pool[i] for i in order]
            hands: dict[int, list[int]] = {}
            k = 0
            for s in hidden_seats:
                hand = [c for c in self.hands[s] if c in known[s]]
                m = len(self.hands[s]) - len(hand)
                hands[s] = sorted([*hand, *shuffled[k : k + m]])
                k += m
            if not any(self.ends_round(hands[s]) for s in sealed):
                break
        new = self.clone(rng=rng)
        for s, hand in hands.items():
            new.hands[s] = hand
        dealt = [c for c in self.deck[: self.pos] if c not in hidden_old]
        dealt.extend(shuffled[:k])
        new.deck = sorted(dealt) + shuffled[k:]
        new.pending_decks = []
        return new

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(round={self.round}, "
            f"phase={self.phase_names[self.phase]!r}, current={self.current}, "
            f"dealer={self.dealer}, lives={self.lives}, out={self.out})"
        )


# --------------------------------------------------------------- new_game options
def first_dealer(config: Any, rng: np.random.Generator, dealer: Any) -> int:
    """The first dealer: ``dealer``, else ``config.first_dealer``, else drawn from ``rng``.

    The draw is made whoever deals, so a seed fixes the decks either way; an invalid
    ``dealer`` raises ``ValueError`` before anything is drawn."""
    n = config.num_players
    if dealer is not None and (
        isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n
    ):
        raise ValueError(f"invalid dealer {dealer!r}: must be a seat 0..{n - 1}")
    drawn = int(rng.integers(n))
    if dealer is None:
        dealer = config.first_dealer if config.first_dealer is not None else drawn
    return int(dealer)


def stacked_decks(deck: Any, decks: Any, cards: Sequence[Card]) -> list[list[int]]:
    """The decks to deal before any shuffle: ``deck``, then each of ``decks`` (each
    exactly ``cards`` once, top first); ``ValueError`` saying what is wrong otherwise."""
    stacked: list[list[int]] = []
    if deck is not None:
        stacked.append([int(c) for c in validate_deck(deck, cards, "stacked deck")])
    if decks is not None:
        if isinstance(decks, str) or not isinstance(decks, (list, tuple)):
            raise ValueError("decks must be a list of stacked decks (lists of card codes)")
        for k, d in enumerate(decks):
            stacked.append([int(c) for c in validate_deck(d, cards, f"deck {k}")])
    return stacked


def seat_counts(values: Any, n: int, name: str) -> list[int]:
    """``values`` (a list of one integer >= 0 per seat, e.g. starting lives) as ints;
    ``ValueError`` naming ``name`` otherwise (a dict, a single number or a string is
    not such a list)."""
    if not isinstance(values, (list, tuple, np.ndarray)):
        raise ValueError(
            f"{name} must list {n} integers >= 0 (one per seat) in a list, "
            f"got {type(values).__name__} {values!r}"
        )
    if len(values) != n or any(
        not isinstance(x, (int, np.integer)) or isinstance(x, bool) or x < 0 for x in values
    ):
        raise ValueError(f"{name} must list {n} integers >= 0 (one per seat), got {values!r}")
    return [int(x) for x in values]


def shuffled_deck(cards: Sequence[Card], rng: np.random.Generator) -> list[int]:
    """``cards`` in the order of one permutation drawn from ``rng`` (first = top)."""
    deck = list(_card_ints(cards)) if type(cards) is tuple else [int(c) for c in cards]
    # In place, the same swaps as rng.permutation(len(cards)) makes (the same draws): the
    # deck is cards[perm[0]], cards[perm[1]], … as it always was, three times faster.
    rng.shuffle(deck)
    return deck


@cache
def _card_ints(cards: tuple[Card, ...]) -> tuple[int, ...]:
    """``cards`` as plain ints (a variant's deck is one tuple, converted once)."""
    return tuple(int(c) for c in cards)


def round_rng(round_number: int, deck: Sequence[int]) -> np.random.Generator:
    """The generator of a round's extra deals (Schnauz replays, Scat tie-breaks).

    Seeded from the round's number and deck, never drawn from the game's generator, so
    a seed fixes every round's deck whatever the players do (RULES.md, environment
    conventions), and the extra deals are as unpredictable as the undealt stock."""
    return np.random.default_rng([round_number, *deck])


def next_deck(
    pending: list[list[int]], rng: np.random.Generator, cards: Sequence[Card]
) -> list[int]:
    """The next deck to deal: the next stacked one (taken from ``pending``), else
    ``cards`` shuffled by ``rng``."""
    if pending:
        return pending.pop(0)
    return shuffled_deck(cards, rng)

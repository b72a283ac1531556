"""The Scat rules engine: a game state and its transitions (RULES.md §2).

No gymnasium or PettingZoo import: the AEC environment, the policies and the
evaluation harness all drive this one module.

Typical use::

    import numpy as np
    from schnauz_env.scat import ScatConfig, new_game

    state = new_game(ScatConfig(num_players=4), np.random.default_rng(0))
    while not state.game_over:
        state.apply(state.legal_actions()[0])

Actions (one ``Discrete(9)`` table, see :data:`ACTION_NAMES`). A turn takes two
actions: a draw, then a discard.

======  =======================================================================
0       draw the top card of the stock
1       draw the top card of the discard pile
2..6    discard hand slot ``i`` (action ``2 + i``; slots 0..3, or 0..4 in
        four-card Scat, since the hand holds one card more after the draw)
7       knock (instead of drawing; before anyone knocked)
8       pass: after a knock, *stay* (your final turn without drawing); before a
        knock, only while the stock is empty, and it ends the round at once
======  =======================================================================

Slots: a hand is kept sorted by card index (rank-major: ``2C 2S 2H 2D 3C …``), so
slot 0 holds the lowest card. Cards are plain ints (``rank * 4 + suit``, see
:mod:`schnauz_env.cards`). The stock is ``deck[pos:]`` with the top card first;
the discard pile is a list with its top card last.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schnauz_env.cards import ALL_CARDS, format_card, format_cards, parse_card
from schnauz_env.common.engine import (
    LivesState,
    first_dealer,
    next_deck,
    round_rng,
    seat_counts,
    stacked_decks,
)
from schnauz_env.scat.config import ScatConfig
from schnauz_env.scat.hands import hand_label, hand_value

#: The public names of the engine (the package re-exports them).
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
    "RoundResult",
    "ScatState",
    "discard_action",
    "new_game",
    "stack_deck",
]

DRAW_STOCK, DRAW_DISCARD = 0, 1
DISCARD_BASE = 2
KNOCK, PASS = 7, 8
NUM_ACTIONS = 9
MAX_DISCARD_SLOTS = 5

ACTION_NAMES: tuple[str, ...] = (
    "draw stock",
    "draw discard",
    *(f"discard slot {i}" for i in range(MAX_DISCARD_SLOTS)),
    "knock",
    "pass",
)


#: Phases of a round: turns before a knock, the final turns after it, over.
TURNS, FINAL_TURNS, OVER = 0, 1, 2
PHASE_NAMES = ("turns", "final turns", "over")
#: Steps of a turn.
DRAW, DISCARD = 0, 1

#: Why a round ended (``RoundResult.reason``).
REASONS = ("blitz_deal", "blitz", "knock", "empty_stock", "turn_limit")


def discard_action(slot: int) -> int:
    """The action that discards hand slot ``slot`` (0 = the lowest card by index)."""
    return DISCARD_BASE + slot


def _draw_step_actions(final: bool, stock_empty: bool, knock_ok: bool) -> tuple[int, ...]:
    legal = [] if stock_empty else [DRAW_STOCK]
    legal.append(DRAW_DISCARD)
    if not final and knock_ok:
        legal.append(KNOCK)
    if final or stock_empty:
        legal.append(PASS)
    return tuple(legal)


#: (final turn, stock empty, knock allowed) -> the legal actions at the draw step.
DRAW_LEGAL: dict[tuple[bool, bool, bool], tuple[int, ...]] = {
    (f, e, k): _draw_step_actions(f, e, k)
    for f in (False, True)
    for e in (False, True)
    for k in (False, True)
}
#: Hand size -> the legal actions at the discard step (any of the hand size + 1 cards).
DISCARD_LEGAL: dict[int, tuple[int, ...]] = {
    size: tuple(range(DISCARD_BASE, DISCARD_BASE + size + 1)) for size in (3, 4)
}


def may_knock(knock_on_first_turn: bool, turns: int, players: int) -> bool:
    """The first-turn rule of knocking: with ``knock_on_first_turn`` any turn, else only
    once ``turns`` (turns played this round) reaches the ``players`` still in the game,
    i.e. not on one's own first turn of the round."""
    return knock_on_first_turn or turns >= players


def round_reward(lost: int, total: int, winners: int, players: int) -> float:
    """A seat's reward in a single-round episode (``episode="round"``).

    The seat lost ``lost`` lives; the ``players`` seats of the round lost ``total``, and
    ``winners`` of them lost none. A loser gets minus its loss and the winners share the
    total equally; if everyone lost, each gets the mean loss minus its own (zero-sum).
    """
    if total == 0:
        return 0.0
    if winners:
        return -float(lost) if lost else total / winners
    return total / players - lost


@dataclass
class RoundResult:
    """What a round's end revealed and decided; ``to_dict()`` gives card codes for logs."""

    round: int
    reason: str
    """``"blitz_deal"`` (31 right after the deal), ``"blitz"`` (31 after a discard),
    ``"knock"`` (the final turns after a knock are done), ``"empty_stock"`` (a knock or
    pass while the stock was empty) or ``"turn_limit"``."""
    hands: dict[int, list[int]]
    values: dict[int, float]
    labels: dict[int, str]
    losses: dict[int, int]
    """Lives lost by each seat that lost (1, or 2 for a knocker strictly lowest)."""
    went_out: list[int]
    """Seats eliminated by this round (after buy-ins and any tie-break deal)."""
    lives_after: list[int]
    out_after: list[bool]
    knocker: int | None = None
    blitz_holders: list[int] = field(default_factory=list)
    bought_in: list[int] = field(default_factory=list)
    """Seats that were eliminated but re-entered with full lives (buy-in variant)."""
    tie_break: list[dict[int, list[str]]] = field(default_factory=list)
    """Showdown-only deals played because the last players were all eliminated."""
    turn_limit_reached: bool = False
    round_places: dict[int, float] = field(default_factory=dict)
    """Final places decided by this round (1 = winner; shared places are averaged)."""
    then: RoundResult | None = None
    """The next round, when it too ended at once, on its deal (a blitz after the deal)."""

    @property
    def seats(self) -> list[int]:
        """The seats that played the round."""
        return list(self.hands)

    @property
    def losers(self) -> list[int]:
        """Seats that lost at least one life."""
        return sorted(self.losses)

    @property
    def places(self) -> dict[int, float]:
        """Final places decided by this round and by the rounds chained after it."""
        merged = dict(self.round_places)
        nxt = self.then
        while nxt is not None:
            merged.update(nxt.round_places)
            nxt = nxt.then
        return merged

    def chain(self) -> list[RoundResult]:
        """This result and the rounds that ended on their deal right after it."""
        out = [self]
        while out[-1].then is not None:
            out.append(out[-1].then)  # type: ignore[arg-type]
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "reason": self.reason,
            "hands": {
                s: {
                    "cards": format_cards(c).split(),
                    "value": self.values[s],
                    "label": self.labels[s],
                }
                for s, c in self.hands.items()
            },
            "losses": dict(self.losses),
            "losers": self.losers,
            "went_out": list(self.went_out),
            "bought_in": list(self.bought_in),
            "lives_after": list(self.lives_after),
            "out_after": list(self.out_after),
            "knocker": self.knocker,
            "blitz_holders": list(self.blitz_holders),
            "tie_break": self.tie_break,
            "turn_limit_reached": self.turn_limit_reached,
            "places": dict(self.round_places),
            "then": self.then.to_dict() if self.then is not None else None,
        }


class ScatState(LivesState):
    """The full state of a Scat game (everything, hidden cards included).

    Mutable for speed: :meth:`apply` changes it in place; :meth:`clone` copies it.
    Use :func:`new_game` to create one.
    """

    __slots__ = (
        "awaiting_deal",
        "buy_ins_used",
        "config",
        "current",
        "deal_on_demand",
        "dealer",
        "deck",
        "final_left",
        "game_over",
        "hands",
        "knocker",
        "known",
        "last_result",
        "lives",
        "max_lives",
        "n",
        "opening_result",
        "out",
        "pending_decks",
        "phase",
        "pile",
        "places",
        "pos",
        "rng",
        "round",
        "step",
        "turns",
    )
    num_actions = NUM_ACTIONS
    over_phase = OVER
    phase_names = PHASE_NAMES

    def __init__(self, config: ScatConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.n = config.num_players
        self.rng = rng
        self.lives = [config.lives] * self.n
        #: The most lives any seat started with (``config.lives`` unless ``new_game``'s
        #: ``lives`` gave more): the observation's scale of lives.
        self.max_lives = config.lives
        self.out = [False] * self.n
        self.buy_ins_used = [0] * self.n
        self.dealer = 0
        self.current = 0
        self.phase = OVER
        self.step = DRAW
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self.deck: list[int] = []
        self.pos = 0
        self.pile: list[int] = []
        self.known: list[set[int]] = [set() for _ in range(self.n)]
        self.knocker: int | None = None
        self.turns = 0
        self.final_left = 0
        self.round = 0
        self.places: list[float | None] = [None] * self.n
        self.game_over = False
        self.pending_decks: list[list[int]] = []
        self.deal_on_demand = False
        self.awaiting_deal = False
        self.last_result: RoundResult | None = None
        self.opening_result: RoundResult | None = None

    # ------------------------------------------------------------------ queries
    @property
    def on_the_bus(self) -> list[bool]:
        """Per seat: still in the game with no lives left."""
        return [not o and x == 0 for o, x in zip(self.out, self.lives, strict=True)]

    @property
    def discard_top(self) -> int | None:
        return self.pile[-1] if self.pile else None

    def knock_allowed(self) -> bool:
        """A knock is legal now: a draw step before any knock, and (unless the option
        allows it) not the player's first turn of the round."""
        return (
            self.phase == TURNS
            and self.step == DRAW
            and may_knock(self.config.knock_on_first_turn, self.turns, self.num_active)
        )

    def legal_actions(self) -> tuple[int, ...]:
        """The legal actions of the player to act (empty when the game is over)."""
        phase = self.phase
        if phase == OVER:
            return ()
        if self.step == DISCARD:
            return DISCARD_LEGAL[self.config.hand_size]
        return DRAW_LEGAL[
            (
                phase == FINAL_TURNS,
                self.pos >= len(self.deck),
                may_knock(self.config.knock_on_first_turn, self.turns, self.num_active),
            )
        ]

    def sealed_seats(self, seat: int) -> list[int]:
        """The deal and every discard before a knock check the hand: nobody who has not
        drawn since then holds a blitz. Before a knock that is everyone but a player
        between draw and discard; after it, the knocker and the players whose final
        turn has not begun (a discard after the knock is not checked)."""
        if self.phase == TURNS:
            seats = self.active
        elif self.phase == FINAL_TURNS:
            seats = [] if self.knocker is None else [self.knocker]
            s = self.current
            for _ in range(self.final_left):
                seats.append(s)
                s = self.next_active(s)
        else:
            return []
        busy = self.current if self.step == DISCARD else None
        return [s for s in seats if s != seat and s != busy]

    def ends_round(self, hand: list[int]) -> bool:
        """A blitz (31, or 41 in four-card Scat, in one suit): the round ends at once."""
        cfg = self.config
        return len(hand) == cfg.hand_size and hand_value(hand, False) == cfg.blitz_value

    def hand_value(self, seat: int) -> float:
        """The value of ``seat``'s hand under this game's rules."""
        return hand_value(self.hands[seat], self.config.trinca)

    def action_to_string(self, action: int, symbols: bool = False) -> str:
        """Name ``action`` in this state, e.g. ``"draw 7♣ from the discard pile"``."""
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            return f"invalid action {action}"
        if self.phase == OVER:
            return ACTION_NAMES[action]
        if action == DRAW_DISCARD and self.pile and self.step == DRAW:
            return f"draw {format_card(self.pile[-1], symbols)} from the discard pile"
        hand = self.hands[self.current]
        if DISCARD_BASE <= action < KNOCK and self.step == DISCARD:
            i = action - DISCARD_BASE
            if i < len(hand):
                return f"discard {format_card(hand[i], symbols)}"
        if action == PASS:
            return "stay" if self.phase == FINAL_TURNS else "pass (the stock is empty)"
        return ACTION_NAMES[action]

    # ------------------------------------------------------------- transitions
    def apply(self, action: int) -> RoundResult | None:
        """Play ``action`` for the player to act; return the result if it ended a round.

        Raises ``ValueError`` naming the action and the legal ones if it is illegal.
        When the next round ends at once on its deal (a blitz after the deal), its
        result is chained as ``result.then``.
        """
        action = self._checked(action)
        seat = self.current
        hand = self.hands[seat]
        if self.step == DISCARD:
            card = hand.pop(action - DISCARD_BASE)
            self.pile.append(card)
            self.known[seat].discard(card)
            self.step = DRAW
            if self.phase == TURNS and hand_value(hand, False) == self.config.blitz_value:
                return self._end_round("blitz", [seat])
            return self._end_turn(seat)
        if action == DRAW_STOCK:
            hand.append(self.deck[self.pos])
            self.pos += 1
            hand.sort()
            self.step = DISCARD
            return None
        if action == DRAW_DISCARD:
            card = self.pile.pop()
            hand.append(card)
            hand.sort()
            self.known[seat].add(card)
            self.step = DISCARD
            return None
        stock_empty = self.pos >= len(self.deck)
        if action == KNOCK:
            self.knocker = seat
            self.turns += 1
            if stock_empty:
                return self._end_round("empty_stock")
            self.phase = FINAL_TURNS
            self.final_left = self.num_active - 1
            self.current = self.next_active(seat)
            return None
        # PASS: stay on a final turn, or end the round while the stock is empty
        if self.phase == TURNS:
            self.turns += 1
            return self._end_round("empty_stock")
        return self._end_turn(seat)

    def _end_turn(self, seat: int) -> RoundResult | None:
        self.turns += 1
        if self.phase == FINAL_TURNS:
            self.final_left -= 1
            if self.final_left == 0:
                return self._end_round("knock")
        elif self.turns >= self.config.max_turns:
            return self._end_round("turn_limit")
        self.current = self.next_active(seat)
        return None

    def _where(self) -> str:
        step = "draw" if self.step == DRAW else "discard"
        return f" at the {step} step of phase {PHASE_NAMES[self.phase]!r}"

    # ---------------------------------------------------------------- rounds
    def _next_deck(self) -> list[int]:
        return next_deck(self.pending_decks, self.rng, ALL_CARDS)

    def _deal_order(self, seats: Iterable[int]) -> list[int]:
        """``seats`` in dealing order: starting left of the dealer, around the table."""
        d, n = self.dealer, self.n
        return sorted(seats, key=lambda s: (s - d - 1) % n)

    def _start_round(self) -> RoundResult | None:
        """Deal a round; if anyone holds a blitz after the deal, end it at once."""
        if self._wait_for_deal():
            return None
        deck = self._next_deck()
        self.deck = deck
        order = self._deal_order(self.active)
        hands: list[list[int]] = [[] for _ in range(self.n)]
        pos = 0
        for _ in range(self.config.hand_size):
            for s in order:
                hands[s].append(deck[pos])
                pos += 1
        for h in hands:
            h.sort()
        self.hands = hands
        self.pile = [deck[pos]]
        self.pos = pos + 1
        self.known = [set() for _ in range(self.n)]
        self.knocker = None
        self.turns = 0
        self.final_left = 0
        self.phase = TURNS
        self.step = DRAW
        self.current = self.next_active(self.dealer)
        target = self.config.blitz_value
        holders = [s for s in order if hand_value(hands[s], False) == target]
        if holders:
            return self._end_round("blitz_deal", sorted(holders))
        return None

    def _end_round(self, reason: str, blitz_holders: list[int] | None = None) -> RoundResult:
        cfg = self.config
        seats = self.active
        values = {s: hand_value(self.hands[s], cfg.trinca) for s in seats}
        losses: dict[int, int] = {}
        if blitz_holders:
            losses = {s: 1 for s in seats if s not in blitz_holders}
        else:
            low = min(values.values())
            lowest = [s for s in seats if values[s] == low]
            k = self.knocker
            if k is not None and k in lowest:
                if len(lowest) == 1:
                    losses[k] = 2  # a knocker strictly lowest pays double
                else:
                    losses = {s: 1 for s in lowest if s != k}  # a tied knocker is safe
            else:
                losses = {s: 1 for s in lowest}
        # Lives run 3, 2, 1, 0 (on the bus), then out: a loss of two counts two steps.
        eliminated = []
        for s, lost in losses.items():
            self.lives[s] -= lost
            if self.lives[s] < 0:
                eliminated.append(s)
        bought_in = [s for s in eliminated if self.buy_ins_used[s] < cfg.buy_ins]
        for s in bought_in:
            self.buy_ins_used[s] += 1
            self.lives[s] = cfg.lives
        going_out = [s for s in eliminated if s not in bought_in]
        tie_break: list[dict[int, list[str]]] = []
        if len(going_out) == len(seats) >= 2:
            loser = self._tie_break(going_out, tie_break)
            for s in going_out:
                self.lives[s] = 0  # the survivors of the tie-break stay on the bus
            going_out = [loser]
        for s in going_out:
            self.lives[s] = 0
        round_places, remaining = self._go_out(going_out, len(seats))
        result = RoundResult(
            round=self.round,
            reason=reason,
            hands={s: list(self.hands[s]) for s in seats},
            values=values,
            labels={s: hand_label(self.hands[s], cfg.trinca) for s in seats},
            losses=losses,
            went_out=sorted(going_out),
            lives_after=list(self.lives),
            out_after=list(self.out),
            knocker=self.knocker,
            blitz_holders=list(blitz_holders or []),
            bought_in=sorted(bought_in),
            tie_break=tie_break,
            turn_limit_reached=reason == "turn_limit",
            round_places=round_places,
        )
        if self._next_round(result, remaining):
            result.then = self._start_round()
            self.last_result = result  # the head of the chain, with any deal blitz as .then
        return result

    def _tie_break(self, seats: list[int], log: list[dict[int, list[str]]]) -> int:
        """Showdown-only deals among ``seats``; the lowest loses, ties deal again
        among those tied for lowest. Dealt like a round (one card at a time from the
        left of the dealer) from the next stacked deck, else a shuffle drawn from the
        round's own generator (:func:`round_rng`), never from the game's: a seed fixes
        every round's deck whatever the players do."""
        size, trinca = self.config.hand_size, self.config.trinca
        rng = round_rng(self.round, self.deck)
        while True:
            deck = next_deck(self.pending_decks, rng, ALL_CARDS)
            order = self._deal_order(seats)
            hands: dict[int, list[int]] = {s: [] for s in order}
            for k in range(size * len(order)):
                hands[order[k % len(order)]].append(deck[k])
            values = {s: hand_value(h, trinca) for s, h in hands.items()}
            low = min(values.values())
            lowest = [s for s in order if values[s] == low]
            log.append({s: format_cards(sorted(h)).split() for s, h in hands.items()})
            if len(lowest) == 1:
                return lowest[0]
            seats = lowest

    # -------------------------------------------------------------- copying
    def clone(self, rng: np.random.Generator | None = None) -> ScatState:
        """A deep copy; the copy gets ``rng`` or a copy of this state's generator."""
        new = self._copy(rng)
        new.lives = list(self.lives)
        new.out = list(self.out)
        new.buy_ins_used = list(self.buy_ins_used)
        new.hands = [list(h) for h in self.hands]
        new.deck = list(self.deck)
        new.pile = list(self.pile)
        new.known = [set(k) for k in self.known]
        new.places = list(self.places)
        new.pending_decks = [list(d) for d in self.pending_decks]
        return new


def new_game(
    config: ScatConfig,
    rng: np.random.Generator,
    deck: list[Any] | None = None,
    dealer: int | None = None,
    decks: list[list[Any]] | None = None,
    lives: list[int] | None = None,
    deal_on_demand: bool = False,
) -> ScatState:
    """Start a game: draw (or set) the first dealer and deal the first round.

    ``rng`` is the only source of randomness: it draws the first dealer (unless
    ``dealer`` or ``config.first_dealer`` sets it), then shuffles once per round;
    tie-break deals shuffle with the round's own generator (:func:`round_rng`), so a
    seed fixes every round's deck whatever the players do. ``deck`` stacks the first
    round (52 card codes, first = top); ``decks`` stacks the following deals in turn
    (later rounds, then tie-break deals). ``lives`` sets each seat's starting lives
    (for puzzles and tests: e.g. everyone on the bus); the observation then scales
    lives by the most any seat starts with. Every option is checked before ``rng`` is
    used.

    If the first deal already ends the round (a blitz after the deal), the state is
    in the next round and the result is ``state.opening_result``. With
    ``deal_on_demand`` a round with no stacked deck left (the first too) waits for
    ``state.deal(deck)`` instead of a shuffle, and a blitz after that deal is what
    ``deal`` returns (:class:`~schnauz_env.common.engine.EngineState`; for OpenSpiel's
    explicit chance).
    """
    state = ScatState(config, rng)
    state.deal_on_demand = bool(deal_on_demand)
    # Every option is checked before the first draw: a refused game leaves rng untouched.
    state.pending_decks = stacked_decks(deck, decks, ALL_CARDS)
    if lives is not None:
        state.lives = seat_counts(lives, config.num_players, "lives")
        state.max_lives = max(config.lives, *state.lives)
    state.dealer = first_dealer(config, rng, dealer)
    state.opening_result = state._start_round()
    return state


def stack_deck(
    hands: Mapping[int, str | Iterable[str]],
    discard: str | None = None,
    stock: str | Iterable[str] = (),
    dealer: int = 0,
) -> list[str]:
    """A stacked deck (52 card codes, top first) that deals ``hands`` (RULES.md
    "Stacked decks": one card at a time to each player, starting left of the dealer,
    three times around, four in four-card Scat).

    ``hands`` maps every seat in the round to its cards (codes, e.g. ``"AS KS 9S"``);
    ``discard`` is the card that starts the discard pile; ``stock`` lists the next
    stock cards, top first. The rest of the deck follows in card order. For puzzles
    and tests::

        deck = stack_deck({0: "AH KH 9H", 1: "2C 5D 8S"}, discard="3C", stock="QH")
    """

    def split(x: str | Iterable[str]) -> list[str]:
        return x.replace(",", " ").split() if isinstance(x, str) else list(x)

    n = max(hands) + 1 if hands else 0
    n = max(n, dealer + 1)
    order = sorted(hands, key=lambda s: (s - dealer - 1) % n)
    per_seat = {s: split(hands[s]) for s in order}
    sizes = {len(c) for c in per_seat.values()}
    if len(sizes) > 1:
        raise ValueError(f"every stacked hand needs the same number of cards, got {per_seat}")
    size = sizes.pop() if sizes else 0
    top = [per_seat[s][k] for k in range(size) for s in order]
    if discard is not None:
        top.append(discard)
    top += split(stock)
    parsed = [int(parse_card(c)) for c in top]
    if len(set(parsed)) != len(parsed):
        raise ValueError(f"a card is stacked twice: {' '.join(top)}")
    rest = [c for c in range(52) if c not in set(parsed)]
    return [format_card(c) for c in parsed + rest]

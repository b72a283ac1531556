"""The Schnauz rules engine: a game state and its transitions (RULES.md §1).

No gymnasium or PettingZoo import: the AEC environment, the policies, the search
player and the user interfaces all drive this one module.

Typical use::

    import numpy as np
    from schnauz_env.schnauz import SchnauzConfig, new_game

    state = new_game(SchnauzConfig(num_players=3), np.random.default_rng(0))
    while not state.game_over:
        state.apply(state.legal_actions()[0])

Actions (one ``Discrete(14)`` table, see :data:`ACTION_NAMES`):

======  =======================================================================
0       keep (dealer's choice: three stock cards go face up as the table)
1       exchange (dealer's choice: the hand goes face up, three stock cards in hand)
2..10   swap hand slot ``i`` with table slot ``j``: action ``2 + 3 * i + j``
11      swap all (whole hand for the whole table)
12      pass
13      knock
======  =======================================================================

Slots: a hand and the table are kept sorted by card index (rank-major: ``7C 7S 7H
7D 8C …``), so slot 0 holds the lowest card, slot 2 the highest. After a swap both
are sorted again.

Cards are plain ints (``rank * 4 + suit``, see :mod:`schnauz_env.cards`). The stock
is ``deck[pos:]`` with the top card first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schnauz_env.cards import CODES, format_card, format_cards
from schnauz_env.common.engine import (
    LivesState,
    first_dealer,
    next_deck,
    round_rng,
    seat_counts,
    shuffled_deck,
    stacked_decks,
)
from schnauz_env.schnauz.config import SchnauzConfig
from schnauz_env.schnauz.hands import FIRE_KEY, INSTANT_KEY, hand_key, hand_label, key_of

#: The public names of the engine (the package re-exports them).
__all__ = [
    "ACTION_NAMES",
    "DEALER_CHOICE",
    "EXCHANGE",
    "FINAL_CIRCLE",
    "KEEP",
    "KNOCK",
    "NUM_ACTIONS",
    "OVER",
    "PASS",
    "SWAP_ALL",
    "TURNS",
    "RoundResult",
    "SchnauzState",
    "new_game",
    "swap_action",
]

KEEP, EXCHANGE = 0, 1
SWAP_BASE = 2
SWAP_ALL, PASS, KNOCK = 11, 12, 13
NUM_ACTIONS = 14

ACTION_NAMES: tuple[str, ...] = (
    "keep",
    "exchange",
    *(f"swap hand {i} / table {j}" for i in range(3) for j in range(3)),
    "swap all",
    "pass",
    "knock",
)


#: Phases of a round.
DEALER_CHOICE, TURNS, FINAL_CIRCLE, OVER = 0, 1, 2, 3
PHASE_NAMES = ("dealer's choice", "turns", "final circle", "over")
#: Why a round ends (:attr:`RoundResult.reason`).
REASONS = ("knock", "instant", "short_stock", "turn_limit")


def swap_action(hand_slot: int, table_slot: int) -> int:
    """The action that swaps hand slot ``hand_slot`` with table slot ``table_slot``."""
    return SWAP_BASE + 3 * hand_slot + table_slot


def swap_slots(action: int) -> tuple[int, int]:
    """``(hand slot, table slot)`` of swap action ``action`` (the inverse of :func:`swap_action`)."""
    return divmod(action - SWAP_BASE, 3)


def may_knock(phase: int, knock_in_first_circle: bool, turns: int, num_active: int) -> bool:
    """The knock rule: only on a turn before anyone knocked, and not in the first circle
    of turns unless ``knock_in_first_circle`` (``turns`` taken this round so far, by
    ``num_active`` players). Plain Python that numba compiles (the batched engine's too).
    """
    if phase != TURNS:
        return False
    if knock_in_first_circle:
        return True
    return turns >= num_active


_SWAPS = tuple(range(SWAP_BASE, SWAP_BASE + 9))
_LEGAL_DEALER = (KEEP, EXCHANGE)
_LEGAL_TURN = (*_SWAPS, SWAP_ALL, PASS, KNOCK)
_LEGAL_TURN_NO_KNOCK = (*_SWAPS, SWAP_ALL, PASS)


@dataclass
class RoundResult:
    """What a showdown revealed and decided; ``to_dict()`` gives card codes for logs."""

    round: int
    reason: str
    """``"knock"``, ``"instant"`` (Fire or Schnauz after the deal or a swap),
    ``"short_stock"`` or ``"turn_limit"``."""
    hands: dict[int, list[int]]
    keys: dict[int, int]
    labels: dict[int, str]
    losers: list[int]
    """Seats that lost a life or went out."""
    went_out: list[int]
    lives_after: list[int]
    out_after: list[bool]
    knocker: int | None = None
    fire_holder: int | None = None
    turn_limit_reached: bool = False
    replays: list[dict[str, Any]] = field(default_factory=list)
    """Showdown-only deals played when a showdown would have left nobody in the game."""
    places: dict[int, float] = field(default_factory=dict)
    """Final places decided by this round (1 = winner; shared places are averaged)."""

    @property
    def seats(self) -> list[int]:
        """The seats that played the round."""
        return list(self.hands)

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "reason": self.reason,
            "hands": {
                s: {"cards": [CODES[x] for x in c], "label": self.labels[s]}
                for s, c in self.hands.items()
            },
            "losers": list(self.losers),
            "went_out": list(self.went_out),
            "lives_after": list(self.lives_after),
            "out_after": list(self.out_after),
            "knocker": self.knocker,
            "fire_holder": self.fire_holder,
            "turn_limit_reached": self.turn_limit_reached,
            "replays": self.replays,
            "places": dict(self.places),
        }


class SchnauzState(LivesState):
    """The full state of a Schnauz game (everything, hidden cards included).

    Mutable for speed: :meth:`apply` changes it in place; :meth:`clone` copies it.
    Use :func:`new_game` to create one.
    """

    __slots__ = (
        "_min_card",
        "awaiting_deal",
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
        "out",
        "out_of_play",
        "passes",
        "pending_decks",
        "phase",
        "places",
        "pos",
        "rng",
        "round",
        "table",
        "turns",
    )
    num_actions = NUM_ACTIONS
    over_phase = OVER
    phase_names = PHASE_NAMES

    def __init__(self, config: SchnauzConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.n = config.num_players
        self.rng = rng
        self.lives = [config.lives] * self.n
        self.out = [False] * self.n
        self.dealer = 0
        self.current = 0
        self.phase = OVER
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self.table: list[int] = []
        self.deck: list[int] = []
        self.pos = 0
        self.out_of_play: list[int] = []
        self.known: list[set[int]] = [set() for _ in range(self.n)]
        self.knocker: int | None = None
        self.passes = 0
        self.turns = 0
        self.final_left = 0
        self.round = 0
        self.places: list[float | None] = [None] * self.n
        self.game_over = False
        self.pending_decks: list[list[int]] = []
        self.deal_on_demand = False
        self.awaiting_deal = False
        self.last_result: RoundResult | None = None
        self.max_lives = config.lives
        self._min_card = 4 * config.min_rank

    # ------------------------------------------------------------------ queries
    def knock_allowed(self) -> bool:
        return may_knock(self.phase, self.config.knock_in_first_circle, self.turns, self.num_active)

    def legal_actions(self) -> tuple[int, ...]:
        """The legal actions of the player to act (empty when the game is over)."""
        phase = self.phase
        if phase == TURNS:
            knock = may_knock(phase, self.config.knock_in_first_circle, self.turns, self.num_active)
            return _LEGAL_TURN if knock else _LEGAL_TURN_NO_KNOCK
        if phase == FINAL_CIRCLE:
            return _LEGAL_TURN_NO_KNOCK
        if phase == DEALER_CHOICE:
            return _LEGAL_DEALER
        return ()

    def sealed_seats(self, seat: int) -> list[int]:
        """After the dealer's choice every hand in the round has been checked, and
        each swap checks the swapper's: nobody else in the round holds Fire or Schnauz."""
        if self.phase not in (TURNS, FINAL_CIRCLE):
            return []
        return [s for s in self.active if s != seat]

    def ends_round(self, hand: list[int]) -> bool:
        """Fire or Schnauz: the round ends at once with a showdown."""
        return key_of(*hand, False) >= INSTANT_KEY

    def action_to_string(self, action: int, symbols: bool = False) -> str:
        """Name ``action`` in this state, e.g. ``"swap 7♣ (hand) for K♥ (table)"``."""
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            return f"invalid action {action}"
        if SWAP_BASE <= action < SWAP_ALL and self.phase in (TURNS, FINAL_CIRCLE):
            i, j = divmod(action - SWAP_BASE, 3)
            hand = self.hands[self.current]
            return (
                f"swap {format_card(hand[i], symbols)} (hand) for "
                f"{format_card(self.table[j], symbols)} (table)"
            )
        if action == SWAP_ALL and self.phase in (TURNS, FINAL_CIRCLE):
            return (
                f"swap all: {format_cards(self.hands[self.current], symbols)} for "
                f"{format_cards(self.table, symbols)}"
            )
        return ACTION_NAMES[action]

    # ------------------------------------------------------------- transitions
    def apply(self, action: int) -> RoundResult | None:
        """Play ``action`` for the player to act; return the showdown result if it ended a round.

        Raises ``ValueError`` naming the action and the legal ones if it is illegal.
        """
        action = self._checked(action)
        seat = self.current
        if self.phase == DEALER_CHOICE:
            return self._dealer_choice(action)
        hands = self.hands
        if action < SWAP_ALL:  # swap one
            i, j = divmod(action - SWAP_BASE, 3)
            hand = hands[seat]
            given, taken = hand[i], self.table[j]
            hand[i] = taken
            self.table[j] = given
            hand.sort()
            self.table.sort()
            known = self.known[seat]
            known.discard(given)
            known.add(taken)
            self.passes = 0
            if self.ends_round(hand):
                return self._showdown("instant")
        elif action == SWAP_ALL:
            hands[seat], self.table = self.table, hands[seat]
            self.known[seat] = set(hands[seat])
            self.passes = 0
            if self.ends_round(hands[seat]):
                return self._showdown("instant")
        elif action == KNOCK:
            self.knocker = seat
            self.phase = FINAL_CIRCLE
            self.final_left = self.num_active
            self.passes = 0
        elif self.phase == TURNS:  # pass before any knock
            self.passes += 1
            if self.passes == self.num_active:
                result = self._all_passed()
                if result is not None:
                    return result
        self.turns += 1
        if self.phase == FINAL_CIRCLE:
            self.final_left -= 1
            if self.final_left == 0:
                return self._showdown("knock")
        if self.turns >= self.config.max_turns:
            return self._showdown("turn_limit")
        self.current = self.next_active(seat)
        return None

    def _where(self) -> str:
        return f" in phase {PHASE_NAMES[self.phase]!r}"

    def _dealer_choice(self, action: int) -> RoundResult | None:
        d = self.dealer
        fresh = self.deck[self.pos : self.pos + 3]
        self.pos += 3
        if action == KEEP:
            self.table = sorted(fresh)
        else:
            self.table = self.hands[d]
            self.hands[d] = sorted(fresh)
        for s in range(self.n):
            if not self.out[s] and self.ends_round(self.hands[s]):
                return self._showdown("instant")
        self.phase = TURNS
        self.current = self.next_active(d)
        return None

    def _all_passed(self) -> RoundResult | None:
        """A full circle of passes: refresh the table, or end the round on a short stock."""
        self.passes = 0
        if self.stock_size < 3 and self.config.short_stock == "recycle" and self.out_of_play:
            self.deck.extend(self.out_of_play)
            self.out_of_play = []
        if self.stock_size < 3:
            return self._showdown("short_stock")
        self.out_of_play.extend(self.table)
        self.table = sorted(self.deck[self.pos : self.pos + 3])
        self.pos += 3
        return None

    # ---------------------------------------------------------------- rounds
    def _start_round(self) -> None:
        if self._wait_for_deal():
            return
        deck = next_deck(self.pending_decks, self.rng, self.config.deck_cards)
        self.deck = deck
        seat = self.dealer
        pos = 0
        hands = self.hands
        for _ in range(self.num_active):
            seat = self.next_active(seat)
            hands[seat] = sorted(deck[pos : pos + 3])
            pos += 3
        for s in range(self.n):
            if self.out[s]:
                hands[s] = []
        self.pos = pos
        self.table = []
        self.out_of_play = []
        self.known = [set() for _ in range(self.n)]
        self.knocker = None
        self.passes = 0
        self.turns = 0
        self.final_left = 0
        self.phase = DEALER_CHOICE
        self.current = self.dealer

    def _showdown(self, reason: str) -> RoundResult:
        cfg = self.config
        seats = self.active
        share = cfg.ties == "share"
        keys = {s: key_of(*self.hands[s], share) for s in seats}
        fire_holder = None
        if max(keys.values()) >= FIRE_KEY:
            fire_holder = next(s for s in seats if keys[s] >= FIRE_KEY)
        if cfg.fire_costs_all and fire_holder is not None:
            losers = [s for s in seats if s != fire_holder]
        else:
            low = min(keys.values())
            losers = [s for s in seats if keys[s] == low]
        going_out = [s for s in losers if self.lives[s] == 0]
        replays: list[dict[str, Any]] = []
        if len(going_out) == len(seats):
            going_out = [self._replay(going_out, replays)]
            losers = list(going_out)
        for s in losers:
            if self.lives[s] > 0:
                self.lives[s] -= 1
        result_places, remaining = self._go_out(going_out, len(seats))
        result = RoundResult(
            round=self.round,
            reason=reason,
            hands={s: list(self.hands[s]) for s in seats},
            keys=keys,
            labels={s: hand_label(self.hands[s]) for s in seats},
            losers=losers,
            went_out=going_out,
            lives_after=list(self.lives),
            out_after=list(self.out),
            knocker=self.knocker,
            fire_holder=fire_holder,
            turn_limit_reached=reason == "turn_limit",
            replays=replays,
            places=result_places,
        )
        if self._next_round(result, remaining):
            self._start_round()
        return result

    def replay_rng(self) -> np.random.Generator:
        """The generator of this round's replay deals, seeded from the round's deck.

        Replays never draw from the game's generator, so a seed still fixes every
        round's deck whatever happens (RULES.md, environment conventions)."""
        return round_rng(self.round, self.deck)

    def _replay(self, seats: list[int], log: list[dict[str, Any]]) -> int:
        """Showdown-only deals among ``seats`` until one hand is strictly lowest."""
        cards = self.config.deck_cards
        rng = self.replay_rng()
        while True:
            deck = shuffled_deck(cards, rng)
            hands = {s: sorted(deck[3 * k : 3 * k + 3]) for k, s in enumerate(seats)}
            keys = {s: hand_key(h, self.config.ties) for s, h in hands.items()}
            low = min(keys.values())
            lowest = [s for s in seats if keys[s] == low]
            log.append({s: format_cards(h).split() for s, h in hands.items()})
            if len(lowest) == 1:
                return lowest[0]

    # -------------------------------------------------------------- copying
    def clone(self, rng: np.random.Generator | None = None) -> SchnauzState:
        """A deep copy; the copy gets ``rng`` or a copy of this state's generator."""
        new = self._copy(rng)
        new.lives = list(self.lives)
        new.out = list(self.out)
        new.hands = [list(h) for h in self.hands]
        new.table = list(self.table)
        new.deck = list(self.deck)
        new.out_of_play = list(self.out_of_play)
        new.known = [set(k) for k in self.known]
        new.places = list(self.places)
        new.pending_decks = [list(d) for d in self.pending_decks]
        return new


def new_game(
    config: SchnauzConfig,
    rng: np.random.Generator,
    deck: list[Any] | None = None,
    dealer: int | None = None,
    decks: list[list[Any]] | None = None,
    lives: list[int] | None = None,
    deal_on_demand: bool = False,
) -> SchnauzState:
    """Start a game: draw (or set) the first dealer and deal the first round.

    ``rng`` is the only source of randomness: it draws the first dealer (unless
    ``dealer`` or ``config.first_dealer`` sets it), then shuffles once per round.
    ``deck`` stacks the first round (first element = top; exactly the variant's
    cards); ``decks`` stacks several rounds in turn. ``lives`` sets each seat's
    starting lives (for puzzles and tests: e.g. everyone swimming). Every option is
    checked before ``rng`` is used. With ``deal_on_demand`` a round with no stacked
    deck left (the first too) waits for ``state.deal(deck)`` instead of a shuffle
    (:class:`~schnauz_env.common.engine.EngineState`; for OpenSpiel's explicit chance).
    """
    state = SchnauzState(config, rng)
    state.deal_on_demand = bool(deal_on_demand)
    # Every option is checked before the first draw: a refused game leaves rng untouched.
    state.pending_decks = stacked_decks(deck, decks, config.deck_cards)
    if lives is not None:
        state.lives = seat_counts(lives, config.num_players, "lives")
        state.max_lives = max(config.lives, *state.lives)
    state.dealer = first_dealer(config, rng, dealer)
    state._start_round()
    return state

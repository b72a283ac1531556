"""The Thirteen rules engine: a game state and its transitions (RULES.md §3).

No gymnasium or PettingZoo import: the AEC environment, the policies and the
evaluation harness all drive this one module.

Typical use::

    import numpy as np
    from schnauz_env.thirteen import ThirteenConfig, new_game

    state = new_game(ThirteenConfig(num_players=4), np.random.default_rng(0))
    while not state.game_over:
        state.apply(state.legal_actions()[0])

Actions: one ``Discrete(54)`` table. A play is *built card by card* and then made:

======  =======================================================================
0..51   select the card of Thirteen strength ``a`` (0 = 3♠, 1 = 3♣, 2 = 3♦, 3 = 3♥,
        4 = 4♠, …, 51 = 2♥; see :func:`schnauz_env.thirteen.combos.strength`)
52      play the selected cards
53      pass (only before selecting a card, and only when there is a play to beat)
======  =======================================================================

Cards are selected weakest first, so every play has exactly one action sequence:
its cards in ascending strength, then *play*. The mask is exact: a card is legal
exactly when the selection plus that card is the beginning of some legal play
(so a selection can always be completed), *play* exactly when the selection is a
legal play. The player to act stays the same while selecting. With the
``instant_wins`` option a player dealt an instant win has the single action 52,
*declare*.

Why not one action per play: with suit choices there are about 30 million plays
(a 12-card sequence alone has 4¹² suit choices), so no enumeration is small; and
an enumeration of shapes (kind, ranks) would need suit choices afterwards anyway.
Card by card is 54 actions, every choice of suits reachable, the mask computed
from the same rules that judge a play.

Cards are plain ints (``rank * 4 + suit``, see :mod:`schnauz_env.cards`); hands are
kept sorted weakest first in Thirteen order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schnauz_env.cards import format_card, format_cards, parse_cards
from schnauz_env.common.engine import (
    MAX_DEAL_TRIES,
    EngineState,
    next_deck,
    seat_counts,
    stacked_decks,
)
from schnauz_env.thirteen.combos import (
    ACE,
    CARD_OF,
    STRENGTH,
    TWO,
    Combo,
    classify_strengths,
    combo_label,
    plays_strengths,
    strength,
)
from schnauz_env.thirteen.config import HAND_SIZE, ThirteenConfig

#: The public names of the engine (the package re-exports them).
__all__ = [
    "ACTION_NAMES",
    "DECLARE",
    "NUM_ACTIONS",
    "NUM_CARD_ACTIONS",
    "OVER",
    "PASS",
    "PLAY",
    "PLAYING",
    "GameResult",
    "ThirteenState",
    "instant_win_of",
    "new_game",
    "new_position",
    "play_actions",
    "select_action",
    "stacked_deck",
]

NUM_CARD_ACTIONS = 52
PLAY, PASS = 52, 53
NUM_ACTIONS = 54

ACTION_NAMES: tuple[str, ...] = (
    *(f"select {CARD_OF[s].code}" for s in range(NUM_CARD_ACTIONS)),
    "play",
    "pass",
)


#: Phases of a game.
PLAYING, DECLARE, OVER = 0, 1, 2
PHASE_NAMES = ("playing", "instant win", "over")
#: The ``reason`` a :class:`GameResult` gives: a player went out (the game goes on), the
#: game is over, an instant win ended it.
REASONS: tuple[str, ...] = ("out", "game_over", "instant_win")


def select_action(card: int | str) -> int:
    """The action that selects ``card`` (an int or a code): its Thirteen strength."""
    return strength(card)


def play_actions(cards: list[int] | list[str] | str) -> list[int]:
    """The action sequence that plays exactly ``cards``: each card weakest first, then *play*."""
    parsed = parse_cards(cards) if isinstance(cards, str) else parse_cards(list(cards))
    return [*sorted(STRENGTH[c] for c in parsed), PLAY]


def stacked_deck(hands: list[str] | tuple[str, ...], rest: str = "") -> list[str]:
    """A stacked deck (card codes, top first) that deals ``hands[s]`` to seat ``s``.

    RULES.md "Stacked decks": one card at a time, starting with seat 0, until each of
    the ``len(hands)`` players has 13. Each hand is 13 codes in any order (a string);
    the cards left over follow, ``rest`` first (in its order) and then by card index.
    For puzzles and tests: ``reset(options={"deck": stacked_deck([...])})``.
    """
    parsed = [parse_cards(h) for h in hands]
    for s, h in enumerate(parsed):
        if len(h) != HAND_SIZE:
            raise ValueError(f"seat {s} needs {HAND_SIZE} cards, got {len(h)}: {hands[s]!r}")
    top = [int(parsed[s][i]) for i in range(HAND_SIZE) for s in range(len(parsed))]
    top += [int(c) for c in parse_cards(rest)]
    if len(set(top)) != len(top):
        dupes = sorted({c for c in top if top.count(c) > 1})
        raise ValueError(f"cards stacked twice: {format_cards(dupes)}")
    used = set(top)
    return [format_card(c) for c in top] + [format_card(c) for c in range(52) if c not in used]


def instant_win_of(hand: list[int]) -> str | None:
    """``"four 2s"``, ``"dragon"`` (a card of every rank 3..A) or ``None``."""
    ranks = {STRENGTH[c] >> 2 for c in hand}
    if len(ranks) >= ACE + 1 and all(r in ranks for r in range(ACE + 1)):
        return "dragon"
    if sum(1 for c in hand if STRENGTH[c] >> 2 == TWO) == 4:
        return "four 2s"
    return None


@dataclass
class GameResult:
    """What a player going out, or the end of a game, decided; ``to_dict()`` for logs."""

    game: int
    """Index of the game in the match (0 for the first)."""
    reason: str
    """``"out"`` (a player went out, the game goes on), ``"game_over"`` or ``"instant_win"``."""
    went_out: int | None
    finish_order: list[int]
    """Seats in the order they went out so far (the whole order once the game is over)."""
    points: dict[int, int] = field(default_factory=dict)
    """Points of this game per seat (empty until the game is over)."""
    scores: list[int] = field(default_factory=list)
    """Match scores after this event."""
    places: dict[int, float] = field(default_factory=dict)
    """Final places decided by this event (1 = best; shared places averaged)."""
    match_over: bool = False
    match_limit_reached: bool = False
    instant_win: str | None = None
    n: int = 4

    @property
    def seats(self) -> list[int]:
        return list(range(self.n))

    @property
    def losers(self) -> list[int]:
        """The seat that finished last, once the game is over (for tools that want one)."""
        return [self.finish_order[-1]] if self.reason != "out" and self.finish_order else []

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "reason": self.reason,
            "went_out": self.went_out,
            "finish_order": list(self.finish_order),
            "points": dict(self.points),
            "scores": list(self.scores),
            "places": dict(self.places),
            "match_over": self.match_over,
            "match_limit_reached": self.match_limit_reached,
            "instant_win": self.instant_win,
        }


def _shared_places(values: dict[int, float]) -> dict[int, float]:
    """Places 1..n by ``values`` (higher is better), equal values sharing the mean place."""
    order = sorted(values, key=lambda s: -values[s])
    places: dict[int, float] = {}
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            places[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return places


class ThirteenState(EngineState):
    """The full state of a Thirteen game or match (everything, hidden cards included).

    Mutable for speed: :meth:`apply` changes it in place; :meth:`clone` copies it.
    Use :func:`new_game` to create one.
    """

    __slots__ = (
        "_cands",
        "_deal_leader",
        "_legal",
        "awaiting_deal",
        "config",
        "current",
        "deal_on_demand",
        "finish_order",
        "game",
        "game_over",
        "hands",
        "last_result",
        "leader",
        "log",
        "lowest_leads",
        "n",
        "opening_card",
        "passed",
        "pending_decks",
        "phase",
        "places",
        "played",
        "rng",
        "scores",
        "selection",
        "table",
        "table_by",
        "table_combo",
        "undealt",
    )
    num_actions = NUM_ACTIONS
    over_phase = OVER

    def __init__(self, config: ThirteenConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.n = config.num_players
        self.rng = rng
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self.undealt: list[int] = []
        self.table: list[int] = []
        self.table_combo: Combo | None = None
        self.table_by: int | None = None
        self.passed = [False] * self.n
        self.selection: list[int] = []
        self.played: list[int] = []
        self.finish_order: list[int] = []
        self.scores = [0] * self.n
        self.game = 0
        self.leader = 0
        self.current = 0
        self.phase = OVER
        self.opening_card: int | None = None
        #: This game's leader holds the lowest card dealt (the first game of a match): a
        #: fact every seat knows, which :meth:`determinize` keeps.
        self.lowest_leads = False
        self.game_over = False
        self.places: list[float | None] = [None] * self.n
        self.pending_decks: list[list[int]] = []
        self.deal_on_demand = False
        self.awaiting_deal = False
        #: The leader of the game awaiting its deal (``None``: the holder of the lowest card).
        self._deal_leader: int | None = None
        self.last_result: GameResult | None = None
        self.log: list[tuple[int, tuple[int, ...]]] = []
        self._cands: list[tuple[int, ...]] | None = None
        self._legal: tuple[int, ...] | None = None

    # ------------------------------------------------------------------ queries
    @property
    def holders(self) -> list[int]:
        """Seats still holding cards in this game, in seat order."""
        return [s for s in range(self.n) if self.hands[s]]

    @property
    def cards_left(self) -> list[int]:
        return [len(h) for h in self.hands]

    def next_holder(self, seat: int) -> int:
        """The next seat to the left of ``seat`` that still holds cards."""
        n, hands = self.n, self.hands
        s = (seat + 1) % n
        while not hands[s]:
            s = (s + 1) % n
        return s

    def _candidates(self) -> list[tuple[int, ...]]:
        """The legal plays (strength tuples) that begin with the current selection."""
        if self._cands is None:
            hand = [STRENGTH[c] for c in self.hands[self.current]]
            must = None if self.opening_card is None else STRENGTH[self.opening_card]
            cands = plays_strengths(hand, self.table_combo, must)
            for k, c in enumerate(self.selection):
                s = STRENGTH[c]
                cands = [p for p in cands if len(p) > k and p[k] == s]
            self._cands = cands
        return self._cands

    def legal_actions(self) -> tuple[int, ...]:
        """The legal actions of the player to act, ascending (empty when the game is over)."""
        if self._legal is not None:
            return self._legal
        if self.phase != PLAYING:
            self._legal = (PLAY,) if self.phase == DECLARE else ()
            return self._legal
        k = len(self.selection)
        nexts: set[int] = set()
        complete = False
        for p in self._candidates():
            if len(p) > k:
                nexts.add(p[k])
            else:
                complete = True
        legal = sorted(nexts)
        if complete:
            legal.append(PLAY)
        if k == 0 and self.table_combo is not None:
            legal.append(PASS)
        self._legal = tuple(legal)
        return self._legal

    def legal_plays(self) -> list[list[int]]:
        """Every play the player to act may make this turn (cards, weakest first),
        whatever is selected so far. Empty when the game is over."""
        if self.phase != PLAYING:
            return []
        hand = [STRENGTH[c] for c in self.hands[self.current]]
        must = None if self.opening_card is None else STRENGTH[self.opening_card]
        return [[CARD_OF[s] for s in p] for p in plays_strengths(hand, self.table_combo, must)]

    def action_to_string(self, action: int, symbols: bool = False) -> str:
        """Name ``action`` in this state, e.g. ``"select 7♠"`` or ``"play pair 7♠ 7♥"``."""
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            return f"invalid action {action}"
        if action < NUM_CARD_ACTIONS:
            return f"select {format_card(CARD_OF[action], symbols)}"
        if action == PASS:
            return "pass"
        if self.phase == DECLARE:
            return f"declare instant win ({instant_win_of(self.hands[self.current])})"
        combo = classify_strengths(sorted(STRENGTH[c] for c in self.selection))
        if combo is None or self.phase == OVER:
            return "play"
        return f"play {combo_label(combo)} {format_cards(self.selection, symbols)}"

    # ------------------------------------------------------------- transitions
    def apply(self, action: int) -> GameResult | None:
        """Take ``action`` for the player to act; return a result when a player went
        out or a game ended (``None`` otherwise).

        Raises ``ValueError`` naming the action and the legal ones if it is illegal.
        """
        action = self._checked(action)
        self._legal = None
        seat = self.current
        if self.phase == DECLARE:
            return self._instant_win(seat)
        if action < NUM_CARD_ACTIONS:
            k = len(self.selection)
            self.selection.append(CARD_OF[action])
            self._cands = [p for p in self._candidates() if len(p) > k and p[k] == action]
            return None
        self._cands = None
        if action == PASS:
            self.passed[seat] = True
            self.log.append((seat, ()))
            self._advance(seat)
            return None
        cards = self.selection
        self.selection = []
        chosen = set(cards)
        hand = self.hands[seat]
        self.hands[seat] = [c for c in hand if c not in chosen]
        self.table = list(cards)
        self.table_combo = classify_strengths([STRENGTH[c] for c in cards])
        self.table_by = seat
        self.played.extend(cards)
        self.opening_card = None
        self.log.append((seat, tuple(cards)))
        if self.hands[seat]:
            self._advance(seat)
            return None
        self.finish_order.append(seat)
        holders = self.holders
        if len(holders) == 1:
            self.finish_order.append(holders[0])
            return self._end_game("game_over", seat)
        result = GameResult(
            game=self.game,
            reason="out",
            went_out=seat,
            finish_order=list(self.finish_order),
            scores=list(self.scores),
            n=self.n,
        )
        if self.config.episode == "game":
            place = float(len(self.finish_order))
            self.places[seat] = place
            result.places = {seat: place}
        self.last_result = result
        if self.config.out_clears_table:
            self._clear(self.next_holder(seat))
        else:
            self._advance(seat)
        return result

    def _advance(self, seat: int) -> None:
        """After ``seat`` played or passed: clear the table if everyone else has
        passed, else move to the next player to the left who may still play."""
        tb = self.table_by
        hands, passed = self.hands, self.passed
        if all(passed[s] for s in range(self.n) if hands[s] and s != tb):
            self._clear(tb if hands[tb] else self.next_holder(tb))
            return
        n = self.n
        s = (seat + 1) % n
        while not hands[s] or passed[s]:
            s = (s + 1) % n
        self.current = s

    def _clear(self, leader: int) -> None:
        self.table = []
        self.table_combo = None
        self.table_by = None
        self.passed = [False] * self.n
        self.current = leader

    def _where(self) -> str:
        sel = format_cards(self.selection) if self.selection else "nothing"
        table = format_cards(self.table) if self.table else "nothing (leading)"
        return f" (selected: {sel}; to beat: {table})"

    # ------------------------------------------------------------------ games
    def _deal_awaited(self) -> None:
        self._start_game(self._deal_leader)

    def _start_game(self, leader: int | None) -> None:
        if self._wait_for_deal():
            self._deal_leader = leader
            return
        cfg = self.config
        deck = next_deck(self.pending_decks, self.rng, cfg.deck_cards)
        n = self.n
        dealt = deck[: HAND_SIZE * n]
        key = STRENGTH.__getitem__
        self.hands = [sorted(dealt[s::n], key=key) for s in range(n)]
        self.undealt = list(deck[HAND_SIZE * n :])
        self.opening_card = None
        self.lowest_leads = leader is None
        if leader is None:  # the first game: the lowest card dealt (3♠ at four players)
            low = min(dealt, key=key)
            leader = next(s for s in range(n) if low in self.hands[s])
            if cfg.opening == "include":
                self.opening_card = low
        self.leader = leader
        self.table = []
        self.table_combo = None
        self.table_by = None
        self.passed = [False] * n
        self.selection = []
        self.played = []
        self.finish_order = []
        self.log = []
        self._cands = None
        self._legal = None
        self.current = leader
        self.phase = PLAYING
        if cfg.instant_wins:
            for k in range(n):
                s = (leader + k) % n
                if instant_win_of(self.hands[s]):
                    self.phase = DECLARE
                    self.current = s
                    break

    def _instant_win(self, seat: int) -> GameResult:
        kind = instant_win_of(self.hands[seat])
        self.played.extend(self.hands[seat])
        self.log.append((seat, tuple(self.hands[seat])))
        self.hands[seat] = []
        self.finish_order = [seat]
        return self._end_game("instant_win", seat, kind)

    def _end_game(self, reason: str, seat: int, instant: str | None = None) -> GameResult:
        """Score the game that just ended; end the episode or deal the next game."""
        cfg, n = self.config, self.n
        order = self.finish_order
        points = dict.fromkeys(range(n), 0)
        for i, s in enumerate(order):
            points[s] = n - 1 - i
        if instant is not None:
            points[order[0]] = n - 1
        for s in range(n):
            self.scores[s] += points[s]
        result = GameResult(
            game=self.game,
            reason=reason,
            went_out=seat,
            finish_order=list(order),
            points=points,
            scores=list(self.scores),
            n=n,
            instant_win=instant,
        )
        self.game += 1
        decided: dict[int, float] = {}
        if cfg.episode == "game":
            if instant is not None:
                decided = _shared_places({s: float(points[s]) for s in range(n)})
            else:
                decided = {s: float(i + 1) for i, s in enumerate(order) if self.places[s] is None}
            result.match_over = True
        else:
            top = max(self.scores)
            leaders = [s for s in range(n) if self.scores[s] == top]
            limit = self.game >= cfg.max_games
            if (top >= cfg.target_points and len(leaders) == 1) or limit:
                decided = _shared_places({s: float(self.scores[s]) for s in range(n)})
                result.match_over = True
                result.match_limit_reached = limit and not (
                    top >= cfg.target_points and len(leaders) == 1
                )
        result.places = decided
        for s, p in decided.items():
            self.places[s] = p
        self.last_result = result
        if result.match_over:
            self.phase = OVER
            self.game_over = True
            self.selection = []
            self._legal = None
            self._cands = None
            return result
        self._start_game(leader=order[0])
        return result

    # -------------------------------------------------------------- copying
    def clone(self, rng: np.random.Generator | None = None) -> ThirteenState:
        """A deep copy; the copy gets ``rng`` or a copy of this state's generator."""
        new = self._copy(rng)
        new.hands = [list(h) for h in self.hands]
        new.undealt = list(self.undealt)
        new.table = list(self.table)
        new.passed = list(self.passed)
        new.selection = list(self.selection)
        new.played = list(self.played)
        new.finish_order = list(self.finish_order)
        new.scores = list(self.scores)
        new.places = list(self.places)
        new.pending_decks = [list(d) for d in self.pending_decks]
        new.log = list(self.log)
        new._cands = None if self._cands is None else list(self._cands)
        return new

    # ------------------------------------------------------ hidden information
    def unseen_cards(self, seat: int) -> list[int]:
        """Cards ``seat`` cannot see: the other hands and, with fewer than four players,
        the undealt cards."""
        hidden = list(self.undealt)
        for s in range(self.n):
            if s != seat:
                hidden.extend(self.hands[s])
        return sorted(hidden)

    def determinize(self, seat: int, rng: np.random.Generator) -> ThirteenState:
        """A copy in which every card ``seat`` cannot see is redealt at random, keeping
        each hand's size and what the rules tell ``seat`` (the sampling step of
        information-set search).

        The copy depends on ``seat``'s information and ``rng`` only, and the player to
        act always has a legal action in it (unless the game is over). Kept besides the
        cards ``seat`` sees: in the first game of a match the leader was dealt the
        lowest card (3♠ at four players; with the opening card still to be played, the
        leader holds it, and once played, every weaker card is undealt); with
        ``instant_wins`` the player to declare holds an instant win, the players before
        it in turn order hold none, and once play has begun nobody was dealt one. Another
        player's selection, which ``seat`` cannot see, is undone (that player starts
        the turn again). The copy uses ``rng`` for everything random from then on.
        """
        seat = self._check_seat(seat)
        hands, undealt = self._deal_unseen(seat, rng)
        new = self.clone(rng=rng)
        key = STRENGTH.__getitem__
        for s, hand in hands.items():
            new.hands[s] = sorted(hand, key=key)
        new.undealt = undealt
        new.pending_decks = []
        if new.current != seat:
            new.selection = []
            new._cands = None
            new._legal = None
        if new.opening_card is not None and new.leader != seat:
            new.opening_card = min(new.hands[new.leader], key=key)
        return new

    def _deal_unseen(
        self, seat: int, rng: np.random.Generator
    ) -> tuple[dict[int, list[int]], list[int]]:
        """The cards ``seat`` cannot see, dealt at random to the other hands (each keeps
        its size) and the undealt rest, consistently with what the rules tell ``seat``
        (see :meth:`determinize`)."""
        pool = self.unseen_cards(seat)
        sizes = {s: len(self.hands[s]) for s in range(self.n) if s != seat}
        phase = self.phase
        declarer = self.current if phase == DECLARE and self.current != seat else None
        check_instant = self.config.instant_wins and phase != OVER
        if not (self.lowest_leads or declarer is not None or check_instant):
            return _deal(pool, sizes, {}, [], rng)
        played: dict[int, list[int]] = {s: [] for s in range(self.n)}
        for s, cards in self.log:
            played[s].extend(cards)
        for _ in range(MAX_DEAL_TRIES):
            fixed: dict[int, list[int]] = {}
            if declarer is not None:
                win = _instant_win_hand(pool, sizes[declarer], rng)
                if win is None:
                    break
                fixed[declarer] = win
            if self.lowest_leads:
                deal = self._deal_lowest_leads(seat, pool, sizes, fixed, played, rng)
                if deal is None:
                    if declarer is None:
                        break  # no draw can help: the state contradicts the rule
                    continue
            else:
                deal = _deal(pool, sizes, fixed, [], rng)
            if not check_instant or self._instant_wins_consistent(seat, deal[0], played):
                return deal
        return _deal(pool, sizes, {}, [], rng)  # a state no game reaches: no constraint

    def _instant_wins_consistent(
        self, seat: int, hands: dict[int, list[int]], played: dict[int, list[int]]
    ) -> bool:
        """With ``instant_wins``: the player to declare holds an instant win and those
        before it in turn order (from the leader) do not; once play has begun, nobody
        was dealt one (a hand and the cards played from it this game)."""
        if self.phase == DECLARE:
            for k in range(self.n):
                s = (self.leader + k) % self.n
                if s == self.current:
                    return s == seat or instant_win_of(hands[s]) is not None
                if s != seat and instant_win_of(hands[s]):
                    return False
            return True
        return not any(
            instant_win_of([*hand, *played[s]]) for s, hand in hands.items() if hand or played[s]
        )

    def _deal_lowest_leads(
        self,
        seat: int,
        pool: list[int],
        sizes: dict[int, int],
        fixed: dict[int, list[int]],
        played: dict[int, list[int]],
        rng: np.random.Generator,
    ) -> tuple[dict[int, list[int]], list[int]] | None:
        """A deal of ``pool`` in which the leader was dealt the lowest card: uniform
        among such deals (given the ``fixed`` cards), or ``None`` if there is none.

        The cards every seat knows were dealt (its own hand, the cards played this game,
        the ``fixed`` ones) have a lowest, ``low``. Hidden cards weaker than ``low``
        either all stay undealt (possible only when ``low`` is the leader's), or the
        weakest of them the leader gets is the dealt minimum and those below it are
        undealt. Each way is drawn with its number of completions."""
        key = STRENGTH.__getitem__
        leader = self.leader
        owner: dict[int, int] = {c: seat for c in self.hands[seat]}
        for s, cards in (*played.items(), *fixed.items()):
            owner.update(dict.fromkeys(cards, s))
        low = min(owner, key=key)
        taken = {c for cards in fixed.values() for c in cards}
        free = sorted((c for c in pool if c not in taken), key=key)
        below = sum(1 for c in free if STRENGTH[c] < STRENGTH[low])
        room = {s: sizes[s] - len(fixed.get(s, ())) for s in sizes}
        undealt = len(free) - sum(room.values())
        free_lead = room.get(leader, 0)
        # (weight, cards kept undealt from the weakest up, whether the leader gets the next)
        ways: list[tuple[int, int, bool]] = []
        if owner[low] == leader and undealt >= below:
            ways.append((_ways(len(free) - below, undealt - below, room), below, False))
        opening_played = self.config.opening == "include" and self.opening_card is None
        if free_lead and not opening_played:
            room_lead = {**room, leader: free_lead - 1}
            for j in range(min(below - 1, undealt) + 1):
                ways.append((_ways(len(free) - j - 1, undealt - j, room_lead), j, True))
        total = sum(w for w, _, _ in ways)
        if not total:
            return None
        pick = ways[int(rng.choice(len(ways), p=[w / total for w, _, _ in ways]))]
        _, j, lead_gets = pick
        held = {s: list(cards) for s, cards in fixed.items()}
        if lead_gets:
            held.setdefault(leader, []).append(free[j])
            rest = free[j + 1 :]
        else:
            rest = free[j:]
        return _deal(rest, sizes, held, free[:j], rng)

    def __repr__(self) -> str:
        return (
            f"ThirteenState(game={self.game}, phase={PHASE_NAMES[self.phase]!r}, "
            f"current={self.current}, cards_left={self.cards_left}, scores={self.scores})"
        )


def _deal(
    cards: list[int],
    sizes: dict[int, int],
    held: dict[int, list[int]],
    undealt: list[int],
    rng: np.random.Generator,
) -> tuple[dict[int, list[int]], list[int]]:
    """``cards`` shuffled by ``rng`` and dealt to fill each seat's hand to ``sizes[s]``
    (on top of the cards it already ``held``), in seat order; the rest join ``undealt``."""
    order = rng.permutation(len(cards))
    shuffled = [cards[i] for i in order]
    hands: dict[int, list[int]] = {}
    k = 0
    for s in sorted(sizes):
        have = held.get(s, [])
        m = sizes[s] - len(have)
        hands[s] = [*have, *shuffled[k : k + m]]
        k += m
    return hands, [*undealt, *shuffled[k:]]


def _ways(cards: int, undealt: int, room: dict[int, int]) -> int:
    """The number of ways to deal ``cards`` distinct cards into ``room[s]`` per seat and
    ``undealt`` left over (0 if they do not fit exactly)."""
    parts = [undealt, *room.values()]
    if min(parts) < 0 or sum(parts) != cards:
        return 0
    ways = math.factorial(cards)
    for p in parts:
        ways //= math.factorial(p)
    return ways


def _instant_win_hand(pool: list[int], size: int, rng: np.random.Generator) -> list[int] | None:
    """A hand of ``size`` cards from ``pool`` drawn uniformly among the instant wins
    (four 2s or a dragon; see :func:`instant_win_of`), or ``None`` if there is none.

    Only a dealt hand (13 cards) can be declared, so other sizes have none."""
    if size != HAND_SIZE:
        return None
    by_rank: list[list[int]] = [[] for _ in range(TWO + 1)]
    for c in pool:
        by_rank[STRENGTH[c] >> 2].append(c)
    twos = by_rank[TWO]
    others = [c for c in pool if STRENGTH[c] >> 2 != TWO]
    counts = [len(by_rank[r]) for r in range(ACE + 1)]
    every_rank = math.prod(counts)
    # (weight, kind): "twos" = four 2s and 9 other cards; rank r = a dragon with two
    # cards of rank r (TWO: a dragon with one 2 besides its twelve ranks)
    kinds: list[tuple[int, str | int]] = []
    if len(twos) == 4:
        kinds.append((math.comb(len(others), size - 4), "twos"))
    if every_rank:
        kinds.append((every_rank * len(twos), TWO))
        kinds.extend((every_rank // counts[r] * math.comb(counts[r], 2), r) for r in range(ACE + 1))
    total = sum(w for w, _ in kinds)
    if not total:
        return None
    _, kind = kinds[int(rng.choice(len(kinds), p=[w / total for w, _ in kinds]))]
    if kind == "twos":
        picks = rng.choice(len(others), size - 4, replace=False)
        return [*twos, *(others[int(i)] for i in picks)]
    hand = []
    for r in range(TWO + 1):
        take = (r == kind) + (r != TWO)
        if take:
            picks = rng.choice(len(by_rank[r]), take, replace=False)
            hand.extend(by_rank[r][int(i)] for i in picks)
    return hand


def new_game(
    config: ThirteenConfig,
    rng: np.random.Generator,
    deck: list[Any] | None = None,
    decks: list[list[Any]] | None = None,
    dealer: int | None = None,
    scores: list[int] | None = None,
    deal_on_demand: bool = False,
) -> ThirteenState:
    """Start a game (or match): deal the first game.

    ``rng`` is the only source of randomness: it shuffles once per game. ``deck``
    stacks the first game (52 card codes, first = top, dealt one at a time from
    seat 0); ``decks`` stacks several games in turn. ``dealer`` (``None`` or a seat) is
    accepted and ignored (Thirteen has no dealer; RULES.md). ``scores`` sets each
    seat's starting match points (for puzzles and tests). Every option is checked
    before ``rng`` is used. With ``deal_on_demand`` a game with no stacked deck left
    (the first too) waits for ``state.deal(deck)`` instead of a shuffle
    (:class:`~schnauz_env.common.engine.EngineState`; for OpenSpiel's explicit chance).
    """
    n = config.num_players
    if dealer is not None and (
        isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n
    ):
        raise ValueError(
            f"invalid dealer {dealer!r}: must be None or a seat 0..{n - 1} "
            "(Thirteen has no dealer; the option is accepted and ignored)"
        )
    state = ThirteenState(config, rng)
    state.deal_on_demand = bool(deal_on_demand)
    state.pending_decks = stacked_decks(deck, decks, config.deck_cards)
    if scores is not None:
        state.scores = seat_counts(scores, config.num_players, "scores")
    state._start_game(leader=None)
    return state


def new_position(
    config: ThirteenConfig,
    hands: list[str] | list[list[Any]],
    table: str | list[Any] = (),
    table_by: int | None = None,
    current: int = 0,
    passed: list[bool] | None = None,
    scores: list[int] | None = None,
) -> ThirteenState:
    """A position in the middle of a game, for puzzles, tests and analysis.

    ``hands`` lists each seat's cards (any number, codes or ints); ``table`` the play to
    beat, made by ``table_by``; ``passed`` who has passed on it; ``current`` the seat to
    act. Every other card counts as played earlier in the game. It is not the first play
    of a game, so no opening card is required. Raises ``ValueError`` for an impossible
    position (a card twice, a table that is no combination, a player to act without cards
    or locked out).
    """
    n = config.num_players
    parsed = [parse_cards(h) if isinstance(h, str) else parse_cards(list(h)) for h in hands]
    table_cards = parse_cards(table) if isinstance(table, str) else parse_cards(list(table))
    if len(parsed) != n:
        raise ValueError(f"a position needs {n} hands, got {len(parsed)}")
    for s, h in enumerate(parsed):
        if len(h) > HAND_SIZE:
            raise ValueError(f"seat {s} holds {len(h)} cards; a hand holds at most {HAND_SIZE}")
    for name, seat in (("current", current), ("table_by", table_by)):
        if (seat is not None or name == "current") and (
            isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n
        ):
            raise ValueError(f"{name} must be a seat 0..{n - 1}, got {seat!r}")
    if passed is not None and (
        not isinstance(passed, (list, tuple))
        or len(passed) != n
        or not all(isinstance(p, bool) for p in passed)
    ):
        raise ValueError(
            f"passed must list {n} flags (True or False, one per seat), got {passed!r}"
        )
    listed = [int(c) for h in parsed for c in h] + [int(c) for c in table_cards]
    if len(set(listed)) != len(listed):
        raise ValueError("a card appears twice in the position")
    state = ThirteenState(config, np.random.default_rng(0))
    key = STRENGTH.__getitem__
    state.hands = [sorted((int(c) for c in h), key=key) for h in parsed]
    state.table = sorted((int(c) for c in table_cards), key=key)
    if state.table:
        state.table_combo = classify_strengths([STRENGTH[c] for c in state.table])
        if state.table_combo is None or table_by is None or not 0 <= table_by < n:
            raise ValueError("the table must be a combination with table_by a seat 0..n-1")
        state.table_by = table_by
    listed_set = set(listed)
    state.played = [c for c in range(52) if c not in listed_set] + state.table
    state.passed = list(passed) if passed is not None else [False] * n
    if scores is not None:
        state.scores = seat_counts(scores, n, "scores")
    state.finish_order = [s for s in range(n) if not state.hands[s]]
    if not state.hands[current] or state.passed[current]:
        raise ValueError(f"seat {current} cannot be the one to act: no cards or passed")
    state.current = current
    state.leader = current
    state.phase = PLAYING
    return state

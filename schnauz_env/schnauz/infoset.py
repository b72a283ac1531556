"""What one seat knows, read back from its observation; and full states consistent with it.

A policy sees only its seat's observation vector (see :mod:`schnauz_env.schnauz.observation`).
This module turns that vector back into named facts (:func:`decode_observation`) and,
for search players, builds complete engine states that agree with everything the seat
knows while the hidden cards are dealt at random (:func:`sample_state`, the
*determinization* step of information-set search)::

    from schnauz_env.schnauz.infoset import decode_observation, sample_state

    view = decode_observation(obs, config)     # hand, table, lives, known cards, ...
    state = sample_state(obs, config, rng)     # a SchnauzState; the observer is seat 0

**Seat mapping.** Both functions speak in *relative positions*, exactly like the
observation: position 0 is the observer, position ``k`` the ``k``-th player to their
left. The sampled state is numbered the same way: **seat k of the sampled state is
relative position k**, so the observer is seat 0 and ``ObservationEncoder(config)
.encode(sample_state(obs, config, rng), 0)`` equals ``obs`` (``tests/test_infoset.py``).
To go back to the real table, add the observer's seat: real seat = ``(me + k) % n``.

**What is kept and what is sampled.** Kept: the observer's hand (slot order), the
table, the cards out of play, the cards every opponent is publicly known to hold, lives,
swimming and out flags, dealer, knocker, the player to act, the phase, the passes in a
row, the stock size. Sampled: the opponents' other hand cards and the order of the
stock, a uniform random deal of the cards the observer cannot locate
(:attr:`SeatView.unseen`). Not in the observation and therefore guessed: the round
number (0), the turns already played this round (the least consistent with the
phase and, when ``action_mask`` is given, with whether knocking is allowed), the
places of players already out (worst places, in seat order) and which of the
observer's own cards the others know (none). Lives are read on the scale of
``config.lives``: a game whose reset gave some seat more lives than that is scaled by its
largest starting lives, which the observation does not carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from schnauz_env.common.layout import first_hot
from schnauz_env.schnauz.config import MAX_PLAYERS, SchnauzConfig
from schnauz_env.schnauz.engine import (
    DEALER_CHOICE,
    FINAL_CIRCLE,
    KNOCK,
    OVER,
    TURNS,
    SchnauzState,
)
from schnauz_env.schnauz.observation import SEAT_FEATURES, ObservationLayout

_PHASES = (DEALER_CHOICE, TURNS, FINAL_CIRCLE)


@dataclass(frozen=True)
class SeatView:
    """Everything one seat knows about a Schnauz game, by relative position.

    Position 0 is the observer, position ``k`` the ``k``-th player to their left;
    every per-position tuple has ``num_players`` entries. Cards are engine card ints
    (``rank * 4 + suit``, see :mod:`schnauz_env.cards`).
    """

    num_players: int
    hand: tuple[int, ...]
    """The observer's hand in slot order (lowest card first); the action ``2 + 3i + j``
    swaps ``hand[i]`` with ``table[j]``."""
    table: tuple[int, ...]
    """The face-up table in slot order; empty before the dealer's choice."""
    out_of_play: frozenset[int]
    """Cards taken out of play by all-pass refreshes this round."""
    known: tuple[frozenset[int], ...]
    """Per position, the cards that player is publicly known to hold (taken from the
    table and not given back). ``known[0]`` is empty: the observation does not say
    which of the observer's own cards the others know."""
    lives: tuple[int, ...]
    swimming: tuple[bool, ...]
    """Still in the game with 0 lives: the next loss puts them out."""
    out: tuple[bool, ...]
    dealer: int
    knocker: int | None
    to_act: int | None
    """Position of the player to act; ``None`` when the game is over."""
    phase: int
    """Engine phase: ``DEALER_CHOICE``, ``TURNS``, ``FINAL_CIRCLE`` or ``OVER``."""
    passes: int
    """Passes in a row since the last swap, knock or refresh."""
    stock_size: int
    unseen: tuple[int, ...]
    """The cards of this round the observer cannot locate: the opponents' unknown hand
    cards and the stock, sorted."""

    @property
    def active(self) -> list[int]:
        """Positions still in the game, the observer first."""
        return [k for k in range(self.num_players) if not self.out[k]]

    @property
    def hidden_counts(self) -> tuple[int, ...]:
        """Per position, how many of that player's hand cards the observer cannot see."""
        counts = []
        for k in range(self.num_players):
            if k == 0 or self.out[k]:
                counts.append(0)
            else:
                counts.append(3 - len(self.known[k]))
        return tuple(counts)


def decode_observation(obs: np.ndarray, config: SchnauzConfig) -> SeatView:
    """Read one seat's observation vector back into a :class:`SeatView`.

    ``obs`` is the ``"observation"`` of ``observe(agent)`` (or
    ``ObservationEncoder(config).encode(state, seat)``) for the same ``config``.
    Raises ``ValueError`` if its size does not match the config.
    """
    layout = _layout(config)
    obs = np.asarray(obs)
    if obs.shape != (layout.size,):
        raise ValueError(
            f"observation of shape {obs.shape} does not match this config "
            f"(deck {config.deck}: expected ({layout.size},))"
        )
    s = layout.slices
    nc = layout.num_cards
    lo = 4 * config.min_rank

    def cards_in(block: np.ndarray) -> list[int]:
        return [int(i) + lo for i in np.flatnonzero(block)]

    hand_block = obs[s["hand"]].reshape(3, nc)
    hand = tuple(c for row in hand_block for c in cards_in(row))
    table_block = obs[s["table"]].reshape(3, nc)
    table = tuple(c for row in table_block for c in cards_in(row))
    out_of_play = frozenset(cards_in(obs[s["out_of_play"]]))
    known_block = obs[s["known"]].reshape(MAX_PLAYERS - 1, nc)
    seats = obs[s["seats"]].reshape(MAX_PLAYERS, SEAT_FEATURES)
    n = round(seats[:, 0].sum())
    if n != config.num_players:
        raise ValueError(f"observation shows {n} players but the config has {config.num_players}")
    in_game = seats[:n, 1] > 0.5
    # The vector holds lives / the most lives any seat started with; that is
    # config.lives unless a reset option gave some seat more (which it cannot show).
    lives = tuple(round(x * max(config.lives, 1)) for x in seats[:n, 3])
    known = (frozenset(), *tuple(frozenset(cards_in(known_block[k - 1])) for k in range(1, n)))
    phase_hot = first_hot(obs[s["phase"]])
    phase = OVER if phase_hot is None else _PHASES[phase_hot]
    stock_size = round(float(obs[s["stock"]][0]) * nc)
    located = set(hand) | set(table) | out_of_play
    for k in known:
        located |= k
    unseen = tuple(c for c in config.deck_cards if int(c) not in located)
    return SeatView(
        num_players=n,
        hand=hand,
        table=table,
        out_of_play=out_of_play,
        known=known,
        lives=lives,
        swimming=tuple(bool(seats[k, 2] > 0.5) for k in range(n)),
        out=tuple(not bool(x) for x in in_game),
        dealer=first_hot(obs[s["dealer"]]) or 0,
        knocker=first_hot(obs[s["knocker"]]),
        to_act=first_hot(obs[s["to_act"]]),
        phase=phase,
        passes=first_hot(obs[s["passes"]]) or 0,
        stock_size=stock_size,
        unseen=tuple(int(c) for c in unseen),
    )


@cache
def _layout(config: SchnauzConfig) -> ObservationLayout:
    return ObservationLayout(config)


def _distance(view: SeatView, start: int, stop: int) -> int:
    """Active players from ``start`` (inclusive) to ``stop`` (exclusive), going left."""
    n, count, k = view.num_players, 0, start
    while k != stop:
        if not view.out[k]:
            count += 1
        k = (k + 1) % n
    return count


def _next_active(view: SeatView, k: int) -> int:
    k = (k + 1) % view.num_players
    while view.out[k]:
        k = (k + 1) % view.num_players
    return k


def sample_state(
    obs: np.ndarray | SeatView,
    config: SchnauzConfig,
    rng: np.random.Generator,
    action_mask: np.ndarray | None = None,
    hands: list | tuple | None = None,
) -> SchnauzState:
    """A full :class:`SchnauzState` consistent with one seat's observation.

    Everything the seat knows is kept; the cards it cannot locate are dealt at random
    (uniformly) to the opponents' unknown hand slots and the stock. **The observer is
    seat 0** of the returned state and seat ``k`` is the observer's relative position
    ``k`` (see the module docstring). The state uses ``rng`` for all its later
    randomness, so it can be played on (e.g. by search rollouts).

    ``obs`` may be the observation vector or an already decoded :class:`SeatView`.
    ``action_mask``, when given, fixes whether knocking is allowed (the only thing the
    number of turns played decides that the observation does not show).

    ``hands``, when given, are the opponents' hands to use instead of a uniform deal
    (per position; entry 0 and the entries of players out are ignored), so a caller
    can bias the deal (e.g. towards the strong hands players keep). Each must hold
    that player's known cards and otherwise only unseen cards, each card once; the
    rest of the unseen cards make the stock in random order. ``ValueError`` otherwise.
    """
    view = obs if isinstance(obs, SeatView) else decode_observation(obs, config)
    n = view.num_players
    state = SchnauzState(config, rng)
    state.lives = list(view.lives)
    state.max_lives = max(config.lives, *view.lives)
    state.out = list(view.out)
    state.dealer = view.dealer
    state.knocker = view.knocker
    state.phase = view.phase
    state.passes = view.passes
    state.table = list(view.table)
    state.out_of_play = list(view.out_of_play)
    state.known = [set(k) for k in view.known]

    pool = list(view.unseen)
    pool = [pool[i] for i in rng.permutation(len(pool))]
    dealt_hands: list[list[int]] = [[] for _ in range(n)]
    dealt_hands[0] = list(view.hand)
    k = 0
    if hands is not None:
        free = set(view.unseen)
        for p in range(1, n):
            if view.out[p]:
                continue
            h = [int(c) for c in hands[p]]
            extra = [c for c in h if c not in view.known[p]]
            if len(h) != 3 or not view.known[p] <= set(h) or not free.issuperset(extra):
                raise ValueError(
                    f"hand {h} for position {p} is not consistent with the view (it must "
                    f"hold the known cards {sorted(view.known[p])} and otherwise unseen cards)"
                )
            free.difference_update(extra)
            dealt_hands[p] = sorted(h)
        pool = [c for c in pool if c in free]
    else:
        for p in range(1, n):
            if view.out[p]:
                continue
            need = 3 - len(view.known[p])
            dealt_hands[p] = sorted([*view.known[p], *pool[k : k + need]])
            k += need
    stock = pool[k:]
    if view.phase == OVER:  # the players the last showdown put out still hold their cards
        for p in range(1, n):
            need = 3 - len(view.known[p])
            if view.out[p] and (view.known[p] or len(stock) - view.stock_size >= need):
                dealt_hands[p] = sorted([*view.known[p], *stock[:need]])
                stock = stock[need:]
    state.hands = dealt_hands
    if len(stock) != view.stock_size:
        raise ValueError(
            f"inconsistent observation: {len(stock)} unlocated cards left for a stock "
            f"of {view.stock_size}"
        )
    dealt = [c for h in dealt_hands for c in h] + state.table + state.out_of_play
    state.deck = dealt + stock
    state.pos = len(dealt)

    if view.phase == OVER:
        state.game_over = True
        state.current = 0
    else:
        state.current = view.to_act if view.to_act is not None else 0
    first = _next_active(view, view.dealer)
    active = n - sum(view.out)
    turns = _distance(view, first, state.current) if view.phase != DEALER_CHOICE else 0
    if view.out_of_play:  # a refresh needs a full circle of passes
        turns += active
    if view.phase == TURNS and action_mask is not None and bool(action_mask[KNOCK]):
        turns = max(turns, active)
    state.turns = turns
    if view.phase == FINAL_CIRCLE and view.knocker is not None:
        state.final_left = _distance(view, state.current, view.knocker)
    # Places of players already out are not observed: give them the worst places.
    gone = [p for p in range(n) if view.out[p]]
    for rank, p in enumerate(gone):
        state.places[p] = float(n - rank)
    if state.game_over:
        winner = next((p for p in range(n) if not view.out[p]), None)
        if winner is not None:
            state.places[winner] = 1.0
    return state

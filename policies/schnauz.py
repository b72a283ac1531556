"""Scripted Schnauz players of known strength: ``random``, ``greedy``, ``expert``.

All three read only their seat's observation (decoded with
:func:`schnauz_env.schnauz.infoset.decode_observation`) and the action mask, so they
play exactly what a human at that seat could. ``ismcts`` (search) lives in
:mod:`policies.ismcts`, ``expert-jit`` (the expert compiled) in :mod:`policies.expert_jit`.

======== ===================================================================================
name     idea
======== ===================================================================================
random   Uniform over the legal actions. The floor every other player must beat.
greedy   Myopic: the dealer keeps a hand worth at least the average random hand and
         exchanges otherwise; on a turn it knocks when its hand is worth at least a fixed
         threshold (``greedy:26`` is the default; ``greedy:T`` sets T), otherwise makes
         the swap that maximises its hand *now*, or passes when no swap improves it.
expert   The best heuristic we could make, tuned with ``schnauz-eval`` (see
         ``docs/evaluation.md``). Per decision:

         * **Fire or Schnauz** within reach (one swap or swap-all) is always taken: it
           ends the round at once and cannot lose.
         * **Opponent model** (:func:`sample_hands`): the unseen cards are dealt to the
           opponents at random, but the cards each opponent is publicly known to hold
           stay with it, and its hidden cards are the best of several random draws
           (more draws the fewer are hidden), calibrated on real hands: players keep
           cards that go with the ones they took.
         * **Knock** when the estimated chance of holding the lowest hand after every
           other player's last turn is below a risk limit. The estimate deals hands
           from the model; each opponent, in seat order from the knocker's left, makes
           its best reply on the table as the players before it left it. The limit is
           a share of the fair ``1/players`` (table size), scaled by lives (more daring
           with lives in hand, more careful when swimming), raised when no move would
           improve the hand; position is in the estimate itself (who replies, in which
           order).
         * **Final circle** (someone knocked): the move that minimises the same
           simulated chance of being lowest, so a move that improves the hand slightly
           but hands the later players what they need can lose to one that does not.
         * **Other turns**: the move with the least *risk*: a blend of the chance that
           the hand as it is would be the lowest (a Fire or Schnauz elsewhere ends the
           round at once) and the chance after its best swap from a random table of
           unseen cards (a knock gives one more turn), plus a small penalty for what
           the table left behind gives the next player (its hand from the model).
         * **Dealer's choice**: keep or exchange, whichever leaves the lower risk (an
           exchange averaged over random new hands), counting what the next player
           gains from the table.
======== ===================================================================================
"""

from __future__ import annotations

import random as _random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import numpy as np

from policies.base import Policy, parse_params, register_policy
from schnauz_env.batched.schnauz.greedy import greedy_move
from schnauz_env.schnauz.config import SchnauzConfig
from schnauz_env.schnauz.engine import (
    DEALER_CHOICE,
    EXCHANGE,
    FINAL_CIRCLE,
    KEEP,
    KNOCK,
    PASS,
    SWAP_ALL,
)
from schnauz_env.schnauz.hands import (
    SCHNAUZ,
    category_of,
    hand_key,
    hand_points,
    key_table,
    min_key,
)
from schnauz_env.schnauz.infoset import SeatView, decode_observation

#: The dataclass of a :class:`TunablePolicy`'s tunables.
P = TypeVar("P")

# ---------------------------------------------------------------- hand tables


class HandTables:
    """Every three-card hand of a deck, looked up without sorting: ``key[a][b][c]``.

    ``key`` is the engine's :func:`~schnauz_env.schnauz.hands.hand_key` (showdown order)
    and ``pts`` the hand's value in points (33 Fire, 31 Schnauz, 30.5 three of a kind,
    else the best suit sum) for every ordering of every hand of the deck. Nested lists
    are the fastest lookup pure Python has, and the heuristics make thousands per move.
    """

    def __init__(self, config: SchnauzConfig) -> None:
        cards = [int(c) for c in config.deck_cards]
        key = [[[0] * 52 for _ in range(52)] for _ in range(52)]
        pts = [[[0.0] * 52 for _ in range(52)] for _ in range(52)]
        for x, a in enumerate(cards):
            for y in range(x + 1, len(cards)):
                b = cards[y]
                for c in cards[y + 1 :]:
                    k = hand_key((a, b, c), config.ties)
                    p = hand_points(k, (a, b, c))
                    for i, j, m in (
                        (a, b, c),
                        (a, c, b),
                        (b, a, c),
                        (b, c, a),
                        (c, a, b),
                        (c, b, a),
                    ):
                        key[i][j][m] = k
                        pts[i][j][m] = p
        self.key = key
        self.pts = pts


_TABLES: dict[tuple[str, str], HandTables] = {}


def hand_tables(config: SchnauzConfig) -> HandTables:
    """The (cached) :class:`HandTables` of ``config``'s deck and tie rule."""
    k = (config.deck, config.ties)
    if k not in _TABLES:
        _TABLES[k] = HandTables(config)
    return _TABLES[k]


def candidates(hand: tuple[int, ...], table: tuple[int, ...]) -> list[tuple[int, tuple, tuple]]:
    """Every turn move but knock, as ``(action, new hand, new table)``."""
    out = []
    for i in range(3):
        for j in range(3):
            h = list(hand)
            t = list(table)
            h[i], t[j] = t[j], h[i]
            out.append((2 + 3 * i + j, tuple(h), tuple(t)))
    out.append((SWAP_ALL, tuple(table), tuple(hand)))
    out.append((PASS, tuple(hand), tuple(table)))
    return out


def best_reply(key: list, hand: tuple, table: tuple) -> tuple[int, tuple, tuple]:
    """The move that maximises the hand's showdown key now: ``(key, hand, table)``."""
    a, b, c = hand
    x, y, z = table
    best = key[a][b][c]
    bh, bt = hand, table
    for t, rest in ((x, (y, z)), (y, (x, z)), (z, (x, y))):
        k = key[t][b][c]
        if k > best:
            best, bh, bt = k, (t, b, c), (a, *rest)
        k = key[a][t][c]
        if k > best:
            best, bh, bt = k, (a, t, c), (b, *rest)
        k = key[a][b][t]
        if k > best:
            best, bh, bt = k, (a, b, t), (c, *rest)
    k = key[x][y][z]
    if k > best:
        best, bh, bt = k, table, hand
    return best, bh, bt


def best_action(key: list, hand: Any, table: Any) -> tuple[int, int]:
    """``(key, action)`` of the swap that maximises the hand now; ``PASS`` if none improves."""
    a, b, c = hand
    best = key[a][b][c]
    action = PASS
    for j in range(3):
        t = table[j]
        k = key[t][b][c]
        if k > best:
            best, action = k, 2 + j
        k = key[a][t][c]
        if k > best:
            best, action = k, 5 + j
        k = key[a][b][t]
        if k > best:
            best, action = k, 8 + j
    k = key[table[0]][table[1]][table[2]]
    if k > best:
        best, action = k, SWAP_ALL
    return best, action


#: P(another player's hand at a showdown beats ``x`` points), indexed by ``2 * x``:
#: measured at showdowns of expert and greedy players (A7, 4 players) and made monotone.
#: The chance that ``x`` is the lowest of ``m`` hands is about ``SURVIVE[2x] ** (m - 1)``.
_SURVIVE_POINTS = {
    10: 0.97, 11: 0.95, 12: 0.94, 13: 0.94, 14: 0.93, 15: 0.93, 16: 0.92, 17: 0.91,
    18: 0.89, 19: 0.86, 20: 0.80, 21: 0.74, 24: 0.72, 25: 0.70, 26: 0.67, 27: 0.62,
    28: 0.53, 29: 0.38, 30: 0.22, 30.5: 0.13, 31: 0.02, 33: 0.0,
}  # fmt: skip


def _survive_table() -> list[float]:
    table = [1.0] * 67
    last = 1.0
    for half in range(67):
        x = half / 2
        if x in _SURVIVE_POINTS:
            last = _SURVIVE_POINTS[x]
        elif x < 10:
            last = 0.98
        table[half] = last
    return table


SURVIVE: list[float] = _survive_table()


def lowest_risk(points: float, players: int) -> float:
    """About how likely a hand of ``points`` is the lowest of ``players`` at a showdown."""
    return SURVIVE[int(2 * points)] ** (players - 1)


def _config(config: Any) -> SchnauzConfig:
    return config if config is not None else SchnauzConfig()


# ---------------------------------------------------------------- random


@register_policy("schnauz", "random")
class RandomPolicy(Policy):
    """Uniform over the legal actions."""

    name = "random"
    game = "schnauz"

    def __init__(self, config: Any = None, seed: int | None = None, **_: Any) -> None:
        super().__init__(_config(config), seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        # Random scores on the legal actions only: the argmax is uniform among them.
        scores = self.rng.random(np.shape(action_masks)) + np.asarray(action_masks, dtype=float)
        return np.argmax(scores, axis=1).astype(np.int64)


# ---------------------------------------------------------------- greedy


@register_policy("schnauz", "greedy")
class GreedyPolicy(Policy):
    """Maximise the hand now; knock at ``knock_at`` points or more (``"greedy:T"``)."""

    name = "greedy"
    game = "schnauz"
    #: The dealer keeps a hand worth at least this (a random A7 hand averages 15.8).
    keep_at: float = 16.0

    def __init__(
        self,
        config: Any = None,
        seed: int | None = None,
        arg: str | None = None,
        knock_at: float = 26.0,
        **_: Any,
    ) -> None:
        super().__init__(_config(config), seed)
        self.knock_at = float(arg) if arg else float(knock_at)
        self._keys = key_table(self.config)
        self._lowest = 4 * self.config.min_rank
        if arg:
            self.name = f"greedy:{arg}"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        # The move is greedy_move's, the very function the batched engine compiles for
        # its "greedy" opponent; it reads local card ids and thresholds as hand keys.
        view = decode_observation(observation, self.config)
        lo = self._lowest
        return greedy_move(
            self._keys,
            [c - lo for c in view.hand],
            [c - lo for c in view.table],
            view.phase,
            bool(action_mask[KNOCK]),
            min_key(self.keep_at),
            min_key(self.knock_at),
        )


# ---------------------------------------------------------------- expert


@dataclass(frozen=True)
class ExpertParams:
    """The expert's tunable knobs (defaults tuned with ``schnauz-eval``; see docs)."""

    samples: int = 48
    """Monte Carlo deals of the hidden cards per knock or final-circle decision."""
    knock_share: float = 0.55
    """Knock when P(lowest after everyone's last turn) < ``knock_share / players in``."""
    lives_slope: float = 0.08
    """Risk limit scaled by ``1 + lives_slope * (my lives - mean opponent lives)``, and
    by ``swim_factor`` when swimming."""
    swim_factor: float = 0.85
    stuck_share: float = 1.0
    """Risk share used instead of ``knock_share`` when no move would improve the hand."""
    min_knock: float = 19.0
    """Never knock below these points (saves simulating hopeless knocks)."""
    patience: int = 12
    """After this many of its own turns in one round the risk limit grows (by one more
    ``patience``-th each turn), so two careful players cannot swap forever."""
    lookahead: float = 0.5
    """``value="points"`` only: weight of the expected points after one more card."""
    feed_penalty: float = 0.25
    """``value="points"`` only: points off per point the next player gains from the table."""
    skill: tuple[int, int, int] = (14, 8, 2)
    """Opponent model: hidden cards are the best of this many random draws when 1, 2 or 3
    of the opponent's cards are hidden (see :func:`sample_hands`); ``1/1/1`` is uniform."""
    keep_margin: float = 0.0
    """Extra value the dealer asks of exchanging over keeping."""
    feed_samples: int = 12
    """Model hands of the next player, to value what the table we leave gives it."""
    value: str = "risk"
    """Hand value on ordinary turns: ``"risk"`` (minus the chance of holding the lowest
    hand, now and after one more swap from a random table) or ``"points"``."""
    risk_now: float = 0.6
    """Weight of the risk of the hand as it is (a Fire or Schnauz elsewhere ends the
    round at once); the rest goes to the risk after one more swap (a knock)."""
    table_samples: int = 16
    """Random tables to estimate the risk after one more swap."""
    feed_risk: float = 0.01
    """Risk penalty per point the next player is expected to gain from the table we leave."""
    final_mc: bool = True
    """Final circle by simulated risk (else: the move with the best hand)."""


def parse_expert_arg(arg: str, params: ExpertParams | None = None) -> dict[str, Any]:
    """The :class:`ExpertParams` overrides of a name's argument, ``"knock_share=0.5,skill=9/5/1"``
    (:func:`~policies.base.parse_params`; values typed by ``params``, default
    :class:`ExpertParams`). Shared by ``expert`` and ``expert-jit``.
    """
    return parse_params(arg, params or ExpertParams(), "expert")


class TunablePolicy(Policy, Generic[P]):
    """A Schnauz player whose tunables are one frozen dataclass, :attr:`params`.

    ``params`` (default: :attr:`params_class`'s defaults) with keyword ``overrides`` and
    those the name's argument gives (``arg``, e.g. ``"knock_share=0.5,lookahead=0.4"``
    from ``"expert:knock_share=0.5,lookahead=0.4"``, read by :meth:`_parse_arg`; it also
    names the player). A subclass declares :attr:`params_class` and builds the rest of
    itself in :meth:`_setup`.
    """

    game = "schnauz"
    #: The dataclass of the player's tunables.
    params_class: type[P]

    def __init__(
        self,
        config: Any = None,
        seed: int | None = None,
        arg: str | None = None,
        params: P | None = None,
        **overrides: Any,
    ) -> None:
        super().__init__(_config(config), seed)
        params = params or self.params_class()
        if arg:
            overrides.update(self._parse_arg(arg, params))
            self.name = f"{self.name}:{arg}"
        self.params: P = replace(params, **overrides) if overrides else params
        self._setup(seed)

    def _parse_arg(self, arg: str, params: P) -> dict[str, Any]:
        """The overrides the name's argument gives (:func:`~policies.base.parse_params`)."""
        return parse_params(arg, params, self.name)

    def _setup(self, seed: int | None) -> None:
        """Build what the player needs besides its config and :attr:`params` (``seed`` as
        given to the constructor)."""


@register_policy("schnauz", "expert")
class ExpertPolicy(TunablePolicy[ExpertParams]):
    """Simulated risk of the lowest hand, a calibrated opponent model (module docs)."""

    name = "expert"
    params_class = ExpertParams

    def _setup(self, seed: int | None) -> None:
        self.tables = hand_tables(self.config)
        self._rnd = _random.Random(int(self.rng.integers(2**63)))
        self._round: tuple = ()
        self._turns = 0

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self._rnd = _random.Random(int(self.rng.integers(2**63)))
        self._round, self._turns = (), 0

    # -------------------------------------------------------------- decisions
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        view = decode_observation(observation, self.config)
        # Every round costs someone a life, so lives and outs tell the rounds apart.
        round_id = (view.lives, view.out, view.dealer)
        if round_id != self._round:
            self._round, self._turns = round_id, 0
        self._turns += 1
        if view.phase == DEALER_CHOICE:
            return self._dealer_choice(view)
        key = self.tables.key
        moves = candidates(view.hand, view.table)
        instant = [(key[h[0]][h[1]][h[2]], a) for a, h, _ in moves if a != PASS]
        top, top_action = max(instant)
        if category_of(top) >= SCHNAUZ and action_mask[top_action]:
            return top_action
        if view.phase == FINAL_CIRCLE:
            return self._final_move(view, moves)
        best = self._turn_move(view, moves)
        if action_mask[KNOCK] and self._should_knock(view, stuck=best[1] == PASS):
            return KNOCK
        return best[0]

    def knock_limit(self, view: SeatView, stuck: bool = False) -> float:
        """The largest estimated chance of losing at which this seat knocks."""
        p = self.params
        active = view.active
        others = [view.lives[k] for k in active if k != 0]
        limit = (p.stuck_share if stuck else p.knock_share) / len(active)
        limit *= 1.0 + p.lives_slope * (view.lives[0] - sum(others) / len(others))
        if view.swimming[0]:
            limit *= p.swim_factor
        if self._turns > p.patience:
            limit *= 1.0 + (self._turns - p.patience) / p.patience
        return limit

    def _should_knock(self, view: SeatView, stuck: bool = False) -> bool:
        key = self.tables.key
        a, b, c = view.hand
        if self.tables.pts[a][b][c] < self.params.min_knock:
            return False
        order = self._order_after(view, 0, stop=0)
        mine = key[a][b][c]
        losses = sum(
            self._lowest_after_replies(hands, view.table, order, mine)
            for hands in self._sample_hands(view, self.params.samples)
        )
        return losses / self.params.samples < self.knock_limit(view, stuck)

    def _final_move(self, view: SeatView, moves: list) -> int:
        key = self.tables.key
        order = self._order_after(view, 0, stop=view.knocker)
        if not order or not self.params.final_mc:  # only our hand matters
            return max(moves, key=lambda m: (key[m[1][0]][m[1][1]][m[1][2]], m[0] == PASS))[0]
        ranked = sorted(moves, key=lambda m: -key[m[1][0]][m[1][1]][m[1][2]])[:5]
        samples = self._sample_hands(view, self.params.samples)
        best = None
        for action, h, t in ranked:
            mine = key[h[0]][h[1]][h[2]]
            losses = sum(
                self._lowest_after_replies(list(hands), t, order, mine) for hands in samples
            )
            score = (losses, -mine)
            if best is None or score < best[0]:
                best = (score, action)
        return best[1]

    def move_values(self, view: SeatView, moves: list | None = None) -> list[tuple[float, int]]:
        """``(value, action)`` of every ordinary-turn move but knock (higher is better)."""
        p = self.params
        if moves is None:
            moves = candidates(view.hand, view.table)
        unseen = view.unseen
        nxt = self._order_after(view, 0, stop=0)[:1]
        risk = p.value == "risk"
        weight = p.feed_risk if risk else p.feed_penalty
        feed_hands = self._sample_hands(view, p.feed_samples) if weight and nxt else []
        tables = self._random_tables(unseen, p.table_samples) if risk else []
        players = len(view.active)
        out = []
        for action, h, t in moves:
            value = -self._hand_risk(h, tables, players) if risk else self._hand_value(h, unseen)
            if feed_hands:
                value -= weight * self._feed(feed_hands, nxt[0], t)
            out.append((value, action))
        return out

    def _turn_move(self, view: SeatView, moves: list) -> tuple[int, int]:
        """``(best move, an improving move or PASS)`` of an ordinary turn."""
        key = self.tables.key
        a, b, c = view.hand
        now = key[a][b][c]
        improving = PASS
        for action, h, _t in moves:
            if action != PASS and key[h[0]][h[1]][h[2]] > now:
                improving = action
        best = None
        for value, action in self.move_values(view, moves):
            if best is None or value > best[0] + 1e-9:
                best = (value, action)
        return best[1], improving

    def _dealer_choice(self, view: SeatView) -> int:
        p = self.params
        unseen = list(view.unseen)
        if p.value == "risk":
            return self._dealer_choice_risk(view, unseen)
        keep = self._hand_value(view.hand, unseen)
        nxt = self._order_after(view, 0, stop=0)[:1]
        rnd = self._rnd
        exchange = 0.0
        feed_keep = feed_exchange = 0.0
        m = p.feed_samples * 2
        for _ in range(m):
            drawn = rnd.sample(unseen, 9)
            new = tuple(drawn[:3])
            exchange += self._hand_value(new, unseen)
            if nxt:
                other = tuple(drawn[3:6])
                feed_keep += self._gain(other, tuple(drawn[6:9]))
                feed_exchange += self._gain(other, view.hand)
        exchange /= m
        keep -= p.feed_penalty * feed_keep / m
        exchange -= p.feed_penalty * feed_exchange / m
        return KEEP if keep >= exchange - p.keep_margin else EXCHANGE

    def _dealer_choice_risk(self, view: SeatView, unseen: list) -> int:
        p = self.params
        players = len(view.active)
        tables = self._random_tables(unseen, p.table_samples)
        keep = -self._hand_risk(view.hand, tables, players)
        exchange = 0.0
        nxt = self._order_after(view, 0, stop=0)[:1]
        feed = 0.0
        sample = self._rnd.sample
        m = p.feed_samples
        for _ in range(m):
            drawn = sample(unseen, 9)
            exchange -= self._hand_risk(tuple(drawn[:3]), tables, players)
            if nxt:  # what the next player gains from a random table vs from our old hand
                other = tuple(drawn[3:6])
                feed += self._gain(other, view.hand) - self._gain(other, tuple(drawn[6:9]))
        exchange = exchange / m - p.feed_risk * feed / m
        return KEEP if keep >= exchange - p.keep_margin else EXCHANGE

    # -------------------------------------------------------------- helpers
    def _lowest_after_replies(self, hands: list, table: tuple, order: list[int], mine: int) -> bool:
        """The estimate behind knocking and the final circle, for one deal ``hands``: once
        the players of ``order`` have made their best replies in turn on ``table``, does
        the hand of key ``mine`` hold the lowest hand (ties count)? Updates ``hands``."""
        key = self.tables.key
        for p in order:
            _, hands[p], table = best_reply(key, hands[p], table)
        return all(key[x[0]][x[1]][x[2]] >= mine for p, x in enumerate(hands) if x and p)

    def _random_tables(self, unseen: Sequence[int], count: int) -> list[tuple]:
        sample = self._rnd.sample
        cards = list(unseen)
        if len(cards) < 3:
            return []
        return [tuple(sample(cards, 3)) for _ in range(count)]

    def _hand_risk(self, hand: tuple, tables: list[tuple], players: int) -> float:
        """Chance of the lowest hand: as it is, and after the best swap from a random table."""
        pts = self.tables.pts
        key = self.tables.key
        a, b, c = hand
        now = lowest_risk(pts[a][b][c], players)
        if not tables:
            return now
        later = 0.0
        for t in tables:
            _, h, _ = best_reply(key, hand, t)
            later += lowest_risk(pts[h[0]][h[1]][h[2]], players)
        w = self.params.risk_now
        return w * now + (1.0 - w) * later / len(tables)

    def _hand_value(self, hand: tuple, unseen: tuple | list) -> float:
        """Points now blended with the expected points after one more card."""
        pts = self.tables.pts
        a, b, c = hand
        now = pts[a][b][c]
        w = self.params.lookahead
        if not w or not unseen:
            return now
        total = 0.0
        for x in unseen:
            v = now
            y = pts[x][b][c]
            if y > v:
                v = y
            y = pts[a][x][c]
            if y > v:
                v = y
            y = pts[a][b][x]
            if y > v:
                v = y
            total += v
        return (1.0 - w) * now + w * total / len(unseen)

    def _gain(self, hand: tuple, table: tuple) -> float:
        pts = self.tables.pts
        a, b, c = hand
        now = pts[a][b][c]
        _, h, _ = best_reply(self.tables.key, hand, table)
        return pts[h[0]][h[1]][h[2]] - now

    def _feed(self, samples: list, seat: int, table: tuple) -> float:
        return sum(self._gain(hands[seat], table) for hands in samples) / len(samples)

    def _order_after(self, view: SeatView, start: int, stop: int | None) -> list[int]:
        """Active positions after ``start`` going left, up to (not including) ``stop``."""
        n = view.num_players
        out = []
        k = (start + 1) % n
        while k != stop and k != start:
            if not view.out[k]:
                out.append(k)
            k = (k + 1) % n
        return out

    def _sample_hands(self, view: SeatView, count: int) -> list[list[tuple]]:
        return [
            sample_hands(view, self.tables.key, self._rnd, self.params.skill) for _ in range(count)
        ]


#: Default opponent-model skill per number of hidden cards (1, 2, 3): calibrated so the
#: sampled hands of expert and greedy players match the strength of their real hands
#: (see ``docs/evaluation.md``).
DEFAULT_SKILL: tuple[int, int, int] = (14, 8, 2)


def sample_hands(
    view: SeatView, key: list, rnd: _random.Random, skill: int | Sequence[int] = DEFAULT_SKILL
) -> list[tuple]:
    """One random deal of the hidden cards: a hand per position (``()`` if out).

    The observer keeps its hand; each opponent keeps the cards it is publicly known to
    hold, and its other cards are the best (by showdown key) of several random draws
    from the cards not yet placed: ``skill`` draws, or ``skill[k - 1]`` draws when ``k``
    of its cards are hidden (``1`` is a uniform deal). Players keep good cards, and a
    player who took a card from the table usually holds cards that go with it, so a
    uniform deal makes opponents far too weak.
    """
    pool = list(view.unseen)
    n = view.num_players
    hands: list[tuple] = [()] * n
    hands[0] = tuple(view.hand)
    r = rnd.random
    for p in range(1, n):
        if view.out[p]:
            continue
        known = tuple(view.known[p])
        k = 3 - len(known)
        if k == 0:
            hands[p] = known
            continue
        draws = skill if isinstance(skill, int) else skill[k - 1]
        m = len(pool)
        best, best_key = known, -1
        for _ in range(draws):
            # k distinct random cards of the pool (rejection is cheap: k <= 3, m >= 9)
            i = int(r() * m)
            if k == 1:
                h = (*known, pool[i])
            else:
                j = int(r() * m)
                while j == i:
                    j = int(r() * m)
                if k == 2:
                    h = (*known, pool[i], pool[j])
                else:
                    x = int(r() * m)
                    while x in (i, j):
                        x = int(r() * m)
                    h = (pool[i], pool[j], pool[x])
            kk = key[h[0]][h[1]][h[2]]
            if kk > best_key:
                best, best_key = h, kk
        for c in best[len(known) :]:
            pool.remove(c)
        hands[p] = best
    return hands

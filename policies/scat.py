"""Scripted Scat players of known strength: ``random``, ``greedy``, ``expert``.

All three read only their seat's observation (decoded with
:func:`schnauz_env.scat.infoset.decode_observation`) and the action mask, so they
play exactly what a human at that seat could.

======== ===================================================================================
name     idea
======== ===================================================================================
random   Uniform over the legal actions. The floor every other player must beat.
greedy   Myopic: knocks when its hand is worth at least a fixed threshold (``greedy:27``
         is the default; ``greedy:T`` sets T); otherwise draws the discard if keeping it
         makes the hand better *now*, else draws from the stock, and discards the card
         whose loss leaves the best hand. With the stock empty it takes an improving
         discard or passes; on a final turn it never stays while a draw is possible.
expert   The best heuristic we could make. Per decision:

         * **Knock** when the estimated chance of holding the strictly lowest hand
           after every other player's final turn is small next to the fair share of
           losses (``1 / players``). The chance is a Monte Carlo estimate: the cards
           the seat cannot locate are dealt to the opponents (cards an opponent drew
           from the discard pile stay with them), each opponent keeps the best of as
           many random draws as it has had turns (players keep good cards) and then
           makes one final draw. A knocker tied for lowest is safe, so only strict
           losses count. The seed's tip (knock with 28+, 26 against cautious players)
           falls out of this estimate.
         * **Draw**: take the discard when the best hand with it beats the *expected*
           best hand after a stock draw (over the unseen cards); a blitz in reach is
           always taken.
         * **Discard**: keep the three cards with the best value plus half their
           expected gain from one more card (two cards of a suit are worth more than
           their sum says); on equal hands, throw the card least useful to the next
           player, judged by the cards that player is known to hold. On a final turn
           only the value counts.
======== ===================================================================================
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np

from policies.base import Policy, register_policy
from schnauz_env.scat.config import ScatConfig
from schnauz_env.scat.engine import DISCARD_BASE, DRAW_DISCARD, DRAW_STOCK, KNOCK, PASS
from schnauz_env.scat.hands import POINTS, hand_value
from schnauz_env.scat.infoset import ScatView, decode_observation

# ---------------------------------------------------------------- hand helpers

#: The expert's discard score of a card whose loss leaves a blitz (above any other score).
BLITZ_SCORE = 1e9


@functools.cache
def _values3(trinca: bool) -> list[float]:
    """The value of every three-card hand, at ``(a * 52 + b) * 52 + c`` for any order of
    the cards (``hand_value`` of each set, written to its six orders): the experts look
    up a million hands a game, and a list index is ~10x cheaper than summing suits."""
    table = [0.0] * (52**3)
    for a, b, c in itertools.combinations(range(52), 3):
        v = hand_value((a, b, c), trinca)
        for x, y, z in itertools.permutations((a, b, c)):
            table[(x * 52 + y) * 52 + z] = v
    return table


def value_of(cards: list[int] | tuple[int, ...], trinca: bool) -> float:
    """:func:`~schnauz_env.scat.hands.hand_value`, a table lookup for three cards."""
    if len(cards) == 3:
        return _values3(trinca)[(cards[0] * 52 + cards[1]) * 52 + cards[2]]
    return hand_value(cards, trinca)


def best_keep(cards: list[int], trinca: bool) -> tuple[float, int]:
    """``(value, index)``: the best hand left by throwing one of ``cards``, and which
    (the first such index on a tie)."""
    if len(cards) == 4:
        v3 = _values3(trinca)
        a, b, c, d = cards
        best, best_i = v3[(b * 52 + c) * 52 + d], 0
        v = v3[(a * 52 + c) * 52 + d]
        if v > best:
            best, best_i = v, 1
        v = v3[(a * 52 + b) * 52 + d]
        if v > best:
            best, best_i = v, 2
        v = v3[(a * 52 + b) * 52 + c]
        if v > best:
            best, best_i = v, 3
        return best, best_i
    best, best_i = -1.0, 0
    for i in range(len(cards)):
        v = value_of(cards[:i] + cards[i + 1 :], trinca)
        if v > best:
            best, best_i = v, i
    return best, best_i


def expected_gain(hand: list[int], pool: list[int], trinca: bool) -> float:
    """Mean improvement of ``hand`` from one more card drawn from ``pool`` (best use)."""
    if not pool:
        return 0.0
    base = value_of(hand, trinca)
    total = 0.0
    for c in pool:
        v, _ = best_keep([*hand, c], trinca)
        if v > base:
            total += v - base
    return total / len(pool)


def expected_draw(hand: list[int], pool: list[int], trinca: bool) -> float:
    """Expected best hand after drawing one card of ``pool`` into ``hand`` and discarding."""
    if not pool:
        return value_of(hand, trinca)
    return sum(best_keep([*hand, c], trinca)[0] for c in pool) / len(pool)


def _config(config: Any) -> ScatConfig:
    if config is None:
        return ScatConfig()
    if not isinstance(config, ScatConfig):
        raise ValueError(f"a Scat policy needs a ScatConfig, got {type(config).__name__}")
    return config


def _legal(mask: np.ndarray) -> list[int]:
    legal = [int(a) for a in np.flatnonzero(mask)]
    if not legal:
        raise ValueError("the action mask is empty: there is no legal action to choose")
    return legal


# ---------------------------------------------------------------- policies


@register_policy("scat", "random")
class RandomPolicy(Policy):
    """Uniform over the legal actions."""

    name = "random"
    game = "scat"

    def __init__(self, config: Any = None, seed: int | None = None, **_: Any) -> None:
        super().__init__(_config(config), seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = _legal(action_mask)
        return legal[int(self.rng.integers(len(legal)))]


@register_policy("scat", "greedy")
class GreedyPolicy(Policy):
    """Myopic best hand now; knocks at a fixed threshold (``greedy:T``, default 27)."""

    name = "greedy"
    game = "scat"

    def __init__(
        self, config: Any = None, seed: int | None = None, arg: str | None = None, **_: Any
    ) -> None:
        super().__init__(_config(config), seed)
        try:
            self.threshold = float(arg) if arg else 27.0
        except ValueError:
            raise ValueError(f"greedy:T needs a number T (knock threshold), got {arg!r}") from None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = _legal(action_mask)
        cfg = self.config
        trinca = cfg.trinca
        view = decode_observation(observation, cfg)
        hand = list(view.hand)
        if view.discard_step:
            _, i = best_keep(hand, trinca)
            return DISCARD_BASE + i
        now = value_of(hand, trinca)
        if KNOCK in legal and now >= self.threshold:
            return KNOCK
        top = view.discard_top
        if top is not None and DRAW_DISCARD in legal:
            with_top = [*hand, top]
            v, i = best_keep(sorted(with_top), trinca)
            if v > now:
                return DRAW_DISCARD
        if DRAW_STOCK in legal:
            return DRAW_STOCK
        return PASS if PASS in legal else legal[0]


@register_policy("scat", "expert")
class ExpertPolicy(Policy):
    """Monte Carlo knock decisions, expected-value draws, potential-aware discards."""

    name = "expert"
    game = "scat"

    #: Samples of the opponents' hands per knock decision.
    samples = 32
    #: Knock when P(strictly lowest) < risk / players (see the module docstring).
    risk = 0.3
    #: Weight of a hand's expected gain from one more card when choosing a discard.
    potential = 0.5
    #: Random draws an opponent is assumed to have kept the best of, per circle played.
    opponent_draws = 1.0

    def __init__(
        self, config: Any = None, seed: int | None = None, arg: str | None = None, **_: Any
    ) -> None:
        super().__init__(_config(config), seed)
        if arg:
            try:
                self.risk = float(arg)
            except ValueError:
                raise ValueError(f"expert:R needs a number R (knock risk), got {arg!r}") from None

    # ------------------------------------------------------------ decisions
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = _legal(action_mask)
        cfg = self.config
        trinca = cfg.trinca
        view = decode_observation(observation, cfg)
        hand = list(view.hand)
        pool = view.unseen()
        if view.discard_step:
            return DISCARD_BASE + self._discard(view, hand, pool)
        now = value_of(hand, trinca)
        if KNOCK in legal and now >= 20 and self._should_knock(view, hand, pool):
            return KNOCK
        top = view.discard_top
        blitz = cfg.blitz_value
        with_top = -1.0
        if top is not None:
            with_top, _ = best_keep(sorted([*hand, top]), trinca)
            if with_top == blitz and not view.final:
                return DRAW_DISCARD
        if DRAW_STOCK in legal:
            if with_top > now and with_top >= expected_draw(hand, pool, trinca):
                return DRAW_DISCARD
            return DRAW_STOCK
        # the stock is empty: improve from the discard pile, else end the round
        if with_top > now:
            return DRAW_DISCARD
        if KNOCK in legal:
            return KNOCK
        return PASS if PASS in legal else legal[0]

    def _discard(self, view: ScatView, hand: list[int], pool: list[int]) -> int:
        scores = self.discard_scores(view, hand, pool)
        return scores.index(max(scores))  # the first best

    def discard_scores(self, view: ScatView, hand: list[int], pool: list[int]) -> list[float]:
        """The expert's score of throwing each card of ``hand`` (it throws the first of the
        highest): the value left, plus ``potential`` times its expected gain from one more
        card and a small penalty for feeding the next player its suit (not on a final
        turn); a blitz left scores above everything."""
        trinca = self.config.trinca
        blitz = self.config.blitz_value
        nxt = next((k for k in range(1, view.num_players) if not view.out[k]), None)
        nxt_suits = [0, 0, 0, 0]
        if nxt is not None:
            for c in view.known[nxt]:
                nxt_suits[c & 3] += POINTS[c]
        scores = []
        for i, x in enumerate(hand):
            rest = hand[:i] + hand[i + 1 :]
            v = value_of(rest, trinca)
            if v == blitz and not view.final:
                scores.append(BLITZ_SCORE)
                continue
            score = v
            if not view.final:
                score += self.potential * expected_gain(rest, pool, trinca)
                if nxt_suits[x & 3]:  # feeding the next player the suit it collects
                    score -= 0.05 * POINTS[x]
            score -= 0.001 * POINTS[x]  # on a tie keep the higher card
            scores.append(score)
        return scores

    def _should_knock(self, view: ScatView, hand: list[int], pool: list[int]) -> bool:
        return self.lowest_chance(view, hand, pool) < self.risk / len(view.active)

    def lowest_chance(self, view: ScatView, hand: list[int], pool: list[int]) -> float:
        """The Monte Carlo chance (``samples`` deals of the unseen cards, drawn with the
        policy's generator) that ``hand`` is strictly the lowest after every opponent's
        final turn (see the module docstring)."""
        cfg = self.config
        trinca = cfg.trinca
        mine = value_of(hand, trinca)
        opponents = [k for k in view.active if k != 0]
        m = len(view.active)
        initial_stock = 52 - cfg.hand_size * m - 1
        rounds_played = max(0, initial_stock - view.stock_size) / m
        draws = min(int(rounds_played * self.opponent_draws) + 1, 6)
        size = cfg.hand_size
        rng = self.rng
        strict = 0
        for _ in range(self.samples):
            deck = list(pool)
            rng.shuffle(deck)
            lowest = 99.0
            for k in opponents:
                h = list(view.known[k])
                while len(h) < size and deck:
                    h.append(deck.pop())
                for _ in range(draws + 1):  # past draws, then the final turn
                    if not deck:
                        break
                    h4 = sorted([*h, deck.pop()])
                    _, i = best_keep(h4, trinca)
                    h = h4[:i] + h4[i + 1 :]
                lowest = min(lowest, value_of(h, trinca))
            if mine < lowest:
                strict += 1
        return strict / self.samples

"""Statistics of an evaluation: Wilson intervals, mean intervals and an openskill leaderboard.

The numerical work is the libraries': :func:`scipy.stats.binomtest` for the Wilson
score interval, :func:`scipy.stats.t` for a mean's interval, and openskill's
Plackett–Luce model for ratings from finishing orders of many players.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``successes / trials``.

    ``(0.0, 1.0)`` when there are no trials. Uses :func:`scipy.stats.binomtest`.
    """
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be within 0..{trials}, got {successes}")
    ci = _st.binomtest(int(successes), int(trials)).proportion_ci(
        confidence_level=confidence, method="wilson"
    )
    return float(ci.low), float(ci.high)


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)``: Student-t interval of the mean (NaN-free for n < 2)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    if x.size < 2 or float(x.std()) == 0.0:
        return m, m, m
    low, high = _st.t.interval(confidence, x.size - 1, loc=m, scale=_st.sem(x))
    return m, float(low), float(high)


@dataclass
class Rating:
    """A policy's Plackett–Luce rating: ``mu`` and its uncertainty ``sigma``."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """A conservative score, ``mu - 3 sigma`` (openskill's ordering convention)."""
        return self.mu - 3.0 * self.sigma

    @property
    def interval(self) -> tuple[float, float]:
        """``mu ± 2 sigma`` (about 95% under the model's normal belief)."""
        return self.mu - 2.0 * self.sigma, self.mu + 2.0 * self.sigma


def plackett_luce_ratings(
    games: Iterable[tuple[Sequence[str], Sequence[float]]], names: Sequence[str] | None = None
) -> dict[str, Rating]:
    """Rate policies from games given as ``(policy per seat, final place per seat)``.

    Each seat is a one-player team of openskill's Plackett–Luce model, ranked by its
    place (1 = best; equal places are ties). When one policy holds several seats of a
    game, each seat is rated as a copy and the policy takes the mean of the copies'
    updates. Games are processed in the given order, so a fixed order is reproducible.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, tuple[float, float]] = {}
    for name in names or ():
        ratings[name] = (model.mu, model.sigma)
    for seats, places in games:
        for name in seats:
            ratings.setdefault(name, (model.mu, model.sigma))
        teams = [[model.rating(mu=ratings[s][0], sigma=ratings[s][1])] for s in seats]
        new = model.rate(teams, ranks=[float(p) for p in places])
        updates: dict[str, list[tuple[float, float]]] = {}
        for s, team in zip(seats, new, strict=True):
            updates.setdefault(s, []).append((team[0].mu, team[0].sigma))
        for s, ups in updates.items():
            mu0, _ = ratings[s]
            mu = mu0 + sum(u[0] - mu0 for u in ups) / len(ups)
            sigma = sum(u[1] for u in ups) / len(ups)
            ratings[s] = (mu, sigma)
    return {k: Rating(mu, sigma) for k, (mu, sigma) in ratings.items()}


__all__ = ["Rating", "mean_interval", "plackett_luce_ratings", "wilson_interval"]

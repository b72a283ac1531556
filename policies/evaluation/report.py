"""What an evaluation measured: per-policy and per-pair statistics, and their reports.

**Per policy** (over every seat it held): win rate (games won by that seat / seats
played; the fair share is ``1 / players``) with a 95% Wilson interval; mean final place
with a 95% t interval; lives lost per round played (games with lives: Schnauz, Scat);
time per move; an openskill Plackett–Luce rating over all games. **Per pair** of
policies: how often A finished ahead of B when both sat at a table, with a Wilson
interval (seat pairs of one game are not independent, so read it as a guide; the
per-policy intervals count independent deals' seats).

:class:`EvalResult` prints them (rich), as Markdown, and saves JSON, CSV and a PNG.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from policies.evaluation.runner import GameRecord
from policies.evaluation.stats import mean_interval, plackett_luce_ratings, wilson_interval
from schnauz_env.common.files import atomic_write


@dataclass
class PolicyStats:
    """Aggregated results of one policy over every seat it held."""

    policy: str
    seat_games: int
    wins: int
    win_rate: float
    win_low: float
    win_high: float
    fair_share: float
    mean_place: float
    place_low: float
    place_high: float
    lives_lost_per_round: float | None
    rating_mu: float
    rating_sigma: float
    rating_low: float
    rating_high: float
    moves: int
    ms_per_move: float


@dataclass
class PairStats:
    """How often ``a`` finished ahead of ``b`` over seat pairs where both played."""

    a: str
    b: str
    pairs: int
    ahead: float
    rate: float
    low: float
    high: float


@dataclass
class EvalResult:
    """Everything an evaluation measured; :meth:`save` writes JSON, CSV and a PNG."""

    settings: dict[str, Any]
    records: list[GameRecord]
    policies: list[PolicyStats]
    pairs: list[PairStats]
    elapsed: float
    turn_limits: int = 0
    tables: list[dict[str, Any]] = field(default_factory=list)

    @property
    def games(self) -> int:
        return len(self.records)

    @property
    def games_per_second(self) -> float:
        return self.games / self.elapsed if self.elapsed > 0 else math.nan

    def stats(self, policy: str) -> PolicyStats:
        """The statistics of ``policy`` (its label); ``KeyError`` if it did not play."""
        for p in self.policies:
            if p.policy == policy:
                return p
        raise KeyError(policy)

    def to_dict(self) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "games": self.games,
            "elapsed_seconds": round(self.elapsed, 3),
            "games_per_second": round(self.games_per_second, 3),
            "turn_limits_reached": self.turn_limits,
            "leaderboard": [asdict(p) for p in self.policies],
            "pairwise": [asdict(p) for p in self.pairs],
            "tables": self.tables,
        }

    def save(self, out: str, games_csv: bool = False, overwrite: bool = False) -> list[str]:
        """Write ``results.json``, ``leaderboard.csv``, ``pairwise.csv`` and
        ``leaderboard.png`` (and ``games.csv`` with every game if asked) into ``out``.

        Each file is written atomically (:mod:`schnauz_env.common.files`): a crash leaves
        the old file or the new one. Without ``overwrite`` a folder that already holds one
        of these files is refused (:class:`FileExistsError`) before anything is written;
        :func:`check_out` makes the same check before an evaluation starts."""
        check_out(out, games_csv, overwrite)
        paths = []
        path = os.path.join(out, "results.json")
        text = json.dumps(self.to_dict(), indent=2) + "\n"
        atomic_write(path, lambda f: f.write(text), overwrite)
        paths.append(path)
        for name, rows in (("leaderboard.csv", self.policies), ("pairwise.csv", self.pairs)):
            path = os.path.join(out, name)
            dicts = [asdict(r) for r in rows]
            atomic_write(path, lambda f, dicts=dicts: _write_rows(f, dicts), overwrite)
            paths.append(path)
        if games_csv:
            path = os.path.join(out, "games.csv")
            atomic_write(path, self._write_games, overwrite)
            paths.append(path)
        path = os.path.join(out, "leaderboard.png")
        self.plot(path, overwrite)
        paths.append(path)
        return paths

    def _write_games(self, f: Any) -> None:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(
            [
                "table",
                "deal",
                "rotation",
                "seed",
                "seat",
                "policy",
                "place",
                "lives_lost",
                "rounds_played",
                "moves",
                "think_seconds",
            ]
        )
        for r in self.records:
            for s, label in enumerate(r.seats):
                w.writerow([
                    r.table, r.deal, r.rotation, r.seed, s, label, r.places[s],
                    r.lives_lost[s] if r.lives_lost else "",
                    r.rounds_played[s] if r.rounds_played else "",
                    r.moves[s], round(r.think[s], 6),
                ])  # fmt: skip

    def plot(self, path: str, overwrite: bool = True) -> None:
        """A PNG of the leaderboard: win rate with its Wilson interval, and rating ± 2σ
        (written atomically; an existing file only with ``overwrite``)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = list(reversed(self.policies))
        names = [p.policy for p in rows]
        y = np.arange(len(rows))
        fig, (ax1, ax2) = plt.subplots(
            1, 2, figsize=(10, 1.2 + 0.55 * len(rows)), sharey=True, constrained_layout=True
        )
        rate = np.array([p.win_rate for p in rows])
        err = np.array(
            [[p.win_rate - p.win_low for p in rows], [p.win_high - p.win_rate for p in rows]]
        )
        ax1.errorbar(rate, y, xerr=err, fmt="o", capsize=4, color="tab:blue")
        fair = self.settings.get("fair_share")
        if fair:
            ax1.axvline(fair, color="grey", ls="--", lw=1, label=f"fair share {fair:.3g}")
            ax1.legend(loc="lower right", fontsize=8)
        ax1.set_yticks(y, names)
        ax1.set_xlabel("win rate per seat (95% Wilson interval)")
        mu = np.array([p.rating_mu for p in rows])
        err2 = np.array(
            [
                [p.rating_mu - p.rating_low for p in rows],
                [p.rating_high - p.rating_mu for p in rows],
            ]
        )
        ax2.errorbar(mu, y, xerr=err2, fmt="s", capsize=4, color="tab:orange")
        ax2.set_xlabel("openskill Plackett–Luce rating (μ ± 2σ)")
        s = self.settings
        deck = s.get("rules", {}).get("deck", "")
        fig.suptitle(
            f"{s['game']} {deck}, {s['players']} players, {self.games} games"
            f"{' (duplicate deals)' if s.get('duplicate') else ''}",
            fontsize=10,
        )
        for ax in (ax1, ax2):
            ax.grid(axis="x", alpha=0.3)
        try:
            atomic_write(
                path, lambda f: fig.savefig(f, format="png", dpi=110), overwrite, binary=True
            )
        finally:
            plt.close(fig)

    def table_rows(self) -> list[list[str]]:
        rows = []
        for i, p in enumerate(self.policies, 1):
            rows.append([
                str(i), p.policy, str(p.seat_games),
                f"{p.win_rate:.3f} [{p.win_low:.3f}, {p.win_high:.3f}]",
                f"{p.mean_place:.2f} [{p.place_low:.2f}, {p.place_high:.2f}]",
                "-" if p.lives_lost_per_round is None else f"{p.lives_lost_per_round:.3f}",
                f"{p.rating_mu:.1f} ± {2 * p.rating_sigma:.1f}",
                f"{p.ms_per_move:.2f}",
            ])  # fmt: skip
        return rows

    HEADERS = ("#", "policy", "seat-games", "win rate [95% CI]", "mean place [95% CI]",
               "lives lost / round", "rating μ ± 2σ", "ms / move")  # fmt: skip

    def markdown(self) -> str:
        """The leaderboard as a Markdown table."""
        lines = ["| " + " | ".join(self.HEADERS) + " |", "|" + "---|" * len(self.HEADERS)]
        lines += ["| " + " | ".join(r) + " |" for r in self.table_rows()]
        return "\n".join(lines)

    def print_table(self, file: Any = None) -> None:
        """Print the leaderboard and the pairwise results with rich."""
        from rich.console import Console
        from rich.table import Table

        console = Console(file=file)
        if not console.is_terminal:  # a pipe or a file: do not squeeze the table into 80 columns
            console = Console(file=file, width=160)
        s = self.settings
        t = Table(
            title=f"{s['game']} — {s['players']} players — {self.games} games "
            f"({self.games_per_second:.1f} games/s)"
        )
        for h in self.HEADERS:
            t.add_column(h, justify="left" if h == "policy" else "right")
        for r in self.table_rows():
            t.add_row(*r)
        console.print(t)
        if self.pairs:
            pt = Table(title="head to head: how often A finished ahead of B")
            for h in ("A", "B", "seat pairs", "A ahead [95% CI]"):
                pt.add_column(h)
            for p in self.pairs:
                pt.add_row(p.a, p.b, str(p.pairs), f"{p.rate:.3f} [{p.low:.3f}, {p.high:.3f}]")
            console.print(pt)
        if self.turn_limits:
            console.print(f"[yellow]{self.turn_limits} rounds ended by the turn limit[/yellow]")


#: The files :meth:`EvalResult.save` writes (``games.csv`` only when asked).
OUT_FILES = ("results.json", "leaderboard.csv", "pairwise.csv", "leaderboard.png")


def check_out(out: str | os.PathLike, games_csv: bool = False, overwrite: bool = False) -> None:
    """Can :meth:`EvalResult.save` write into the folder ``out``? ``FileExistsError`` if it
    already holds one of its files (unless ``overwrite``), ``ValueError`` if ``out`` is a
    file or its nearest existing folder is not writable. Nothing is created."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file, not a folder")
    if not overwrite:
        names = [*OUT_FILES, *(["games.csv"] if games_csv else [])]
        there = [n for n in names if (out / n).exists()]
        if there:
            raise FileExistsError(
                f"{out} already holds {', '.join(there)}; choose another folder "
                "(or overwrite them on purpose)"
            )
    folder = out
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"cannot make the folder {out}: {folder} is a file")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"cannot write into {folder}: permission denied")


def _write_rows(f: Any, dicts: list[dict[str, Any]]) -> None:
    if dicts:
        w = csv.DictWriter(f, fieldnames=list(dicts[0]), lineterminator="\r\n")
        w.writeheader()
        w.writerows({k: _fmt(v) for k, v in d.items()} for d in dicts)


def _fmt(v: Any) -> Any:
    if isinstance(v, float):
        return round(v, 5)
    return v


def summarize(
    records: Sequence[GameRecord], labels: Sequence[str], players: int
) -> tuple[list[PolicyStats], list[PairStats]]:
    """Per-policy and per-pair statistics of ``records`` (see the module docstring).

    Policies come sorted by rating, best first; pairs follow that order.
    """
    records = sorted(records, key=lambda r: (r.table, r.deal, r.rotation))
    ratings = plackett_luce_ratings(((r.seats, r.places) for r in records), names=labels)
    out = []
    for label in labels:
        places, wins, lost, played, moves, think = [], 0, 0, 0, 0, 0.0
        for r in records:
            for s, who in enumerate(r.seats):
                if who != label:
                    continue
                places.append(r.places[s])
                wins += r.places[s] == 1.0
                moves += r.moves[s]
                think += r.think[s]
                if r.lives_lost is not None:
                    lost += r.lives_lost[s]
                    played += r.rounds_played[s]
        if not places:
            continue
        lo, hi = wilson_interval(wins, len(places))
        m, plo, phi = mean_interval(places)
        rating = ratings[label]
        out.append(
            PolicyStats(
                policy=label,
                seat_games=len(places),
                wins=wins,
                win_rate=wins / len(places),
                win_low=lo,
                win_high=hi,
                fair_share=1.0 / players,
                mean_place=m,
                place_low=plo,
                place_high=phi,
                lives_lost_per_round=lost / played if played else None,
                rating_mu=rating.mu,
                rating_sigma=rating.sigma,
                rating_low=rating.interval[0],
                rating_high=rating.interval[1],
                moves=moves,
                ms_per_move=1000.0 * think / moves if moves else math.nan,
            )
        )
    out.sort(key=lambda p: -p.rating_mu)
    pairs = []
    order = [p.policy for p in out]
    for a, b in itertools.combinations(order, 2):
        n_pairs, ahead = 0, 0.0
        for r in records:
            for s, t in itertools.permutations(range(len(r.seats)), 2):
                if r.seats[s] == a and r.seats[t] == b:
                    n_pairs += 1
                    ahead += (
                        1.0
                        if r.places[s] < r.places[t]
                        else 0.5
                        if r.places[s] == r.places[t]
                        else 0.0
                    )
        if n_pairs:
            lo, hi = wilson_interval(round(ahead), n_pairs)
            pairs.append(PairStats(a, b, n_pairs, ahead, ahead / n_pairs, lo, hi))
    return out, pairs


__all__ = ["OUT_FILES", "EvalResult", "PairStats", "PolicyStats", "check_out", "summarize"]

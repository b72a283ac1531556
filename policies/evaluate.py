"""Evaluate players against each other: duplicate deals, intervals, a leaderboard.

Python API::

    from policies.evaluate import evaluate

    result = evaluate(["random", "greedy", "expert"], game="schnauz", players=4, games=400)
    result.print_table()
    result.save("docs/leaderboard")          # results.json, leaderboard.csv, pairwise.csv, .png

Command line (``schnauz-eval --help`` documents every option)::

    schnauz-eval --game schnauz --players 4 --policies random greedy expert --games 2000

**Tables.** With as many policies as seats (``--schedule table``) the policies sit in
the given order. With any other number (``--schedule pairs``, a round robin) every pair
``A, B`` of policies plays at its own table with the seats alternating ``A B A B ...``
(and also ``B A B A ...`` when the seat count is odd, so both hold as many seats).

**Duplicate deals** (on by default). Every deal is replayed once per distinct rotation
of the seat assignment, so each policy plays every seat of the same deal. This works
because the engines use their generator only to draw the first dealer and to shuffle
once per round: the same game seed gives the same decks whatever the players do.
``games`` counts games, rounded up to whole sets of rotations.

**Statistics per policy** (over every seat it held): win rate (games won by that seat
/ seats played; the fair share is ``1 / players``) with a 95% Wilson interval; mean
final place with a 95% t interval; lives lost per round played (games with lives:
Schnauz, Scat); time per move; an openskill Plackett–Luce rating over all games.
Per pair of policies: how often A finished ahead of B when both sat at a table, with
a Wilson interval (seat pairs of one game are not independent, so read it as a
guide; the per-policy intervals count independent deals' seats).

The harness drives the rules engine directly (:func:`schnauz_env.games.game_module`:
``Config``, ``new_game``, ``ObservationEncoder``), not the AEC wrapper, and works for any
game of the package. Games run in worker processes (``workers``, default: every core).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from policies.base import Policy, available_policies, make_policy
from policies.stats import mean_interval, plackett_luce_ratings, wilson_interval
from schnauz_env.games import GAMES, game_module

PolicySpec = str | Policy


# ------------------------------------------------------------------ schedule


@dataclass(frozen=True)
class Matchup:
    """One table: the policy label of every seat (rotation 0) and how many deals to play."""

    seats: tuple[str, ...]
    deals: int

    def rotations(self, duplicate: bool = True) -> list[tuple[str, ...]]:
        """The distinct rotations of the seat assignment (just the assignment if not duplicate)."""
        if not duplicate:
            return [self.seats]
        out: list[tuple[str, ...]] = []
        n = len(self.seats)
        for r in range(n):
            rot = tuple(self.seats[(i - r) % n] for i in range(n))
            if rot not in out:
                out.append(rot)
        return out


def rotations(seats: Sequence[str]) -> list[tuple[str, ...]]:
    """The distinct rotations of a seat assignment, the assignment itself first."""
    return Matchup(tuple(seats), 0).rotations()


def make_schedule(
    labels: Sequence[str],
    players: int,
    games: int,
    schedule: str = "auto",
    duplicate: bool = True,
    games_with: dict[str, int] | None = None,
) -> list[Matchup]:
    """The tables to play: see the module docstring for ``"table"`` and ``"pairs"``.

    ``"auto"`` is ``"table"`` when there are as many policies as seats or just one
    policy (it then fills every seat), else ``"pairs"``. ``games`` is per table (per
    pairing in a round robin); ``games_with`` lowers it for tables holding a given
    policy (e.g. ``{"ismcts": 200}`` for a slow player).
    """
    labels = list(labels)
    if schedule not in ("auto", "table", "pairs"):
        raise ValueError(f"unknown schedule {schedule!r}; allowed: auto, table, pairs")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if schedule == "auto":
        schedule = "table" if len(labels) in (1, players) else "pairs"
    tables: list[tuple[tuple[str, ...], float]] = []
    if schedule == "table":
        if len(labels) == 1:
            labels = labels * players
        if len(labels) != players:
            raise ValueError(
                f"schedule 'table' needs one policy per seat: {players} seats but "
                f"{len(labels)} policies ({' '.join(labels)})"
            )
        tables.append((tuple(labels), 1.0))
    else:
        if len(set(labels)) < 2:
            raise ValueError("schedule 'pairs' needs at least two different policies")
        for a, b in itertools.combinations(dict.fromkeys(labels), 2):
            first = tuple(a if i % 2 == 0 else b for i in range(players))
            if players % 2:
                second = tuple(b if i % 2 == 0 else a for i in range(players))
                tables += [(first, 0.5), (second, 0.5)]
            else:
                tables.append((first, 1.0))
    out = []
    for seats, share in tables:
        budget = games
        for name, limit in (games_with or {}).items():
            if name in seats:
                budget = min(budget, limit)
        per_deal = len(Matchup(seats, 0).rotations(duplicate))
        out.append(Matchup(seats, max(1, math.ceil(budget * share / per_deal))))
    return out


# ------------------------------------------------------------------ one game


@dataclass
class GameRecord:
    """The outcome of one game (one rotation of one deal)."""

    table: int
    deal: int
    rotation: int
    seed: int
    seats: tuple[str, ...]
    places: tuple[float, ...]
    rounds: int | None
    lives_lost: tuple[int, ...] | None
    rounds_played: tuple[int, ...] | None
    moves: tuple[int, ...]
    think: tuple[float, ...]
    """Seconds spent choosing moves, per seat."""
    turn_limits: int = 0
    """Rounds ended by the termination guard (reported, never expected)."""


def _seed(*parts: int) -> int:
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


def play_game(
    game: str,
    config: Any,
    policies: Sequence[Policy],
    seed: int,
    encoder: Any = None,
) -> dict[str, Any]:
    """Play one game with ``policies[seat]`` at each seat; return its outcome.

    The engine's generator is seeded with ``seed`` (the deal). Returns ``places``,
    ``rounds``, ``lives_lost``, ``rounds_played`` (``None`` for games without lives),
    ``moves``, ``think`` (seconds per seat) and ``turn_limits``.
    """
    gm = game_module(game)
    if encoder is None:
        encoder = gm.ObservationEncoder(config)
    state = gm.new_game(config, np.random.default_rng(seed))
    n = state.n
    moves = [0] * n
    think = [0.0] * n
    has_lives = all(hasattr(state, a) for a in ("lives", "out", "round"))
    lives_lost = [0] * n
    rounds_played = [0] * n
    turn_limits = 0
    encode = encoder.encode
    clock = time.perf_counter
    while not state.game_over:
        seat = state.current
        obs = encode(state, seat)
        mask = state.legal_mask()
        t0 = clock()
        action = policies[seat].act(obs, mask)
        think[seat] += clock() - t0
        moves[seat] += 1
        if not mask[action]:
            raise ValueError(
                f"policy {policies[seat].name!r} at seat {seat} chose illegal action {action} "
                f"({state.action_to_string(int(action))}); legal: {np.flatnonzero(mask).tolist()}"
            )
        if has_lives:
            lives0, out0, round0 = list(state.lives), list(state.out), state.round
        result = state.apply(int(action))
        if result is not None and getattr(result, "turn_limit_reached", False):
            turn_limits += 1
        if has_lives and state.round != round0:
            for s in range(n):
                if not out0[s]:
                    rounds_played[s] += 1
                    lives_lost[s] += max(0, lives0[s] - state.lives[s])
                    lives_lost[s] += int(state.out[s] and not out0[s])
    places = tuple(float(p) for p in state.places)
    return {
        "places": places,
        "rounds": getattr(state, "round", None),
        "lives_lost": tuple(lives_lost) if has_lives else None,
        "rounds_played": tuple(rounds_played) if has_lives else None,
        "moves": tuple(moves),
        "think": tuple(think),
        "turn_limits": turn_limits,
    }


# ------------------------------------------------------------------ workers

_WORKER: dict[str, Any] = {}


def _worker_init(game: str, config: Any, specs: dict[str, PolicySpec]) -> None:
    gm = game_module(game)
    _WORKER.update(
        game=game, config=config, specs=specs, encoder=gm.ObservationEncoder(config), cache={}
    )


def _policy(label: str, seat: int) -> Policy:
    cache = _WORKER["cache"]
    key = (label, seat)
    if key not in cache:
        spec = _WORKER["specs"][label]
        if isinstance(spec, Policy):
            import copy

            cache[key] = copy.deepcopy(spec)
        else:
            cache[key] = make_policy(spec, game=_WORKER["game"], config=_WORKER["config"])
    return cache[key]


def _run_task(task: tuple[int, tuple[str, ...], int, int, int, int]) -> GameRecord:
    table, seats, deal, rotation, run_seed, deal_seed = task
    policies = []
    for s, label in enumerate(seats):
        p = _policy(label, s)
        p.reset(seed=_seed(run_seed, table, deal, rotation, s))
        policies.append(p)
    out = play_game(_WORKER["game"], _WORKER["config"], policies, deal_seed, _WORKER["encoder"])
    return GameRecord(table=table, deal=deal, rotation=rotation, seed=deal_seed, seats=seats, **out)


# ------------------------------------------------------------------ results


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

    def save(self, out: str, games_csv: bool = False) -> list[str]:
        """Write ``results.json``, ``leaderboard.csv``, ``pairwise.csv`` and
        ``leaderboard.png`` (and ``games.csv`` with every game if asked) into ``out``."""
        os.makedirs(out, exist_ok=True)
        paths = []
        path = os.path.join(out, "results.json")
        with open(path, "w") as f:
            json.dump(self.to_dict(), f, indent=2)
            f.write("\n")
        paths.append(path)
        for name, rows in (("leaderboard.csv", self.policies), ("pairwise.csv", self.pairs)):
            path = os.path.join(out, name)
            with open(path, "w", newline="") as f:
                dicts = [asdict(r) for r in rows]
                if dicts:
                    w = csv.DictWriter(f, fieldnames=list(dicts[0]))
                    w.writeheader()
                    w.writerows({k: _fmt(v) for k, v in d.items()} for d in dicts)
            paths.append(path)
        if games_csv:
            path = os.path.join(out, "games.csv")
            with open(path, "w", newline="") as f:
                w = csv.writer(f)
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
            paths.append(path)
        path = os.path.join(out, "leaderboard.png")
        self.plot(path)
        paths.append(path)
        return paths

    def plot(self, path: str) -> None:
        """A PNG of the leaderboard: win rate with its Wilson interval, and rating ± 2σ."""
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
        fig.savefig(path, dpi=110)
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


def _fmt(v: Any) -> Any:
    if isinstance(v, float):
        return round(v, 5)
    return v


def summarize(
    records: Sequence[GameRecord], labels: Sequence[str], players: int
) -> tuple[list[PolicyStats], list[PairStats]]:
    """Per-policy and per-pair statistics of ``records`` (see the module docstring)."""
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


# ------------------------------------------------------------------ evaluate


def evaluate(
    policies: Sequence[PolicySpec],
    game: str = "schnauz",
    players: int = 4,
    games: int = 200,
    schedule: str = "auto",
    duplicate: bool = True,
    workers: int | None = None,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    games_with: dict[str, int] | None = None,
    progress: bool = False,
) -> EvalResult:
    """Play ``policies`` against each other and measure them (see the module docstring).

    ``policies`` are names for :func:`policies.make_policy` (``"expert"``,
    ``"ismcts:400"``, a model path) or :class:`~policies.base.Policy` objects (labelled
    by their ``name``). ``options`` are rule options of the game's config besides
    ``num_players``. ``workers=None`` uses every core; ``1`` plays in this process.
    ``seed`` fixes the deals (the same in every table) and the policies' seeds, so a
    run is reproducible whatever the number of workers.
    """
    config = _make_config(game, players, options or {})
    specs: dict[str, PolicySpec] = {}
    labels = []
    for p in policies:
        label = p.name if isinstance(p, Policy) else str(p)
        if isinstance(p, str):
            make_policy(p, game=game, config=config, seed=0)  # fail early on a bad name
        specs[label] = p
        labels.append(label)
    if games_with:
        unknown = sorted(set(games_with) - set(labels))
        if unknown:
            raise ValueError(f"games_with names {', '.join(unknown)} that are not playing")
    tables = make_schedule(labels, players, games, schedule, duplicate, games_with)
    tasks = []
    for t, m in enumerate(tables):
        rots = m.rotations()
        for d in range(m.deals):
            if duplicate:  # the same deals at every table, each replayed in every rotation
                deal_seed = _seed(seed, d)
                tasks += [(t, rot, d, r, seed, deal_seed) for r, rot in enumerate(rots)]
            else:  # a fresh deal per game; the rotations still take turns
                r = d % len(rots)
                tasks.append((t, rots[r], d, r, seed, _seed(seed, t, d)))
    if workers is None:
        workers = os.cpu_count() or 1
    start = time.perf_counter()
    records: list[GameRecord] = []
    bar = _progress(len(tasks), progress)
    if workers <= 1:
        _worker_init(game, config, specs)
        for task in tasks:
            records.append(_run_task(task))
            bar.update(1)
    else:
        import multiprocessing as mp

        # Small chunks: slow players' games would otherwise hold the progress bar back.
        chunk = max(1, min(4, len(tasks) // (workers * 64)))
        with mp.Pool(workers, initializer=_worker_init, initargs=(game, config, specs)) as pool:
            for rec in pool.imap_unordered(_run_task, tasks, chunksize=chunk):
                records.append(rec)
                bar.update(1)
    bar.close()
    elapsed = time.perf_counter() - start
    stats, pairs = summarize(records, list(dict.fromkeys(labels)), players)
    settings = {
        "game": game,
        "players": players,
        "policies": list(dict.fromkeys(labels)),
        "games_requested": games,
        "games_with": dict(games_with or {}),
        "schedule": schedule,
        "duplicate": duplicate,
        "seed": seed,
        "workers": workers,
        "rules": {k: v for k, v in _config_dict(config).items() if k != "num_players"},
        "fair_share": 1.0 / players,
    }
    table_info = []
    for t, m in enumerate(tables):
        recs = [r for r in records if r.table == t]
        table_info.append({"seats": list(m.seats), "deals": m.deals, "games": len(recs)})
    return EvalResult(
        settings=settings,
        records=records,
        policies=stats,
        pairs=pairs,
        elapsed=elapsed,
        turn_limits=sum(r.turn_limits for r in records),
        tables=table_info,
    )


def _make_config(game: str, players: int, options: dict[str, Any]) -> Any:
    """The game's rules config; unknown options raise ``ValueError`` listing the allowed."""
    from schnauz_env.common.options import make_config

    return make_config(game_module(game).Config, {"num_players": players, **options}, game)


def _config_dict(config: Any) -> dict[str, Any]:
    if hasattr(config, "to_dict"):
        return config.to_dict()
    try:
        return asdict(config)
    except TypeError:
        return {}


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, show: bool) -> Any:
    if not show:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="game", smoothing=0.05, dynamic_ncols=True, file=sys.stderr)


# ------------------------------------------------------------------ command line


def _parse_value(text: str) -> Any:
    import ast

    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="schnauz-eval",
        description=(
            "Play policies against each other on duplicate deals and report win rates with "
            "95%% Wilson intervals, mean places, lives lost per round, time per move and an "
            "openskill (Plackett-Luce) leaderboard; save JSON, CSV and a PNG plot with --out."
        ),
        epilog=(
            "examples:\n"
            "  schnauz-eval --policies random greedy expert --games 2000 --out docs/leaderboard\n"
            "  schnauz-eval --policies expert ismcts:400 --players 3 --games 200\n"
            "  schnauz-eval --policies random --players 4 --games 400   # four copies of random\n"
            "  schnauz-eval --game scat --policies random greedy --option lives=2\n"
            "Policy names: see --list. A policy may take a parameter after a colon\n"
            "(greedy:27 knocks at 27 points, ismcts:400 searches 400 determinizations)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--game", default="schnauz", help=f"game to play: {', '.join(GAMES)} (default schnauz)"
    )
    p.add_argument("--players", type=int, default=4, help="seats at the table (default 4)")
    p.add_argument(
        "--policies",
        nargs="+",
        default=["random", "greedy", "expert"],
        metavar="NAME",
        help="policies to evaluate: registered names (see --list), optionally NAME:PARAM, or "
        "model file paths (default: random greedy expert)",
    )
    p.add_argument(
        "--games",
        type=int,
        default=200,
        help="games per table (per pairing in a round robin), rounded up to whole sets of "
        "duplicate rotations (default 200)",
    )
    p.add_argument(
        "--games-with",
        action="append",
        default=[],
        metavar="NAME=N",
        help="play only N games at tables holding policy NAME (for slow players; repeatable)",
    )
    p.add_argument(
        "--schedule",
        choices=("auto", "table", "pairs"),
        default="auto",
        help="'table': the policies sit in the given order, one per seat; 'pairs': round robin, "
        "every pair at its own table with alternating seats; 'auto' (default): table when "
        "there is one policy or one per seat, else pairs",
    )
    p.add_argument(
        "--no-duplicate",
        action="store_true",
        help="fresh deal for every game instead of replaying each deal with the seats rotated",
    )
    p.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: every core)"
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the deals and the policies (default 0)"
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="rule option of the game's config, e.g. deck=A9 or lives=2 (repeatable)",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        help="write results.json, leaderboard.csv, pairwise.csv, leaderboard.png here",
    )
    p.add_argument(
        "--save-games", action="store_true", help="also write every game to DIR/games.csv"
    )
    p.add_argument(
        "--markdown", action="store_true", help="also print the leaderboard as a Markdown table"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--list", action="store_true", help="list the policy names of --game and exit")
    return p


def _pairs(items: Sequence[str], what: str, parser: argparse.ArgumentParser) -> dict[str, str]:
    out = {}
    for item in items:
        k, sep, v = item.partition("=")
        if not sep or not k:
            parser.error(f"{what} must look like KEY=VALUE, got {item!r}")
        out[k] = v
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """The ``schnauz-eval`` command (``--help`` documents it)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.game not in GAMES:
        parser.error(f"unknown game {args.game!r}; known games: {', '.join(GAMES)}")
    try:
        game_module(args.game)
    except ModuleNotFoundError:
        parser.error(f"game {args.game!r} is not available in this installation yet")
    if args.list:
        print("\n".join(available_policies(args.game)))
        return 0
    options = {k: _parse_value(v) for k, v in _pairs(args.option, "--option", parser).items()}
    if "num_players" in options:
        parser.error("set the number of players with --players, not --option num_players")
    games_with = {}
    for k, v in _pairs(args.games_with, "--games-with", parser).items():
        try:
            games_with[k] = int(v)
        except ValueError:
            parser.error(f"--games-with {k}={v}: N must be an integer")
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    if args.workers is not None and args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")
    try:
        config = _make_config(args.game, args.players, options)
    except (ValueError, TypeError) as err:
        parser.error(f"bad table or rule option: {err}")
    for name in args.policies:
        try:
            make_policy(name, game=args.game, config=config, seed=0)
        except ValueError as err:
            parser.error(str(err))
    try:
        result = evaluate(
            args.policies,
            game=args.game,
            players=args.players,
            games=args.games,
            schedule=args.schedule,
            duplicate=not args.no_duplicate,
            workers=args.workers,
            seed=args.seed,
            options=options,
            games_with=games_with,
            progress=not args.quiet,
        )
    except ValueError as err:
        parser.error(str(err))
    result.settings["command"] = "schnauz-eval " + " ".join(
        sys.argv[1:] if argv is None else list(argv)
    )
    result.print_table()
    if args.markdown:
        print(result.markdown())
    if args.out:
        for path in result.save(args.out, games_csv=args.save_games):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

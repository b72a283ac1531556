"""How much room a Thirteen player has over ``expert``: a determinized search probe.

    python bench/thirteen_search_probe.py                         # 16 candidates, 32 deals
    python bench/thirteen_search_probe.py --width 0 --determinizations 128   # experts' plays only
    python bench/thirteen_search_probe.py --games 40              # a quick look

One seat searches, three ``expert-jit`` play the others, on 4-player games of the
standard rules; every deal is played four times with the searcher in each seat, so an
``expert`` in its place wins exactly 0.25 (the four seats being alike). Where the
searcher has a choice at the start of a play, its candidates are the plays of four
differently tuned experts (``expert`` itself first, then made to play whenever it can,
to spend 2s and bombs like any card, to pass more readily), then the plays that leave
the cheapest hand by the expert's own measure, up to ``--width``, and a pass when it may
pass (``--width 0``: the experts' plays alone). Each candidate is rolled out to the end
of the game with ``expert-jit`` at every seat on each of ``--determinizations`` deals of
the cards the seat cannot see (``ThirteenState.determinize``: the seat's information
only), all candidates on the same deals; the value is a win, plus 0.1 per match point
the final place earns (n - place, RULES.md). It keeps ``expert``'s play
unless another one's mean gain over it exceeds one standard error.

The probe is not a player of the package (it reads the engine's state to determinize,
where a player gets only its observation); the README's Thirteen section quotes its
figures as evidence of what a search can reach, and what a network distilled from it
could aim for.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from policies import make_policy
from policies.base import with_params
from policies.evaluation.stats import wilson_interval
from policies.thirteen import ExpertPolicy, Play, cheapest_suits, cost_after, next_action
from policies.thirteen_features import V1_PARAMS
from schnauz_env.thirteen.combos import STRENGTH, plays_strengths
from schnauz_env.thirteen.config import ThirteenConfig
from schnauz_env.thirteen.engine import OVER, PASS, ThirteenState, new_game
from schnauz_env.thirteen.infoset import SeatView, decode_observation
from schnauz_env.thirteen.observation import ObservationEncoder

PLAYERS = 4
#: The experts whose plays come first: ``expert``'s own tunables, then variants of them.
EXPERT_PARAMS = (
    V1_PARAMS,
    {"spend_penalty": 1.0, "margin": -1.0e9},  # plays whenever it can
    {"spend_penalty": 0.0, "margin": -0.25},  # spends 2s and bombs like any card
    {"spend_penalty": 1.0, "margin": 0.75},  # passes more readily
)


class Probe:
    """The searching seat and its rollout players."""

    def __init__(self, width: int, determinizations: int, seed: int) -> None:
        self.config = ThirteenConfig(num_players=PLAYERS)
        self.encoder = ObservationEncoder(self.config)
        self.experts = [with_params(ExpertPolicy(self.config), p) for p in EXPERT_PARAMS]
        self.rollout = make_policy("expert-jit", game="thirteen", config=self.config, seed=seed)
        self.width = width
        self.determinizations = determinizations
        self.seed = seed
        self.searched = self.deviated = 0

    def candidates(self, view: SeatView) -> list[Play | None]:
        """The experts' plays, then the cheapest-hand plays, up to ``width``, and a pass
        (``None``) when the seat may pass; with ``width`` 0 the experts' plays alone (a
        pass among them if one of them passes)."""
        hand = tuple(STRENGTH[c] for c in view.hand)
        must = None if view.opening_card is None else STRENGTH[view.opening_card]
        every = plays_strengths(hand, view.table_combo, must)
        out: list[Play | None] = []
        for expert in self.experts:
            choice = expert.choose(view, hand, every, allow_pass=True)
            if choice not in out:
                out.append(choice)
        if not self.width:
            return out
        plays = cheapest_suits(every)
        plays.sort(key=lambda p: (cost_after(hand, p), p[-1]))
        for p in plays:
            if len(out) >= self.width:
                break
            if p not in out:
                out.append(p)
        if None not in out and not view.leading:
            out.append(None)
        return out

    def expert_step(self, state: ThirteenState) -> None:
        """The player to act moves as ``expert-jit`` (its only action without asking)."""
        mask = state.legal_mask()
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            state.apply(int(legal[0]))
        else:
            state.apply(self.rollout.act(self.encoder.encode(state, state.current), mask))

    def play_out(self, state: ThirteenState) -> ThirteenState:
        """``expert-jit`` at every seat to the end of the game."""
        while state.phase != OVER:
            self.expert_step(state)
        return state

    @staticmethod
    def make_play(state: ThirteenState, plan: Play | None) -> None:
        if plan is None:
            state.apply(PASS)
            return
        for k in range(len(plan) + 1):
            state.apply(int(next_action(plan[:k], plan)))

    @staticmethod
    def value(state: ThirteenState, seat: int) -> float:
        place = state.places[seat]
        return float(place == 1.0) + 0.1 * (PLAYERS - place)

    def search(self, state: ThirteenState, seat: int, cands: list[Play | None]) -> Play | None:
        """The candidate to play (``self.rng`` draws the deals)."""
        values = np.zeros((self.determinizations, len(cands)))
        for d in range(self.determinizations):
            deal = state.determinize(seat, np.random.default_rng(self.rng.integers(2**63)))
            for k, plan in enumerate(cands):
                copy = deal.clone(rng=np.random.default_rng(d))
                self.make_play(copy, plan)
                values[d, k] = self.value(self.play_out(copy), seat)
        gain = values - values[:, [0]]
        score = gain.mean(axis=0) - gain.std(axis=0) / np.sqrt(self.determinizations)
        best = int(np.argmax(score))
        self.searched += 1
        self.deviated += bool(score[best] > 0)
        return cands[best] if score[best] > 0 else cands[0]

    def game(self, number: int) -> bool:
        """Game ``number``: deal ``number // 4`` with the searcher at seat ``number % 4``;
        whether it won. Its searches draw from a generator of their own per game."""
        seat = number % PLAYERS
        state = new_game(
            self.config, np.random.default_rng(self.seed * 100_000 + number // PLAYERS)
        )
        self.rng = np.random.default_rng(self.seed * 7 + number)
        while state.phase != OVER:
            cands: list[Play | None] = []
            if state.current == seat and len(state.legal_actions()) > 1:
                view = decode_observation(self.encoder.encode(state, seat), self.config)
                if not view.selected and not view.declare:
                    cands = self.candidates(view)
            if len(cands) > 1:
                self.make_play(state, self.search(state, seat, cands))
            else:
                self.expert_step(state)
        return state.places[seat] == 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=800, help="a multiple of 4 (default 800)")
    parser.add_argument(
        "--width", type=int, default=16, help="candidates (default 16; 0: experts')"
    )
    parser.add_argument("--determinizations", type=int, default=32, help="deals (default 32)")
    parser.add_argument("--seed", type=int, default=2, help="deals and search (default 2)")
    args = parser.parse_args()
    if args.games < 4 or args.games % 4 or args.width < 0 or args.determinizations < 2:
        parser.error(
            "--games must be a positive multiple of 4, --width >= 0, --determinizations >= 2"
        )
    probe = Probe(args.width, args.determinizations, args.seed)
    wins, start = 0, time.perf_counter()
    for g in range(args.games):
        wins += probe.game(g)
        if (g + 1) % 40 == 0 or g + 1 == args.games:
            lo, hi = wilson_interval(wins, g + 1)
            print(
                f"{g + 1} games, {time.perf_counter() - start:.0f} s: win rate {wins / (g + 1):.3f}"
                f" [{lo:.3f}, {hi:.3f}] (expert 0.250); {probe.searched} searched decisions,"
                f" {probe.deviated} away from expert's play",
                flush=True,
            )


if __name__ == "__main__":
    main()

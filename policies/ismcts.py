"""Information-set Monte Carlo tree search for Schnauz (``"ismcts"``, ``"ismcts:N"``).

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012) with a fast greedy rollout:

1. **Determinize.** Each simulation starts from a full state drawn from what this seat
   knows (:func:`schnauz_env.schnauz.infoset.sample_state`): the cards the seat cannot
   locate are dealt at random to the opponents' unknown hand slots and the stock; the
   cards each opponent is publicly known to hold stay with them; and a deal that gives
   an opponent Fire or Schnauz after the dealer's choice (which would have ended the
   round) is drawn again.
2. **Select / expand.** One tree is shared by all determinizations. Its edges are the
   moves *as this seat would see them*: our own moves by action number; an opponent's
   swap by the table slot it takes and the card it puts down; an opponent's swap-all or
   exchange by the hand it reveals; pass, knock and keep as themselves. A node's
   children are chosen by UCB1 over the edges legal in the current determinization,
   with availability counts in place of the parent's visits. Every player maximises
   its own reward at its own nodes.
3. **Roll out** to the end of the round with a fast policy: the dealer keeps an
   average-or-better hand, a player knocks at ``rollout_knock`` points or more, else
   makes its best swap (a random legal move with probability ``epsilon``).
4. **Back up** the round's outcome: ``-1`` for each player who lost a life, ``-1 -
   out_penalty`` for a player it put out, ``0`` for the rest.

The move played is the most visited edge at the root. ``simulations`` (the budget) is
the number of determinizations per move: ``"ismcts:400"`` plays with 400. The default
keeps a move well under a second on one core (time per move is in the README's
leaderboard and ``docs/evaluation.md``). The tunables are :class:`IsmctsParams`, each
settable by name (``"ismcts:simulations=400,exploration=1.0"``).
"""

from __future__ import annotations

import math
import random as _random
from dataclasses import dataclass, replace
from typing import Any, ClassVar, TypeVar

import numpy as np

from policies.base import parse_params, register_policy
from policies.schnauz import (
    DEFAULT_SKILL,
    ExpertPolicy,
    TunablePolicy,
    best_action,
    candidates,
    hand_tables,
    sample_hands,
)
from schnauz_env.schnauz.config import SchnauzConfig
from schnauz_env.schnauz.engine import (
    DEALER_CHOICE,
    EXCHANGE,
    KEEP,
    KNOCK,
    PASS,
    SWAP_ALL,
    TURNS,
    RoundResult,
    SchnauzState,
)
from schnauz_env.schnauz.infoset import decode_observation, sample_state

DEFAULT_SIMULATIONS = 500
#: Deals drawn per determinization before giving up on a possible one (see
#: ``ISMCTSPolicy._determinize``), and how many of them use the biased deal.
MAX_DEALS = 256
BIASED_TRIES = 16


@dataclass(frozen=True, kw_only=True)
class SearchParams:
    """The tunables every determinized search has (given by keyword). A search's own (a
    subclass) name their budget, the field a number as the name's argument sets
    (``"ismcts:400"``), in :attr:`budget_name`."""

    #: The field that is the budget: determinizations per move.
    budget_name: ClassVar[str]
    skill: int | tuple[int, int, int] = DEFAULT_SKILL
    """The deals' opponent model (:func:`determinize`)."""


@dataclass(frozen=True)
class IsmctsParams(SearchParams):
    """The tunables of ``ismcts`` (``"ismcts:400"``, ``"ismcts:exploration=1.0,width=6"``)."""

    budget_name = "simulations"
    simulations: int = DEFAULT_SIMULATIONS
    """The budget: determinizations per move, each one simulation (a path down the tree
    and a rollout to the end of the round)."""
    exploration: float = 0.7
    """UCB1's exploration constant."""
    rollout_knock: float = 26.0
    """Rollouts and modelled opponents knock at this many points or more."""
    epsilon: float = 0.0
    """The chance of a random legal move in a rollout."""
    out_penalty: float = 1.0
    """What being put out costs beyond the life (the backed-up reward is ``-1 - out_penalty``)."""
    opponents: str = "model"
    """``"model"``: the opponents play the rollout policy and the tree records only what
    seat 0 sees; ``"tree"``: they choose by UCB1 at their own nodes."""
    width: int = 4
    """The root's candidates: the ``width`` best moves by the expert, plus pass and knock
    (0: every legal move)."""

    def __post_init__(self) -> None:
        if self.opponents not in ("model", "tree"):
            raise ValueError(f"opponents must be 'model' or 'tree', got {self.opponents!r}")


def determinize(
    view: Any,
    config: SchnauzConfig,
    rng: np.random.Generator,
    rnd: _random.Random,
    action_mask: np.ndarray,
    key: Any,
    skill: int | tuple[int, int, int] = DEFAULT_SKILL,
) -> tuple[SchnauzState, bool]:
    """A full state drawn from what the seat of ``view`` knows (it is seat 0 of the
    state), and whether it is possible.

    The opponents' hidden cards come from the expert's calibrated deal
    (:func:`~policies.schnauz.sample_hands`, ``skill`` draws per hand, the best kept:
    players keep good cards, and a uniform deal makes them far too weak); after
    ``BIASED_TRIES`` deals, uniform ones. A deal the seat's information rules out is
    drawn again: once the dealer has chosen, an opponent still in the round cannot hold
    Fire or Schnauz (it would have ended the round when it was dealt or made; the
    engine's ``sealed_seats``). The biased deal draws such hands often (7% of
    determinizations at the default skill). After ``MAX_DEALS`` tries the last state is
    returned with ``False``.
    """
    for attempt in range(MAX_DEALS):
        biased = skill != 1 and attempt < BIASED_TRIES
        hands = sample_hands(view, key, rnd, skill) if biased else None
        state = sample_state(view, config, rng, action_mask, hands=hands)
        if not any(state.ends_round(state.hands[s]) for s in state.sealed_seats(0)):
            return state, True
    return state, False


class Node:
    """Statistics of one edge of the search tree (and the node it leads to)."""

    __slots__ = ("avail", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[Any, Node] = {}
        self.visits = 0
        self.avail = 1
        self.reward = 0.0


#: The tunables of a :class:`DeterminizedSearch`.
S = TypeVar("S", bound=SearchParams)


class DeterminizedSearch(TunablePolicy[S]):
    """What the Schnauz search players share: tunables that are :class:`SearchParams` (a
    number as the name's argument sets the budget, ``"ismcts:400"``; ``key=value`` items
    set any, ``"ismcts:simulations=400,width=6"``), a config whose episodes end with the
    round (a simulation stops there: no next deal is shuffled), the hand tables, and the
    determinizations of :func:`determinize` drawn from their own generator.

    A subclass declares its :attr:`params_class` and builds what it plays with in
    :meth:`_players`."""

    def _parse_arg(self, arg: str, params: S) -> dict[str, Any]:
        """The overrides of the name's argument: a number is the budget, ``key=value`` any
        tunable."""
        budget = params.budget_name
        overrides: dict[str, Any] = {}
        for item in arg.split(","):
            if "=" in item:
                overrides.update(parse_params(item, params, self.name))
                continue
            try:
                overrides[budget] = int(item)
            except ValueError:
                raise ValueError(
                    f"bad {self.name} budget {item!r}: write '{self.name}:N' with N {budget} "
                    f"per move, or '{self.name}:key=value,...'"
                ) from None
        return overrides

    def _setup(self, seed: int | None) -> None:
        """Check the budget; the tables and the round's config; the search's own
        :meth:`_players`; then the deals' generator, seeded from the policy's."""
        budget = self.params.budget_name
        if getattr(self.params, budget) < 1:
            raise ValueError(
                f"{self.name} needs a budget of at least 1 ({budget}), "
                f"got {getattr(self.params, budget)}"
            )
        self.tables = hand_tables(self.config)
        self._search_config = replace(self.config, episode="round")
        self.impossible_deals = 0
        self._players(seed)
        self._seed_deals()

    def _players(self, seed: int | None) -> None:
        """Build what the search plays with (``seed`` as given to the constructor)."""

    def _seed_deals(self) -> None:
        """Seed the deals' generator from the policy's."""
        self._rnd = _random.Random(int(self.rng.integers(2**63)))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self._seed_deals()

    def _determinize(self, view: Any, action_mask: np.ndarray, key: Any = None) -> SchnauzState:
        """A full state drawn from what seat 0 knows (:func:`determinize`);
        ``impossible_deals`` counts the (never seen) states left impossible after
        ``MAX_DEALS`` tries."""
        state, possible = determinize(
            view,
            self._search_config,
            self.rng,
            self._rnd,
            action_mask,
            self.tables.key if key is None else key,
            self.params.skill,
        )
        self.impossible_deals += not possible
        return state


@register_policy("schnauz", "ismcts")
class ISMCTSPolicy(DeterminizedSearch[IsmctsParams]):
    """Single-observer ISMCTS with determinization and greedy rollouts (module docs)."""

    name = "ismcts"
    params_class = IsmctsParams

    def _players(self, seed: int | None) -> None:
        """The expert that ranks the root's moves."""
        self._heuristic = ExpertPolicy(self.config, seed=seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the deals and the expert that ranks the root's moves (it samples hands:
        left as it was, an evaluation's moves depended on the expert's unseeded start)."""
        super().reset(seed)
        if seed is not None:
            self._heuristic.reset(int(self.rng.integers(2**63)))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        view = decode_observation(observation, self.config)
        root = Node()
        key = self.tables.key
        allowed = self._root_moves(view, legal)
        for _ in range(self.params.simulations):
            self._simulate(root, self._determinize(view, action_mask, key), allowed)
        visits = {a: root.children[a].visits for a in legal if a in root.children}
        return int(max(visits, key=lambda a: (visits[a], root.children[a].reward)))

    def _root_moves(self, view: Any, legal: np.ndarray) -> set[int] | None:
        """The root's candidate moves: the ``width`` best by the expert's hand value (or
        by the hand's showdown key in the final circle), plus pass and knock."""
        if self.params.width <= 0 or view.phase == DEALER_CHOICE:
            return None
        moves = candidates(view.hand, view.table)
        if view.phase == TURNS:
            ranked = sorted(self._heuristic.move_values(view, moves), reverse=True)
        else:
            key = self.tables.key
            ranked = sorted(((key[h[0]][h[1]][h[2]], a) for a, h, _ in moves), reverse=True)
        allowed = {a for _, a in ranked[: self.params.width]} | {PASS, KNOCK}
        return {int(a) for a in legal if a in allowed}

    # ---------------------------------------------------------------- search
    def _edge(self, state: SchnauzState, action: int) -> Any:
        """The edge key of ``action`` by the player to act, as seat 0 would see it."""
        if state.current == 0 or action in (KEEP, PASS, KNOCK):
            return action
        hand = state.hands[state.current]
        if action < SWAP_ALL:
            i, j = divmod(action - 2, 3)
            return 100 + 64 * j + hand[i]  # the table slot taken and the card put down
        return (action, *hand)  # swap all or exchange reveal the whole hand

    def _simulate(self, root: Node, state: SchnauzState, allowed: set[int] | None = None) -> None:
        c = self.params.exploration
        model = self.params.opponents == "model"
        node = root
        path: list[tuple[Node, int]] = []
        result: RoundResult | None = None
        while result is None:
            mover = state.current
            if model and mover != 0:
                # Opponents play the model policy; the tree only records what seat 0 sees.
                action = self._model_action(state)
                edge = self._edge(state, action)
                child = node.children.get(edge)
                if child is None:
                    child = node.children[edge] = Node()
                node = child
                result = state.apply(action)
                continue
            legal = state.legal_actions()
            if node is root and allowed is not None:
                legal = [a for a in legal if a in allowed]
            children = node.children
            edges = [(self._edge(state, a), a) for a in legal]
            untried = []
            for e in edges:
                child = children.get(e[0])
                if child is None:
                    untried.append(e)
                else:
                    child.avail += 1
            if untried:
                edge, action = untried[int(self._rnd.random() * len(untried))]
                child = children[edge] = Node()
                path.append((child, mover))
                result = state.apply(action)
                if result is None:
                    result = self._rollout(state)
                break
            best, best_score = None, -math.inf
            for edge, action in edges:
                child = children[edge]
                score = child.reward / child.visits + c * math.sqrt(
                    math.log(child.avail) / child.visits
                )
                if score > best_score:
                    best, best_score = (child, action), score
            node, action = best
            path.append((node, mover))
            result = state.apply(action)
        rewards = self._rewards(result, state.n)
        for child, mover in path:
            child.visits += 1
            child.reward += rewards[mover]

    def _rewards(self, result: RoundResult, n: int) -> list[float]:
        rewards = [0.0] * n
        for s in result.losers:
            rewards[s] = -1.0
        for s in result.went_out:
            rewards[s] = -1.0 - self.params.out_penalty
        return rewards

    def _model_action(self, state: SchnauzState) -> int:
        """The fast policy of rollouts and modelled opponents."""
        pts = self.tables.pts
        hand = state.hands[state.current]
        phase = state.phase
        if phase == DEALER_CHOICE:
            return KEEP if pts[hand[0]][hand[1]][hand[2]] >= 16.0 else EXCHANGE
        if self.params.epsilon and self._rnd.random() < self.params.epsilon:
            legal = state.legal_actions()
            return legal[int(self._rnd.random() * len(legal))]
        if (
            phase == TURNS
            and pts[hand[0]][hand[1]][hand[2]] >= self.params.rollout_knock
            and state.knock_allowed()
        ):
            return KNOCK
        return best_action(self.tables.key, hand, state.table)[1]

    def _rollout(self, state: SchnauzState) -> RoundResult:
        """Play to the end of the round with the model policy for every seat."""
        model = self._model_action
        while True:
            result = state.apply(model(state))
            if result is not None:
                return result


__all__ = [
    "DEFAULT_SIMULATIONS",
    "DeterminizedSearch",
    "ISMCTSPolicy",
    "IsmctsParams",
    "SearchParams",
    "determinize",
]

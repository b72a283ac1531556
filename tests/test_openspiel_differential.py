"""The OpenSpiel games against the PettingZoo envs, game for game.

The same seed and the same actions go through the AEC env (``raw_env``) and through the
OpenSpiel game, whose chance nodes are fed the env's deal: the first dealer and every
deck the env's generator draws for that seed (``default_rng(seed)`` draws the first
dealer, then one shuffle per round, as ``new_game`` documents; the engine's own
``first_dealer`` and ``shuffled_deck`` replay it). At every decision node both must
agree on the seat to act, its legal actions (the env's mask) and their names, every
seat's observation tensor and every seat's return so far (``env_returns``: the
OpenSpiel returns are paid at the end); at the end, on the final observations and
returns. The configs are drawn at random over every value of every
rule option.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.observation import make_observation  # noqa: E402

from schnauz_env.common.engine import first_dealer, shuffled_deck  # noqa: E402
from schnauz_env.openspiel import GAME_NAMES, parameters_of  # noqa: E402
from schnauz_env.scat.env import raw_env as scat_env  # noqa: E402
from schnauz_env.schnauz.env import raw_env as schnauz_env  # noqa: E402
from schnauz_env.thirteen.env import raw_env as thirteen_env  # noqa: E402

ENVS = {"schnauz": schnauz_env, "scat": scat_env, "thirteen": thirteen_env}


def random_options(game: str, rng: np.random.Generator) -> dict[str, Any]:
    """Rule options drawn over every value of every option; games kept short (few lives,
    sometimes a low turn limit or a single round) to stay within a CI budget."""

    def pick(*values: Any) -> Any:
        return values[int(rng.integers(len(values)))]

    if game == "schnauz":
        players = int(rng.integers(2, 7))
        return dict(
            num_players=players,
            deck=pick("A7", "A5") if players == 6 else pick("A7", "A9", "A5"),
            lives=pick(0, 1, 2),
            knock_in_first_circle=pick(True, False),
            short_stock=pick("showdown", "recycle"),
            ties=pick("break", "share"),
            fire_costs_all=pick(False, True),
            max_turns=pick(500, 12),
            first_dealer=pick(None, int(rng.integers(players))),
            episode=pick("game", "game", "round"),
        )
    if game == "scat":
        players = int(rng.integers(2, 8))
        return dict(
            num_players=players,
            lives=pick(0, 1) if players > 4 else pick(0, 1, 2),
            knock_on_first_turn=pick(False, True),
            no_trinca=pick(False, True),
            four_card=pick(False, True),
            buy_ins=pick(0, 0, 1),
            max_turns=pick(500, 8),
            first_dealer=pick(None, int(rng.integers(players))),
            episode=pick("game", "game", "round"),
        )
    return dict(
        num_players=int(rng.integers(2, 5)),
        episode=pick("game", "game", "match"),
        target_points=pick(2, 3),
        opening=pick("include", "free"),
        out_clears_table=pick(False, True),
        instant_wins=pick(False, True),
        max_games=pick(100, 2),
    )


def env_deal(config: Any, seed: int) -> tuple[int | None, Iterator[list[int]]]:
    """The first dealer and the decks the env's generator draws for ``seed``, in order."""
    rng = np.random.default_rng(seed)
    dealer = first_dealer(config, rng, None) if hasattr(config, "first_dealer") else None

    def decks() -> Iterator[list[int]]:
        while True:
            yield shuffled_deck(config.deck_cards, rng)

    return dealer, decks()


def play_both(game: str, options: dict[str, Any], seed: int) -> int:
    """Play one game with the same seed and random actions through both APIs, comparing
    every decision node; returns the number of decisions."""
    env = ENVS[game](**options)
    config = env.config
    agents = env.possible_agents
    n = config.num_players
    returns = dict.fromkeys(agents, 0.0)

    def collect() -> None:
        for a, r in env.rewards.items():
            returns[a] += r

    env.reset(seed=seed)
    collect()
    os_game = pyspiel.load_game(GAME_NAMES[game], parameters_of(options))
    state = os_game.new_initial_state()
    observer = make_observation(os_game)  # one observer for every seat (the fast path)
    dealer, decks = env_deal(config, seed)
    dealer_due = getattr(config, "first_dealer", 0) is None
    cards = [int(c) for c in config.deck_cards]
    index = {c: i for i, c in enumerate(cards)}
    deck: list[int] = []
    pick = np.random.default_rng(seed + 1)
    decisions = 0

    def compare(where: str, seat: int | None = None) -> None:
        for s, a in enumerate(agents):
            observer.set_from(state, s)
            obs = env.observe(a)["observation"]
            assert np.array_equal(observer.tensor, obs), f"{where}: observation of seat {s}"
        if seat is not None:  # the state's own tensor calls (slower: a new observer each)
            obs = env.observe(agents[seat])["observation"]
            assert np.array_equal(state.observation_tensor(seat), obs), where
            assert np.array_equal(state.information_state_tensor(seat), obs), where
        paid = state.returns() if state.is_terminal() else state.env_returns()
        assert np.allclose(paid, [returns[a] for a in agents], rtol=0, atol=1e-12), (
            f"{where}: returns {paid} != {returns}"
        )
        if not state.is_terminal():
            assert state.returns() == [0.0] * n  # OpenSpiel's TERMINAL reward model

    while True:
        while state.is_chance_node():  # feed the env's deal
            outcomes = dict(state.chance_outcomes())
            if dealer_due:  # the first chance node draws the first dealer
                name = state.action_to_string(pyspiel.PlayerId.CHANCE, dealer)
                assert name == f"first dealer: seat {dealer}"
                assert sorted(outcomes) == list(range(n))
                action, dealer_due = dealer, False
            else:
                if len(outcomes) == len(cards):  # a deal begins: the env's next deck
                    deck = [index[c] for c in next(decks)]
                action = deck.pop(0)  # (its last cards are forced, or never dealt)
            assert action in outcomes, f"{action} is not a chance outcome now"
            state.apply_action(action)
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            env.step(None)
            collect()
        where = f"{game} {options} seed {seed} decision {decisions}"
        if not env.agents:
            assert state.is_terminal(), where
            compare(where + " (end)")
            return decisions
        assert not state.is_terminal(), where
        seat = agents.index(env.agent_selection)
        assert state.current_player() == seat, where
        legal = state.legal_actions()
        mask = env.observe(env.agent_selection)["action_mask"]
        assert legal == np.flatnonzero(mask).tolist(), where
        compare(where, seat)
        action = legal[int(pick.integers(len(legal)))]
        assert state.action_to_string(seat, action) == env.action_to_string(action), where
        env.step(action)
        collect()
        state.apply_action(action)
        decisions += 1


@pytest.mark.parametrize("game", ["schnauz", "scat", "thirteen"])
def test_same_seed_and_actions_give_the_same_game(game: str) -> None:
    rng = np.random.default_rng({"schnauz": 1, "scat": 2, "thirteen": 3}[game])
    games = {"schnauz": 24, "scat": 16, "thirteen": 10}[game]
    total = 0
    for k in range(games):
        total += play_both(game, random_options(game, rng), seed=1000 + k)
    assert total > 10 * games  # real games were played, not only deals


def test_default_rules_of_each_game_agree() -> None:
    """One whole game of each game under its default rules (four players)."""
    for game in ("schnauz", "scat", "thirteen"):
        assert play_both(game, {}, seed=7) > 0

"""The Scat baselines: registered by name, always legal, and doing what they promise."""

from __future__ import annotations

import numpy as np
import pytest
from test_scat_rules import KNOCK_NOW, code, table

from policies import available_policies, make_policy
from schnauz_env import scat_v0
from schnauz_env.scat import (
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCK,
    ObservationEncoder,
    ScatConfig,
    ScatState,
    discard_action,
    new_game,
)
from schnauz_env.schnauz import SchnauzConfig

NAMES = ("random", "greedy", "expert")


def decide(name: str, state: ScatState, seed: int = 0, **kwargs) -> int:
    policy = make_policy(name, game="scat", config=state.config, seed=seed, **kwargs)
    obs = ObservationEncoder(state.config).encode(state, state.current)
    return policy.act(obs, state.legal_mask())


def test_registered_by_name() -> None:
    assert set(NAMES) <= set(available_policies("scat"))
    assert make_policy("greedy:25", game="scat", config=ScatConfig()).threshold == 25.0
    with pytest.raises(ValueError, match="knock threshold"):
        make_policy("greedy:high", game="scat")
    with pytest.raises(ValueError, match="needs a ScatConfig"):
        make_policy("expert", game="scat", config=SchnauzConfig())
    with pytest.raises(ValueError, match="unknown scat policy"):
        make_policy("oracle", game="scat")


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 2},
        {"num_players": 5, "knock_on_first_turn": True},
        {"num_players": 7, "four_card": True, "lives": 1},
        {"num_players": 3, "no_trinca": True, "buy_ins": 1, "lives": 0},
    ],
)
def test_policies_always_choose_legal_actions_through_the_env(options: dict) -> None:
    env = scat_v0.raw_env(**options)
    n = options["num_players"]
    players = [make_policy(NAMES[s % 3], game="scat", config=env.config, seed=s) for s in range(n)]
    for game in range(4):
        env.reset(seed=game)
        for agent in env.agent_iter(max_iter=50_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = players[env.agent_name_mapping[agent]].act(
                obs["observation"], obs["action_mask"]
            )
            assert obs["action_mask"][action] == 1
            env.step(action)
        assert env.agents == []


def test_greedy_takes_an_improving_discard_and_otherwise_the_stock() -> None:
    state = table({0: "2C 5S 9H", 1: "3C 6S 8D", 2: "4C 7S 10D"}, "KH")
    assert decide("greedy", state) == DRAW_DISCARD  # 9 -> 19 in hearts
    state.apply(DRAW_DISCARD)
    # 2C and 5S both leave 19 in hearts; the first such slot goes
    assert decide("greedy", state) == discard_action(state.hands[0].index(code("2C")))
    state = table({0: "2C 5S 9H", 1: "3C 6S 8D", 2: "4C 7S 10D"}, "3D")
    assert decide("greedy", state) == DRAW_STOCK


def test_greedy_knocks_at_its_threshold() -> None:
    state = table({0: "AC KC 9C", 1: "3C 6S 8D", 2: "4C 7S 10D"}, "2D", **KNOCK_NOW)
    assert decide("greedy", state) == KNOCK  # 30 >= 27
    assert decide("greedy:31", state) != KNOCK


def test_expert_takes_a_blitz_from_the_pile() -> None:
    state = table({0: "AS KS 2D", 1: "3C 6H 8D", 2: "4C 7H 10D"}, "QS")
    assert decide("expert", state) == DRAW_DISCARD
    state.apply(DRAW_DISCARD)
    assert decide("expert", state) == discard_action(state.hands[0].index(code("2D")))


def test_expert_knocks_a_strong_hand_and_keeps_a_weak_one() -> None:
    strong = table({0: "AC KC 9C", 1: "3C 6S 8D", 2: "4C 7S 10D"}, "2D", **KNOCK_NOW)
    assert decide("expert", strong) == KNOCK  # 30 on the first turn
    weak = table({0: "2C 5S 9H", 1: "3C 6S 8D", 2: "4C 7S 10D"}, "2D", **KNOCK_NOW)
    assert decide("expert", weak) != KNOCK


def test_expert_and_greedy_beat_random() -> None:
    """Two-player duplicate games: each of greedy and expert wins most games against random."""
    config = ScatConfig(num_players=2)
    encoder = ObservationEncoder(config)
    for name in ("greedy", "expert"):
        wins = 0
        for deal in range(30):
            for seat in (0, 1):  # the same deal with the seats swapped
                players = {seat: make_policy(name, game="scat", config=config, seed=deal)}
                players[1 - seat] = make_policy("random", game="scat", config=config, seed=deal)
                state = new_game(config, np.random.default_rng(deal))
                while not state.game_over:
                    s = state.current
                    state.apply(players[s].act(encoder.encode(state, s), state.legal_mask()))
                wins += state.places[seat] == 1.0
        assert wins >= 50, f"{name} won only {wins} of 60 games against random"


def test_expert_hand_tables_agree_with_the_rule() -> None:
    """The experts' lookup tables give ``hands.hand_value`` for every hand, and
    ``best_keep`` throws the first card whose loss leaves the best hand."""
    from policies.scat import best_keep, value_of
    from schnauz_env.scat.hands import hand_value

    rng = np.random.default_rng(7)
    for _ in range(5000):
        n = int(rng.integers(3, 6))
        cards = [int(c) for c in rng.choice(52, size=n, replace=False)]
        if rng.random() < 0.3:  # a trinca in reach
            rank = int(rng.integers(13))
            cards = list(dict.fromkeys([4 * rank + s for s in range(3)] + cards))[:n]
            rng.shuffle(cards)
        for trinca in (True, False):
            assert value_of(cards, trinca) == hand_value(cards, trinca)
            values = [hand_value(cards[:i] + cards[i + 1 :], trinca) for i in range(n)]
            assert best_keep(cards, trinca) == (max(values), values.index(max(values)))

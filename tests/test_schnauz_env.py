"""The Schnauz AEC environment: PettingZoo API, options, errors, rendering, observations."""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from conftest import cards, drain_dead, stack, swap
from pettingzoo.test import api_test, seed_test

import schnauz_env
from schnauz_env import schnauz_v0
from schnauz_env.schnauz import (
    EXCHANGE,
    KEEP,
    KNOCK,
    NUM_ACTIONS,
    PASS,
    SWAP_ALL,
    ObservationLayout,
    SchnauzConfig,
    new_game,
    swap_action,
)

WEAK = {1: "7C 8S 9H", 2: "7S 8H 9D", 0: "8D 10S JS"}  # 9 ♥, 9 ♦, 20 ♠

CONFIGS = [
    dict(num_players=n, deck=d, episode=e)
    for n in (2, 6)
    for d in ("A7", "A9", "A5")
    for e in ("game", "round")
]


def config_id(c: dict) -> str:
    return "-".join(str(v) for v in c.values())


@pytest.fixture(autouse=True)
def _quiet_pettingzoo():
    # api_test passes an unknown reset option on purpose and warns about Dict spaces
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


# ------------------------------------------------------------------ PettingZoo API
@pytest.mark.parametrize("options", CONFIGS, ids=config_id)
def test_api_test(options):
    api_test(schnauz_v0.env(**options), num_cycles=1000)


@pytest.mark.parametrize("options", CONFIGS, ids=config_id)
def test_seed_test(options):
    seed_test(lambda: schnauz_v0.env(**options), num_cycles=500)


@pytest.mark.parametrize(
    "options",
    [
        dict(num_players=3),
        dict(num_players=5, lives=0),
        dict(ties="share", fire_costs_all=True, short_stock="recycle", knock_in_first_circle=False),
        dict(num_players=4, max_turns=3, lives=1),
    ],
)
def test_api_test_raw_env_and_rule_options(options):
    api_test(schnauz_v0.raw_env(**options), num_cycles=500)
    api_test(schnauz_v0.env(**options), num_cycles=500)


def test_registry_make():
    assert "schnauz_env/schnauz_v0" in schnauz_env.ENV_IDS
    env = pettingzoo.make("aec", "schnauz_env/schnauz_v0", num_players=3, deck="A9")
    env.reset(seed=1)
    assert env.unwrapped.config == SchnauzConfig(num_players=3, deck="A9")
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.unwrapped.metadata["name"] == "schnauz_v0"


def test_spaces():
    env = schnauz_v0.env(num_players=5, deck="A5")
    for agent in env.possible_agents:
        assert env.action_space(agent).n == NUM_ACTIONS == 14
        assert env.observation_space(agent)["observation"].shape == (12 * 40 + 52,)
        assert env.observation_space(agent)["action_mask"].shape == (14,)


# ------------------------------------------------------------------ bad options
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (dict(num_players=7), r"num_players=7.*2 to 6"),
        (dict(num_players=1), r"num_players=1"),
        (dict(num_players="4"), r"num_players='4'"),
        (dict(deck="A3"), r"deck='A3'.*'A7'.*'A9'.*'A5'"),
        (dict(lives=-1), r"lives=-1.*>= 0"),
        (dict(lives=1.5), r"lives=1.5"),
        (dict(ties="random"), r"ties='random'.*'break', 'share'"),
        (dict(short_stock="reshuffle"), r"short_stock='reshuffle'.*'recycle'"),
        (dict(max_turns=0), r"max_turns=0"),
        (dict(first_dealer=4), r"first_dealer=4.*0\.\.3"),
        (dict(episode="match"), r"episode='match'.*'game', 'round'"),
        (dict(knock_in_first_circle="no"), r"knock_in_first_circle='no'.*True or False"),
        (dict(fire_costs_all=1), r"fire_costs_all=1"),
        (dict(colour="red"), r"unknown Schnauz option.*colour.*allowed options:.*num_players"),
        (dict(render_mode="pixels"), r"render_mode 'pixels'.*'ansi'"),
    ],
)
def test_bad_options_raise(options, message):
    with pytest.raises(ValueError, match=message):
        schnauz_v0.env(**options)
    with pytest.raises(ValueError, match=message):
        schnauz_v0.raw_env(**options)


def test_six_players_fit_every_deck():
    for deck in ("A7", "A9", "A5"):
        schnauz_v0.raw_env(num_players=6, deck=deck)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deck": [*stack(WEAK)[:-1], "7C"]}, r"malformed stacked deck.*duplicated: 7C"),
        ({"deck": stack(WEAK)[:-1]}, r"malformed stacked deck.*missing"),
        ({"deck": ["7X", *stack(WEAK)[1:]]}, r"'7X'"),
        ({"deck": " ".join(stack(WEAK))}, r"list of card codes"),
        ({"deck": stack(WEAK, deck="A5")}, r"not in this deck: 5C 5S 5H 5D 6C 6S 6H 6D"),
        ({"decks": [stack(WEAK), stack(WEAK)[:10]]}, r"malformed deck 1"),
        ({"decks": "7C 8C"}, r"decks must be a list"),
        ({"dealer": 3}, r"invalid dealer 3.*0\.\.2"),
        ({"dealer": -1}, r"invalid dealer -1"),
        ({"dealer": "0"}, r"invalid dealer '0'"),
        ({"lives": [3, 3]}, r"lives must list 3 integers"),
        ({"lives": [3, -1, 3]}, r"lives must list 3 integers >= 0"),
    ],
)
def test_bad_reset_options_raise(options, message):
    env = schnauz_v0.raw_env(num_players=3)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)


def test_unknown_reset_option_warns_naming_the_known_ones():
    env = schnauz_v0.raw_env(num_players=3)
    with pytest.warns(
        UserWarning,
        match="unknown reset option 'shuffle' ignored; this game's reset options are "
        "'deck', 'decks', 'dealer', 'lives'",
    ):
        env.reset(seed=0, options={"shuffle": False})


# ------------------------------------------------------------------ illegal actions
def snapshot(env) -> dict:
    """Everything an agent can read from the env: observations, masks, rewards, infos."""
    return {
        "selection": env.agent_selection,
        "agents": list(env.agents),
        "obs": {a: env.observe(a)["observation"].tolist() for a in env.agents},
        "masks": {a: env.observe(a)["action_mask"].tolist() for a in env.agents},
        "last_reward": env.last()[1],
        "cumulative": dict(env._cumulative_rewards),
        "rewards": dict(env.rewards),
        "terminations": dict(env.terminations),
        "infos": repr(env.infos),
        "legal": env.unwrapped.game.legal_actions(),
        "hands": [list(h) for h in env.unwrapped.game.hands],
        "table": list(env.unwrapped.game.table),
    }


@pytest.mark.parametrize(
    ("prefix", "action", "message"),
    [
        (
            [],
            PASS,
            r"action 12 is not legal now for seat 0.*legal actions: 0 \(keep\), 1 \(exchange\)",
        ),
        ([], swap_action(0, 0), r"action 2 is not legal.*0 \(keep\), 1 \(exchange\)"),
        (
            [KEEP],
            KEEP,
            r"action 0 is not legal now for seat 1.*11 \(swap all.*12 \(pass\), 13 \(knock\)",
        ),
        ([KEEP], EXCHANGE, r"action 1 is not legal"),
        ([KEEP, KNOCK], KNOCK, r"action 13 is not legal now for seat 2 in phase 'final circle'"),
        ([], 14, r"action 14 is not an action \(0\.\.13\).*0 \(keep\)"),
        ([], -1, r"action -1 is not an action"),
        ([KEEP], 99, r"action 99 is not an action.*12 \(pass\)"),
        # 2.5 or "pass" is a TypeError (tests/test_hardening_env.py)
    ],
)
def test_raw_env_illegal_action_raises_and_changes_nothing(prefix, action, message):
    env = schnauz_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"deck": stack(WEAK, ["QC 7H 8C"]), "dealer": 0})
    for a in prefix:
        env.step(a)
    before = snapshot(env)
    with pytest.raises(ValueError, match=message):
        env.step(action)
    assert snapshot(env) == before
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(int(legal[0]))  # the game goes on


def test_raw_env_illegal_action_leaves_a_pending_reward():
    # seat 2 goes out in round 1; seat 1 (the next dealer) is owed +0.5 until it acts
    decks = [stack({1: "AC KC QC", 2: "7S 8H 9D", 0: "8D 10S JS"}, ["7C 8S 9H"])]
    env = schnauz_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"decks": decks, "dealer": 0, "lives": [0, 0, 0]})
    env.step(KEEP)
    drain_dead(env)
    assert env.agent_selection == "player_1"
    assert env.last()[1] == 0.5
    before = snapshot(env)
    with pytest.raises(ValueError, match="action 12 is not legal"):
        env.step(PASS)
    after = snapshot(env)
    assert after["last_reward"] == 0.5, "the illegal action must not swallow the pending reward"
    assert after == before


def test_numpy_integer_actions_accepted():
    env = schnauz_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"deck": stack(WEAK, ["QC 7H 8C"]), "dealer": 0})
    env.step(np.int64(KEEP))
    env.step(np.array(PASS))
    assert env.unwrapped.game.current == 2 and env.unwrapped.game.passes == 1


def test_wrapped_env_illegal_action_terminates_with_penalty():
    env = schnauz_v0.env(num_players=3)
    env.reset(seed=0, options={"deck": stack(WEAK, ["QC 7H 8C"]), "dealer": 0})
    env.step(KEEP)
    offender = env.agent_selection
    assert offender == "player_1"
    env.step(KEEP)  # not legal during the turns
    assert env.rewards == {"player_0": 0, "player_1": -1.0, "player_2": 0}
    assert all(env.terminations.values()) or all(env.truncations.values())
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        agent = env.agent_selection
        _, reward, term, trunc, _ = env.last()
        assert term or trunc
        returns[agent] += reward
        env.step(None)
    assert returns == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}


def test_step_none_for_a_live_agent_raises():
    env = schnauz_v0.raw_env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="None"):
        env.step(None)


# ------------------------------------------------------------------ names and rendering
def test_action_to_string_names_the_cards():
    env = schnauz_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"deck": stack(WEAK, ["QC 7H 8C"]), "dealer": 0})
    assert env.action_to_string(KEEP) == "keep"
    assert env.action_to_string(EXCHANGE) == "exchange"
    env.step(KEEP)
    # seat 1 holds 7C 8S 9H; the table is 7H 8C QC
    assert env.action_to_string(swap_action(0, 2)) == "swap 7♣ (hand) for Q♣ (table)"
    assert env.action_to_string(swap_action(2, 0)) == "swap 9♥ (hand) for 7♥ (table)"
    assert env.action_to_string(SWAP_ALL) == "swap all: 7♣ 8♠ 9♥ for 7♥ 8♣ Q♣"
    assert env.action_to_string(PASS) == "pass"
    assert env.action_to_string(KNOCK) == "knock"
    game = env.unwrapped.game
    assert game.action_to_string(swap(game, "7C", "QC")) == "swap 7C (hand) for QC (table)"


def shows(text: str, code: str) -> bool:
    """A card appears in a text as its code (7C) or its symbol form (7♣)."""
    from schnauz_env.cards import parse_card

    return code in text or parse_card(code).symbol in text


def test_ansi_render_shows_the_hands_and_table():
    env = schnauz_v0.raw_env(num_players=3, render_mode="ansi")
    env.reset(seed=0, options={"deck": stack(WEAK, ["QC 7H 8C"]), "dealer": 0})
    env.step(KEEP)
    text = env.render()
    assert isinstance(text, str)
    for hand in WEAK.values():
        for code in hand.split():
            assert shows(text, code), (code, text)
    for code in ("QC", "7H", "8C"):
        assert shows(text, code)
    assert "dealer" in text and "to act" in text


def test_human_render_prints(capsys):
    env = schnauz_v0.raw_env(num_players=2, render_mode="human")
    env.reset(seed=0)
    assert "Schnauz" in capsys.readouterr().out
    env.step(KEEP)
    assert env.render() is None
    assert "seat 1" in capsys.readouterr().out


def test_render_without_mode_returns_none():
    env = schnauz_v0.raw_env(num_players=2)
    env.reset(seed=0)
    assert env.render() is None


# ------------------------------------------------------------------ determinism
def play_random(env, seed: int, action_seed: int, steps: int = 400) -> list:
    env.reset(seed=seed)
    rng = np.random.default_rng(action_seed)
    trace = []
    for _ in range(steps):
        if not env.agents:
            break
        obs, reward, term, trunc, info = env.last()
        trace.append(
            (
                env.agent_selection,
                obs["observation"].tolist(),
                obs["action_mask"].tolist(),
                reward,
                term,
                trunc,
                repr(info),
                dict(env.rewards),
            )
        )
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


@pytest.mark.parametrize("options", [dict(num_players=4), dict(num_players=3, deck="A5", lives=0)])
def test_same_seed_same_actions_same_game(options):
    a = play_random(schnauz_v0.env(**options), seed=11, action_seed=5)
    b = play_random(schnauz_v0.env(**options), seed=11, action_seed=5)
    assert a == b
    env = schnauz_v0.env(**options)  # one env reset twice with the seed
    play_random(env, seed=3, action_seed=1)
    assert play_random(env, seed=11, action_seed=5) == a
    c = play_random(schnauz_v0.env(**options), seed=12, action_seed=5)
    assert c != a


def test_stacked_decks_do_not_outlive_their_reset():
    env = schnauz_v0.raw_env(num_players=3)
    env.reset(seed=5, options={"decks": [stack(WEAK), stack(WEAK)], "dealer": 0})
    assert env.unwrapped.game.hands[1] == cards("7C 8S 9H")
    env.reset(seed=5)
    fresh = schnauz_v0.raw_env(num_players=3)
    fresh.reset(seed=5)
    assert env.unwrapped.game.hands == fresh.unwrapped.game.hands
    assert env.unwrapped.game.dealer == fresh.unwrapped.game.dealer
    assert env.unwrapped.game.pending_decks == []


def round_decks(seed: int, policy_seed: int, **rules) -> tuple[int, list[list[int]]]:
    """The first dealer and the deck of every round of a random game."""
    state = new_game(SchnauzConfig(**rules), np.random.default_rng(seed))
    rng = np.random.default_rng(policy_seed)
    dealer, decks = state.dealer, [list(state.deck)]
    while not state.game_over:
        legal = state.legal_actions()
        if state.apply(legal[int(rng.integers(len(legal)))]) is not None and not state.game_over:
            decks.append(list(state.deck))
    return dealer, decks


@pytest.mark.parametrize("seed", range(5))
def test_a_seed_fixes_every_rounds_deck_whatever_the_players_do(seed):
    # RULES.md conventions: the generator draws the first dealer and shuffles once per round
    d1, a = round_decks(seed, policy_seed=1, num_players=4, lives=2)
    d2, b = round_decks(seed, policy_seed=2, num_players=4, lives=2)
    assert d1 == d2
    k = min(len(a), len(b))
    assert k >= 3
    assert a[:k] == b[:k]


def test_a_seed_fixes_the_decks_even_after_a_replay_deal():
    # RULES.md: "the generator is used only to draw the first dealer and to shuffle,
    # once per round, so a seed fixes every round's deck whatever the players do".
    # Round 1 is stacked; in game A the showdown needs a replay deal (ties="share",
    # everyone swimming and tied), in game B it does not. Round 2's deck is the
    # generator's first shuffle either way.
    tied = stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "7H 8D 9C"}, ["JC JS JH"])
    # Untied: seat 1 (9 points) alone is lowest and goes out; the game goes on.
    untied = stack({1: "7C 8S 9H", 2: "7S 8H 10D", 0: "KD QD 9S"}, ["JC JS JH"])
    second = []
    for deck in (tied, untied):
        config = SchnauzConfig(num_players=3, ties="share")
        state = new_game(config, np.random.default_rng(7), deck=deck, dealer=0, lives=[0, 0, 0])
        for a in (KEEP, KNOCK, PASS, PASS):
            result = state.apply(a)
        assert bool(result.replays) is (deck is tied)
        second.append(list(state.deck))
    assert second[0] == second[1]


# ------------------------------------------------------------------ observation layout
@pytest.mark.parametrize(("deck", "n_cards"), [("A7", 32), ("A9", 24), ("A5", 40)])
def test_observation_layout_sizes(deck, n_cards):
    layout = ObservationLayout(SchnauzConfig(num_players=2, deck=deck))
    assert layout.size == 12 * n_cards + 52
    sizes = [stop - start for _, start, stop in layout.describe()]
    assert sizes == [3 * n_cards, 3 * n_cards, n_cards, 5 * n_cards, 24, 6, 6, 6, 3, 6, 1]
    env = schnauz_v0.raw_env(num_players=2, deck=deck)
    env.reset(seed=0)
    assert env.observe("player_0")["observation"].shape == (12 * n_cards + 52,)
    assert env.observe("player_0")["observation"].dtype == np.float32


def test_observation_layout_matches_the_documented_a7_indices():
    layout = ObservationLayout(SchnauzConfig())
    assert layout.describe() == [
        ("hand", 0, 96),
        ("table", 96, 192),
        ("out_of_play", 192, 224),
        ("known", 224, 384),
        ("seats", 384, 408),
        ("dealer", 408, 414),
        ("knocker", 414, 420),
        ("to_act", 420, 426),
        ("phase", 426, 429),
        ("passes", 429, 435),
        ("stock", 435, 436),
    ]


def ones(vector: np.ndarray, start: int, stop: int) -> list[int]:
    return [int(i) + start for i in np.flatnonzero(vector[start:stop])]


def test_observation_contents():
    # A7 (N = 32); column of a card = (rank - 7) * 4 + suit (♣ ♠ ♥ ♦)
    env = schnauz_v0.raw_env(num_players=3)
    env.reset(
        seed=0,
        options={"deck": stack(WEAK, ["QC 7H 8C"]), "dealer": 0, "lives": [3, 0, 2]},
    )
    env.step(KEEP)
    env.step(swap(env.unwrapped.game, "9H", "QC"))  # seat 1 takes Q♣ (public)
    env.step(KNOCK)  # seat 2 knocks; seat 0 is to act
    o0 = env.observe("player_0")["observation"]
    # own hand 8♦ 10♠ J♠, one-hot per slot: 8♦ col 7, 10♠ col 13, J♠ col 17
    assert ones(o0, 0, 96) == [0 + 7, 32 + 13, 64 + 17]
    # table 7♥ 8♣ 9♥: cols 2, 4, 10
    assert ones(o0, 96, 192) == [96 + 2, 128 + 4, 160 + 10]
    assert ones(o0, 192, 224) == []  # nothing out of play yet
    # seat 1 (position 1) is known to hold Q♣ (col 20); seat 2 took nothing
    assert ones(o0, 224, 384) == [224 + 20]
    # seats: per position (at table, in game, swimming, lives / 3)
    assert o0[384:408].tolist() == pytest.approx(
        [1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0, 2 / 3] + [0] * 12
    )
    assert ones(o0, 408, 414) == [408]  # the observer deals
    assert ones(o0, 414, 420) == [414 + 2]  # seat 2 knocked: position 2
    assert ones(o0, 420, 426) == [420]  # the observer is to act
    assert ones(o0, 426, 429) == [428]  # final circle
    assert ones(o0, 429, 435) == [429]  # no passes
    assert o0[435] == pytest.approx(20 / 32)

    o1 = env.observe("player_1")["observation"]
    assert ones(o1, 0, 96) == [0 + 0, 32 + 5, 64 + 20]  # 7♣ 8♠ Q♣
    assert ones(o1, 224, 384) == []  # seat 1's own take is not in the opponents' block
    assert ones(o1, 408, 414) == [408 + 2]  # dealer seat 0 is position 2 from seat 1
    assert ones(o1, 414, 420) == [414 + 1]  # knocker seat 2 is position 1
    assert ones(o1, 420, 426) == [420 + 2]  # seat 0 to act: position 2
    assert o1[384:396].tolist() == pytest.approx([1, 1, 1, 0, 1, 1, 0, 2 / 3, 1, 1, 0, 1])

    o2 = env.observe("player_2")["observation"]
    assert ones(o2, 224, 384) == [224 + 32 + 20]  # seat 1 is position 2 from seat 2

    mask = env.observe("player_0")["action_mask"]
    assert mask.dtype == np.int8
    assert mask.tolist() == [0, 0] + [1] * 9 + [1, 1, 0]  # final circle: no knock
    assert env.observe("player_1")["action_mask"].tolist() == [0] * 14
    assert env.observe("player_2")["action_mask"].tolist() == [0] * 14


def test_observation_dealers_choice_and_out_of_play():
    env = schnauz_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"deck": stack(WEAK, ["QC 7H 8C", "10H JH QS"]), "dealer": 0})
    o0 = env.observe("player_0")
    assert ones(o0["observation"], 96, 192) == []  # the table is face down
    assert ones(o0["observation"], 426, 429) == [426]  # dealer's choice
    assert o0["observation"][435] == pytest.approx(23 / 32)
    assert o0["action_mask"].tolist() == [1, 1] + [0] * 12
    env.step(KEEP)
    env.step(PASS)
    env.step(PASS)
    o1 = env.observe("player_1")["observation"]
    assert ones(o1, 429, 435) == [429 + 2]  # two passes in a row
    env.step(PASS)  # the table goes out of play
    o1 = env.observe("player_1")["observation"]
    assert ones(o1, 192, 224) == [192 + 2, 192 + 4, 192 + 20]  # 7♥ 8♣ Q♣
    assert ones(o1, 429, 435) == [429]
    assert game_table(env) == cards("10H JH QS")


def game_table(env) -> list[int]:
    return env.unwrapped.game.table


def test_observation_of_a_player_who_is_out():
    decks = [stack({1: "AC KC QC", 2: "7S 8H 9D", 0: "8D 10S JS"}, ["7C 8S 9H"])]
    env = schnauz_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"decks": decks, "dealer": 0, "lives": [0, 0, 0]})
    env.step(KEEP)  # seat 2 goes out
    o0 = env.observe("player_0")["observation"]
    assert o0[384 + 8 : 384 + 12].tolist() == [1, 0, 0, 0]  # at the table, out
    assert ones(o0, 408, 414) == [409]  # seat 1 deals the next round


def test_observations_stay_in_the_observation_space_with_custom_lives():
    env = schnauz_v0.raw_env(num_players=3, lives=3)
    env.reset(seed=0, options={"lives": [5, 1, 0]})
    for agent in env.agents:
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs), obs["observation"][384:408]

"""The play screens and the command line, in-process: menus are exactly the engine's
legal moves, typed input maps to those moves or to a message, options are checked."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("rich")

from rich.console import Console

from schnauz_env.cards import parse_card
from schnauz_env.games import game_module
from schnauz_env.play import cli
from schnauz_env.play.common import BadInput
from schnauz_env.play.opponents import make_lineup, shipped_model
from schnauz_env.play.scat import ScatScreen
from schnauz_env.play.schnauz import SchnauzScreen
from schnauz_env.play.thirteen import ThirteenScreen

SCREENS = {"schnauz": SchnauzScreen, "scat": ScatScreen, "thirteen": ThirteenScreen}


def states(game: str, n: int, seed: int, steps: int = 400):
    """Random-play states of ``game`` (each one a fresh copy), until the game ends."""
    module = game_module(game)
    state = module.new_game(module.Config(num_players=n), np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 100)
    for _ in range(steps):
        if state.game_over:
            return
        yield state.clone()
        legal = state.legal_actions()
        state.apply(int(rng.choice(legal)))


def render(renderable, width: int = 120) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


@pytest.mark.parametrize("game", ["schnauz", "scat"])
def test_the_menu_is_exactly_the_legal_moves(game):
    for state in states(game, 3, seed=1):
        screen = SCREENS[game](["a", "b", "c"], state.current)
        moves = screen.moves(state)
        assert sorted(a for m in moves for a in m.actions) == sorted(state.legal_actions())
        for m in moves:  # every key typed gives that move, numbers and letters alike
            for key in m.keys:
                assert screen.parse(state, key) == m.actions
                assert screen.parse(state, f"  {key.upper()} ") == m.actions
        assert len({k for m in moves for k in m.keys}) == sum(len(m.keys) for m in moves)


def test_thirteen_menu_plays_and_typed_cards_are_legal_sequences():
    seen_plays = 0
    for state in states("thirteen", 4, seed=2, steps=300):
        if state.selection:
            continue  # a person's turn always starts with nothing selected
        screen = ThirteenScreen(["a", "b", "c", "d"], state.current)
        for m in screen.moves(state):
            trial = state.clone()
            for a in m.actions:
                trial.apply(a)  # raises if the engine does not accept the sequence
            seen_plays += 1
        for play in state.legal_plays()[:5]:
            typed = " ".join(parse_card(c).code.lower() for c in reversed(play))
            actions = screen.parse(state, typed)
            assert actions[-1] == 52 and len(actions) == len(play) + 1
    assert seen_plays > 50


def test_bad_input_gets_a_message_naming_what_is_allowed():
    state = next(states("schnauz", 3, seed=4))  # the dealer's choice
    screen = SchnauzScreen(["a", "b", "c"], state.current)
    with pytest.raises(BadInput, match=r"There is no move 7; choose a number from 1 to 2"):
        screen.parse(state, "7")
    with pytest.raises(BadInput, match=r"You cannot knock now \(the dealer chooses"):
        screen.parse(state, "k")
    with pytest.raises(BadInput, match=r"'hello' is not a move. Choose 1-2, c, x"):
        screen.parse(state, "hello")
    with pytest.raises(BadInput, match="Type a move"):
        screen.parse(state, "   ")
    state.apply(0)  # keep: now a turn; the dealer's choice is no longer possible
    screen = SchnauzScreen(["a", "b", "c"], state.current)
    with pytest.raises(BadInput, match="You cannot exchange now"):
        screen.parse(state, "x")


def test_thirteen_explains_an_illegal_play():
    module = game_module("thirteen")
    state = module.new_game(module.Config(), np.random.default_rng(0))
    screen = ThirteenScreen(["a", "b", "c", "d"], state.current)
    hand = state.hands[state.current]
    missing = next(c for c in range(52) if c not in hand)
    with pytest.raises(BadInput, match=f"You do not hold {parse_card(missing).symbol}"):
        screen.parse(state, parse_card(missing).code)
    with pytest.raises(BadInput, match="bad card code '1X'"):
        screen.parse(state, "1X")
    # the first play of the game must include the lowest card dealt (3♠ at four players)
    assert state.opening_card == parse_card("3S")
    with pytest.raises(BadInput, match="does not include 3♠, which the first play must"):
        screen.parse(state, parse_card(hand[-1]).code)
    with pytest.raises(BadInput, match="You cannot pass now"):
        screen.parse(state, "p")


def test_the_screens_show_only_what_the_seat_may_see():
    """Swapping two cards that seat 0 cannot see leaves its screen unchanged."""
    checked = 0
    for game, n in (("schnauz", 3), ("scat", 3), ("thirteen", 4)):
        names = [f"p{s}" for s in range(n)]
        for state in states(game, n, seed=5, steps=60):
            screen = SCREENS[game](names, 0)
            hidden = [
                (s, i)
                for s in range(1, n)
                for i, c in enumerate(state.hands[s])
                if game == "thirteen" or c not in state.known[s]
            ]
            if len({s for s, _ in hidden}) < 2:
                continue
            (s1, i1), (s2, i2) = hidden[0], hidden[-1]
            changed = state.clone()
            h1, h2 = changed.hands[s1], changed.hands[s2]
            h1[i1], h2[i2] = h2[i2], h1[i1]
            assert render(screen.table(changed)) == render(screen.table(state))
            # ...while your own hand is on the screen, card by card
            text = render(screen.table(state))
            assert all(parse_card(c).symbol in text for c in state.hands[0])
            checked += 1
    assert checked > 20
    state = next(states("scat", 3, seed=6))
    assert render(ScatScreen(["a", "b", "c"], 0).table(state)).count("??") == 6


def test_showdown_shows_every_hand_its_label_and_the_loser():
    module = game_module("schnauz")
    state = module.new_game(module.Config(num_players=3, lives=1), np.random.default_rng(3))
    rng = np.random.default_rng(0)
    while state.last_result is None:
        state.apply(int(rng.choice(state.legal_actions())))
    result = state.last_result
    text = render(SchnauzScreen(["you", "bob", "eve"], 0).results(result, state))
    assert "Showdown" in text
    for s, cards in result.hands.items():
        assert result.labels[s] in text
        assert all(parse_card(c).symbol in text for c in cards)
    assert "loses a life" in text or "goes out" in text


def test_options_are_checked_before_the_game(capsys):
    assert cli.main(["play", "--rules", "deck=A3"]) == 2
    assert "deck" in capsys.readouterr().err
    assert cli.main(["play", "--rules", "colour=red"]) == 2
    assert "unknown Schnauz rule" in capsys.readouterr().err
    assert cli.main(["play", "--players", "4", "--seat", "4"]) == 2
    assert "--seat must be a seat 0..3" in capsys.readouterr().err
    assert cli.main(["play", "--opponents", "nobody"]) == 2
    assert "unknown schnauz policy 'nobody'" in capsys.readouterr().err
    assert cli.main(["play", "--rules", "num_players=3"]) == 2
    assert "--players" in capsys.readouterr().err
    assert cli.main([]) == 2  # no command: the help


def test_rule_values_from_the_command_line():
    config = cli.build_config(
        "schnauz", 3, cli.read_rules("schnauz", ["deck=A9", "lives=2", "knock_in_first_circle=no"])
    )
    assert (config.num_players, config.deck, config.lives) == (3, "A9", 2)
    assert config.knock_in_first_circle is False
    assert cli.read_rules("schnauz", ["first_dealer=none"]) == {"first_dealer": None}
    assert cli.read_rules("scat", ["buy_ins=2"]) == {"buy_ins": 2}


def played_config(monkeypatch, argv):
    """The config ``schnauz play argv`` seats the person at (the game itself not played)."""
    from schnauz_env.play.session import PlaySession

    seen = []

    def run(session):
        seen.append(session.config)
        return 0

    monkeypatch.setattr(PlaySession, "run", run)
    assert cli.main(["play", *argv]) == 0
    return seen[0]


def test_schnauz_play_rules_are_typed_by_the_config(monkeypatch, capsys):
    config = played_config(
        monkeypatch, ["--opponents", "random", "--rules", "knock_in_first_circle=false"]
    )
    assert config.knock_in_first_circle is False
    config = played_config(
        monkeypatch,
        ["--game", "scat", "--opponents", "random", "--rules", "knock_on_first_turn=true"],
    )
    assert config.knock_on_first_turn is True and config.lives == 3


@pytest.mark.parametrize(
    "rule, message",
    [
        ("knock_in_first_circle=maybe", "knock_in_first_circle='maybe': write true or false"),
        ("lives=many", "lives='many': write an integer"),
        ("lives", "bad rule 'lives': write rules as key=value"),
        ("colour=red", "unknown Schnauz rule 'colour'"),
    ],
)
def test_a_bad_rule_value_is_a_one_line_error(rule, message, capsys):
    assert cli.main(["play", "--opponents", "random", "--rules", rule]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_help_lists_every_game_rule_with_its_default(capsys):
    with pytest.raises(SystemExit):
        cli.main(["play", "--help"])
    out = capsys.readouterr().out
    for game in ("schnauz", "scat", "thirteen"):
        assert f"  {game}:" in out
    assert "knock_in_first_circle=true  Knocking allowed" in out
    assert "knock_on_first_turn=false" in out and "target_points=10" in out


def test_a_model_for_other_rules_is_refused(tmp_path, capsys):
    from test_play_terminal import random_model

    config = cli.build_config("schnauz", 3, {"lives": 0})
    model = random_model(tmp_path, "schnauz", config)
    code = cli.main(["play", "--players", "3", "--rules", "lives=2", "--opponents", model])
    assert code == 2
    assert "trained under other rules" in capsys.readouterr().err


def test_the_default_opponent_is_the_shipped_model_else_expert(tmp_path, monkeypatch):
    from test_play_terminal import random_model

    from policies import mlp as opponents  # where the shipped models are looked up

    config = cli.build_config("schnauz", 3, {})
    monkeypatch.setattr(opponents, "models_dir", lambda: tmp_path)
    assert shipped_model("schnauz", config) is None
    try:
        lineup = make_lineup("schnauz", config, 0, None, seed=1)
    except ValueError:  # the expert baseline is not in this checkout
        pytest.skip("no expert baseline for schnauz")
    assert set(lineup.names.values()) == {"expert bot"}
    assert "No trained schnauz model" in lineup.note and "are expert bots" in lineup.note
    random_model(tmp_path, "schnauz", cli.build_config("schnauz", 3, {"lives": 2}))
    assert shipped_model("schnauz", config) is None  # other rules: not this table's model
    path = random_model(tmp_path / "ok", "schnauz", config)
    monkeypatch.setattr(opponents, "models_dir", lambda: tmp_path / "ok")
    assert shipped_model("schnauz", config) is not None
    lineup = make_lineup("schnauz", config, 0, None, seed=1)
    assert lineup.names == {1: "trained bot", 2: "trained bot"}
    assert "trained bots: the model shipped with the package (schnauz_random.npz)" in lineup.note
    assert "trained at a table" not in lineup.note
    assert str(path).endswith(".npz")


def test_bots_are_named_as_a_player_would(tmp_path):
    from test_play_terminal import random_model

    config = cli.build_config("schnauz", 3, {})
    model = random_model(tmp_path, "schnauz", config)
    lineup = make_lineup("schnauz", config, 0, ["greedy", model], seed=1)
    assert lineup.names == {1: "greedy bot", 2: "trained bot schnauz_random"}
    names = ["You", *lineup.names.values()]
    state = next(states("schnauz", 3, seed=1))
    text = render(SchnauzScreen(names, 0).table(state))
    assert "greedy bot" in text and "model" not in text


def test_a_model_trained_at_another_table_size_is_said_so(tmp_path):
    from test_play_terminal import random_model

    four = cli.build_config("schnauz", 4, {})
    model = random_model(tmp_path, "schnauz", four)  # trained at 4 players
    lineup = make_lineup("schnauz", cli.build_config("schnauz", 3, {}), 0, [model], seed=1)
    assert (
        "The trained bot schnauz_random was trained at a table of 4 players; at this "
        "table of 3 it plays the same way, likely less well." in lineup.note
    )
    assert "trained at" not in make_lineup("schnauz", four, 0, [model], seed=1).note


def schnauz_deal(cards: str, n: int = 2, **rules):
    """A Schnauz game whose first deal is stacked: seat 0's three cards, then seat 1's
    ..., then the three table cards (seat n-1 deals)."""
    from schnauz_env.cards import parse_cards
    from schnauz_env.schnauz import SchnauzConfig, new_game

    config = SchnauzConfig(num_players=n, **rules)
    first = list(parse_cards(cards))
    rest = [c for c in config.deck_cards if c not in first]
    return new_game(config, np.random.default_rng(0), deck=first + rest, dealer=n - 1)


def test_a_tie_broken_by_suit_is_explained():
    from schnauz_env.schnauz import KEEP, KNOCK, PASS

    state = schnauz_deal("10S JS 7D  10D KD 8C  9H QC AC")
    state.apply(KEEP)
    state.apply(KNOCK)
    result = state.apply(PASS)
    assert result.losers == [1] and result.labels == {0: "20 ♠", 1: "20 ♦"}
    text = render(SchnauzScreen(["You", "bob"], 0).results(result, state), width=400)
    assert "Tie broken: your 20 ♠ beats bob (seat 1)'s 20 ♦, because equal points" in text
    assert "decided by the scoring suit (♣ > ♠ > ♥ > ♦)" in text


def test_a_knock_cut_short_by_schnauz_is_explained():
    from schnauz_env.schnauz import KEEP, KNOCK

    state = schnauz_deal("7D 8D 9C  AH KH 7C  QH 8S 9S")
    state.apply(KEEP)
    state.apply(KNOCK)
    swap = next(  # seat 1's last turn: the swap that makes Schnauz (A♥ K♥ Q♥)
        a for a in state.legal_actions() if "7♣ (hand) for Q♥" in state.action_to_string(a, True)
    )
    result = state.apply(swap)
    assert result.reason == "instant" and result.knocker == 0
    text = render(SchnauzScreen(["You", "bob"], 0).results(result, state), width=400)
    assert "You knocked, but bob (seat 1)'s Schnauz" in text
    assert "ended the round at once" in text


def test_swimming_and_on_the_bus_are_explained_once():
    state = schnauz_deal("7D 8D 9C  AH KH 7C  QH 8S 9S", lives=0)
    screen = SchnauzScreen(["You", "bob"], 0)
    (note,) = screen.explain(state)
    assert note.plain.startswith("swimming: no lives left") and "puts that player out" in note.plain
    assert screen.explain(state) == []
    # ... or in the first showdown that says "now swimming"
    scat = ScatScreen(["You", "bob", "eve"], 0)
    for state in states("scat", 3, seed=3, steps=2000):
        result = state.last_result
        if result is not None and any(result.lives_after[s] == 0 for s in result.losers):
            text = render(scat.results(result, state), width=400)
            assert "now on the bus" in text and "on the bus: no lives left" in text
            assert render(scat.results(result, state), width=400).count("no lives left") == 0
            break
    else:
        pytest.fail("nobody got on the bus")


def test_scat_says_why_a_knocker_paid_double_or_a_tie_cost_both():
    seen = set()
    for seed in range(40):
        for state in states("scat", 3, seed=seed, steps=3000):
            result = state.last_result
            if result is None or result.blitz_holders:
                continue
            text = render(ScatScreen(["a", "b", "c"], 0).results(result, state), width=400)
            k = result.knocker
            if k is not None and result.losses.get(k) == 2:
                assert "knocked and had the lowest hand: a knocker pays double" in text
                seen.add("double")
            if list(result.values.values()).count(min(result.values.values())) > 1:
                assert "Tie for the lowest value" in text and "no suit tie-breaks" in text
                seen.add("tie")
        if seen == {"double", "tie"}:
            return
    pytest.fail(f"only saw {seen}")

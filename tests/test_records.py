"""Game records: written by the harness and by a recording env, replayed through the env,
refused at the first move that differs when tampered with, and written atomically."""

from __future__ import annotations

import copy
import gzip
import json
import os
import re

import numpy as np
import pytest

from policies.evaluation import evaluate
from policies.evaluation.cli import main as eval_main
from schnauz_env.cards import format_card
from schnauz_env.common.places import place_value
from schnauz_env.games import GAMES, env_module, game_module
from schnauz_env.records import (
    FORMAT,
    VERSION,
    Record,
    RecordError,
    RecordingEnv,
    Replay,
    dumps,
    iter_folder,
    read_record,
    read_records,
    replay,
    write_record,
    write_records,
)

MIXED = ["random", "greedy", "expert"]


def recorded_eval(tmp_path, game, **kwargs):
    """Six games of ``MIXED`` at a table of three, every game recorded."""
    options = dict(players=3, games=6, workers=1, seed=5)
    options.update(kwargs)
    result = evaluate(MIXED, game=game, record=tmp_path, **options)
    return result, read_records(tmp_path / "records.jsonl")


def random_game(game, seed=0, options=None, players=4, stop=None, **rules):
    """A game of random moves played through a recording env; ``stop`` ends it early."""
    raw = env_module(game).raw_env(num_players=players, **rules)
    env = RecordingEnv(raw, game, ["random"] * players, meta={"source": "test"})
    env.reset(seed=seed, options=options)
    rng = np.random.default_rng(seed)
    moves = 0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        if stop is not None and moves == stop:
            break
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        moves += 1
    return env


# ------------------------------------------------------------------ round trips


@pytest.mark.parametrize("game", GAMES)
def test_harness_records_replay_to_the_same_outcome(tmp_path, game):
    result, records = recorded_eval(tmp_path, game)
    assert len(records) == result.games == 6
    by_key = {(r.table, r.deal, r.rotation): r for r in result.records}
    for record in records:
        assert record.game == game and record.finished
        assert [s.policy for s in record.seats] == list(
            by_key[record.meta["table"], record.meta["deal"], record.meta["rotation"]].seats
        )
        played = by_key[record.meta["table"], record.meta["deal"], record.meta["rotation"]]
        assert record.seed == played.seed
        assert len(record.actions) == sum(played.moves)
        out = replay(record)
        assert out.finished and out.views_checked
        assert out.places == list(played.places) == record.outcome.places
        assert out.returns == pytest.approx(record.outcome.returns, abs=1e-12)


@pytest.mark.parametrize(
    ("game", "episode"), [("schnauz", "round"), ("scat", "round"), ("thirteen", "match")]
)
def test_other_episodes_record_the_envs_returns(game, episode):
    env = random_game(game, seed=8, episode=episode)
    record = env.record()
    out = replay(record)
    assert out.finished
    assert out.returns == record.outcome.returns == env.returns
    assert out.places == record.outcome.places
    assert sum(out.returns) == pytest.approx(0.0, abs=1e-12)


def test_details_keep_legal_moves_and_a_models_probabilities(tmp_path):
    evaluate(
        ["model", "expert"], players=4, games=2, workers=1, seed=1, record=tmp_path,
        record_details=True,
    )  # fmt: skip
    for record in read_records(tmp_path / "records.jsonl"):
        assert len(record.legal) == len(record.probs) == len(record.actions)
        model_seats = {s for s, seat in enumerate(record.seats) if seat.policy == "model"}
        assert all(
            len(seat.sha256) == 64 for s, seat in enumerate(record.seats) if s in model_seats
        )
        for (seat, action), legal, probs in zip(
            record.actions, record.legal, record.probs, strict=True
        ):
            assert action in legal
            if seat in model_seats:
                assert len(probs) == len(legal) and sum(probs) == pytest.approx(1.0, abs=1e-5)
            else:
                assert probs is None
        replay(record)


def test_recording_changes_no_result_and_not_the_file_with_more_workers(tmp_path):
    common = dict(players=3, games=6, seed=2)
    plain = evaluate(MIXED, workers=1, **common)
    one = evaluate(MIXED, workers=1, record=tmp_path / "one", **common)
    two = evaluate(MIXED, workers=2, record=tmp_path / "two", **common)

    def key(result):
        return sorted((r.table, r.deal, r.rotation, r.places, r.moves) for r in result.records)

    assert key(plain) == key(one) == key(two)
    assert [p.win_rate for p in plain.policies] == [p.win_rate for p in one.policies]
    text = (tmp_path / "one" / "records.jsonl").read_bytes()
    assert text == (tmp_path / "two" / "records.jsonl").read_bytes()


def test_a_sample_of_games_is_recorded(tmp_path):
    result = evaluate(
        MIXED, players=3, games=12, workers=1, seed=3, record=tmp_path, record_sample=4
    )
    records = read_records(tmp_path / "records.jsonl")
    assert len(records) == 4 == result.settings["recorded_games"]
    assert len({(r.meta["table"], r.meta["deal"], r.meta["rotation"]) for r in records}) == 4


def test_eval_command_records_and_refuses_an_existing_file(tmp_path, capsys):
    args = ["--policies", "random", "greedy", "--players", "2", "--games", "2", "--workers", "1"]
    assert eval_main([*args, "--quiet", "--record", str(tmp_path)]) == 0
    assert "wrote 2 game records" in capsys.readouterr().out
    before = (tmp_path / "records.jsonl").read_bytes()
    with pytest.raises(SystemExit) as exc:
        eval_main([*args, "--quiet", "--record", str(tmp_path)])
    assert exc.value.code == 2
    assert "exists" in capsys.readouterr().err
    assert (tmp_path / "records.jsonl").read_bytes() == before
    with pytest.raises(SystemExit):
        eval_main([*args, "--record-sample", "1"])
    assert "need --record" in capsys.readouterr().err


# ------------------------------------------------------------------ recording env


@pytest.mark.parametrize("game", GAMES)
def test_a_recording_env_records_a_game_that_replays(game):
    env = random_game(game, seed=11)
    record = env.record()
    assert record.finished and record.seed == 11
    out = replay(record)
    assert out.places == record.outcome.places
    assert out.returns == record.outcome.returns
    n = record.num_players
    assert out.returns == pytest.approx([place_value(p, n) for p in out.places], abs=1e-12)


def test_a_reset_without_seed_records_a_fresh_one():
    env = random_game("schnauz", seed=None)
    record = env.record()
    assert isinstance(record.seed, int)
    replay(record)


def test_an_unfinished_game_is_recorded_and_replays_as_far_as_it_went():
    env = random_game("scat", seed=4, stop=17)
    record = env.record({"error": "boom"})
    assert not record.finished and len(record.actions) == 17
    assert record.meta == {"source": "test", "error": "boom"}
    out = replay(record)
    assert not out.finished


# ------------------------------------------------------------------ tampering


def tampered(record: Record, **changes) -> Record:
    data = copy.deepcopy(record.to_dict())
    data.update(changes)
    return Record.from_dict(data)


def refused_at(record: Record, **kwargs) -> int | None:
    """The step at which ``record`` is refused; its message names that move."""
    with pytest.raises(RecordError) as exc:
        replay(record, **kwargs)
    step = exc.value.step
    if step is not None:
        assert re.search(rf"\bmove {step}\b", str(exc.value)), str(exc.value)
    return step


def step_the_dead(env) -> None:
    while env.agents and (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    ):
        env.step(None)


def first_difference(record: Record, other: Record) -> int | None:
    """Where ``other`` (the same moves under other rules or another deal) first shows a
    seat another table than ``record`` does, compared array by array in two envs side
    by side: the acting seat, its observation and its legal moves before each move,
    then whether the game is over and its places. ``None``: the same game throughout."""
    a, b = Replay(record).env, Replay(other).env
    for i, (_, action) in enumerate(record.actions):
        step_the_dead(a)
        step_the_dead(b)
        if bool(b.game.game_over) or not b.agents or a.agent_selection != b.agent_selection:
            return i
        va, vb = a.observe(a.agent_selection), b.observe(b.agent_selection)
        if not (
            np.array_equal(va["observation"], vb["observation"])
            and np.array_equal(va["action_mask"], vb["action_mask"])
        ):
            return i
        a.step(action)
        b.step(action)
    same_end = bool(a.game.game_over) == bool(b.game.game_over) and list(a.game.places) == list(
        b.game.places
    )
    return None if same_end else len(record.actions)


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_move_is_refused_at_its_step(game):
    record = random_game(game, seed=3).record()
    for k in (0, len(record.actions) // 2, len(record.actions) - 1):
        record_k = tampered(record)
        replay_k = Replay(record_k)
        for step in replay_k:
            if step.index == k:
                mask = step.env.observe(step.env.agent_selection)["action_mask"]
                illegal = int(np.flatnonzero(mask == 0)[0])
                break
        actions = [list(a) for a in record.actions]
        actions[k][1] = illegal
        bad = tampered(record, actions=actions)
        with pytest.raises(RecordError, match=rf"move {k}: seat \d's action {illegal} .*illegal"):
            replay(bad)
        assert refused_at(bad) == k


@pytest.mark.parametrize("game", GAMES)
def test_a_wrong_card_in_the_stacked_deck_is_refused_at_the_first_move_that_sees_it(game):
    """Two seats' hands trade a card: the game is refused at the first move of either
    seat (the others' views do not show hidden cards, so they cannot notice earlier)."""
    players = 4
    cards = game_module(game).Config(num_players=players).deck_cards
    deck = [int(c) for c in np.random.default_rng(7).permutation(np.array(cards, dtype=int))]
    env = random_game(game, seed=7, options={"deck": deck, "dealer": 0})
    record = env.record()
    assert record.deal["deck"][0] == format_card(deck[0])
    replay(record)
    first = Replay(record).env.game
    a, b = 1, 2
    low = min(int(c) for h in first.hands for c in h)  # Thirteen's opening card stays put
    card_a = next(c for c in first.hands[a] if int(c) != low)
    card_b = next(c for c in first.hands[b] if int(c) != low)
    i, j = deck.index(int(card_a)), deck.index(int(card_b))
    wrong = list(record.deal["deck"])
    wrong[i], wrong[j] = wrong[j], wrong[i]
    bad = tampered(record, deal={**record.deal, "deck": wrong})
    expected = next(k for k, (seat, _) in enumerate(record.actions) if seat in (a, b))
    assert refused_at(bad) == expected


CHANGED_RULES = {
    "schnauz": [
        {"lives": 2}, {"deck": "A5"}, {"knock_in_first_circle": False},
        {"fire_costs_all": True}, {"short_stock": "recycle"}, {"ties": "share"},
    ],
    "scat": [
        {"lives": 2}, {"four_card": True}, {"knock_on_first_turn": True}, {"buy_ins": 1},
        {"no_trinca": True},
    ],
    "thirteen": [{"out_clears_table": True}, {"opening": "free"}, {"instant_wins": True}],
}  # fmt: skip


@pytest.mark.parametrize("game", GAMES)
def test_a_changed_rule_is_refused_at_the_first_move_it_changes(game):
    """A valid rule changed in the record: refused at the first move where the game under
    it shows a seat another table or other legal moves (found here by comparing two envs
    array by array), or at the outcome. A rule these moves never touch leaves a record
    that is also a true game under it: nothing to refuse (``replay(record, config=...)``
    pins the rules)."""
    refused = 0
    for seed in (1, 2):
        record = random_game(game, seed=seed).record()
        for changes in CHANGED_RULES[game]:
            rules = {**record.rules, **changes}
            if rules == record.rules:
                continue
            bad = tampered(record, rules=rules)
            expected = first_difference(record, bad)
            if expected is None:
                assert replay(bad).places == record.outcome.places
                continue
            assert refused_at(bad) == expected, changes
            refused += 1
    assert refused >= len(CHANGED_RULES[game])  # most rules show within a game


def test_a_changed_rule_is_refused():
    record = random_game("schnauz", seed=1).record()
    # Another valid rule: lives are seen as a share of the starting lives, so the table
    # differs from the first move after a round cost someone a life.
    after_first_round = next(step.index for step in Replay(record) if step.env.game.round >= 1)
    assert refused_at(tampered(record, rules={**record.rules, "lives": 2})) == after_first_round
    # Another deck: another deal, seen at the first move.
    assert refused_at(tampered(record, rules={**record.rules, "deck": "A5"})) == 0
    # Rules this package cannot build, or an option it does not know: refused as a whole.
    with pytest.raises(RecordError, match="cannot build the record's rules") as exc:
        replay(tampered(record, rules={**record.rules, "lives": -1}))
    assert exc.value.step is None
    with pytest.raises(RecordError, match="unknown Schnauz option") as exc:
        replay(tampered(record, rules={**record.rules, "jokers": True}))
    missing = dict(record.rules)
    del missing["ties"]
    with pytest.raises(RecordError, match="lack option"):
        replay(tampered(record, rules=missing))
    # Another rules config than the caller expects.
    expected = game_module("schnauz").Config(num_players=4, lives=2)
    with pytest.raises(RecordError, match=r"other rules: lives=3 \(expected 2\)"):
        replay(record, config=expected)


def test_a_changed_rule_without_views_is_refused_where_the_game_differs():
    record = random_game("schnauz", seed=1).record()
    data = record.to_dict()
    del data["views"], data["obs_version"]
    knock = next(
        k for k, (_, a) in enumerate(record.actions)
        if a == game_module("schnauz").KNOCK
    )  # fmt: skip
    first_circle = tampered(
        Record.from_dict(data), rules={**record.rules, "knock_in_first_circle": False}
    )
    step = refused_at(first_circle)
    assert step is not None and step <= len(record.actions)
    assert step <= knock or step == len(record.actions)


@pytest.mark.parametrize("game", GAMES)
def test_another_format_version_is_refused_as_a_whole(game, tmp_path):
    """Refused before any move is played (``step`` is None), when read from a file too."""
    data = random_game(game, seed=2, stop=10).record().to_dict()
    for version in (VERSION + 1, VERSION - 1, "1", None):
        with pytest.raises(RecordError, match=f"version {version!r}: this package reads") as exc:
            Record.from_dict({**data, "version": version})
        assert exc.value.step is None
    path = tmp_path / "newer.json"
    path.write_text(json.dumps({**data, "version": VERSION + 1}))
    with pytest.raises(RecordError, match=r"newer.json.*newer: upgrade schnauz_env"):
        read_record(path)


def test_another_format_or_version_is_refused_with_a_clear_message():
    data = random_game("thirteen", seed=2).record().to_dict()
    with pytest.raises(RecordError, match=f"version 2: this package reads version {VERSION}"):
        Record.from_dict({**data, "version": 2})
    with pytest.raises(RecordError, match="not a schnauz_env game record"):
        Record.from_dict({**data, "format": "something-else"})
    with pytest.raises(RecordError, match="unknown game"):
        Record.from_dict({**data, "game": "poker"})
    with pytest.raises(RecordError, match="unknown record field"):
        Record.from_dict({**data, "timestamp": 1})
    with pytest.raises(RecordError, match="8 hex digits per move"):
        Record.from_dict({**data, "views": data["views"][:-1] + "g"})
    with pytest.raises(RecordError, match="8 hex digits per move"):
        Record.from_dict({**data, "views": data["views"][:-8]})


def test_a_wrong_outcome_or_length_is_refused_after_the_last_move():
    record = random_game("scat", seed=6).record()
    n = len(record.actions)
    places = list(reversed(record.outcome.places))
    if places == record.outcome.places:
        places = [1.0] * len(places)
    outcome = {"places": places, "returns": record.outcome.returns}
    assert refused_at(tampered(record, outcome=outcome)) == n
    returns = {"places": record.outcome.places, "returns": [0.5] * len(places)}
    with pytest.raises(RecordError, match="returns"):
        replay(tampered(record, outcome=returns))
    cut = [list(a) for a in record.actions[:-1]]
    assert refused_at(tampered(record, actions=cut, views=record.views[:-8])) == n - 1
    extra = [list(a) for a in record.actions] + [[0, 0]]
    assert refused_at(tampered(record, actions=extra, views=None)) == n
    swapped = [list(a) for a in record.actions]
    swapped[0][0] = (swapped[0][0] + 1) % record.num_players
    with pytest.raises(RecordError, match="move 0: the record has seat"):
        replay(tampered(record, actions=swapped))


# ------------------------------------------------------------------ files


def test_json_and_json_lines_round_trip(tmp_path):
    records = [random_game(g, seed=9).record() for g in GAMES]
    for r in records:
        path = write_record(tmp_path / f"{r.game}.json", r)
        assert read_record(path).to_dict() == r.to_dict()
        assert json.loads(path.read_text())["format"] == FORMAT
    many = write_records(tmp_path / "all.jsonl.gz", records)
    with gzip.open(many, "rt") as f:
        assert len(f.read().splitlines()) == 3
    assert [r.to_dict() for r in read_records(many)] == [r.to_dict() for r in records]
    assert read_record(many, 2).game == "thirteen"
    with pytest.raises(IndexError, match="holds 3 record"):
        read_record(many, 3)
    (tmp_path / "results.json").write_text('{"leaderboard": []}')
    assert len(list(iter_folder(tmp_path))) == 3 + 3  # the .json files and the .jsonl.gz
    assert dumps(records[0], lines=True).count("\n") == 0


def test_files_are_written_atomically_and_never_replaced(tmp_path):
    record = random_game("schnauz", seed=1).record()
    path = write_record(tmp_path / "game.json", record)
    before = path.read_bytes()
    other = random_game("schnauz", seed=2).record()
    with pytest.raises(FileExistsError, match="never replaced"):
        write_record(path, other)
    assert path.read_bytes() == before
    write_record(path, other, overwrite=True)
    assert read_record(path).seed == 2

    class Boom(Exception):
        pass

    def broken():
        yield dumps(record, lines=True)
        raise Boom

    with pytest.raises(Boom):
        write_records(tmp_path / "half.jsonl", broken())
    assert not (tmp_path / "half.jsonl").exists()
    assert sorted(os.listdir(tmp_path)) == ["game.json"]  # no temporary file left


def test_a_malformed_line_is_named(tmp_path):
    line = dumps(random_game("scat", seed=1).record(), lines=True)
    path = tmp_path / "x.jsonl"
    path.write_text(line + "\n\n" + "{not json\n")
    with pytest.raises(RecordError, match=r"x.jsonl, line 3: not JSON"):
        read_records(path)
    path.write_text(line.replace('"version":1', '"version":9') + "\n")
    with pytest.raises(RecordError, match=r"line 1: record format version 9.*upgrade"):
        read_records(path)

"""Random-play invariants of the Thirteen engine over 5,000 games (2-4 players, every
rule option): no card created or lost, every play beats the one before on its table,
passed players stay out until the table clears, selections never dead-end, every game
ends with a full finishing order and n−1 … 0 points."""

from __future__ import annotations

import numpy as np
import pytest

from schnauz_env.thirteen import PASS, PLAY, ThirteenConfig, new_game
from schnauz_env.thirteen.combos import STRENGTH, classify_strengths, combo_beats
from schnauz_env.thirteen.engine import DECLARE, HAND_SIZE

GAMES = 5000
#: No game can take more steps: 52 card selections, at most 52 plays, and at most
#: n−1 passes per play.
MAX_STEPS = 52 + 52 * 4 + 10


def _config(g: int) -> ThirteenConfig:
    return ThirteenConfig(
        num_players=2 + g % 3,
        opening=("include", "free")[(g // 3) % 2],
        out_clears_table=(g // 6) % 2 == 1,
        instant_wins=(g // 12) % 2 == 1,
    )


def _check_cards(state) -> None:
    held = [c for h in state.hands for c in h]
    everything = held + state.played + state.undealt
    assert sorted(everything) == list(range(52)), "a card was created or lost"
    assert len(state.undealt) == 52 - HAND_SIZE * state.n
    for h in state.hands:
        assert [STRENGTH[c] for c in h] == sorted(STRENGTH[c] for c in h)


@pytest.mark.slow
def test_random_play_invariants():
    rng = np.random.default_rng(2024)
    totals = {"plays": 0, "passes": 0, "bombs": 0, "clears": 0, "instant": 0}
    for g in range(GAMES):
        config = _config(g)
        n = config.num_players
        state = new_game(config, np.random.default_rng(g))
        _check_cards(state)
        if state.opening_card is not None:
            dealt = [c for h in state.hands for c in h]
            assert state.opening_card == min(dealt, key=STRENGTH.__getitem__)
            assert state.opening_card in state.hands[state.leader]
        steps = 0
        while not state.game_over:
            steps += 1
            assert steps <= MAX_STEPS, "a game did not end"
            seat = state.current
            legal = state.legal_actions()
            assert legal, "no legal action in a live state"
            assert state.hands[seat] and not state.passed[seat]
            if steps % 8 == 0:
                assert np.flatnonzero(state.legal_mask()).tolist() == list(legal)
            if state.phase == DECLARE:
                assert legal == (PLAY,)
                totals["instant"] += 1
            action = legal[rng.integers(len(legal))]
            before = state.table_combo
            passed = list(state.passed)
            selected = list(state.selection)
            declaring = state.phase == DECLARE
            state.apply(action)
            if action == PASS:
                totals["passes"] += 1
                assert before is not None
            elif action == PLAY and not declaring:
                totals["plays"] += 1
                combo = classify_strengths(sorted(STRENGTH[c] for c in selected))
                assert combo is not None
                if before is not None:
                    assert combo_beats(combo, before)
                    if combo.kind != before.kind:
                        totals["bombs"] += 1
            if state.table_combo is None and before is not None:
                totals["clears"] += 1
                assert state.passed == [False] * n
            elif not state.game_over and state.table_combo is not None:
                # a player who had passed stays passed while the table stands
                assert all(state.passed[s] for s in range(n) if passed[s])
            if action >= PLAY and not state.game_over and state.phase != DECLARE:
                _check_cards(state)
        order = state.last_result.finish_order
        if state.last_result.reason == "game_over":
            assert sorted(order) == list(range(n))
            assert state.places == [float(order.index(s) + 1) for s in range(n)]
            assert state.last_result.points == {s: n - 1 - order.index(s) for s in range(n)}
            assert sum(state.last_result.points.values()) == n * (n - 1) // 2
        else:  # an instant win: first place, the others share the rest
            assert state.last_result.reason == "instant_win" and len(order) == 1
            shared = (2 + n) / 2
            assert state.places == [1.0 if s == order[0] else shared for s in range(n)]
            assert state.last_result.points == {s: (n - 1) * (s == order[0]) for s in range(n)}
    # the games exercised every part of the rules
    assert totals["plays"] > 140_000 and totals["passes"] > 100_000
    assert totals["bombs"] > 200 and totals["clears"] > 50_000 and totals["instant"] >= 10


@pytest.mark.slow
def test_random_matches_end_with_a_single_leader():
    rng = np.random.default_rng(7)
    for g in range(60):
        config = ThirteenConfig(num_players=2 + g % 3, episode="match", target_points=6)
        state = new_game(config, np.random.default_rng(g))
        while not state.game_over:
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
        top = max(state.scores)
        assert top >= 6 and state.scores.count(top) == 1
        winner = state.scores.index(top)
        assert state.places[winner] == 1.0
        assert None not in state.places

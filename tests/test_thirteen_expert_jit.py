"""Thirteen ``expert-jit`` against ``expert``: a compiled copy of a baseline must agree with it.

The Thirteen expert draws no random number, so nothing is left to statistics: on every
decision of many games (random and expert moves mixed, every seat's turn; 2, 3 and 4
players; every rule option of :class:`~schnauz_env.thirteen.config.ThirteenConfig`) the
compiled player must make the reference's move, card by card, and the compiled
``thirteen-expert-v1`` block must be the reference's row (the golden file of
``tests/test_feature_sets.py`` pins it as well). The partition cache the kernels keep
across calls changes no move; a harness evaluation against expert-jit replays the one
against expert game for game; and the kernels run without numba too.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba", reason="expert-jit is the numba-compiled expert")

import batched_helpers
import expert_jit_helpers

from policies import make_policy
from policies import thirteen_expert_jit as tj
from policies.thirteen import ExpertPolicy
from policies.thirteen_expert_jit import ThirteenExpertJitPolicy
from policies.thirteen_features import ThirteenExpertFeatures
from schnauz_env.cards import ALL_CARDS
from schnauz_env.thirteen import ThirteenConfig, new_game
from schnauz_env.thirteen.combos import STRENGTH, TWO
from schnauz_env.thirteen.engine import PASS, PLAY
from schnauz_env.thirteen.observation import ObservationEncoder

CONFIGS = [
    ThirteenConfig(num_players=4),
    ThirteenConfig(num_players=2),
    ThirteenConfig(num_players=3),
    ThirteenConfig(num_players=3, opening="free", out_clears_table=True),
    ThirteenConfig(num_players=4, episode="match", target_points=3, instant_wins=True),
    ThirteenConfig(num_players=2, out_clears_table=True, instant_wins=True, opening="free"),
]
IDS = [
    f"{c.num_players}p-{c.episode}-{c.opening}"
    + ("-clears" if c.out_clears_table else "")
    + ("-instant" if c.instant_wins else "")
    for c in CONFIGS
]


def four_twos_deck(n: int) -> list[int]:
    """A deck that deals seat 0 the four 2s (an instant win)."""
    twos = [c for c in ALL_CARDS if STRENGTH[c] >> 2 == TWO]
    rest = [c for c in ALL_CARDS if STRENGTH[c] >> 2 != TWO]
    deck = []
    for i in range(len(ALL_CARDS)):
        deck.append(twos.pop() if i % n == 0 and twos else rest.pop())
    return [int(c) for c in deck]


def game_states(config, games, seed, explore=0.3, other_seats=0.0):
    """Observations and masks met in ``games`` seeded games between experts, a share
    ``explore`` of the moves random; with ``other_seats``, that share of the rows is
    another seat's view (not its turn). With instant wins, the first game deals seat 0
    the four 2s."""

    def deal(g):
        deck = four_twos_deck(config.num_players) if config.instant_wins and g == 0 else None
        return new_game(config, np.random.default_rng([seed, g]), deck=deck)

    obs, masks = expert_jit_helpers.expert_game_states(
        config,
        ObservationEncoder(config),
        ExpertPolicy(config),
        deal,
        games,
        seed,
        explore,
        other_seats,
        ask_every_move=False,
    )
    return obs, masks.astype(np.int8)


# ------------------------------------------------------------------ the moves
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_moves_are_the_experts_exactly(config):
    """The compiled expert plays the reference's move on every decision of real games
    (one act_batch call for all of them; one row a call too)."""
    obs, masks = game_states(config, 30 if config.num_players > 2 else 50, 13)
    ref = ExpertPolicy(config)
    want = np.array([ref.act(o, m) for o, m in zip(obs, masks, strict=True)])
    jit = make_policy("expert-jit", game="thirteen", config=config, seed=0)
    assert isinstance(jit, ThirteenExpertJitPolicy)
    got = jit.act_batch(obs, masks, games=np.arange(len(obs)))
    batched_helpers.assert_same(got, want, config)
    choices = masks.sum(axis=1) > 1
    assert choices.sum() > 800 and (want[choices] == PASS).sum() > 50  # real decisions
    assert [jit.act(o, m) for o, m in zip(obs[:150], masks[:150], strict=True)] == list(want[:150])


def test_the_tunables_are_the_experts():
    """Retuned on the instance (as a feature set's frozen version does), before its
    first moves or after, the compiled expert still plays the reference's moves."""
    config = ThirteenConfig(num_players=3)
    obs, masks = game_states(config, 6, 14)
    jit = ThirteenExpertJitPolicy(config)
    for spend_penalty, margin in ((0.0, 0.5), (2.5, -1.0)):
        ref = ExpertPolicy(config)
        for policy in (ref, jit):
            policy.spend_penalty, policy.margin = spend_penalty, margin
        want = [ref.act(o, m) for o, m in zip(obs, masks, strict=True)]
        assert jit.act_batch(obs, masks).tolist() == want


def test_the_partition_cache_changes_no_move():
    """An empty cache, a full one, and one whose every slot holds another sub-hand (a
    cache that forgot everything): the same moves."""
    config = ThirteenConfig()
    obs, masks = game_states(config, 6, 15)
    jit = ThirteenExpertJitPolicy(config)
    keys, costs, info = tj.partition_cache()
    saved = keys.copy(), costs.copy(), info.copy()
    try:
        keys[:] = -1
        cold = jit.act_batch(obs, masks)
        warm = jit.act_batch(obs, masks)
        keys[:] = np.arange(tj.CACHE_SIZE) + tj.CACHE_SIZE * 7  # no real key: 5**13 > them
        forgot = jit.act_batch(obs, masks)
    finally:
        keys[:], costs[:], info[:] = saved
    assert cold.tolist() == warm.tolist() == forgot.tolist()


def test_bad_inputs_are_refused():
    config = ThirteenConfig()
    policy = ThirteenExpertJitPolicy(config)
    obs, masks = game_states(config, 1, 0)
    expert_jit_helpers.assert_bad_inputs_refused(
        policy, obs, masks, ThirteenExpertJitPolicy, "ThirteenConfig"
    )
    with pytest.raises(ValueError, match="takes no parameter"):
        make_policy("expert-jit:1", game="thirteen")


def test_a_mask_that_forbids_the_experts_move_gets_its_first_legal_action():
    config = ThirteenConfig()
    obs, masks = game_states(config, 3, 16)
    keep = masks.sum(axis=1) > 1
    obs, masks = obs[keep], masks[keep]
    make = lambda: ThirteenExpertJitPolicy(config)  # noqa: E731
    expert_jit_helpers.assert_first_legal_when_forbidden(make, obs, masks, 50)


def test_an_evaluation_against_expert_jit_is_the_one_against_expert():
    """Seated and seeded alike by the harness, expert-jit players replay the experts'
    games exactly: the same places in every game (21: duplicate deals, every seating)."""
    places = expert_jit_helpers.places_against(
        lambda opponent: ["greedy", opponent, opponent],
        game="thirteen",
        players=3,
        games=21,
        seed=7,
    )
    assert len(places["expert"]) == 21 and places["expert-jit"] == places["expert"]


# ------------------------------------------------------------------ the features
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_compiled_features_are_the_python_rows_exactly(config):
    """The compiled thirteen-expert-v1 block equals the reference's row by row, on every
    seat's view, its turn or not (an instant win to declare included)."""
    obs, _ = game_states(config, 4, 17, other_seats=0.3)
    feats = ThirteenExpertFeatures(config)
    got = expert_jit_helpers.assert_compiled_rows(feats, obs, config)
    on_turn = got.sum(axis=1)
    assert set(on_turn.tolist()) == {0.0, 1.0} and on_turn.sum() > 100
    if config.instant_wins:
        assert (got[:, PLAY] == 1).sum() > 0


def test_the_kernels_run_without_numba(tmp_path):
    """The same moves and features with the kernels as plain Python (a fresh process
    without numba) as compiled."""
    script = expert_jit_helpers.random_play_script(
        "thirteen", "ThirteenConfig", "ThirteenExpertFeatures", 40
    )
    script += """
policy = make_policy("expert-jit", game="thirteen", config=cfg)
np.savez(OUT, policy.act_batch(obs, masks), ThirteenExpertFeatures(cfg).features(obs))
"""
    moves, _ = batched_helpers.run_with_and_without_numba(script, tmp_path, "thirteen_jit")
    assert len(moves) == 40

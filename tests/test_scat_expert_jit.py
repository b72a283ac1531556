"""Scat ``expert-jit`` against ``expert``: a compiled copy of a baseline must agree with it.

The compiled expert steps numpy's PCG64 itself, so nothing is left to statistics: the
generator (its seeding, its bounded draws, its shuffle) is compared with numpy's, the
deterministic parts (hand values, best keep, expected draw and gain, discard scores,
decoding) with the reference's on states of real games, and then the moves themselves
and the generator's state after them, which must be the reference's exactly; so must
the ``scat-expert-v1`` block of the compiled kernel (the golden file of
``tests/test_feature_sets.py`` pins it as well). A duplicate-deal match shows the same
from the outside, and the kernels run without numba too.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba", reason="expert-jit is the numba-compiled expert")

import batched_helpers
import expert_jit_helpers

from policies import make_policy
from policies import scat_expert_jit as sj
from policies.evaluation import evaluate
from policies.scat import ExpertPolicy, best_keep, expected_draw, expected_gain, value_of
from policies.scat_expert_jit import ScatExpertJitPolicy, layout_record, rng_state, set_rng_state
from policies.scat_features import ScatExpertFeatures
from schnauz_env.scat import ScatConfig, new_game
from schnauz_env.scat.engine import DISCARD_BASE, KNOCK
from schnauz_env.scat.infoset import decode_observation
from schnauz_env.scat.observation import ObservationEncoder

CONFIGS = [
    ScatConfig(num_players=4),
    ScatConfig(num_players=2),
    ScatConfig(num_players=3, no_trinca=True),
    ScatConfig(num_players=7, four_card=True),
]
IDS = [
    f"{c.num_players}p-{'four' if c.four_card else 'no-trinca' if c.no_trinca else 'std'}"
    for c in CONFIGS
]


def game_states(config, games, seed, explore=0.1, other_seats=0.0):
    """Observations and masks met in ``games`` seeded games between experts, a share
    ``explore`` of the moves random; with ``other_seats``, that share of the rows is
    another seat's view (not its turn)."""
    return expert_jit_helpers.expert_game_states(
        config,
        ObservationEncoder(config),
        ExpertPolicy(config, seed=seed),
        lambda g: new_game(config, np.random.default_rng([seed, g])),
        games,
        seed,
        explore,
        other_seats,
        ask_every_move=True,
    )


# ------------------------------------------------------------------ numpy's generator
def test_seeding_is_default_rngs():
    st = np.zeros(sj.RNG_WORDS, dtype=np.uint64)
    for seed in (0, 1, 5, 2026, 123456789, 2**31, 2**32 - 1):
        sj._kernels.compile()
        sj._seed_pcg64(st, seed)
        np.testing.assert_array_equal(st, rng_state(np.random.default_rng(seed)), err_msg=seed)


def test_shuffles_are_generator_shuffles_and_the_state_carries_over():
    """Shuffles of every size (a list, as the reference shuffles), one after another from
    one generator: the same permutations, and the generator's state after them (the
    spare half of a 64-bit output included) is numpy's."""
    sj._kernels.compile()
    for seed in range(40):
        ref = np.random.default_rng(seed)
        sizes = np.random.default_rng(seed + 1).integers(0, 53, 30)
        st = rng_state(np.random.default_rng(seed))
        for n in sizes:
            want = list(range(n))
            ref.shuffle(want)
            got = np.arange(n, dtype=np.int64)
            sj._shuffle(st, got, n)
            assert got.tolist() == want, (seed, n)
        mine = np.random.default_rng(0)
        set_rng_state(mine, st)
        assert mine.bit_generator.state == ref.bit_generator.state
        assert mine.random() == ref.random()


def test_only_pcg64_generators_are_stepped():
    policy = ScatExpertJitPolicy(ScatConfig(), seed=0)
    policy.rng = np.random.Generator(np.random.MT19937(0))
    obs, masks = game_states(ScatConfig(), 1, 0)
    with pytest.raises(ValueError, match="PCG64"):
        policy.act_batch(obs[:4], masks[:4])


# ------------------------------------------------------------------ deterministic parts
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_hand_values_keeps_draws_and_gains_are_the_experts(config):
    """On states of real games: the hand's value, the best keep with the discard pile's
    top card, the expected draw, and the expected gain of the hand left by each discard
    (the compiled helpers called directly, on the compiled decoding of the same row)."""
    sj._kernels.compile()
    obs, _ = game_states(config, 3, 11)
    lay = layout_record(config)[0]
    pts = sj.POINTS_TABLE
    trinca = config.trinca
    ws = sj._workspace()
    rows = np.random.default_rng(0).choice(len(obs), size=min(len(obs), 300), replace=False)
    for r in rows:
        view = decode_observation(obs[r], config)
        v = sj._decode(obs, r, lay, ws)
        hand = list(view.hand)
        pool = view.unseen()
        assert ws.hand[: v.nh].tolist() == hand and ws.pool[: v.npool].tolist() == pool
        assert (v.top if v.top >= 0 else None) == view.discard_top
        assert (v.final, v.discard, v.stock, v.nact) == (
            view.final,
            view.discard_step,
            view.stock_size,
            len(view.active),
        )
        assert sj._value(pts, lay, ws.hand, v.nh) == value_of(hand, trinca)
        if not view.discard_step:
            want = best_keep(sorted([*hand, view.discard_top]), trinca)[0] if view.pile else -1.0
            assert sj._with_top(pts, lay, ws, v) == want
            assert sj._expected_draw(pts, lay, ws.hand, v.nh, ws, v.npool) == expected_draw(
                hand, pool, trinca
            )
            continue
        assert sj._best_keep(pts, lay, ws.hand, v.nh, ws.t) == best_keep(hand, trinca)
        for i in range(len(hand)):
            rest = np.array([*hand[:i], *hand[i + 1 :]], dtype=np.int64)
            assert sj._expected_gain(pts, lay, rest, len(rest), ws, v.npool) == expected_gain(
                list(rest), pool, trinca
            )


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_discard_scores_are_the_experts(config):
    sj._kernels.compile()
    obs, _ = game_states(config, 3, 12)
    lay = layout_record(config)[0]
    expert = ExpertPolicy(config, seed=0)
    prm = sj.param_record(expert)[0]
    ws = sj._workspace()
    scores = np.zeros(sj.MAX_HAND)
    checked = 0
    for r in range(len(obs)):
        view = decode_observation(obs[r], config)
        if not view.discard_step:
            continue
        v = sj._decode(obs, r, lay, ws)
        best = sj._discard_scores(sj.POINTS_TABLE, prm, lay, ws, v, scores)
        want = expert.discard_scores(view, list(view.hand), view.unseen())
        assert scores[: v.nh].tolist() == want and best == want.index(max(want))
        checked += 1
    assert checked > 50


# ------------------------------------------------------------------ the moves
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_moves_and_samples_are_the_experts_exactly(config):
    """Seeded alike, the compiled expert plays the reference's move on every state of
    real games (one act_batch call for all of them, its knocks drawn from the same
    samples), and leaves its generator where the reference leaves its own."""
    obs, masks = game_states(config, 3 if config.num_players > 4 else 12, 13)
    ref = ExpertPolicy(config, seed=42)
    want = np.array([ref.act(o, m) for o, m in zip(obs, masks, strict=True)])
    jit = make_policy("expert-jit", game="scat", config=config, seed=42)
    assert isinstance(jit, ScatExpertJitPolicy)
    got = jit.act_batch(obs, masks)
    batched_helpers.assert_same(got, want, config)
    assert jit.rng.bit_generator.state == ref.rng.bit_generator.state
    assert (want == KNOCK).sum() > 5  # the Monte Carlo knock was exercised
    single = ScatExpertJitPolicy(config, seed=42)  # one row a call: the same
    assert [single.act(o, m) for o, m in zip(obs[:200], masks[:200], strict=True)] == list(
        want[:200]
    )


def test_the_risk_argument_is_the_experts():
    config = ScatConfig()
    obs, masks = game_states(config, 6, 14)
    for arg in ("0.1", "0.6"):
        ref = make_policy(f"expert:{arg}", game="scat", config=config, seed=1)
        jit = make_policy(f"expert-jit:{arg}", game="scat", config=config, seed=1)
        assert jit.name == f"expert-jit:{arg}" and jit.risk == float(arg)
        want = [ref.act(o, m) for o, m in zip(obs, masks, strict=True)]
        assert jit.act_batch(obs, masks, games=np.arange(len(obs))).tolist() == want
    with pytest.raises(ValueError, match="knock risk"):
        make_policy("expert-jit:bold", game="scat", config=config)
    retuned = ScatExpertJitPolicy(config, seed=1)  # a tunable set after its first moves
    retuned.act_batch(obs[:5], masks[:5])
    retuned.rng, retuned.risk, retuned.samples = np.random.default_rng(1), 0.6, 8
    ref = ExpertPolicy(config, seed=1)
    ref.risk, ref.samples = 0.6, 8
    want = [ref.act(o, m) for o, m in zip(obs, masks, strict=True)]
    assert retuned.act_batch(obs, masks).tolist() == want


def test_bad_inputs_are_refused():
    config = ScatConfig()
    policy = ScatExpertJitPolicy(config, seed=0)
    obs, masks = game_states(config, 1, 0)
    expert_jit_helpers.assert_bad_inputs_refused(
        policy, obs, masks, ScatExpertJitPolicy, "ScatConfig"
    )


def test_a_mask_that_forbids_the_experts_move_gets_its_first_legal_action():
    """Discards (the expert's choice there does not read the mask): with its discard
    masked out, the first legal action."""
    config = ScatConfig()
    obs, masks = game_states(config, 2, 16)
    discard = masks[:, DISCARD_BASE].astype(bool)
    obs, masks = obs[discard], masks[discard]
    make = lambda: ScatExpertJitPolicy(config, seed=0)  # noqa: E731
    expert_jit_helpers.assert_first_legal_when_forbidden(make, obs, masks, 20)


def test_a_duplicate_match_against_the_expert_is_level():
    """Three experts and the compiled one on duplicate deals: it wins its fair share
    (the interval holds 0.25)."""
    result = evaluate(
        ["expert-jit", "expert", "expert", "expert"],
        game="scat",
        players=4,
        games=160,
        workers=1,
        seed=3,
    )
    jit = result.stats("expert-jit")
    assert jit.win_low <= jit.fair_share <= jit.win_high, jit


def test_an_evaluation_against_expert_jit_is_the_one_against_expert():
    """Seated and seeded alike by the harness, expert-jit players replay the experts'
    games exactly: the same places in every game."""
    places = expert_jit_helpers.places_against(
        lambda opponent: ["greedy", opponent], game="scat", games=24, seed=7
    )
    assert places["expert-jit"] == places["expert"]


# ------------------------------------------------------------------ the features
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_compiled_features_are_the_python_rows_exactly(config):
    """The compiled scat-expert-v1 block equals the reference's row by row (samples
    included), on every seat's view, its turn or not."""
    obs, _ = game_states(config, 2 if config.num_players > 4 else 4, 15, other_seats=0.3)
    got = expert_jit_helpers.assert_compiled_rows(ScatExpertFeatures(config), obs, config)
    assert (got[:, 5] > 0).sum() > 10  # the sampled chance was exercised


def test_the_kernels_run_without_numba(tmp_path):
    """The same moves and features with the kernels as plain Python (a fresh process
    without numba) as compiled."""
    script = expert_jit_helpers.random_play_script("scat", "ScatConfig", "ScatExpertFeatures", 60)
    script += """
policy = make_policy("expert-jit", game="scat", config=cfg, seed=9)
moves = policy.act_batch(obs, masks)
np.savez(OUT, moves, ScatExpertFeatures(cfg).features(obs), policy.rng.random(3))
"""
    moves, _, _ = batched_helpers.run_with_and_without_numba(script, tmp_path, "scat_jit")
    assert len(moves) == 60

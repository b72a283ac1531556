"""``scat-expert-v1``: the Scat expert's estimates as features, for a network to build on.

The ``expert`` decides by numbers a network would have to rediscover from one-hot
cards: the Monte Carlo chance that its hand is the strict lowest after everyone's final
turn (its knock rule), the expected hand after a blind draw, and a score per discard
that weighs what a card may still become. This feature set hands the network those
numbers, so it can play the expert exactly and learn *where to deviate* (its knock
timing above all), as ``schnauz-expert-v1`` does for Schnauz.

The block is 18 numbers, from the observer's seat (zeros where they do not apply: not
its turn, or the other step of the turn); hand values are divided by 31:

=================  ==  ==============================================================
``draw_step``       1  1 on the observer's draw step (a final turn's included)
``value_now``       1  the hand's value
``with_top``        1  the best hand keeping the discard pile's top card (0: none)
``expected_draw``   1  the expected best hand after a blind draw from the stock
``take_discard``    1  1 if the expert would take the top card rather than draw blind
``lowest_chance``   1  the chance that the hand is strictly the lowest after the final
                       turns (sampled; draw steps before anybody knocked)
``knock_limit``     1  the expert knocks below this chance: risk / players in the game
``knock``           1  1 if the expert would knock (value >= 20 and chance < limit)
``discard_score``   5  discard step: the expert's score of throwing each hand slot
``discard_best``    5  one-hot: the slot the expert throws
=================  ==  ==============================================================

The expert's tunable numbers are frozen with the version: :data:`V1_PARAMS` holds
:class:`~policies.scat.ExpertPolicy`'s values when v1 shipped, written out, so retuning
the expert changes neither these features nor the moves of a model trained on them.
The samples of ``lowest_chance`` are drawn from a generator seeded with a hash of the
row, so the block is a deterministic function of the observation.
``tests/test_feature_sets.py`` holds the features of a fixed set of positions.

A batch is computed by one call of the compiled Scat expert's kernel
(:func:`policies.scat_expert_jit.features_kernel`, some 100 times faster than the
Python expert), which reproduces :meth:`ScatExpertFeatures.row` (the reference, kept
for the tests) to the last bit, the samples included: it seeds each row's generator
exactly as ``np.random.default_rng(seed)`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from policies.base import RowFeatures, with_params
from policies.scat import BLITZ_SCORE, ExpertPolicy, best_keep, expected_draw, value_of
from policies.scat_expert_jit import features_kernel, layout_record
from schnauz_env.scat.config import ScatConfig
from schnauz_env.scat.infoset import decode_observation
from schnauz_env.scat.observation import ObservationEncoder

FEATURES_NAME = "scat-expert-v1"
#: Every tunable class attribute of :class:`~policies.scat.ExpertPolicy` in v1, frozen.
V1_PARAMS: dict[str, float] = {"samples": 32, "risk": 0.3, "potential": 0.5, "opponent_draws": 1.0}
#: The block's parts and their sizes, in order.
BLOCKS: tuple[tuple[str, int], ...] = (
    ("draw_step", 1),
    ("value_now", 1),
    ("with_top", 1),
    ("expected_draw", 1),
    ("take_discard", 1),
    ("lowest_chance", 1),
    ("knock_limit", 1),
    ("knock", 1),
    ("discard_score", 5),
    ("discard_best", 5),
)
SIZE = sum(n for _, n in BLOCKS)
OFFSET = {name: sum(n for _, n in BLOCKS[:i]) for i, (name, _) in enumerate(BLOCKS)}
SCALE = 31.0


class ScatExpertFeatures(RowFeatures):
    """The ``scat-expert-v1`` feature set: ``obs_batch -> obs ++ expert estimates``."""

    name = FEATURES_NAME
    size = SIZE

    def __init__(self, config: ScatConfig, seed: int = 0) -> None:
        super().__init__(config, ObservationEncoder(config).size, seed)
        self.expert = with_params(ExpertPolicy(config, seed=seed), V1_PARAMS)
        self._lay = layout_record(config)

    def rows(self, batch: np.ndarray, seeds: np.ndarray, out: np.ndarray) -> None:
        """The whole batch in one compiled call (the same numbers as :meth:`row`)."""
        features_kernel(batch, self.expert, self._lay, seeds, out)

    def row(self, obs: np.ndarray, seed: int, out: np.ndarray) -> None:
        cfg = self.config
        view = decode_observation(obs, cfg)
        if view.to_act != 0 or not view.hand:
            return
        expert = self.expert
        trinca = cfg.trinca
        hand = list(view.hand)
        pool = view.unseen()
        if view.discard_step:
            scores = expert.discard_scores(view, hand, pool)
            best = scores.index(max(scores))
            o = OFFSET["discard_score"]
            for i, score in enumerate(scores):
                out[o + i] = 2.0 if score >= BLITZ_SCORE else score / SCALE
            out[OFFSET["discard_best"] + best] = 1.0
            return
        out[OFFSET["draw_step"]] = 1.0
        now = value_of(hand, trinca)
        out[OFFSET["value_now"]] = now / SCALE
        top = view.discard_top
        with_top = -1.0
        if top is not None:
            with_top, _ = best_keep(sorted([*hand, top]), trinca)
            out[OFFSET["with_top"]] = with_top / SCALE
        draw = expected_draw(hand, pool, trinca)
        out[OFFSET["expected_draw"]] = draw / SCALE
        blitz = with_top == cfg.blitz_value and not view.final
        out[OFFSET["take_discard"]] = float(blitz or (with_top > now and with_top >= draw))
        limit = expert.risk / len(view.active)
        out[OFFSET["knock_limit"]] = limit
        if view.knocker is None and not view.final and now >= 20:
            expert.rng = np.random.default_rng(seed)
            chance = expert.lowest_chance(view, hand, pool)
            out[OFFSET["lowest_chance"]] = chance
            out[OFFSET["knock"]] = float(chance < limit)


def make(config: Any) -> ScatExpertFeatures:
    """The feature set for ``config`` (a :class:`ScatConfig`)."""
    if not isinstance(config, ScatConfig):
        raise ValueError(f"{FEATURES_NAME} needs a ScatConfig, got {type(config).__name__}")
    return ScatExpertFeatures(config)

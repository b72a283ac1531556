"""``BatchedSchnauz.reset`` refuses what it cannot take, and a refused reset changes
nothing (issue 16): no lives, dealer or card index is wrapped into range, rounded or
taken modulo the engine's integer width."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from schnauz_env.batched import BatchedSchnauz
from schnauz_env.batched.schnauz.engine import reference_decks
from schnauz_env.schnauz import SchnauzConfig

B, N = 3, 4
CONFIG = SchnauzConfig(num_players=N)
NC = CONFIG.deck_size
GOOD_DECKS = np.stack([reference_decks(CONFIG, s, 4)[1] for s in range(B)]).astype(np.int64)

BAD: list[tuple[str, dict[str, Any], type[Exception], str]] = [
    ("lives 2**31", {"lives": np.full((B, N), 2**31)}, ValueError, "lives must be"),
    ("lives 2**63-1", {"lives": np.full((B, N), 2**63 - 1)}, ValueError, "lives must be"),
    ("lives 2.7", {"lives": np.full((B, N), 2.7)}, TypeError, "float64"),
    ("lives -1", {"lives": np.full((B, N), -1)}, ValueError, "got -1"),
    ("lives bool", {"lives": np.ones((B, N), bool)}, TypeError, "bool"),
    ("lives text", {"lives": [["3"] * N] * B}, TypeError, "lives must be"),
    ("lives shape", {"lives": np.ones((B, N + 1), int)}, ValueError, "shape"),
    ("lives huge int", {"lives": [[2**70] * N] * B}, TypeError, "object"),
    ("dealer 2**32+1", {"dealers": np.full(B, 2**32 + 1)}, ValueError, "seats 0..3"),
    ("dealer n", {"dealers": np.full(B, N)}, ValueError, "got 4"),
    ("dealer -1", {"dealers": np.full(B, -1)}, ValueError, "got -1"),
    ("dealer 1.0", {"dealers": np.ones(B)}, TypeError, "float64"),
    ("dealer shape", {"dealers": np.zeros(B + 1, int)}, ValueError, "shape"),
    ("card 256", {"decks": GOOD_DECKS + 256}, ValueError, "cards 0..31"),
    ("card -1", {"decks": GOOD_DECKS - 1}, ValueError, "got -1"),
    ("card 32", {"decks": (GOOD_DECKS + 1) % 33}, ValueError, "cards 0..31|permutation"),
    ("cards float", {"decks": GOOD_DECKS.astype(float)}, TypeError, "float64"),
    ("not a permutation", {"decks": np.zeros_like(GOOD_DECKS)}, ValueError, "permutation"),
    ("decks shape", {"decks": GOOD_DECKS[:, :, :-1]}, ValueError, "shape"),
    ("good decks, bad lives", {"decks": GOOD_DECKS, "lives": [[1.5] * N] * B}, TypeError, "lives"),
    ("good seed, bad dealer", {"seed": 5, "dealers": [9] * B}, ValueError, "seats"),
    ("bad seed", {"seed": -1}, ValueError, "negative"),
]


def trajectory(eng: BatchedSchnauz, steps: int = 60) -> list[bytes]:
    rng = np.random.default_rng(0)
    seen = []
    for _ in range(steps):
        mask = eng.mask
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, mask, rewards, ended = eng.step(actions)
        seen.append(obs.tobytes() + mask.tobytes() + rewards.tobytes() + ended.tobytes())
    return seen


@pytest.mark.parametrize(("what", "kwargs", "error", "message"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_reset_argument_is_refused_and_changes_nothing(
    what: str, kwargs: dict[str, Any], error: type[Exception], message: str
):
    eng = BatchedSchnauz(num_games=B, config=CONFIG, seed=1)
    twin = BatchedSchnauz(num_games=B, config=CONFIG, seed=1)
    eng.reset()
    twin.reset()
    eng.step(eng.random_actions())
    twin.step(twin.random_actions())
    with pytest.raises(error, match=message):
        eng.reset(**kwargs)
    assert trajectory(eng) == trajectory(twin), f"{what}: the refused reset changed the games"


def test_good_arguments_still_work():
    eng = BatchedSchnauz(num_games=B, config=CONFIG, seed=1)
    eng.reset(decks=GOOD_DECKS, dealers=[0, 1, 2], lives=[[1, 2, 3, 4]] * B)
    assert eng.gs[:, 24:28].tolist() == [[1, 2, 3, 4]] * B
    eng.reset(dealers=np.int64(2), lives=np.zeros((B, N), np.int8))  # one dealer for all
    eng.reset(decks=GOOD_DECKS.astype(np.int64), lives=[[2**31 - 1] * N] * B)

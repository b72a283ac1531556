"""stable-baselines3 (sb3-contrib's MaskablePPO) on the registered single-agent views: a
short training, then whole games of the learner (docs/interop.md, "stable-baselines3").
The project's own SB3 training (``python -m training.train``) is tests/test_training.py."""

from __future__ import annotations

import gymnasium
import pytest

pytest.importorskip("sb3_contrib", reason="the train extra (pip install -e '.[train]')")
from interop_helpers import GAMES, SMALL, one_torch_thread  # noqa: F401
from sb3_contrib import MaskablePPO

from schnauz_env.common.places import place_value
from schnauz_env.wrappers.registration import gym_id

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("game", GAMES)
def test_maskable_ppo_trains_and_its_episodes_pay_the_learners_place(game):
    rules = {k: v for k, v in SMALL[game].items() if k != "num_players"}
    env = gymnasium.make(
        gym_id(game),
        opponents=["random"],
        table_sizes=[SMALL[game]["num_players"]],
        rules=rules,
        seed=0,
        illegal_action="raise",  # an illegal action fails the test instead of losing
    )
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [32]},
    )
    model.learn(128)
    assert model.num_timesteps >= 128
    view = env.unwrapped
    for episode in range(3):
        obs, info = env.reset(seed=100 + episode)
        total, done = 0.0, False
        while not done:
            action, _ = model.predict(obs, action_masks=info["action_mask"].astype(bool))
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        raw = view.env
        seat = raw.possible_agents.index(view.learner)
        place = raw.game.places[seat]
        assert place is not None  # the learner's episode ends when its place is decided
        assert total == pytest.approx(place_value(place, info["table_size"]))

"""What the batched engines' tests share: running a script with and without numba,
playing an engine in lockstep with the AEC env (and the reference's bookkeeping beside
it), and driving a VecEnv.

The fallback tests run one script twice in fresh processes, without numba
(``SCHNAUZ_ENV_NO_NUMBA=1``: the kernels as plain Python) and, where numba is installed,
with it; each run saves the arrays it produced, and both runs must produce the same. The
differential tests play the batched engine and the real ``raw_env`` loop side by side
(:func:`lockstep_with_raw_env`).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HAVE_NUMBA = importlib.util.find_spec("numba") is not None

#: A script's opening: warnings are errors, the numba flag is the one expected
#: (``EXPECT_NUMBA``), and building ``MAKE`` (an engine's constructor call) warns how to
#: install numba exactly when it is missing.
WARNS_HOW_TO_INSTALL = """
import warnings, numpy as np
warnings.simplefilter("error")
from schnauz_env.batched.jit import HAVE_NUMBA
assert HAVE_NUMBA == EXPECT_NUMBA
IMPORT
try:
    MAKE
except RuntimeWarning as w:
    assert not HAVE_NUMBA and 'pip install "schnauz_env[fast]"' in str(w), w
else:
    assert HAVE_NUMBA, "no warning"
warnings.simplefilter("ignore")
"""


def warns_how_to_install(import_line: str, make: str) -> str:
    """:data:`WARNS_HOW_TO_INSTALL` for the engine imported by ``import_line`` and built
    by the expression ``make``."""
    return WARNS_HOW_TO_INSTALL.replace("IMPORT", import_line).replace("MAKE", make)


def run_with_and_without_numba(script: str, tmp_path: Path, name: str) -> list[np.ndarray]:
    """Run ``script`` (which saves its arrays with ``np.savez(OUT, *out)`` and may assert
    ``HAVE_NUMBA == EXPECT_NUMBA``) without numba and, where numba is installed, with it;
    assert that both runs saved the same arrays; return those of the run without."""
    outs = {}
    for flag in ("1", "0") if HAVE_NUMBA else ("1",):
        path = tmp_path / f"{name}_{flag}.npz"
        code = script.replace("OUT", repr(str(path))).replace(
            "EXPECT_NUMBA", "False" if flag == "1" else "True"
        )
        env = dict(os.environ, SCHNAUZ_ENV_NO_NUMBA=flag)
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        with np.load(path) as data:
            outs[flag] = [data[k] for k in data.files]
    if HAVE_NUMBA:
        for a, b in zip(outs["1"], outs["0"], strict=True):
            np.testing.assert_array_equal(a, b)
    return outs["1"]


def assert_same(got: np.ndarray, expected: Any, what: object) -> None:
    """``assert_array_equal``'s report, at ``array_equal``'s cost when they agree."""
    if not np.array_equal(got, expected):
        np.testing.assert_array_equal(got, expected, err_msg=str(what))


def random_play_invariants(
    eng: Any,
    check: Callable[[int], None],
    every: int = 1,
    whole: bool = True,
    steps: int = 3000,
) -> int:
    """Reset ``eng`` and step it ``steps`` times with random legal actions: the masks allow
    only legal moves, rewards are zero-sum and (``whole``: episodes are whole games) an
    episode's rewards total its final places' values, counting the rewards of a first
    deal that ended at once (``opening_rewards``, where the engine has them). Every
    ``every`` steps the views lie in [0, 1] and ``check(g)`` holds for every seventh
    game (no card created or lost). Returns the episodes finished."""
    from conftest import place_value

    b, n = eng.num_games, eng.num_players
    opening = getattr(eng, "opening_rewards", None)
    obs, mask = eng.reset()
    assert obs.shape == (b, eng.obs_size) and mask.shape[0] == b
    returns = np.zeros((b, n)) if opening is None else opening.copy()
    finished = 0
    for step in range(steps):
        actions = eng.random_actions()
        assert mask[np.arange(b), actions].all()
        obs, mask, rewards, ended = eng.step(actions)
        assert np.allclose(rewards.sum(axis=1), 0.0)
        returns += rewards
        for g in np.flatnonzero(ended):
            finished += 1
            if whole:
                places = eng.final_places[g, :n]
                np.testing.assert_allclose(returns[g], [place_value(p, n) for p in places])
                assert (places >= 1).all()
            returns[g] = 0.0 if opening is None else opening[g]  # the new game's first deal
        if step % every == 0:
            for g in range(0, b, 7):
                check(g)
            assert ((obs >= 0) & (obs <= 1)).all()
    return finished


class Reference:
    """One reference game (``state``, on the rules floor) and the AEC env's reward
    bookkeeping for it: :meth:`settle` pays a result as the env would."""

    def __init__(self, state: Any, settler: Any) -> None:
        self.state = state
        self.settler = settler
        n = len(settler.possible_agents)
        self.names = settler.possible_agents
        self.returns = [0.0] * n
        self.settled: set[int] = set()
        self.terminated = [False] * n

    def settle(self, result: Any) -> list[float]:
        """The AEC env's rewards for ``result``: run ``CardGameEnv._settle`` itself."""
        env = self.settler
        env.game = self.state
        env._returns = self.returns
        env._settled = self.settled
        env.rewards = dict.fromkeys(self.names, 0.0)
        env.terminations = dict(zip(self.names, self.terminated, strict=True))
        env._settle(result)
        self.terminated = [env.terminations[a] for a in self.names]
        return [env.rewards[a] for a in self.names]


def choose_weighted(mask: np.ndarray, weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A weighted random legal action per row of ``mask`` (Efraimidis-Spirakis keys)."""
    keys = rng.random(mask.shape) ** (1.0 / weights)
    keys[mask == 0] = -1.0
    return keys.argmax(axis=1)


def legal_bits(legal: tuple[int, ...], cache: dict) -> int:
    """The reference's legal actions as bits (``1 << a`` each), remembered in ``cache``."""
    bits = cache.get(legal)
    if bits is None:
        bits = cache[legal] = sum(1 << a for a in legal)
    return bits


def reset_envs(raw_env: Any, config: Any, seeds: list[int], options: Any = None) -> list[Any]:
    """One ``raw_env`` of ``config`` per seed, reset with it (``options(seed)``: its reset
    options, if any)."""
    envs = []
    for s in seeds:
        env = raw_env(**config.to_dict())
        env.reset(seed=s, options=None if options is None else options(s))
        envs.append(env)
    return envs


def lockstep_with_raw_env(
    eng: Any,
    envs: list[Any],
    config: Any,
    seeds: list[int],
    choose: Callable[[], np.ndarray],
    *,
    after_move: Callable[[int, Any], None] | None = None,
    before_move: Callable[[int, Any], None] | None = None,
    everyone: Callable[[], bool] | None = None,
    games: list[int] | None = None,
    final_views: bool = False,
) -> int:
    """Play a batched engine (``auto_reset=False``) and one reset AEC ``raw_env`` per
    game (``config``, reset with ``seeds``) in lockstep until every game ends; return the
    moves made.

    Before every move: the agent to act, its view and mask are the engine's (``eng.obs``,
    ``eng.mask``), and so (when ``everyone()`` says so, by default always: called first,
    before ``choose()``) are every agent's view and mask (``eng.observe``; zeros for
    those not to act). The actions of ``choose()`` are played in both; after every move
    each agent's reward and termination (the engine's ``terminated``) and the end of
    the episode agree, and with ``final_views`` every agent's view at the end
    is the engine's. ``before_move(g, env)`` and ``after_move(g, env)`` run around each
    env's move (e.g. to queue the decks its next deal needs); ``games`` are those to
    play (by default all). A failure names the config and the seed of the game.
    """

    def context(g: int) -> object:
        return config, seeds[g]

    n = eng.num_players
    names = envs[0].possible_agents
    no_mask = np.zeros_like(eng.mask[0])
    steps = 0
    alive = list(range(len(envs))) if games is None else list(games)
    while alive:
        every = everyone() if everyone is not None else True
        views = [eng.observe(s) for s in range(n)] if every else None
        for g in alive:
            env = envs[g]
            assert env.agent_selection == names[eng.current[g]], context(g)
            got = env.observe(env.agent_selection)
            assert_same(eng.obs[g], got["observation"], context(g))
            assert_same(eng.mask[g], got["action_mask"], context(g))
            if views is None:
                continue
            for s, a in enumerate(names):
                if a in env.agents:
                    got = env.observe(a)
                    assert_same(views[s][g], got["observation"], (context(g), s))
                    expect_mask = eng.mask[g] if s == eng.current[g] else no_mask
                    assert_same(got["action_mask"], expect_mask, (context(g), s))
        actions = choose()
        seen = {}
        for g in alive:
            env = envs[g]
            if before_move is not None:
                before_move(g, env)
            env.step(int(actions[g]))
            steps += 1
            if after_move is not None:
                after_move(g, env)
            ending = final_views and env.game.game_over
            seen[g] = (
                [env.rewards.get(a, 0.0) for a in names],
                [env.terminations.get(a, True) for a in names],
                [env.observe(a)["observation"] for a in names] if ending else None,
            )
            while env.agents and env.terminations[env.agent_selection]:
                env.step(None)
        _, _, rewards, ended = eng.step(actions)
        still = []
        for g in alive:
            env = envs[g]
            expect_rewards, expect_terms, last_views = seen[g]
            assert rewards[g].tolist() == expect_rewards, context(g)
            assert eng.terminated[g].tolist() == expect_terms, context(g)
            assert bool(ended[g]) == (not env.agents), context(g)
            if env.agents:
                still.append(g)
            elif last_views is not None:
                for s in range(n):
                    assert_same(eng.observe(s, games=g)[0], last_views[s], (context(g), s))
        alive = still
    return steps


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks``."""
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def play_learner(venv: Any, steps: int, seed: int = 0) -> dict[str, Any]:
    """``steps`` random legal learner moves in a VecEnv (after its reset): the learner's
    episode returns, final places and the trajectory (every obs, rewards, dones)."""
    rng = np.random.default_rng(seed)
    trajectory = [venv.reset()]
    ret = np.zeros(venv.num_envs)
    returns, places = [], []
    for _ in range(steps):
        masks = venv.action_masks()
        assert masks.dtype == bool and masks.any(axis=1).all()
        obs, rewards, dones, infos = venv.step(random_legal(masks, rng))
        assert obs.dtype == np.float32 and rewards.dtype == np.float32 and dones.dtype == bool
        trajectory += [obs, rewards, dones]
        ret += rewards
        for g in np.flatnonzero(dones):
            returns.append(float(ret[g]))
            places.append(infos[g]["place"])
            assert infos[g]["terminal_observation"].shape == obs.shape[1:]
            ret[g] = 0.0
    return {"returns": returns, "places": places, "trajectory": trajectory}

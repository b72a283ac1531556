"""``env()``'s fused wrapper (:class:`schnauz_env.common.aec.ClassicWrapper`) against
PettingZoo's own stack, step by step.

Each game's ``env()`` is driven beside ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(
TerminateIllegalWrapper(raw_env(), -1)))`` (what PettingZoo's classic games use) with the
same seeds and the same calls: random play mixed with illegal moves, out-of-bounds and
wrongly typed actions, ``None`` for live agents, actions for dead agents, observations of
any agent, ``last(observe=False)``, calls out of order (before ``reset``, ``agent_iter``
without a step, steps after the game ended) and resets in the middle of a game. After
every call both must have returned the same thing (observations, rewards, terminations,
truncations, infos) or raised the same error with the same message, logged the same
PettingZoo warnings and left the same public state (agents, selection, rewards,
cumulative rewards, terminations, truncations, infos).
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from schnauz_env import scat_v0, schnauz_v0, thirteen_v0
from schnauz_env.common.aec import ClassicWrapper

GAMES = {
    "schnauz 4p": (schnauz_v0, {"num_players": 4}),
    "schnauz 3p rounds": (schnauz_v0, {"num_players": 3, "episode": "round"}),
    "scat": (scat_v0, {}),
    "thirteen": (thirteen_v0, {}),
}


def pettingzoo_stack(module: Any, options: dict[str, Any]) -> Any:
    raw = module.raw_env(**options)
    return wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(wrappers.TerminateIllegalWrapper(raw, -1))
    )


def same(a: Any, b: Any, where: str) -> None:
    """``a`` and ``b`` equal, numpy arrays by dtype, shape and value, containers deeply."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b), where
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def outcome(env: Any, call: Callable[[Any], Any]) -> tuple[str, Any, list[str], list[str]]:
    """What ``call(env)`` did: ("ok", value) or ("raised", (type, message)), the
    PettingZoo warnings it logged and the Python warnings it gave."""
    EnvLogger.flush()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: tuple[str, Any] = ("ok", call(env))
        except Exception as err:
            result = ("raised", (type(err), str(err)))
    logged = list(EnvLogger.mqueue)
    EnvLogger.flush()
    return (*result, logged, [str(w.message) for w in caught])


PUBLIC = (
    "agents",
    "agent_selection",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
    "num_agents",
)


def public_state(env: Any) -> dict[str, Any]:
    state = {}
    for name in PUBLIC:
        try:
            value = getattr(env, name)
        except Exception as err:
            state[name] = ("raised", type(err), str(err))
            continue
        state[name] = dict(value) if isinstance(value, dict) else value
    return state


class Twins:
    """Our ``env()`` and PettingZoo's stack, called alike and compared after each call."""

    def __init__(self, module: Any, options: dict[str, Any]) -> None:
        self.ours = module.env(**options)
        self.theirs = pettingzoo_stack(module, options)
        assert isinstance(self.ours, ClassicWrapper)
        self.calls = 0

    def call(self, what: str, fn: Callable[[Any], Any]) -> Any:
        """Call ``fn`` on both; the same outcome and state, else a failure naming the call."""
        self.calls += 1
        where = f"call {self.calls}: {what}"
        ours = outcome(self.ours, fn)
        theirs = outcome(self.theirs, fn)
        assert ours[0] == theirs[0], f"{where}: ours {ours[:2]}, PettingZoo's {theirs[:2]}"
        same(ours[1], theirs[1], f"{where} (returned)")
        assert ours[2] == theirs[2], f"{where}: PettingZoo warnings {ours[2]} != {theirs[2]}"
        assert ours[3] == theirs[3], f"{where}: warnings {ours[3]} != {theirs[3]}"
        same(public_state(self.ours), public_state(self.theirs), f"{where} (state)")
        return ours[1] if ours[0] == "ok" else None


def before_reset(twins: Twins) -> None:
    """Every call PettingZoo refuses before ``reset``, refused alike."""
    twins.call("step before reset", lambda e: e.step(0))
    twins.call("observe before reset", lambda e: e.observe("player_0"))
    twins.call("agent_iter before reset", lambda e: e.agent_iter())
    twins.call("last before reset", lambda e: e.last())
    twins.call("state before reset", lambda e: e.state())
    for name in PUBLIC:
        twins.call(f"{name} before reset", lambda e, name=name: getattr(e, name))


def bad_actions(n: int) -> list[Any]:
    """Actions outside ``Discrete(n)``: out of range, wrong types."""
    return [-1, n, n + 7, np.int64(n), np.int64(-3), 1.0, 2.5, "1", [0], np.array([0])]


def play(twins: Twins, seed: int, episodes: int) -> dict[str, int]:
    """Random play of ``episodes`` games with misuse mixed in; counts what happened."""
    rnd = random.Random(seed)
    ours = twins.ours
    n = ours.action_space(ours.possible_agents[0]).n
    seen = dict.fromkeys(
        ("steps", "illegal", "bad", "none_live", "dead_action", "no_last", "resets", "ended"), 0
    )
    for episode in range(episodes):
        twins.call("reset", lambda e, s=seed * 1000 + episode: e.reset(seed=s))
        while True:
            if not ours.agents:  # the game is over: misuse, then the next game
                seen["ended"] += 1
                twins.call("step after the end", lambda e: e.step(None))
                twins.call("step(0) after the end", lambda e: e.step(0))
                twins.call("last after the end", lambda e: e.last())
                twins.call("observe after the end", lambda e: e.observe(e.possible_agents[0]))
                break
            agent = ours.agent_selection
            dead = ours.terminations[agent] or ours.truncations[agent]
            r = rnd.random()
            if r < 0.04:
                other = rnd.choice(ours.possible_agents)
                twins.call(f"observe({other})", lambda e, a=other: e.observe(a))
                continue
            if r < 0.06:
                twins.call("last(observe=False)", lambda e: e.last(observe=False))
                continue
            if r < 0.07:
                twins.call("agent_iter", lambda e: next(iter(e.agent_iter())))
                twins.call("agent_iter again", lambda e: next(iter(e.agent_iter())))
                continue
            if r < 0.075:
                seen["resets"] += 1
                fresh = rnd.randrange(10**6)
                twins.call("reset mid-game", lambda e, s=fresh: e.reset(seed=s))
                continue
            if r < 0.09:
                seen["bad"] += 1
                bad = rnd.choice(bad_actions(n))
                twins.call(f"step({bad!r})", lambda e, a=bad: e.step(a))
                continue
            if r < 0.10 and not dead:
                seen["none_live"] += 1
                twins.call("step(None), live agent", lambda e: e.step(None))
                continue
            if r < 0.11 and dead:
                seen["dead_action"] += 1
                twins.call("step(0), dead agent", lambda e: e.step(0))
                continue
            if r < 0.20:  # step without observing first: the wrapper reads the mask itself
                seen["no_last"] += 1
                obs = ours.unwrapped.observe(agent)
            else:
                obs = twins.call("last()", lambda e: e.last())[0]
            if dead:
                twins.call("step(None), dead agent", lambda e: e.step(None))
                continue
            mask = obs["action_mask"]
            if r > 0.985:  # an illegal move, in bounds: the game ends
                illegal = np.flatnonzero(mask == 0)
                if len(illegal):
                    seen["illegal"] += 1
                    a = int(rnd.choice(illegal))
                    twins.call(f"illegal step({a})", lambda e, a=a: e.step(a))
                    continue
            legal = np.flatnonzero(mask)
            a = int(rnd.choice(legal))
            action = np.int64(a) if rnd.random() < 0.1 else a
            seen["steps"] += 1
            twins.call(f"step({a})", lambda e, a=action: e.step(a))
    return seen


@pytest.mark.parametrize("game", list(GAMES))
def test_classic_wrapper_is_pettingzoos_stack(game: str) -> None:
    module, options = GAMES[game]
    twins = Twins(module, options)
    before_reset(twins)
    seen = play(twins, seed=len(game), episodes=30)
    # the run went through every kind of call it means to compare
    assert seen["steps"] > 500
    for kind in ("illegal", "bad", "none_live", "no_last", "resets", "ended"):
        assert seen[kind] > 0, (kind, seen)


def test_agent_iter_loop_and_warnings_match() -> None:
    """The standard ``agent_iter`` loop, an illegal move in it, and a step after the end."""
    twins = Twins(schnauz_v0, {"num_players": 3})
    twins.call("reset", lambda e: e.reset(seed=3))
    for env in (twins.ours, twins.theirs):
        EnvLogger.flush()
        moves = 0
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:  # the 20th move is illegal
                moves += 1
                mask = obs["action_mask"]
                env.step(int(np.flatnonzero(mask == 0)[0] if moves == 20 else mask.argmax()))
        assert EnvLogger.mqueue and "Illegal move" in EnvLogger.mqueue[0]
        assert env.agents == []
    same(public_state(twins.ours), public_state(twins.theirs), "after the loop")
    twins.call("step after the loop", lambda e: e.step(None))


def test_wrapper_facts() -> None:
    env = schnauz_v0.env()
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert isinstance(env.unwrapped, schnauz_v0.raw_env)
    assert str(env) == str(env.unwrapped)

"""A PettingZoo AEC base for turn-based card games driven by a rules engine.

A game's ``raw_env`` subclasses :class:`CardGameEnv` and names its rules config,
its engine's ``new_game``, its observation encoder class and its text renderer. The base
does the PettingZoo bookkeeping once for every game: agents, spaces, seeding,
reset options, masks, dead-agent steps, zero-sum place rewards and infos.

The engine state must offer ``current`` (seat to act), ``game_over``, ``n``,
``legal_actions()``, ``legal_mask()``, ``apply(action) -> result | None`` (raising
``ValueError`` on an illegal action) and ``action_to_string(action, symbols)``.
A result (returned when a round or hand ends) must offer ``places`` (seat -> final
place decided by it, 1 = best, shared places averaged), ``seats`` (the seats that
took part) and ``losers`` (for single-round episodes). ``last_result`` (the latest
result, or ``None``) offers ``to_dict()`` for infos.

Rendering: ``"ansi"`` returns the game's text, ``"human"`` prints it, and
``"rgb_array"`` (for games whose env sets ``draw_state``, see
:mod:`schnauz_env.render`) returns a picture of the table as an ``(H, W, 3)`` uint8
array. ``render_seat`` (a constructor option, or the attribute of the same name)
chooses whose view is drawn or printed: ``None`` shows every hand.

Infos: every key is a string, and seats are named by agent (``"player_2"``) wherever
an info names one (:meth:`CardGameEnv.name_seats`), so that tools which turn infos into
tensors or batches (Tianshou, TorchRL) read them. ``infos=False`` (a constructor
option) gives every agent an empty info dict, for runs that read none.

Elimination: an agent that goes out of a whole game is terminated at the step that
puts it out (its reward then brings its return to its place's value), steps out with
``None`` when it is selected, and leaves ``agents``; the others play on. Trainers that
need every agent until the game ends use
:class:`schnauz_env.wrappers.FixedAgentsWrapper` (``docs/interop.md``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
    OrderEnforcingWrapper,
)

from schnauz_env.common.engine import action_index
from schnauz_env.common.options import make_config
from schnauz_env.common.places import place_value, settle_places, single_round_reward

__all__ = ["CardGameEnv", "ClassicWrapper", "place_value", "step_out_dead", "wrap_classic"]


def step_out_dead(env: AECEnv) -> None:
    """Step every selected agent whose episode ended out of ``env`` (PettingZoo's dead
    steps, ``env.step(None)``) until a live agent is to act or none is left."""
    while env.agents and (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    ):
        env.step(None)


def wrap_classic(raw: AECEnv) -> ClassicWrapper:
    """PettingZoo's classic wrappers in one layer (:class:`ClassicWrapper`): an illegal
    move ends the game (−1 for the offender), out-of-bounds actions and calls out of
    order raise."""
    return ClassicWrapper(raw, illegal_reward=-1)


class ClassicWrapper(OrderEnforcingWrapper):
    """PettingZoo's three classic wrappers as one layer: it behaves as
    ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(env,
    illegal_reward)))`` (the stack PettingZoo's classic games use), at a third of the cost.

    * **Order**: ``step``, ``observe``, ``render``, ``state`` and ``agent_iter`` before
      ``reset()`` raise ``AssertionError``, reading ``agents``, ``rewards``,
      ``agent_selection`` … raises ``AttributeError``; ``step()`` once every agent is
      done warns (PettingZoo's ``EnvLogger``) and does nothing.
    * **Bounds**: an action outside the action space (``None`` is one, except for an
      agent that is done) raises ``AssertionError("action is not in action space")``.
    * **Illegal moves**: an action the last observed mask forbids warns, ends the game
      for every agent (terminated and truncated), gives the offender ``illegal_reward``
      and the others 0; the agents then step out with ``None``.

    The same returns, rewards, infos, observations, warnings and errors, step by step
    (``tests/test_aec_wrapper.py`` holds it to PettingZoo's stack), with one
    difference: the checks that PettingZoo makes with ``assert`` are made under
    ``python -O`` too. It is an ``OrderEnforcingWrapper``, so code that looks for one
    finds it, and ``env.unwrapped`` is the game's ``raw_env``.
    """

    def __init__(self, env: AECEnv, illegal_reward: float = -1) -> None:
        super().__init__(env)
        self._illegal_value = illegal_reward
        self._prev_obs: Any = None
        self._prev_info: Any = None
        self._terminated = False  # the game was ended by an illegal move
        # Discrete.contains for a plain int, known without calling it (actions of
        # PettingZoo's classic games are Discrete(n) from 0, int64).
        self._int_actions = {
            agent: int(space.n)
            for agent in getattr(env, "possible_agents", ())
            if type(space := env.action_space(agent)) is spaces.Discrete
            and space.start == 0
            and space.dtype == np.int64
        }
        # The game's own mask, without encoding an observation (see step()).
        self._mask_of = env._action_mask if isinstance(env, CardGameEnv) else None

    def __str__(self) -> str:
        return str(self.env)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self._terminated = False
        self._prev_obs = None
        self._prev_info = None
        self.env.reset(seed=seed, options=options)

    def observe(self, agent: Any) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        env = self.env
        obs = env.observe(agent)
        selected = env.agent_selection
        if agent == selected:  # the mask an illegal move is judged by
            self._prev_obs = obs
            infos = env.infos
            self._prev_info = infos.get(selected, {})
        return obs

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        env = self.env
        agent = env.agent_selection
        if agent is None:
            raise AssertionError
        observation = self.observe(agent) if observe else None
        return (
            observation,
            env._cumulative_rewards[agent],
            env.terminations[agent],
            env.truncations[agent],
            env.infos[agent],
        )

    def step(self, action: Any) -> None:
        # OrderEnforcingWrapper
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        env = self.env
        if not env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        # AssertOutOfBoundsWrapper
        agent = env.agent_selection
        n = self._int_actions.get(agent)
        if not (
            (n is not None and type(action) is int and 0 <= action < n)
            or (action is None and (env.terminations[agent] or env.truncations[agent]))
            or env.action_space(agent).contains(action)
        ):
            raise AssertionError("action is not in action space")
        # TerminateIllegalWrapper
        obs = self._prev_obs
        if obs is None:
            if self._mask_of is not None:  # only the mask is read: no need to encode
                obs = {"action_mask": self._mask_of(agent)}
            else:
                obs = self.observe(agent)
                obs = self._prev_obs
        if isinstance(obs, dict):
            if "action_mask" not in obs:
                raise AssertionError(
                    f"`action_mask` not found in dictionary observation: {obs}. Action mask "
                    "must either be in `observation['action_mask']` or `info['action_mask']` "
                    "to use TerminateIllegalWrapper."
                )
            mask = obs["action_mask"]
        else:
            info = self._prev_info
            if info is None:
                raise AssertionError
            if "action_mask" not in info:
                raise AssertionError(
                    f"`action_mask` not found in info for non-dictionary observation: {info}. "
                    "Action mask must either be in observation['action_mask'] or "
                    "info['action_mask'] to use TerminateIllegalWrapper."
                )
            mask = info["action_mask"]
        self._prev_obs = None
        self._prev_info = None
        if self._terminated and (env.terminations[agent] or env.truncations[agent]):
            env.unwrapped._was_dead_step(action)
        elif not env.terminations[agent] and not env.truncations[agent] and not mask[action]:
            EnvLogger.warn_on_illegal_move()
            raw = env.unwrapped
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(env.agents, True)
            raw.truncations = dict.fromkeys(env.agents, True)
            raw.rewards = dict.fromkeys(env.truncations, 0)
            raw.rewards[agent] = float(self._illegal_value)
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True
        else:
            env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _ClassicIterable(self, max_iter)


class _ClassicIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _ClassicIterator(self.env, self.max_iter)


class _ClassicIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, reading the wrapped env directly."""

    def __next__(self) -> Any:
        wrapper = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        agent = env.agent_selection
        if not wrapper._has_updated:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        wrapper._has_updated = False
        return agent


class _AgentRewards(dict):
    """The cumulative rewards: a dict in which an agent no longer in the game raises an
    error that says what to do. PettingZoo's ``last()`` (the wrappers' too) reads it for
    ``agent_selection``, which after the game ended names an agent that has left."""

    def __missing__(self, agent: Any) -> float:
        raise RuntimeError(
            f"{agent!r} is not in the game any more (the game ended, or it left the game): "
            "call reset() to start a new game"
        )


def _checked_seed(seed: Any) -> int | None:
    """``seed`` if it is ``None`` or an integer >= 0 (Gymnasium's rule); else
    ``TypeError``/``ValueError`` saying so, before anything changes."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be None or an integer >= 0, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}")
    return int(seed)


class CardGameEnv(AECEnv):
    """Base class of the package's AEC environments (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "card_game",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    #: The game's name in messages, its frozen rules config class and reset options.
    game_name: ClassVar[str] = "card game"
    config_class: ClassVar[type]
    reset_options: ClassVar[tuple[str, ...]] = ()
    num_actions: ClassVar[int]

    # Set by the subclass: (config, rng, **reset options) -> state; encoder class
    # (config -> encoder with .size and .encode(state, seat)); renderer; and, for
    # render_mode="rgb_array", (state, seat) -> (H, W, 3) uint8 picture.
    new_game: Callable[..., Any]
    encoder_class: ClassVar[type]
    #: How the fields of the game's result name seats, for infos (:meth:`name_seats`):
    #: ``"seat"`` one seat (or ``None``), ``"seats"`` a list of seats, ``"per_seat"`` a
    #: list with one entry per seat, ``"by_seat"`` a dict keyed by seat, ``"by_seat_list"``
    #: a list of such dicts, ``"result"`` a chained result of the same kind.
    result_seats: ClassVar[dict[str, str]] = {}
    render_state: Callable[..., str]
    draw_state: Callable[..., np.ndarray] | None = None

    def __init__(
        self,
        render_mode: str | None = None,
        render_seat: int | None = None,
        infos: bool = True,
        **options: Any,
    ) -> None:
        super().__init__()
        modes = [
            m
            for m in self.metadata["render_modes"]
            if m != "rgb_array" or type(self).draw_state is not None
        ]
        if render_mode is not None and render_mode not in modes:
            raise ValueError(
                f"invalid render_mode {render_mode!r}; allowed: None, "
                + ", ".join(repr(m) for m in modes)
            )
        self.config = make_config(
            self.config_class, options, self.game_name, ("render_mode", "render_seat", "infos")
        )
        if not isinstance(infos, bool):
            raise TypeError(f"infos must be True or False, got {infos!r}")
        #: ``False``: every agent's info is an empty dict (lean runs; see the module docstring).
        self.with_infos = infos
        self.render_mode = render_mode
        n = self.config.num_players
        self.render_seat = render_seat
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.encoder = self.encoder_class(self.config)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (self.encoder.size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self.game: Any = None
        self._returns = [0.0] * n
        self._settled = set()
        self._quiet = False
        self._no_mask = np.zeros(self.num_actions, dtype=np.int8)
        # Observations of the game being played: the encoder's per-seat cache (each seat's
        # last vector, only the blocks whose inputs changed rewritten), if it has one.
        cached = getattr(self.encoder, "cached", None)
        self._views = cached() if cached is not None else self.encoder

    @property
    def render_seat(self) -> int | None:
        """Whose view ``render()`` shows: ``None`` every hand open, else that seat's view.
        Set it to change the view; anything but ``None`` or a seat raises ``ValueError``."""
        return self._render_seat

    @render_seat.setter
    def render_seat(self, seat: int | None) -> None:
        n = self.config.num_players
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n
        ):
            raise ValueError(
                f"invalid render_seat {seat!r}: None (every hand shown) or a seat 0..{n - 1}"
            )
        self._render_seat = None if seat is None else int(seat)

    # --------------------------------------------------------- game hooks
    def info_for(self) -> dict[str, Any]:
        """A new info dict, as every agent gets after a reset or a result (override to add).

        Each agent gets its own copy of the top-level dict; nested values built once
        per result (such as the last showdown) are shared between agents."""
        return {}

    def by_agent(self, values: Sequence[Any]) -> dict[str, Any]:
        """``values`` (one per seat) keyed by agent name, for infos."""
        return dict(zip(self.possible_agents, values, strict=True))

    def last_result_info(self) -> dict[str, Any] | None:
        """The game's latest result as a dict for infos, seats named by agent
        (:meth:`name_seats`); ``None`` before the first."""
        last = self.game.last_result
        return self.name_seats(last.to_dict()) if last is not None else None

    def name_seats(self, result: dict[str, Any]) -> dict[str, Any]:
        """``result`` (a result's ``to_dict()``) with every seat number named by its agent,
        as :attr:`result_seats` describes the fields, so that every key of an info is a
        string (tools such as Tianshou and TorchRL refuse others)."""
        names = self.possible_agents
        named = dict(result)
        for key, kind in self.result_seats.items():
            value = named.get(key)
            if value is None:
                continue
            if kind == "seat":
                named[key] = names[value]
            elif kind == "seats":
                named[key] = [names[s] for s in value]
            elif kind == "per_seat":
                named[key] = dict(zip(names, value, strict=True))
            elif kind == "by_seat":
                named[key] = {names[s]: v for s, v in value.items()}
            elif kind == "by_seat_list":
                named[key] = [{names[s]: v for s, v in d.items()} for d in value]
            else:  # "result": a chained result of the same kind
                named[key] = self.name_seats(value)
        return named

    def round_rewards(self, result: Any) -> dict[int, float]:
        """Rewards of a single-round episode: each loser −1, the others share +."""
        seats = list(result.seats)
        losers = set(result.losers)
        return {s: single_round_reward(s in losers, len(losers), len(seats)) for s in seats}

    def single_round(self) -> bool:
        return getattr(self.config, "episode", "game") == "round"

    # ----------------------------------------------------------------- API
    def observation_space(self, agent: str) -> spaces.Space:
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def action_space(self, agent: str) -> spaces.Space:
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game: ``seed`` (an integer >= 0) reseeds the env's generator,
        ``options`` are the game's reset options (see the env's docstring).

        A refused reset (a bad seed or option) raises and changes nothing: the game in
        progress, and every deal the generator would give, go on as if it had not been
        called."""
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(f"reset options must be a dict (or None), got {type(options).__name__}")
        if seed is not None or self._rng is None:
            rng = np.random.default_rng(_checked_seed(seed))
        else:
            rng = self._rng
        options = dict(options or {})
        unknown = sorted(set(options) - set(self.reset_options))
        if unknown:
            # PettingZoo's api_test passes a foreign key and expects it to be tolerated,
            # so an unknown key warns (naming the known ones) instead of raising.
            names = ", ".join(repr(k) for k in unknown)
            warnings.warn(
                f"unknown reset option {names} ignored; this game's reset options are "
                f"{', '.join(repr(k) for k in self.reset_options)}",
                stacklevel=2,
            )
        game_options = {k: options[k] for k in self.reset_options if k in options}
        drawn = rng.bit_generator.state
        try:  # the engines check every option before drawing; this also covers the rest
            game = type(self).new_game(self.config, rng, **game_options)
        except BaseException:
            rng.bit_generator.state = drawn
            raise
        self._rng = rng
        self.game = game
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        #: ``rewards`` is known to be 0.0 for every agent, from a step that decided nothing.
        self._quiet = False
        self._cumulative_rewards = _AgentRewards.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._returns = [0.0] * self.config.num_players
        self._settled: set[int] = set()
        self._update_infos()
        self.agent_selection = self.possible_agents[self.game.current]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` sees now, with its action mask (all zeros unless it is to act).

        Also after its episode ended (the final observation, for learners)."""
        game = self.game
        if game is None:
            raise self._not_started("observe")
        try:
            seat = self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None
        if seat == game.current and not game.game_over and not self.terminations.get(agent, True):
            mask = game.legal_mask()
        else:
            mask = self._no_mask.copy()
        return {"observation": self._views.encode(game, seat), "action_mask": mask}

    def _action_mask(self, agent: str) -> np.ndarray:
        """``observe(agent)["action_mask"]`` without the observation (``agent`` a known
        agent, after reset): what PettingZoo's illegal-move check reads."""
        game = self.game
        if (
            self.agent_name_mapping[agent] == game.current
            and not game.game_over
            and not self.terminations.get(agent, True)
        ):
            return game.legal_mask()
        return self._no_mask.copy()

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """The observation, cumulative reward, termination, truncation and info of the
        agent to act (``agent_selection``)."""
        if self.game is None:
            raise self._not_started("last")
        agent = self.agent_selection
        terminations = self.terminations
        if agent not in terminations:
            raise self._ended("last")
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: int | None) -> None:
        """Play ``action`` (an integer) for ``agent_selection``; ``None`` for an agent
        whose episode ended. An illegal action raises ``ValueError`` (a non-integer
        ``TypeError``) and changes nothing."""
        game = self.game
        if game is None:
            raise self._not_started("step")
        agent = self.agent_selection
        terminations = self.terminations
        if agent not in terminations:
            raise self._ended("step")
        if terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"action None given for {agent}, who is still in the game")
        result = game.apply(action)  # an illegal action raises, changing nothing
        self._cumulative_rewards[agent] = 0.0
        if result is None and self._quiet:
            # Nothing was decided and every reward is 0.0 already: zeroing the rewards and
            # adding them to the cumulative rewards would change nothing.
            self.agent_selection = self.possible_agents[game.current]
        else:
            rewards = self.rewards
            for a in self.agents:
                rewards[a] = 0.0
            self._after_move(result)
            self._quiet = result is None
        if self.render_mode == "human":
            self.render()

    def _was_dead_step(self, action: None) -> None:
        self._quiet = False  # PettingZoo's version sets the rewards to int 0
        super()._was_dead_step(action)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            warnings.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human'"
                + (" or 'rgb_array'" if type(self).draw_state is not None else ""),
                stacklevel=2,
            )
            return None
        if self.game is None:
            raise RuntimeError("render() called before reset(); call reset() first")
        if self.render_mode == "rgb_array":
            return type(self).draw_state(self.game, self.render_seat)
        seat = self.render_seat
        render = type(self).render_state
        text = render(self.game) if seat is None else render(self.game, seat)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass

    def action_to_string(self, action: int) -> str:
        """Name ``action`` for the player to act in the current state."""
        game = self._started("action_to_string")
        return game.action_to_string(action_index(action), symbols=True)

    # ------------------------------------------------------------- misuse
    def _started(self, what: str) -> Any:
        """The game in progress; ``RuntimeError`` saying to call ``reset()`` before it."""
        if self.game is None:
            raise self._not_started(what)
        return self.game

    def _not_started(self, what: str) -> RuntimeError:
        return RuntimeError(f"{what}() called before reset(); call reset() first")

    def _ended(self, what: str) -> RuntimeError:
        return RuntimeError(
            f"{what}() called after the game ended (every agent is done); "
            "call reset() to start a new game"
        )

    def _unknown_agent(self, agent: Any) -> ValueError:
        return ValueError(
            f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}"
        )

    # ------------------------------------------------------------- helpers
    def _after_move(self, result: Any) -> None:
        """After a move (or a deal) that gave ``result`` (``None``: nothing decided):
        pay it, pass the turn on, and move any agent it ended to the front."""
        if result is not None:
            self._settle(result)
            self._update_infos()
        self.agent_selection = self.possible_agents[self.game.current]
        self._accumulate_rewards()
        if result is not None:
            self._deads_step_first()

    def _settle(self, result: Any) -> None:
        """Pay the rewards a result decided; end the episode for those it ends.

        Whole games: an agent's return is its final place's value. When places are
        decided, those seats get what brings their return to that value and the
        seats still playing share the opposite equally, so every step is zero-sum
        and the last seat's return is its place's value too.
        """
        game = self.game
        n = self.config.num_players
        names = self.possible_agents
        if self.single_round():
            deltas = self.round_rewards(result)
            for s, d in deltas.items():
                self._returns[s] += d
            ended = list(result.seats)
        else:
            decided = [s for s in result.places if s not in self._settled]
            if not decided and not game.game_over:
                return  # nothing paid, nobody's episode ends (a life lost, say)
            self._settled.update(decided)
            playing = sum(1 << s for s in range(n) if s not in self._settled)
            paid = [0.0] * n
            shared = settle_places(
                n, result.places, decided, len(decided), playing, self._returns, paid
            )
            sharing = [s for s in range(n) if (playing >> s) & 1] if shared else []
            deltas = {s: paid[s] for s in decided + sharing}
            ended = decided
            if game.game_over:
                ended = [s for s in range(n) if names[s] in self.terminations]
        for s, d in deltas.items():
            self.rewards[names[s]] = d
        for s in ended:
            self.terminations[names[s]] = True

    def _update_infos(self) -> None:
        if not self.with_infos:
            self.infos = {a: {} for a in self.agents}
            return
        shared = self.info_for()
        nested = [k for k, v in shared.items() if type(v) is dict]
        infos = {}
        for agent in self.agents:  # each its own dict and own copies of the dicts in it
            info = shared.copy()
            for k in nested:
                info[k] = info[k].copy()
            infos[agent] = info
        self.infos = infos

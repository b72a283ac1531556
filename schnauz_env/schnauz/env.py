"""
# Schnauz (31 / Schwimmen)

```python
from schnauz_env import schnauz_v0

env = schnauz_v0.env(num_players=4, render_mode="ansi")
```

| | |
|---|---|
| Import | `from schnauz_env import schnauz_v0` |
| Registry | `pettingzoo.make("aec", "schnauz_env/schnauz_v0")` after `import schnauz_env` |
| Actions | Discrete |
| Parallel API | No |
| Manual control | No (see `policies` and the demo: `python -m schnauz_env`) |
| Agents | `agents = ['player_0', ..., 'player_{n-1}']` |
| Number of agents | 2 to 6 |
| Action shape | `Discrete(14)` |
| Observation shape | `(12·N + 52,)` float32 in [0, 1] plus an `(14,)` int8 mask; N = deck size |

Schnauz is a drawing game for 2 to 6 players: each holds three cards and swaps
with three face-up table cards, trying to hold the best hand (most points in one
suit; 31 in one suit is *Schnauz*, three aces *Fire*). A player may knock; then
everyone else gets one more turn and the lowest hand loses a life. A player with
no lives left is *swimming*; a swimming player who loses is out. The last player
in wins. The rules are RULES.md §1; every **[choice]** there is an option below.

## Arguments

``schnauz_v0.env(num_players=4, deck="A7", lives=3, render_mode=None, **rules)``

| option | default | meaning |
|---|---|---|
| `num_players` | 4 | 2 to 6 |
| `deck` | `"A7"` | `"A7"` 7..A (32 cards), `"A9"` 9..A (24), `"A5"` 5..A (40) |
| `lives` | 3 | tokens per player; 0 = everyone starts swimming |
| `knock_in_first_circle` | `True` | `False` forbids knocking until everyone in the round has had a turn |
| `short_stock` | `"showdown"` | all pass with under 3 stock cards: `"showdown"`, or `"recycle"` the out-of-play cards under the stock first |
| `ties` | `"break"` | `"break"`: suit/rank tie-breaks (one loser per showdown); `"share"`: equal values tie and all tied lowest lose |
| `fire_costs_all` | `False` | Fire at a showdown costs every other player a life |
| `max_turns` | 500 | termination guard: a round ends with a showdown after this many turns (reported) |
| `first_dealer` | `None` | seat of the first dealer; `None` draws it from the seeded generator |
| `episode` | `"game"` | `"game"` until one player is left, or `"round"` for one deal |
| `render_mode` | `None` | `"ansi"` (returns the text) or `"human"` (prints it) |

Invalid options raise `ValueError` saying what is allowed.

`reset(seed=None, options=None)` accepts `options={"deck": [...], "dealer": k}` to
deal the first round from a stacked deck (card codes, first = top; exactly the
variant's cards once each), `"decks": [[...], ...]` for several rounds in turn, and
`"lives": [...]` to start each seat with its own lives. Dealing order: three cards at
once to each player from the left of the dealer round to the dealer, then three
for the dealer's choice, then three per all-pass refresh.

## Actions

| action | meaning | legal when |
|---|---|---|
| 0 | keep: three stock cards go face up as the table | dealer's choice |
| 1 | exchange: the dealer's hand goes face up, three stock cards into the hand | dealer's choice |
| 2 + 3·i + j | swap hand slot i with table slot j (i, j in 0..2) | a turn |
| 11 | swap all: whole hand for the whole table | a turn |
| 12 | pass | a turn |
| 13 | knock | a turn before anyone knocked (and, with `knock_in_first_circle=False`, after the first circle) |

Hands and the table are kept sorted by card index, rank-major
(`7C 7S 7H 7D 8C …`): slot 0 is the lowest card. The observation's `hand` and
`table` blocks are one-hot per slot, so an agent sees which card each action moves.
`env.unwrapped.action_to_string(a)` names a move in the current state
(`"swap 7♣ (hand) for K♥ (table)"`).

## Observation

`observe(agent)` returns `{"observation": float32 vector, "action_mask": int8 (14,)}`
seen from the agent's own seat: position 0 is the observer, position k the k-th
player to their left; seat blocks are padded to 6 positions so the size depends
only on the deck. A card's column is `(rank − lowest rank)·4 + suit` (♣ ♠ ♥ ♦).

| block | indices (A7, N = 32) | meaning |
|---|---|---|
| hand | 0–95 | one-hot per hand slot 0, 1, 2 |
| table | 96–191 | one-hot per table slot 0, 1, 2 |
| out_of_play | 192–223 | cards removed by all-pass refreshes |
| known | 224–383 | per opponent position 1..5: cards they took from the table and still hold |
| seats | 384–407 | per position 0..5: at the table, in the game, swimming, lives / starting lives |
| dealer | 408–413 | one-hot position |
| knocker | 414–419 | one-hot position (zeros: no knock) |
| to_act | 420–425 | one-hot position of the player to act |
| phase | 426–428 | dealer's choice, turns, final circle |
| passes | 429–434 | one-hot passes in a row (0..5) |
| stock | 435 | stock size / N |

In general block sizes are 3N, 3N, N, 5N, 24, 6, 6, 6, 3, 6, 1
(`schnauz_env.schnauz.ObservationLayout(config).describe()` lists them).
The mask is all zeros for an agent that is not to act.

## Rewards

Zero-sum at every step. With `episode="game"` an agent's return over the episode is
its final place: +1 for the winner down to −1 for the first player out, linearly
(place p of n: `1 − 2(p−1)/(n−1)`; players going out together share the mean of
their places). Rewards are paid when players go out: the eliminated get what brings
their return to their place's value and the players still in share the opposite
equally. With `episode="round"` each player who lost a life gets −1 and the others
share the opposite equally (all zero if everyone lost).

Under `env()` an illegal action ends the game with −1 for the offender and 0 for the
others (PettingZoo's `TerminateIllegalWrapper`); `raw_env` raises `ValueError`
naming the action and the legal ones.

## Info

Every agent's info holds `lives` (dict agent → lives of every seat), `out`
(dict agent → out of the game), `round` (rounds played), and `last_showdown`: `None`
before the first showdown, then the latest round result (`reason`, every revealed
hand with its `label`, `losers`, `went_out`, `lives_after`, `knocker`,
`fire_holder`, `turn_limit_reached`, `places`).

## Version history

* v0: first release.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from schnauz_env.schnauz.config import SchnauzConfig
from schnauz_env.schnauz.engine import NUM_ACTIONS, RoundResult, SchnauzState, new_game
from schnauz_env.schnauz.observation import ObservationEncoder
from schnauz_env.schnauz.render import render_text

_RESET_OPTIONS = ("deck", "decks", "dealer", "lives")


def env(**kwargs: Any) -> AECEnv:
    """The Schnauz environment in PettingZoo's standard wrappers (see the module docstring)."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


def make_config(kwargs: dict[str, Any]) -> SchnauzConfig:
    """A :class:`SchnauzConfig` from keyword options, with a clear error for unknown ones."""
    allowed = SchnauzConfig.option_names()
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown Schnauz option(s): {', '.join(unknown)}; allowed options: "
            f"{', '.join([*allowed, 'render_mode'])}"
        )
    return SchnauzConfig(**kwargs)


class raw_env(AECEnv):
    """Schnauz as a PettingZoo AEC environment without wrappers (see the module docstring)."""

    metadata = {
        "name": "schnauz_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"invalid render_mode {render_mode!r}; allowed: None, "
                + ", ".join(repr(m) for m in self.metadata["render_modes"])
            )
        self.config = make_config(options)
        self.render_mode = render_mode
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._encoder = ObservationEncoder(self.config)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (self._encoder.size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self.game: SchnauzState | None = None
        self._returns = [0.0] * n
        self._no_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        options = dict(options or {})
        unknown = sorted(set(options) - set(_RESET_OPTIONS))
        if unknown:
            # PettingZoo's api_test passes a foreign key and expects it to be tolerated,
            # so an unknown key warns (naming the known ones) instead of raising.
            warnings.warn(
                f"ignoring unknown reset option(s) {', '.join(unknown)}; "
                f"known: {', '.join(_RESET_OPTIONS)}",
                stacklevel=2,
            )
        game_options = {k: options[k] for k in _RESET_OPTIONS if k in options}
        self.game = new_game(self.config, self._rng, **game_options)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._returns = [0.0] * self.config.num_players
        self._update_infos()
        self.agent_selection = self.possible_agents[self.game.current]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self.game
        seat = self.agent_name_mapping[agent]
        if seat == game.current and not game.game_over and not self.terminations[agent]:
            mask = game.legal_mask()
        else:
            mask = self._no_mask.copy()
        return {"observation": self._encoder.encode(game, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"action None given for {agent}, who is still in the game")
        game = self.game
        self._cumulative_rewards[agent] = 0.0
        result = game.apply(action)  # raises ValueError on an illegal action
        for a in self.agents:
            self.rewards[a] = 0.0
        if result is not None:
            self._settle(result)
            self._update_infos()
        self.agent_selection = self.possible_agents[game.current]
        self._accumulate_rewards()
        if result is not None:
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "You are calling render without a render_mode; pass render_mode='ansi' or 'human'."
            )
            return None
        text = render_text(self.game)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass

    # ------------------------------------------------------------- helpers
    def action_to_string(self, action: int) -> str:
        """Name ``action`` for the player to act, e.g. ``"swap 7♣ (hand) for K♥ (table)"``."""
        return self.game.action_to_string(action, symbols=True)

    def _settle(self, result: RoundResult) -> None:
        """Pay the rewards a showdown decided and end the episode for those it ends."""
        game = self.game
        n = self.config.num_players
        in_round = list(result.hands)
        deltas = dict.fromkeys(in_round, 0.0)
        if self.config.episode == "round":
            losers = set(result.losers)
            if 0 < len(losers) < len(in_round):
                gain = len(losers) / (len(in_round) - len(losers))
                for s in in_round:
                    deltas[s] = -1.0 if s in losers else gain
        elif result.went_out:
            scale = 2.0 / (n - 1)
            for s in result.went_out:
                deltas[s] = 1.0 - scale * (result.places[s] - 1.0) - self._returns[s]
            still_in = [s for s in in_round if not game.out[s]]
            share = -sum(deltas[s] for s in result.went_out) / len(still_in)
            for s in still_in:
                deltas[s] = share
        for s, d in deltas.items():
            self._returns[s] += d
            self.rewards[self.possible_agents[s]] = d
        ended = in_round if game.game_over else result.went_out
        for s in ended:
            self.terminations[self.possible_agents[s]] = True

    def _update_infos(self) -> None:
        game = self.game
        names = self.possible_agents
        lives = {names[s]: game.lives[s] for s in range(game.n)}
        out = {names[s]: game.out[s] for s in range(game.n)}
        last = game.last_result.to_dict() if game.last_result is not None else None
        self.infos = {
            a: {"lives": dict(lives), "out": dict(out), "round": game.round, "last_showdown": last}
            for a in self.agents
        }

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
| Manual control | Yes: `schnauz play` (the terminal game; `pip install -e ".[play]"`) |
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
| `render_mode` | `None` | `"ansi"` (returns the text), `"human"` (prints it) or `"rgb_array"` (returns a picture of the table, `(640, 960, 3)` uint8; needs the `play` extra) |
| `render_seat` | `None` | whose view `render()` shows: `None` every hand open, or a seat number (that player's hand, the face-up cards, what is publicly known of the others, backs for the rest); also the attribute `env.unwrapped.render_seat` |
| `infos` | `True` | `False`: every agent's info is an empty dict (lean runs; see Info) |

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
before the first showdown, then the latest round result (`reason`, `hands`: agent →
revealed `cards` and `label`, `losers`, `went_out`, `lives_after`, `out_after`,
`knocker`, `fire_holder`, `turn_limit_reached`, `replays`, `places`: agent → final
place). Seats are named by agent everywhere (lists of agents, dicts keyed by agent),
so every key is a string. `infos=False` (a constructor option) gives empty infos,
for runs that read none.

An agent that goes out is terminated at the step that puts it out (its reward then
brings its return to its place's value) and steps out with `None`; the others play
on. `schnauz_env.wrappers.FixedAgentsWrapper` keeps every agent until the game ends,
for trainers that need a fixed set of agents (`docs/interop.md`).

## Version history

* v0: first release.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from schnauz_env.common.aec import CardGameEnv, wrap_classic
from schnauz_env.render import picture_drawer
from schnauz_env.schnauz.config import SchnauzConfig
from schnauz_env.schnauz.engine import NUM_ACTIONS, new_game
from schnauz_env.schnauz.observation import ObservationEncoder
from schnauz_env.schnauz.render import render_text

#: A picture of the table (:func:`schnauz_env.schnauz.picture.draw_state`), drawn with
#: Pillow and the picture module imported at the first one.
draw_state = picture_drawer("schnauz_env.schnauz.picture")


def env(**kwargs: Any) -> AECEnv:
    """The Schnauz environment in PettingZoo's standard wrappers (see the module docstring)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(CardGameEnv):
    """Schnauz as a PettingZoo AEC environment without wrappers (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "schnauz_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    game_name = "Schnauz"
    config_class = SchnauzConfig
    reset_options = ("deck", "decks", "dealer", "lives")
    num_actions = NUM_ACTIONS
    new_game = staticmethod(new_game)
    render_state = staticmethod(render_text)
    draw_state = staticmethod(draw_state)
    encoder_class = ObservationEncoder

    config: SchnauzConfig
    result_seats = {
        "hands": "by_seat",
        "losers": "seats",
        "went_out": "seats",
        "lives_after": "per_seat",
        "out_after": "per_seat",
        "knocker": "seat",
        "fire_holder": "seat",
        "replays": "by_seat_list",
        "places": "by_seat",
    }

    def info_for(self) -> dict[str, Any]:
        game = self.game
        return {
            "lives": self.by_agent(game.lives),
            "out": self.by_agent(game.out),
            "round": game.round,
            "last_showdown": self.last_result_info(),
        }

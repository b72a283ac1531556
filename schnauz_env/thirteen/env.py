"""
# Thirteen (Tiến lên)

```python
from schnauz_env import thirteen_v0

env = thirteen_v0.env(num_players=4, render_mode="ansi")
```

| | |
|---|---|
| Import | `from schnauz_env import thirteen_v0` |
| Registry | `pettingzoo.make("aec", "schnauz_env/thirteen_v0")` after `import schnauz_env` |
| Actions | Discrete |
| Parallel API | No |
| Manual control | In the terminal: `schnauz play --game thirteen` (bots: `make_policy(name, game="thirteen")`) |
| Agents | `agents = ['player_0', ..., 'player_{n-1}']` |
| Number of agents | 2 to 4 |
| Action shape | `Discrete(54)` |
| Observation shape | `(245,)` float32 in [0, 1] plus a `(54,)` int8 mask |

Thirteen is a Vietnamese shedding game for 2 to 4 players with 13 cards each. A
player leads a combination — single, pair, triple, four of a kind, sequence (3+
consecutive ranks, never a 2) or double sequence (3+ consecutive pairs, never a 2) —
and the others must beat it with the same kind and number of cards and a higher top
card, or pass; a player who passes is out of that table until it clears. Ranks run
3 (low) … A, 2 (high); suits ♠ < ♣ < ♦ < ♥ decide between equal ranks. Bombs: four of
a kind or a double sequence of 3+ pairs beat a single 2, a double sequence of 4+
pairs a pair of 2s, of 5+ pairs three 2s. The first player out of cards wins. The
rules are RULES.md §3; every **[choice]** there is an option below.

## Arguments

``thirteen_v0.env(num_players=4, episode="game", render_mode=None, **rules)``

| option | default | meaning |
|---|---|---|
| `num_players` | 4 | 2 to 4; with fewer than 4 the undealt cards stay hidden all game |
| `episode` | `"game"` | `"game"`: one game; `"match"`: games until someone has `target_points` or more and leads alone |
| `target_points` | 10 | points that end a match |
| `opening` | `"include"` | the holder of 3♠ (or, with fewer than 4 players, of the lowest card dealt) leads the first game; `"include"`: the first play must contain that card; `"free"`: any play |
| `out_clears_table` | `False` | when a player plays their last card: `False` lets the others still beat it, and once all have passed the next player to the left of the one who went out leads; `True` clears the table at once and that player leads |
| `instant_wins` | `False` | four 2s or a dragon (every rank 3..A) dealt wins the game at once (the holder's only action is to declare it) |
| `max_games` | 100 | termination guard: a match ends after this many games with the scores as they stand (reported) |
| `render_mode` | `None` | `"ansi"` (returns the text), `"human"` (prints it) or `"rgb_array"` (returns a picture of the table, `(640, 960, 3)` uint8; needs the `play` extra) |
| `render_seat` | `None` | whose view `render()` shows: `None` every hand open, or a seat number (that player's hand, the table, the others' card counts); also the attribute `env.unwrapped.render_seat` |
| `infos` | `True` | `False`: every agent's info is an empty dict (lean runs; see Info) |

Invalid options raise `ValueError` saying what is allowed.

`reset(seed=None, options=None)` accepts `options={"deck": [...]}` to deal the first
game from a stacked deck (52 card codes, first = top, dealt one at a time starting with
seat 0 until everyone has 13; the rest stays undealt), `"decks": [[...], ...]` for
several games of a match in turn, and `"scores": [...]` for each seat's starting match
points. `"dealer"` is accepted and ignored (Thirteen has no dealer). Later games are
shuffled from the seeded generator, one shuffle per game.

## Actions

A play is built card by card, weakest card first, then made:

| action | meaning | legal when |
|---|---|---|
| 0..51 | select the card of Thirteen strength *a*: 0 = 3♠, 1 = 3♣, 2 = 3♦, 3 = 3♥, 4 = 4♠, …, 48 = 2♠, 51 = 2♥ | the selection plus this card is the start (in ascending order) of a legal play |
| 52 | play the selected cards (with `instant_wins`: declare the instant win) | the selection is a legal play |
| 53 | pass | nothing selected yet and there is a play to beat |

The player to act stays the same while selecting. Every legal play, with any choice
of suits, has exactly one action sequence — its cards in ascending strength, then 52 —
and a selection allowed by the mask can always be completed, so there are no dead ends
and no undo. Why not one action per play: with suit choices there are about 30 million
plays (a 12-card sequence alone has 4¹² suit choices); building a play card by card
keeps the space at 54 with an exact mask. A leader cannot pass; a player who cannot
beat the table has only *pass*. `env.unwrapped.action_to_string(a)` names a move in the
current state (`"select 7♠"`, `"play pair 7♠ 7♥"`, `"pass"`);
`schnauz_env.thirteen.play_actions("7S 7H")` gives the actions of a play.

## Observation

`observe(agent)` returns `{"observation": float32 (245,), "action_mask": int8 (54,)}`
seen from the agent's own seat: position 0 is the observer, position k the k-th player
to their left, padded to 4 positions. In the 52-wide card blocks a card's column is its
strength, the same number as the action that selects it.

| block | indices | meaning |
|---|---|---|
| hand | 0–51 | own cards |
| selected | 52–103 | cards selected for the play being built (own turn only) |
| table | 104–155 | the combination to beat (zeros: the table is clear) |
| table_kind | 156–161 | one-hot: single, pair, triple, four of a kind, sequence, double sequence |
| table_by | 162–165 | one-hot position of who played it |
| passed | 166–169 | per position: passed on this table (locked out until it clears) |
| played | 170–221 | every card played so far this game (the table's included) |
| seats | 222–233 | per position: at the table, still holding cards, cards left / 13 |
| scores | 234–237 | per position: match points / (2·`target_points`), capped at 1 (this game's points in `"game"` episodes once over) |
| to_act | 238–241 | one-hot position of the player to act |
| flags | 242–244 | leading (table clear); the first play must include the opening card; instant win to declare |

`schnauz_env.thirteen.ObservationLayout().describe()` lists the blocks. Other hands, other
players' selections and the undealt cards never reach the vector. The mask is all zeros
for an agent that is not to act.

## Rewards

Zero-sum at every step. An agent's return over the episode is its final place: +1 for
the best down to −1 for the worst, linearly (place p of n: `1 − 2(p−1)/(n−1)`; shared
places are averaged).

* `episode="game"`: the first player out is place 1, the next place 2, …, the player
  left holding cards place n. A player who goes out gets at once what brings their
  return to their place's value and leaves `agents` (terminated); the players still
  holding cards share the opposite equally. An instant win is place 1, everyone else
  shares places 2..n.
* `episode="match"`: all rewards come when the match ends; places are by final score
  (the winner leads alone; others with equal scores share).

Under `env()` an illegal action ends the game with −1 for the offender and 0 for the
others (PettingZoo's `TerminateIllegalWrapper`); `raw_env` raises `ValueError` naming
the action and the legal ones.

## Info

Every agent's info holds `scores` (dict agent → match points; this game's points in
`"game"` episodes), `game` (games finished), `finish_order` (agents out of cards this
game, in order) and `last_result`: `None` until a player first goes out, then the
latest result (`reason` — `"out"`, `"game_over"` or `"instant_win"` —, `went_out`,
`finish_order`, `points`, `scores`, `places`, `match_over`, `match_limit_reached`,
`instant_win`). Infos are refreshed at reset and whenever a player goes out. Seats are
named by agent everywhere (`went_out` an agent, `points`, `scores` and `places` dicts
keyed by agent), so every key is a string. `infos=False` (a constructor option) gives
empty infos, for runs that read none.

In `"game"` episodes a player who goes out is terminated at once and steps out with
`None`; the others play on. `schnauz_env.wrappers.FixedAgentsWrapper` keeps every
agent until the game ends, for trainers that need a fixed set of agents
(`docs/interop.md`).

## Version history

* v0: first release.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from schnauz_env.common.aec import CardGameEnv, wrap_classic
from schnauz_env.render import picture_drawer
from schnauz_env.thirteen.config import ThirteenConfig
from schnauz_env.thirteen.engine import NUM_ACTIONS, new_game
from schnauz_env.thirteen.observation import ObservationEncoder
from schnauz_env.thirteen.render import render_text

#: A picture of the table (:func:`schnauz_env.thirteen.picture.draw_state`), drawn with
#: Pillow and the picture module imported at the first one.
draw_state = picture_drawer("schnauz_env.thirteen.picture")


def env(**kwargs: Any) -> AECEnv:
    """The Thirteen environment in PettingZoo's standard wrappers (see the module docstring)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(CardGameEnv):
    """Thirteen as a PettingZoo AEC environment without wrappers (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "thirteen_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    game_name = "Thirteen"
    config_class = ThirteenConfig
    reset_options = ("deck", "decks", "dealer", "scores")
    num_actions = NUM_ACTIONS
    new_game = staticmethod(new_game)
    render_state = staticmethod(render_text)
    draw_state = staticmethod(draw_state)
    encoder_class = ObservationEncoder

    config: ThirteenConfig
    result_seats = {
        "went_out": "seat",
        "finish_order": "seats",
        "points": "by_seat",
        "scores": "per_seat",
        "places": "by_seat",
    }

    def info_for(self) -> dict[str, Any]:
        game = self.game
        names = self.possible_agents
        return {
            "scores": self.by_agent(game.scores),
            "game": game.game,
            "finish_order": [names[s] for s in game.finish_order],
            "last_result": self.last_result_info(),
        }

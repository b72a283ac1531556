"""
# Scat (Thirty-One / Trinta e Um)

```python
from schnauz_env import scat_v0

env = scat_v0.env(num_players=4, render_mode="ansi")
```

| | |
|---|---|
| Import | `from schnauz_env import scat_v0` |
| Registry | `pettingzoo.make("aec", "schnauz_env/scat_v0")` after `import schnauz_env` |
| Actions | Discrete |
| Parallel API | No |
| Manual control | No (see `policies`: `make_policy("expert", game="scat")`) |
| Agents | `agents = ['player_0', ..., 'player_{n-1}']` |
| Number of agents | 2 to 7 |
| Action shape | `Discrete(9)` |
| Observation shape | `(685,)` float32 in [0, 1] (`(737,)` for four-card Scat) plus a `(9,)` int8 mask |

Scat is a draw-and-discard game for 2 to 7 players, each for themselves. Everyone
holds three cards; on a turn a player draws the top card of the stock or of the
discard pile and discards one of the four. A hand is worth its best single-suit
total (A = 11, K Q J = 10, number cards face value); three of a kind is 30.5.
Holding 31 in one suit before anyone knocked is a *blitz*: everyone else loses a
life at once. Instead of drawing a player may knock; everyone else gets one final
turn and the lowest hand loses a life (a knocker strictly lowest loses two, a
knocker tied for lowest is safe). A player with no lives left is *on the bus*; on
the bus, losing again eliminates. The last player in wins. The rules are
RULES.md §2; every **[choice]** there is an option below.

## Arguments

``scat_v0.env(num_players=4, lives=3, render_mode=None, **rules)``

| option | default | meaning |
|---|---|---|
| `num_players` | 4 | 2 to 7 |
| `lives` | 3 | lives per player; 0 = everyone starts on the bus |
| `knock_on_first_turn` | `False` | `False`: no knocking on your own first turn of a round (the seed's "most houses"); `True` allows it |
| `no_trinca` | `False` | three of a kind counts only its suit total, not 30.5 |
| `four_card` | `False` | four-card Scat: 4-card hands, 41 in one suit is the blitz, no trinca |
| `buy_ins` | 0 | times each player, on elimination, re-enters at once with full lives |
| `max_turns` | 500 | termination guard: a round with this many turns and no knock ends with a showdown (reported) |
| `first_dealer` | `None` | seat of the first dealer; `None` draws it from the seeded generator |
| `episode` | `"game"` | `"game"` until one player is left, or `"round"` for one deal |
| `render_mode` | `None` | `"ansi"` (returns the text), `"human"` (prints it) or `"rgb_array"` (returns a picture of the table, `(640, 960, 3)` uint8; needs the `play` extra) |
| `render_seat` | `None` | whose view `render()` shows: `None` every hand open, or a seat number (that player's hand, the discard pile, the cards the others drew from it, backs for the rest); also the attribute `env.unwrapped.render_seat` |
| `infos` | `True` | `False`: every agent's info is an empty dict (lean runs; see Info) |

Invalid options raise `ValueError` saying what is allowed.

`reset(seed=None, options=None)` accepts `options={"deck": [...], "dealer": k}` to
deal the first round from a stacked deck (52 card codes, first = top),
`"decks": [[...], ...]` for the following deals in turn (later rounds, then any
tie-break deal), and `"lives": [...]` to start each seat with its own lives.
Dealing order: one card at a time to each player, starting left of the dealer,
three times around (four in four-card Scat); the next card starts the discard
pile; draws come from the top. `schnauz_env.scat.stack_deck` builds such a deck.

## Actions

A turn is two actions: a draw, then a discard (the hand holds one card more
in between). Knock and pass take the whole turn.

| action | meaning | legal when |
|---|---|---|
| 0 | draw the top card of the stock | draw step, stock not empty |
| 1 | draw the top card of the discard pile | draw step |
| 2 + i | discard hand slot i (i = 0..3, or 0..4 in four-card Scat) | discard step |
| 7 | knock | draw step before any knock, not on your first turn of the round (unless `knock_on_first_turn`) |
| 8 | pass | draw step of a final turn (*stay*), or before a knock while the stock is empty (ends the round with a showdown) |

Hands are kept sorted by card index, rank-major (`2C 2S 2H 2D 3C …`): slot 0 is the
lowest card. The observation's `hand` block is one-hot per slot, so an agent sees
which card each discard action throws. Discarding the card just drawn is allowed.
`env.unwrapped.action_to_string(a)` names a move in the current state
(`"draw 7♣ from the discard pile"`, `"discard K♥"`).

## Observation

`observe(agent)` returns `{"observation": float32 vector, "action_mask": int8 (9,)}`
seen from the agent's own seat: position 0 is the observer, position k the k-th
player to their left; seat blocks are padded to 7 positions so the size does not
depend on the table size. A card's column is its index `rank·4 + suit`
(`2C 2S 2H 2D 3C … AD`).

| block | indices (3-card) | indices (four-card) | meaning |
|---|---|---|---|
| hand | 0–207 | 0–259 | one-hot per hand slot (4 slots; 5 in four-card) |
| discard_top | 208–259 | 260–311 | one-hot: the card you may draw from the discard pile |
| discard_pile | 260–311 | 312–363 | every card in the pile, 1 − depth/52 (top = 1): the pile in order |
| known | 312–623 | 364–675 | per opponent position 1..6: cards they drew from the discard pile and still hold |
| seats | 624–658 | 676–710 | per position 0..6: at the table, in the game, on the bus, lives / starting lives, buy-ins left / buy-ins |
| dealer | 659–665 | 711–717 | one-hot position |
| knocker | 666–672 | 718–724 | one-hot position (zeros: no knock) |
| to_act | 673–679 | 725–731 | one-hot position of the player to act |
| phase | 680–683 | 732–735 | draw step, discard step, final-turn draw, final-turn discard |
| stock | 684 | 736 | stock size / 52 |

`schnauz_env.scat.ObservationLayout(config).describe()` lists the blocks. The mask is
all zeros for an agent that is not to act. Other players' unknown cards and the
stock order never reach the vector.

## Rewards

Zero-sum at every step. With `episode="game"` an agent's return over the episode is
its final place: +1 for the winner down to −1 for the first player out, linearly
(place p of n: `1 − 2(p−1)/(n−1)`; players going out together share the mean of
their places). Rewards are paid when players go out: the eliminated get what brings
their return to their place's value and the players still in share the opposite
equally. With `episode="round"` each player gets minus the lives they lost (−1, or
−2 for a failed knock) and the players who lost nothing share the total equally
(if everyone lost, each gets the mean loss minus their own).

Under `env()` an illegal action ends the game with −1 for the offender and 0 for the
others (PettingZoo's `TerminateIllegalWrapper`); `raw_env` raises `ValueError`
naming the action and the legal ones.

## Info

Every agent's info holds `lives` (dict agent → lives of every seat), `on_the_bus`,
`out`, `buy_ins_left`, `round` (rounds played), and `last_showdown`: `None` before the
first round ends, then the latest round result: `reason` (`"blitz_deal"`,
`"blitz"`, `"knock"`, `"empty_stock"`, `"turn_limit"`), `hands` (agent → revealed
`cards`, `value` and `label`), `losses` (agent → lives lost), `losers`, `went_out`,
`bought_in`, `lives_after`, `out_after`, `knocker`, `blitz_holders`, `tie_break`
(the showdown-only deals, if any), `turn_limit_reached`, `places` (agent → final
place), and `then`: the next round's result when that round ended at once on its deal
(a blitz after the deal), else `None`. Seats are named by agent everywhere (lists of
agents, dicts keyed by agent), so every key is a string. `infos=False` (a constructor
option) gives empty infos, for runs that read none.

Going out works as in every game of the package (`schnauz_env.common.aec`): the step
that puts an agent out terminates it, with the reward that brings its return to its
place's value; it then steps out with `None` while the others play on
(`schnauz_env.wrappers.FixedAgentsWrapper` keeps every agent to the end, `docs/interop.md`).

## Version history

* v0: first release.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from schnauz_env.common.aec import CardGameEnv, wrap_classic
from schnauz_env.render import picture_drawer
from schnauz_env.scat.config import ScatConfig
from schnauz_env.scat.engine import NUM_ACTIONS, RoundResult, new_game, round_reward
from schnauz_env.scat.observation import ObservationEncoder
from schnauz_env.scat.render import render_text

#: A picture of the table (:func:`schnauz_env.scat.picture.draw_state`), drawn with
#: Pillow and the picture module imported at the first one.
draw_state = picture_drawer("schnauz_env.scat.picture")


def env(**kwargs: Any) -> AECEnv:
    """The Scat environment in PettingZoo's standard wrappers (see the module docstring)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(CardGameEnv):
    """Scat as a PettingZoo AEC environment without wrappers (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "scat_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    game_name = "Scat"
    config_class = ScatConfig
    reset_options = ("deck", "decks", "dealer", "lives")
    num_actions = NUM_ACTIONS
    new_game = staticmethod(new_game)
    render_state = staticmethod(render_text)
    draw_state = staticmethod(draw_state)
    encoder_class = ObservationEncoder

    config: ScatConfig
    result_seats = {
        "hands": "by_seat",
        "losses": "by_seat",
        "losers": "seats",
        "went_out": "seats",
        "bought_in": "seats",
        "lives_after": "per_seat",
        "out_after": "per_seat",
        "knocker": "seat",
        "blitz_holders": "seats",
        "tie_break": "by_seat_list",
        "places": "by_seat",
        "then": "result",
    }

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        opening = self.game.opening_result
        if opening is not None:  # the first deal ended at once (a blitz after the deal)
            self._after_move(opening)

    def round_rewards(self, result: RoundResult) -> dict[int, float]:
        """Single-round episodes: minus the lives lost; those who lost none share the total."""
        seats = list(result.seats)
        lost = {s: result.losses.get(s, 0) for s in seats}
        total = sum(lost.values())
        winners = sum(1 for s in seats if lost[s] == 0)
        return {s: round_reward(lost[s], total, winners, len(seats)) for s in seats}

    def info_for(self) -> dict[str, Any]:
        game = self.game
        buy_ins = self.config.buy_ins
        return {
            "lives": self.by_agent(game.lives),
            "on_the_bus": self.by_agent(game.on_the_bus),
            "out": self.by_agent(game.out),
            "buy_ins_left": self.by_agent([buy_ins - used for used in game.buy_ins_used]),
            "round": game.round,
            "last_showdown": self.last_result_info(),
        }

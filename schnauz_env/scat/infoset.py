"""What one seat knows about a Scat game, read back from its observation.

A policy sees only its seat's observation vector (see
:mod:`schnauz_env.scat.observation`); :func:`decode_observation` turns it back into
named facts, by *relative position* exactly like the observation (position 0 is the
observer, position ``k`` the ``k``-th player to their left)::

    from schnauz_env.scat.infoset import decode_observation

    view = decode_observation(obs, config)   # hand, discard pile, lives, known cards, ...
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from schnauz_env.common.layout import first_hot
from schnauz_env.scat.config import MAX_PLAYERS, ScatConfig
from schnauz_env.scat.observation import NC, SEAT_FEATURES, ObservationLayout


@dataclass(frozen=True)
class ScatView:
    """Everything one seat knows about a Scat game, by relative position.

    Per-position tuples have ``num_players`` entries. Cards are engine card ints.
    """

    num_players: int
    hand: tuple[int, ...]
    """The observer's hand in slot order (lowest card first); the action ``2 + i``
    discards ``hand[i]``."""
    pile: tuple[int, ...]
    """The discard pile, bottom first (``pile[-1]`` is the card one may draw)."""
    known: tuple[frozenset[int], ...]
    """Per position, the cards that player drew from the discard pile and still holds
    (``known[0]`` is empty)."""
    lives: tuple[int, ...]
    """Lives, read on the scale of ``config.lives``: in a game whose reset gave some seat
    more lives than that, the vector is scaled by the largest starting lives, which it
    does not carry."""
    on_the_bus: tuple[bool, ...]
    out: tuple[bool, ...]
    buy_ins_left: tuple[int, ...]
    dealer: int
    knocker: int | None
    to_act: int | None
    """Position of the player to act; ``None`` when the game is over."""
    final: bool
    """Someone knocked: these are the final turns."""
    discard_step: bool
    """The player to act has drawn and must discard."""
    stock_size: int

    @property
    def active(self) -> list[int]:
        """Positions still in the game, the observer first."""
        return [k for k in range(self.num_players) if not self.out[k]]

    @property
    def discard_top(self) -> int | None:
        return self.pile[-1] if self.pile else None

    def unseen(self) -> list[int]:
        """Cards the observer cannot locate: the opponents' unknown cards and the stock."""
        seen = set(self.hand) | set(self.pile)
        for k in self.known:
            seen |= k
        return [c for c in range(NC) if c not in seen]


@cache
def _layout(config: ScatConfig) -> ObservationLayout:
    return ObservationLayout(config)


def decode_observation(obs: np.ndarray, config: ScatConfig) -> ScatView:
    """Read one seat's observation vector back into a :class:`ScatView`.

    Raises ``ValueError`` if its size does not match the config.
    """
    layout = _layout(config)
    obs = np.asarray(obs)
    if obs.shape != (layout.size,):
        raise ValueError(
            f"observation of shape {obs.shape} does not match this Scat config "
            f"(expected ({layout.size},))"
        )
    s = layout.slices
    hand_block = obs[s["hand"]].reshape(layout.hand_slots, NC)
    hand = tuple(int(np.argmax(row)) for row in hand_block if row.any())
    pile_block = obs[s["discard_pile"]]
    in_pile = np.flatnonzero(pile_block)
    pile = tuple(int(c) for c in in_pile[np.argsort(pile_block[in_pile], kind="stable")])
    seats = obs[s["seats"]].reshape(MAX_PLAYERS, SEAT_FEATURES)
    n = int(seats[:, 0].sum())
    known_block = obs[s["known"]].reshape(MAX_PLAYERS - 1, NC)
    known = (
        frozenset(),
        *(frozenset(int(c) for c in np.flatnonzero(known_block[k - 1])) for k in range(1, n)),
    )
    out = tuple(not bool(seats[k, 1]) for k in range(n))
    # The vector holds lives / the most lives any seat started with; that is
    # config.lives unless a reset option gave some seat more (which it cannot show).
    lives = tuple(round(float(seats[k, 3]) * max(config.lives, 1)) for k in range(n))
    bus = tuple(bool(seats[k, 2]) for k in range(n))
    buy = tuple(round(float(seats[k, 4]) * config.buy_ins) for k in range(n))
    phase = first_hot(obs[s["phase"]])
    return ScatView(
        num_players=n,
        hand=hand,
        pile=pile,
        known=known,
        lives=lives,
        on_the_bus=bus,
        out=out,
        buy_ins_left=buy,
        dealer=first_hot(obs[s["dealer"]]) or 0,
        knocker=first_hot(obs[s["knocker"]]),
        to_act=first_hot(obs[s["to_act"]]),
        final=phase is not None and phase >= 2,
        discard_step=phase is not None and phase % 2 == 1,
        stock_size=round(float(obs[s["stock"]][0]) * NC),
    )

"""What the three batched engines share: their contract, the checks of their arguments,
seeding, the action buffer, :meth:`~BatchedGame.observe`, the state views every game
has, and the error raised for an illegal action.

An engine steps ``num_games`` (B) games of one rules config at once, with ``n``
players each; for Scat (``BatchedScat``, the same for Schnauz and Thirteen)::

    from schnauz_env.batched import BatchedScat

    eng = BatchedScat(num_games=1024, num_players=4, seed=0)
    obs, mask = eng.reset()
    while True:
        obs, mask, rewards, ended = eng.step(eng.random_actions())

Every game follows the rules floor's engine of its game under any config of it, and
row ``g`` of each output is what the game's AEC env shows after the same moves:

============  ==============  =============================================================
output        shape           meaning
============  ==============  =============================================================
``obs``       (B, obs_size)   float32: the view of the player to act (``observe(agent)`` of
                              the AEC env, bit for bit); only with ``observe=True``
``mask``      (B, A)          int8: the legal actions of the player to act
``rewards``   (B, n)          float64: each seat's reward for this step (the AEC env's
                              zero-sum place rewards, or its single-round rewards)
``ended``     (B,)            int8: the episode ended with this step
============  ==============  =============================================================

With ``auto_reset=True`` (the default) an episode that ends is dealt again at once, so
``obs`` and ``mask`` already belong to the new one; its final places are in
``final_places``. The arrays returned are the engine's buffers, overwritten by the
next call: copy what you keep.

Randomness: each game has its own generators, seeded from ``seed``. For replaying the
reference exactly, ``reset`` also takes the decks a seeded ``numpy.random.Generator``
shuffles (``decks``: the game's ``reference_decks``).

The kernels are compiled by numba (``pip install "schnauz_env[fast]"``) on first use
and cached on disk; without numba they run as plain Python, very slowly.

:class:`~schnauz_env.batched.schnauz.BatchedSchnauz`,
:class:`~schnauz_env.batched.scat.BatchedScat` and
:class:`~schnauz_env.batched.thirteen.BatchedThirteen` subclass :class:`BatchedGame`.
Each names its rules config class (``CONFIG``), its array layout (``FIELDS``: the
module that defines ``F_CURRENT``, ``F_PHASE``, ``F_OVER``, ``F_ERROR``, ``L_PLACE``,
``L_RET``, ``NRNG`` and ``ERR_ILLEGAL``), its action names and phase names, and
provides its arrays (one named tuple, :attr:`~BatchedGame.kernel_state`, made in
:meth:`~BatchedGame._build`) and its kernels (step, observe, the random and greedy
players, ``play_random``).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from schnauz_env.batched.common import seed_states
from schnauz_env.batched.jit import SameTypes, warn_if_slow
from schnauz_env.common.options import make_config

__all__ = ["BatchedGame", "LivesGame", "check_decks", "dealer_and_decks", "integers"]

#: The game's rules config class (``SchnauzConfig``, ``ScatConfig``, ``ThirteenConfig``).
C = TypeVar("C")


def integers(name: str, value: Any, low: int, high: int, what: str) -> np.ndarray:
    """``value`` as an integer array whose entries lie in ``low..high``; ``TypeError`` for
    anything but integers (floats, bools, text), ``ValueError`` for an entry out of range.
    Checked before any cast, so nothing wraps around or is rounded."""
    array = np.asarray(value)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{name} must be {what}, got an array of {array.dtype}")
    if array.size and (array.min() < low or array.max() > high):
        bad = array[(array < low) | (array > high)].flat[0]
        raise ValueError(f"{name} must be {what}, got {bad}")
    return array


def check_decks(decks: Any, num_games: int, deck_size: int, unit: str = "rounds") -> np.ndarray:
    """``decks`` checked as ``(num_games, K, deck_size)`` permutations of
    ``range(deck_size)`` (one per round, or per game: ``unit``), as int8."""
    top = deck_size - 1
    decks = integers("decks", decks, 0, top, f"cards 0..{top}")
    if decks.ndim != 3 or decks.shape[0] != num_games or decks.shape[2] != deck_size:
        raise ValueError(
            f"decks must have shape ({num_games}, {unit}, {deck_size}), got {tuple(decks.shape)}"
        )
    if not (np.sort(decks, axis=2) == np.arange(deck_size)).all():
        raise ValueError(f"every deck must be a permutation of 0..{top}")
    return np.ascontiguousarray(decks, dtype=np.int8)


def dealer_and_decks(config: Any, seed: int, count: int, deck_size: int) -> tuple[int, np.ndarray]:
    """What a lives game's reference (Schnauz, Scat) draws from ``default_rng(seed)``:
    ``rng.integers(n)`` for the first dealer (the config's ``first_dealer`` when it has
    one), then one ``rng.permutation(deck_size)`` per round. Returns ``(dealer, perms)``,
    ``perms`` of shape ``(count, deck_size)`` int8."""
    rng = np.random.default_rng(seed)
    drawn = int(rng.integers(config.num_players))
    dealer = config.first_dealer if config.first_dealer is not None else drawn
    perms = np.empty((count, deck_size), dtype=np.int8)
    for k in range(count):
        perms[k] = rng.permutation(deck_size)
    return dealer, perms


def field_view(name: str, doc: str, per_seat: bool = False, flag: bool = False) -> Any:
    """A read-only property: the games' field ``FIELDS.<name>`` of ``gs`` (``(B,)``, or
    ``(B, n)`` from there ``per_seat``), or of ``fl`` for an ``L_*`` name (always per
    seat); ``flag``: as bool."""
    floats = name.startswith("L_")

    def view(self: BatchedGame) -> np.ndarray:
        at = getattr(self.FIELDS, name)
        rows = self.fl if floats else self.gs
        out = rows[:, at : at + self.num_players] if per_seat or floats else rows[:, at]
        return out.astype(bool) if flag else out

    return property(view, doc=doc)


class BatchedGame(Generic[C]):
    """The part of a batched engine that does not depend on the game (see the module
    docstring). Subclasses set the class attributes and make the game's arrays in
    :meth:`_build`, which the constructor calls between the checks and :meth:`seed`."""

    #: The game's rules config class: the type of ``config``, built from rule options.
    CONFIG: ClassVar[type]
    #: The game's array layout module (``F_*`` fields, ``L_*`` float fields, ``NRNG``).
    FIELDS: ClassVar[ModuleType]
    #: The game's kernels module (``k_reset``, ``k_step``, ``k_observe``,
    #: ``k_random_actions``, ``k_greedy_actions``, ``k_play_random``).
    KERNELS: ClassVar[ModuleType]
    #: The name of each action id, and of each phase, for error messages.
    ACTION_NAMES: ClassVar[tuple[str, ...]]
    PHASE_NAMES: ClassVar[tuple[str, ...]]
    #: The name of the game, for error messages (``make_config``).
    GAME: ClassVar[str]
    #: The largest count (lives, points) ``reset`` takes per seat.
    MAX_COUNT: ClassVar[int] = 2**31 - 1

    config: C
    num_games: int
    num_players: int
    layout: Any
    obs_size: int
    observing: bool
    auto_reset: bool
    mask: np.ndarray
    obs: np.ndarray
    ended: np.ndarray
    final_places: np.ndarray
    _actions: np.ndarray
    _rewards: np.ndarray
    _all: np.ndarray
    _started: bool
    #: The step kernel's arguments after the state in the games whose kernel takes the
    #: common ones (:meth:`_step_kernel`): auto reset on, what a step decided per game
    #: (rounds ended, results), the counts a game dealt again starts with (none: -1).
    _auto: bool
    _decided: np.ndarray
    _no_counts: np.ndarray

    # ------------------------------------------------------------ construction
    def __init__(
        self,
        num_games: int = 1024,
        config: C | None = None,
        seed: int | None = None,
        observe: bool = True,
        auto_reset: bool = True,
        **options: Any,
    ) -> None:
        """``num_games`` games under the rules of ``config`` (a :attr:`CONFIG`), or of the
        rule options given as keywords (as for the game's ``<game>_v0.env``), with their
        generators seeded from ``seed`` (:meth:`seed`). ``observe`` builds the acting
        player's view after every step; ``auto_reset`` deals an episode that ends again
        at once."""
        config = self._setup(num_games, config, options)
        self._build(config, observe, auto_reset)
        self.seed(seed)

    def _setup(self, num_games: int, config: C | None, options: dict[str, Any]) -> C:
        """Check ``num_games`` and build the config (from ``config`` or ``options``);
        set ``num_games``, ``num_players``, ``config``; return the config."""
        warn_if_slow()
        if config is None:
            config = make_config(self.CONFIG, options, self.GAME)
        elif options:
            raise ValueError("give either config or rule options, not both")
        if (
            isinstance(num_games, bool)
            or not isinstance(num_games, (int, np.integer))
            or num_games < 1
        ):
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        self.config = config
        self.num_games = int(num_games)
        self.num_players = config.num_players
        self._actions = np.zeros(self.num_games, dtype=np.int64)
        self._all = np.arange(self.num_games, dtype=np.int64)
        self._started = False
        # the hot kernels, called with the same types every time (see SameTypes)
        kernels = self.KERNELS
        self._k_step = SameTypes(kernels.k_step)
        self._k_random = SameTypes(kernels.k_random_actions)
        self._k_greedy = SameTypes(kernels.k_greedy_actions)
        return config

    def _build(self, config: C, observe: bool, auto_reset: bool) -> None:
        """Make the game's arrays for ``config`` (its outputs with :meth:`_outputs`)."""
        raise NotImplementedError

    def _outputs(
        self, layout: Any, observe: bool, auto_reset: bool, num_actions: int, seats: int
    ) -> np.ndarray:
        """Set the view's ``layout`` (``obs_size``), ``observing``, ``auto_reset`` and the
        step's outputs per game: ``mask`` (``num_actions``), rewards and ``final_places``
        (``seats`` columns, the most players), ``ended``. Returns a zeroed buffer for the
        views: ``(B, obs_size)`` float32, or ``(1, 1)`` when nothing is observed."""
        b = self.num_games
        self.layout = layout
        self.obs_size = layout.size
        self.observing = bool(observe)
        self.auto_reset = bool(auto_reset)
        self.mask = np.zeros((b, num_actions), dtype=np.int8)
        self._rewards = np.zeros((b, seats), dtype=np.float64)
        self.ended = np.zeros(b, dtype=np.int8)
        self.final_places = np.zeros((b, seats), dtype=np.float64)
        return np.zeros((b, self.obs_size) if observe else (1, 1), dtype=np.float32)

    # -------------------------------------------------------- the game's arrays
    def _observe_kernel(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """Write the view of ``seats[i]`` in ``games[i]`` into ``out[i]``."""
        self.KERNELS.k_observe(*self._kernel_args(), games, seats, out)

    def _dealers(self, dealers: Any) -> np.ndarray:
        """``reset``'s ``dealers`` checked: ``(B,)`` int32 seats, -1 where not given."""
        b, n = self.num_games, self.num_players
        d = np.full(b, -1, dtype=np.int32)
        if dealers is not None:
            dealers = integers("dealers", dealers, 0, n - 1, f"seats 0..{n - 1}")
            if dealers.shape not in ((b,), ()):
                raise ValueError(f"dealers must have shape ({b},), got {tuple(dealers.shape)}")
            d[:] = dealers
        return d

    def _per_seat(self, name: str, values: Any) -> np.ndarray:
        """``reset``'s ``(B, n)`` counts (lives, points) checked: ``(B, seats)`` int32 (as
        wide as the per-seat outputs), -1 where not given."""
        b, n = self.num_games, self.num_players
        out = np.full((b, self._rewards.shape[1]), -1, dtype=np.int32)
        if values is not None:
            top = self.MAX_COUNT
            values = integers(name, values, 0, top, f"integers 0..{top}")
            if values.shape != (b, n):
                raise ValueError(f"{name} must have shape ({b}, {n}), got {tuple(values.shape)}")
            out[:, :n] = values
        return out

    # ----------------------------------------------------------------- seeding
    def seed(self, seed: int | None = None) -> None:
        """Reseed every game's generators (from ``numpy.random.SeedSequence(seed)``)."""
        self.rng[:] = seed_states(seed, self.num_games, self.FIELDS.NRNG)

    # --------------------------------------------------------------------- API
    def _take_actions(self, actions: np.ndarray) -> np.ndarray:
        """``actions`` checked (one integer per game) and copied into the action buffer."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if actions is not self._actions:  # (random_actions() and greedy_actions() fill it)
            actions = np.asarray(actions)
            if actions.shape != (self.num_games,) or not np.issubdtype(actions.dtype, np.integer):
                raise ValueError(
                    f"actions must be {self.num_games} integers (one per game), "
                    f"got shape {actions.shape} dtype {actions.dtype}"
                )
            self._actions[:] = actions
        return self._actions

    def _started_with(self, errors: int) -> tuple[np.ndarray, np.ndarray]:
        """The end of ``reset``: the games have started; raise the error of a game that
        could not (``errors`` of them), else return ``(obs, mask)``."""
        self._started = True
        if errors:
            self._raise_errors()
        return self.obs, self.mask

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Play ``actions[g]`` for the player to act in each game.

        Returns ``(obs, mask, rewards, ended)`` (see the game's module docstring).
        Finished games (without auto-reset) ignore their action. An illegal action raises
        ``ValueError`` naming the game, the action and the legal ones, after the other
        games have moved; the offending games are left as they were.
        """
        self._take_actions(actions)
        if self._step_kernel():
            self._raise_errors()
        return self.obs, self.mask, self.rewards, self.ended

    def _step_kernel(self) -> int:
        """Run the game's step kernel on the action buffer (rewards, ends, masks, views
        into the engine's buffers); return the number of games in error. Here: a kernel
        that takes ``(*state, actions, rewards, mask, obs, observe, auto_reset, ended,
        decided, final_places, no_counts)`` (Schnauz, Thirteen)."""
        return self._k_step(
            *self._kernel_args(),
            self._actions,
            self._rewards,
            self.mask,
            self.obs,
            self.observing,
            self._auto,
            self.ended,
            self._decided,
            self.final_places,
            self._no_counts,
        )

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action per game (-1 for a finished game).

        Returns the engine's action buffer, which the next call overwrites.
        """
        self._random_kernel()
        return self._actions

    def greedy_actions(self) -> np.ndarray:
        """``policies``' greedy player's action per game (-1 for a finished game).

        Returns the engine's action buffer, which the next call overwrites.
        """
        self._greedy_kernel()
        return self._actions

    def play_random(self, steps: int) -> int:
        """``steps`` random agent-steps per game inside one compiled loop; returns the total.

        For benchmarks of the bare rules: actions are drawn in the loop, games
        auto-reset, and ``obs`` is refreshed every step when observing.
        """
        return int(self._play_random_kernel(int(steps)))

    def _kernel_args(self) -> tuple[Any, ...]:
        """What the game's kernels take before their other arguments: the state (and
        tables, where the game has them)."""
        return (self.kernel_state,)

    def _random_kernel(self) -> None:
        """Write a random legal action per game into the action buffer."""
        self._k_random(self.kernel_state, self._actions)

    def _greedy_kernel(self) -> None:
        """Write the greedy player's action per game into the action buffer."""
        self._k_greedy(*self._kernel_args(), self._actions)

    def _play_random_kernel(self, steps: int) -> int:
        """Run the game's ``k_play_random`` for ``steps``; return the agent-steps taken."""
        raise NotImplementedError

    def observe(self, seats: np.ndarray | int, games: np.ndarray | None = None) -> np.ndarray:
        """A new ``(len(games), obs_size)`` array: the view of ``seats[i]`` in ``games[i]``.

        ``games`` defaults to every game; ``seats`` may be one seat for all.
        """
        games = self._all if games is None else np.atleast_1d(np.asarray(games, dtype=np.int64))
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), games.shape)
        if ((seats < 0) | (seats >= self.num_players)).any():
            raise ValueError(f"seats must be 0..{self.num_players - 1}")
        if ((games < 0) | (games >= self.num_games)).any():
            raise ValueError(f"games must be 0..{self.num_games - 1}")
        out = np.empty((games.shape[0], self.obs_size), dtype=np.float32)
        self._observe_kernel(np.ascontiguousarray(games), np.ascontiguousarray(seats), out)
        return out

    # ------------------------------------------------------------- state views
    @property
    def kernel_state(self) -> Any:
        """The named tuple of the games' arrays the kernels take (``gs``, ``fl``, ``rng``
        among its fields)."""
        raise NotImplementedError

    @property
    def gs(self) -> np.ndarray:
        """``(B, NF)`` int32: the games' scalar fields (see ``FIELDS``)."""
        return self.kernel_state.gs

    @property
    def fl(self) -> np.ndarray:
        """``(B, NFL)`` float64: the games' float fields (places, returns)."""
        return self.kernel_state.fl

    @property
    def rng(self) -> np.ndarray:
        """``(B, NRNG)`` int64: the games' generator states."""
        return self.kernel_state.rng

    @property
    def rewards(self) -> np.ndarray:
        """``(B, n)`` rewards of the last step."""
        return self._rewards[:, : self.num_players]

    current = field_view("F_CURRENT", "Seat to act per game.")
    phase = field_view("F_PHASE", "The reference's phase per game (see ``PHASE_NAMES``).")
    game_over = field_view("F_OVER", "Whether each episode is over.", flag=True)
    places = field_view(
        "L_PLACE",
        "``(B, n)`` final places decided so far (0 = not yet; 1 = winner; shared places averaged).",
    )
    returns = field_view("L_RET", "``(B, n)`` rewards paid to each seat so far in the episode.")

    # ------------------------------------------------------------------ errors
    #: Error codes of games that wait for decks queued by the caller, with their message.
    QUEUE_ERRORS: ClassVar[dict[str, str]] = {}

    def _decks_given(self) -> int:
        """External decks given per game at reset (for the out-of-decks error)."""
        raise NotImplementedError

    def _where(self, g: int) -> str:
        """Words placing the illegal move of game ``g`` (after "for seat s")."""
        return ""

    def _raise_errors(self) -> None:
        """Raise the ``ValueError`` for the first game flagged with an error: out of the
        supplied decks, waiting for queued decks (``QUEUE_ERRORS``), or an illegal action
        (:meth:`_raise_illegal`)."""
        f = self.FIELDS
        g = int(np.flatnonzero(self.gs[:, f.F_ERROR])[0])
        code = int(self.gs[g, f.F_ERROR])
        if code == f.ERR_NO_DECK:
            raise ValueError(
                f"game {g} ran out of the supplied decks ({self._decks_given()} per "
                "game); pass more with reset(decks=...)"
            )
        for name, message in self.QUEUE_ERRORS.items():
            if code == getattr(f, name):
                raise ValueError(f"game {g} {message}")
        self._raise_illegal(self._where(g))

    def legal_actions(self, g: int) -> list[int]:
        """The legal actions of the player to act in game ``g``, ascending (from the mask
        the engine wrote for it)."""
        return [int(a) for a in np.flatnonzero(self.mask[g])]

    def _raise_illegal(self, where: str = "") -> None:
        """Raise the ``ValueError`` of the games flagged with an illegal action (the
        first one named; ``where``: the game's words for the moment, after "in phase
        ..."), clearing their flags so that they can move again."""
        f = self.FIELDS
        gs = self.gs
        bad = np.flatnonzero(gs[:, f.F_ERROR])
        g = int(bad[0])
        gs[bad[gs[bad, f.F_ERROR] == f.ERR_ILLEGAL], f.F_ERROR] = 0
        a = int(self._actions[g])
        names = ", ".join(f"{x} ({self.ACTION_NAMES[x]})" for x in self.legal_actions(g))
        raise ValueError(
            f"action {a} is not legal in game {g} ({len(bad)} game(s) with illegal actions) "
            f"for seat {int(self.current[g])}{where} in phase "
            f"{self.PHASE_NAMES[int(self.phase[g])]!r}; legal actions: {names}"
        )


class LivesGame(BatchedGame[C]):
    """A batched game played for lives over rounds (Schnauz, Scat): :meth:`reset` with
    dealers and lives, the views of dealer, rounds, lives and who is out, and the decks of
    extra deals queued in external mode."""

    #: External mode: room for this many queued decks of extra deals per game.
    QUEUE_SLOTS: ClassVar[int]
    cfg: np.ndarray

    def reset(
        self,
        seed: int | None = None,
        decks: np.ndarray | None = None,
        dealers: np.ndarray | None = None,
        lives: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Start every game afresh; return ``(obs, mask)`` of the players to act.

        ``decks`` (``(B, K, deck_size)`` permutations of ``range(deck_size)``, as the
        game's ``reference_decks`` makes) replaces the games' own shuffles: rounds take
        them in order, exactly as the reference takes ``rng.permutation``; the extra deals
        take the decks queued for them (Schnauz's replay deals with ``ties="share"``:
        ``queue_replay_decks``; Scat's tie-break deals: ``queue_tie_break_decks``);
        auto-reset is then off. ``dealers`` (``(B,)``) sets the first dealers, ``lives``
        (``(B, n)``) the starting lives of this reset.
        """
        deck_size = self.config.deck_size
        # Every argument is checked before anything changes: a refused reset leaves the
        # games, their generators and their decks as they were.
        if decks is not None:
            decks = check_decks(decks, self.num_games, deck_size)
        d = self._dealers(dealers)
        lv = self._per_seat("lives", lives)
        if seed is not None:
            self.seed(seed)
        self._set_perms(self._round_decks(decks, deck_size))
        return self._started_with(self._reset_kernel(d, lv))

    def _set_perms(self, perms: np.ndarray) -> None:
        """Make ``perms`` the games' decks (the ``perms`` of :attr:`kernel_state`)."""
        raise NotImplementedError

    def _reset_kernel(self, dealers: np.ndarray, lives: np.ndarray) -> int:
        """Run the game's ``k_reset`` on every game (``dealers`` and ``lives`` checked,
        -1 where not given) and set auto reset; return the number of games in error."""
        raise NotImplementedError

    def _queue_decks(self, g: int, decks: Any, method: str, what: str, ptr: int, end: int) -> None:
        """External mode: the decks the next extra deals (replays, tie-breaks: ``what``)
        of game ``g`` take, in order, at most ``QUEUE_SLOTS``; ``gs[g, ptr:end]`` bound
        them. ``method`` names the public method in errors."""
        f = self.FIELDS
        if not self.cfg[f.C_EXTERNAL]:
            raise ValueError(f"{method} needs reset(decks=...)")
        perms = self.kernel_state.perms
        decks = np.asarray(decks, dtype=np.int8).reshape(-1, perms.shape[2])
        if len(decks) > self.QUEUE_SLOTS:
            raise ValueError(f"at most {self.QUEUE_SLOTS} {what} decks at a time")
        start = int(self.cfg[f.C_ROUND_DECKS])
        perms[g, start : start + len(decks)] = decks
        self.gs[g, ptr] = start
        self.gs[g, end] = start + len(decks)

    def _round_decks(self, decks: np.ndarray | None, deck_size: int) -> np.ndarray:
        """``reset``'s external decks (``(B, K, deck_size)``, checked) as the games'
        ``perms``: the round decks in order, then room for ``QUEUE_SLOTS`` queued decks of
        extra deals; ``cfg`` counts the round decks and says the games are external.
        Without decks: an empty ``perms``, and the games shuffle their own."""
        f = self.FIELDS
        if decks is None:
            self.cfg[f.C_ROUND_DECKS] = 0
            self.cfg[f.C_EXTERNAL] = 0
            return np.zeros((1, 1, deck_size), dtype=np.int8)
        rounds = decks.shape[1]
        perms = np.zeros((self.num_games, rounds + self.QUEUE_SLOTS, deck_size), dtype=np.int8)
        perms[:, :rounds] = decks
        self.cfg[f.C_ROUND_DECKS] = rounds
        self.cfg[f.C_EXTERNAL] = 1
        return perms

    dealer = field_view("F_DEALER", "The dealer's seat per game.")
    rounds = field_view("F_ROUND", "Rounds played per game.")
    lives = field_view("F_LIVES", "``(B, n)`` lives left.", per_seat=True)
    out = field_view("F_OUT", "``(B, n)``: each seat is out of the game.", per_seat=True, flag=True)

    @property
    def terminated(self) -> np.ndarray:
        """``(B, n)``: each seat's episode is over (it is out, or the game is over)."""
        return self.out | self.game_over[:, None]

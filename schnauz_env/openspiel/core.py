"""What the three OpenSpiel games share: the game over a rules config, the state over the
rules engine with explicit chance, and the observer over the game's observation encoder.

Nothing here knows a rule. A game module (:mod:`schnauz_env.openspiel.schnauz`, ``scat``,
``thirteen``) declares its contract in a :class:`GameSpec` (its rules package's config,
``new_game``, encoder and action table, plus the game-length and utility bounds that
OpenSpiel's ``GameInfo`` asks for) and registers a :class:`CardGame` subclass.

**Chance.** Each deal is drawn card by card: chance node ``k`` of a deal picks the
``k``-th card of the deck (top first), uniformly among the cards not yet drawn, and the
outcome is the card's index in the variant's deck (``config.deck_cards``, card order).
Schnauz and Scat draw every card but the last (which is then forced), so the whole stock
order is chance's; Thirteen draws the ``13 · players`` dealt cards (the undealt rest,
which no seat ever sees, stays in card order). When ``first_dealer`` is drawn
(the parameter ``-1``), a first chance node picks the dealer uniformly among the seats,
as the env's generator does before the first shuffle. The engine takes each deck
through its deals-on-demand hook (``new_game(..., deal_on_demand=True)``,
``state.deal(deck)``), so the chance nodes come exactly when a deal is due: at the
start, and after every round (Thirteen: game) that does not end the episode. A Schnauz
replay deal or a Scat tie-break deal (showdown-only deals, which no player acts on) is
not a chance node: the engine draws it from the round's own generator, seeded from the
round's deck (``common.engine.round_rng``), as in the PettingZoo env, so the deck's
chance outcomes fix it.

**Tensors and strings.** The observation and the information-state tensor are both the
PettingZoo env's ``observation`` vector for that seat (``<game>.observation.
ObservationEncoder``): the encoder is what a seat may know, seen from its own seat, and
OpenSpiel's observer ``dict`` names its blocks. The strings list the tensor's nonzero
entries block by block and, for the seat to act, its legal actions (the env's
``action_mask``): the knock rules depend on turns the vector does not show, so a string
that names the legal actions keeps every information set's actions the same, which
:class:`~open_spiel.python.algorithms.ismcts.ISMCTSBot` requires.

**Returns** are the AEC env's episode returns: each seat's final place's value
(:mod:`schnauz_env.common.places`), or the game's single-round rewards
(``episode="round"``). The reward model is OpenSpiel's ``TERMINAL`` (OpenSpiel's
``MCTSBot`` requires it): ``returns()`` and ``rewards()`` are zeros until the game is
over. :meth:`CardGameState.env_returns` follows the env's payments during the game
(the env pays a place's value as soon as a seat goes out).
"""

from __future__ import annotations

import dataclasses
import importlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

try:
    import pyspiel
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "schnauz_env.openspiel needs OpenSpiel: pip install -e '.[openspiel]'"
    ) from err

from schnauz_env.cards import format_card
from schnauz_env.common.places import settle_places
from schnauz_env.games import game_module

#: The ``first_dealer`` game parameter that leaves the first dealer to chance
#: (OpenSpiel parameters have no ``None``, the config's value for it).
DEALER_BY_CHANCE = -1
#: The game parameter of the config field ``num_players`` (OpenSpiel's usual name).
PLAYERS_PARAMETER = "players"


def whole_stock(config: Any) -> int:
    """Every card of a deal is chance's but the last (then forced): the whole stock order
    matters (Schnauz, Scat)."""
    return config.deck_size - 1


@dataclass(frozen=True)
class GameSpec:
    """One game's contract with the adapter: what it takes from the rules package.

    The functions of ``config`` give OpenSpiel's ``GameInfo`` bounds; they must hold for
    every game those rules allow (the tests play random games against them).
    """

    short_name: str
    long_name: str
    config_class: type
    new_game: Callable[..., Any]
    encoder_class: type
    render_text: Callable[..., str]
    num_actions: int
    min_players: int
    max_players: int
    max_game_length: Callable[[Any], int]
    """Most decisions (chance nodes not counted) any game under ``config`` can take."""
    utility_bounds: Callable[[Any], tuple[float, float]]
    """Lowest and highest return of a seat under ``config``."""
    dealt_cards: Callable[[Any], int] = whole_stock
    """How many cards of a deal are chance outcomes (the rest follow in card order)."""
    round_rewards: Callable[[Any], dict[int, float]] | None = None
    """Rewards of a single-round episode's result (``episode="round"``), if the game has one."""

    @classmethod
    def of_game(
        cls,
        game: str,
        max_game_length: Callable[[Any], int],
        utility_bounds: Callable[[Any], tuple[float, float]],
        **optional: Any,
    ) -> GameSpec:
        """The spec of the game ``game`` of :data:`schnauz_env.games.GAMES`, named
        ``python_<game>``: its rules package gives the config, ``new_game``, encoder,
        action table and player range (``config.MIN_PLAYERS``, ``MAX_PLAYERS``), its
        ``render`` module the text; the game's bounds are given, and ``optional`` sets
        ``dealt_cards`` or ``round_rewards`` where the game has them."""
        rules = game_module(game)
        config = importlib.import_module(f"{rules.__name__}.config")
        render = importlib.import_module(f"{rules.__name__}.render")
        return cls(
            short_name=f"python_{game}",
            long_name=f"Python {game.capitalize()}",
            config_class=rules.Config,
            new_game=rules.new_game,
            encoder_class=rules.ObservationEncoder,
            num_actions=rules.NUM_ACTIONS,
            max_game_length=max_game_length,
            utility_bounds=utility_bounds,
            render_text=render.render_text,
            min_players=config.MIN_PLAYERS,
            max_players=config.MAX_PLAYERS,
            **optional,
        )


def parameter_specification(spec: GameSpec) -> dict[str, Any]:
    """The game's parameters and their defaults: every field of the rules config, with
    ``num_players`` named ``players`` and ``first_dealer=None`` written ``-1``."""
    return parameters_of({f.name: f.default for f in dataclasses.fields(spec.config_class)})


def parameters_of(config: Any) -> dict[str, Any]:
    """The OpenSpiel parameters of a rules config (or a dict of its options): the
    inverse of :func:`config_of`."""
    options = config if isinstance(config, Mapping) else config.to_dict()
    params: dict[str, Any] = {}
    for name, value in options.items():
        if name == "num_players":
            name = PLAYERS_PARAMETER
        elif name == "first_dealer" and value is None:
            value = DEALER_BY_CHANCE
        params[name] = value
    return params


def config_of(spec: GameSpec, params: Mapping[str, Any] | None) -> Any:
    """The rules config of OpenSpiel ``params`` (missing ones take their defaults).

    ``ValueError`` for an unknown parameter (naming the known ones) and, from the config
    itself, for an invalid value."""
    defaults = parameter_specification(spec)
    params = dict(params or {})
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(
            f"unknown {spec.short_name} parameter(s) {', '.join(unknown)}; "
            f"known: {', '.join(defaults)}"
        )
    options: dict[str, Any] = {}
    for name, default in defaults.items():
        value = params.get(name, default)
        if name == PLAYERS_PARAMETER:
            name = "num_players"
        elif name == "first_dealer" and value == DEALER_BY_CHANCE:
            value = None
        options[name] = value
    return spec.config_class(**options)


def game_type(spec: GameSpec) -> pyspiel.GameType:
    """OpenSpiel's ``GameType`` of ``spec``: sequential, explicit chance, imperfect
    information, zero-sum, returns at the end."""
    return pyspiel.GameType(
        short_name=spec.short_name,
        long_name=spec.long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(spec),
    )


def game_info(spec: GameSpec, config: Any) -> pyspiel.GameInfo:
    """OpenSpiel's ``GameInfo`` of ``spec`` under ``config``."""
    low, high = spec.utility_bounds(config)
    return pyspiel.GameInfo(
        num_distinct_actions=spec.num_actions,
        max_chance_outcomes=max(len(config.deck_cards), config.num_players),
        num_players=config.num_players,
        min_utility=float(low),
        max_utility=float(high),
        utility_sum=0.0,
        max_game_length=spec.max_game_length(config),
    )


class Rules:
    """Everything a game's states share (immutable): config, encoder, deck, flags.

    States hold a reference to it; copying a state (OpenSpiel clones by deep-copying a
    state's attributes) keeps the reference."""

    def __init__(self, spec: GameSpec, config: Any) -> None:
        self.spec = spec
        self.config = config
        self.n: int = config.num_players
        self.encoder = spec.encoder_class(config)
        self.slices: dict[str, slice] = dict(self.encoder.layout.slices)
        self.cards: tuple[int, ...] = tuple(int(c) for c in config.deck_cards)
        self.dealt: int = spec.dealt_cards(config)
        self.dealer_by_chance: bool = getattr(config, "first_dealer", 0) is None
        self.single_round: bool = getattr(config, "episode", "game") == "round"

    def __deepcopy__(self, memo: dict[int, Any]) -> Rules:
        return self

    def start(self, dealer: int | None) -> Any:
        """A new engine state waiting for its first deal (``dealer``: the first dealer,
        ``None`` for the config's)."""
        # The generator only draws the first dealer in new_game (overridden by
        # ``dealer``): every deal comes from chance, by state.deal(deck).
        return self.spec.new_game(
            self.config, np.random.default_rng(0), dealer=dealer, deal_on_demand=True
        )

    def deck_from(self, drawn: list[int]) -> list[int]:
        """The deck (card codes, top first) of the drawn card indices, the rest in card order."""
        taken = set(drawn)
        cards = self.cards
        return [cards[i] for i in drawn] + [c for i, c in enumerate(cards) if i not in taken]


class Progress:
    """A state's mutable part: the engine state, the chance draws of the deal in
    progress and what has been paid. Copied quickly (the engine's own ``clone``)."""

    __slots__ = ("dealer_due", "drawn", "engine", "returns", "settled")

    def __init__(self, rules: Rules) -> None:
        self.engine: Any = None
        self.dealer_due = rules.dealer_by_chance
        self.drawn: list[int] = []
        self.returns = [0.0] * rules.n
        self.settled: set[int] = set()

    def __deepcopy__(self, memo: dict[int, Any]) -> Progress:
        new = Progress.__new__(Progress)
        engine = self.engine
        # The engine's generator never deals (deals come from chance): share it.
        new.engine = None if engine is None else engine.clone(rng=engine.rng)
        new.dealer_due = self.dealer_due
        new.drawn = list(self.drawn)
        new.returns = list(self.returns)
        new.settled = set(self.settled)
        return new


def _generator(source: Any) -> np.random.Generator:
    """A numpy generator from what ``resample_from_infostate`` may be given: a numpy
    ``Generator`` (used as it is), an integer seed, or a callable returning floats in
    [0, 1) such as ``pyspiel.UniformProbabilitySampler`` (two draws seed a generator)."""
    if isinstance(source, np.random.Generator):
        return source
    if isinstance(source, (int, np.integer)) and not isinstance(source, bool):
        return np.random.default_rng(int(source))
    if callable(source):
        return np.random.default_rng([int(float(source()) * 2**32) for _ in range(2)])
    raise TypeError(
        "resample_from_infostate needs a probability sampler (a callable returning floats "
        f"in [0, 1)), a numpy Generator or an integer seed, got {type(source).__name__}"
    )


class CardGameState(pyspiel.State):
    """A game in progress: the rules engine's state, with the deals as chance nodes."""

    def __init__(self, game: CardGame) -> None:
        super().__init__(game)
        self._rules: Rules = game.rules
        self._progress = Progress(game.rules)

    # ------------------------------------------------------------------ queries
    @property
    def engine(self) -> Any:
        """The rules engine's state (``None`` before the first deal begins); for reading."""
        return self._progress.engine

    def _at_chance(self) -> bool:
        p = self._progress
        return p.dealer_due or p.engine is None or p.engine.awaiting_deal

    def current_player(self) -> int:
        """The seat to act, ``PlayerId.CHANCE`` while a deal is drawn, or ``TERMINAL``."""
        engine = self._progress.engine
        if engine is not None and engine.game_over:
            return pyspiel.PlayerId.TERMINAL
        if self._at_chance():
            return pyspiel.PlayerId.CHANCE
        return engine.current

    def _legal_actions(self, player: int) -> list[int]:
        """The engine's legal actions of ``player`` (ascending; empty for another seat)."""
        engine = self._progress.engine
        if engine is None or engine.game_over or player != engine.current:
            return []
        return sorted(engine.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The first dealer (a seat) or the next card (its index in the deck), uniform."""
        p, rules = self._progress, self._rules
        if p.dealer_due:
            return [(s, 1.0 / rules.n) for s in range(rules.n)]
        taken = set(p.drawn)
        left = [i for i in range(len(rules.cards)) if i not in taken]
        prob = 1.0 / len(left)
        return [(i, prob) for i in left]

    def is_terminal(self) -> bool:
        engine = self._progress.engine
        return engine is not None and engine.game_over

    def returns(self) -> list[float]:
        """Each seat's return: the AEC env's episode return once the game is over (the
        final place's value), zeros before (OpenSpiel's ``TERMINAL`` reward model)."""
        if self.is_terminal():
            return list(self._progress.returns)
        return [0.0] * self._rules.n

    def env_returns(self) -> list[float]:
        """Each seat's cumulative reward in the PettingZoo env at this point: the env pays
        a seat its place's value when it goes out (the seats still in share the
        opposite), so this equals :meth:`returns` at the end."""
        return list(self._progress.returns)

    def _action_to_string(self, player: int, action: int) -> str:
        """The engine's name of ``action`` in this state (``"swap 7♣ (hand) for K♥
        (table)"``); a chance outcome's card (``"deal 7♣"``) or first dealer."""
        p, rules = self._progress, self._rules
        if player == pyspiel.PlayerId.CHANCE:
            if p.dealer_due:
                return f"first dealer: seat {action}"
            if 0 <= action < len(rules.cards):
                return f"deal {format_card(rules.cards[action], True)}"
            return f"invalid chance outcome {action}"
        if p.engine is None:
            return f"action {action}"
        return p.engine.action_to_string(action, symbols=True)

    def __str__(self) -> str:
        p, rules = self._progress, self._rules
        if p.dealer_due:
            return "drawing the first dealer"
        if p.engine is None or p.engine.awaiting_deal:
            return f"dealing: {len(p.drawn)} of {rules.dealt} cards drawn"
        return rules.spec.render_text(p.engine)

    # ------------------------------------------------------------- transitions
    def _apply_action(self, action: int) -> None:
        p, rules = self._progress, self._rules
        action = int(action)
        if not self._at_chance():
            self._settle(p.engine.apply(action))  # an illegal action raises ValueError
            return
        if p.dealer_due:
            if not 0 <= action < rules.n:
                raise ValueError(f"first dealer {action} is not a seat 0..{rules.n - 1}")
            p.engine = rules.start(dealer=action)
            p.dealer_due = False
            return
        if not 0 <= action < len(rules.cards) or action in p.drawn:
            raise ValueError(
                f"chance outcome {action} is not a card left to deal "
                f"(indices 0..{len(rules.cards) - 1} not drawn yet)"
            )
        p.drawn.append(action)
        if len(p.drawn) < rules.dealt:
            return
        deck = rules.deck_from(p.drawn)
        p.drawn = []
        if p.engine is None:
            p.engine = rules.start(dealer=None)
        self._settle(p.engine.deal(deck))

    def _settle(self, result: Any) -> None:
        """Pay what ``result`` decided, as the AEC env does (``CardGameEnv._settle``)."""
        if result is None:
            return
        p, rules = self._progress, self._rules
        n = rules.n
        if rules.single_round:
            for s, d in rules.spec.round_rewards(result).items():
                p.returns[s] += d
        else:
            places = result.places
            decided = [s for s in places if s not in p.settled]
            p.settled.update(decided)
            playing = sum(1 << s for s in range(n) if s not in p.settled)
            paid = [0.0] * n
            settle_places(n, places, decided, len(decided), playing, p.returns, paid)

    def playout(self, rng: random.Random) -> list[float]:
        """The returns of this game played to the end from here with uniformly random
        legal actions and chance outcomes (``mcts.RandomRolloutEvaluator``'s rollout),
        on a copy stepped in Python without OpenSpiel's per-step bookkeeping, each
        deal's remaining cards drawn in one shuffle (the same uniform deck): several
        times faster. This state is unchanged."""
        sim = self.clone()
        p, rules = sim._progress, sim._rules
        while not (p.engine is not None and p.engine.game_over):
            if p.dealer_due:
                sim._apply_action(rng.randrange(rules.n))
            elif sim._at_chance():
                taken = set(p.drawn)
                left = [i for i in range(len(rules.cards)) if i not in taken]
                rng.shuffle(left)
                need = rules.dealt - len(p.drawn)
                p.drawn.extend(left[: need - 1])
                sim._apply_action(left[need - 1])
            else:
                legal = p.engine.legal_actions()
                sim._apply_action(legal[rng.randrange(len(legal))])
        return list(p.returns)

    # ------------------------------------------------------------ determinizing
    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardGameState:
        """A copy in which every card ``player_id`` cannot see is dealt again at random,
        by the engine's ``determinize(seat, rng)``: the seat's information state (its
        strings and tensors) is unchanged, so OpenSpiel's ``ISMCTSBot`` can search it.

        ``probability_sampler`` is what ISMCTS passes (``pyspiel.UniformProbabilitySampler``,
        any callable returning floats in [0, 1)), or a numpy ``Generator`` or integer seed
        for a reproducible draw. Only at a decision node; the copy keeps this state's
        action history (OpenSpiel's history is not rewritten), so do not replay it."""
        if self._at_chance() or self.is_terminal():
            raise ValueError("resample_from_infostate needs a decision node (not chance or over)")
        engine = self._progress.engine
        seat = engine._check_seat(player_id)
        new = self.clone()
        new._progress.engine = engine.determinize(seat, _generator(probability_sampler))
        return new


class CardObserver:
    """OpenSpiel's observer of a seat: the PettingZoo env's observation vector.

    ``tensor`` is the env's ``observation`` for the seat (the encoder's vector, zeros
    before the first deal), ``dict`` its named blocks (the encoder's layout). The same
    observer serves the observation and the information state: only what a seat knows,
    from its own seat (``IIGObservationType`` with ``public_info`` and a single player's
    private information; OpenSpiel's default observation and information-state types).
    """

    def __init__(self, rules: Rules, iig_obs_type: Any = None, params: Any = None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(
                "only a seat's own view is offered (public_info=True, private_info="
                "SINGLE_PLAYER): the PettingZoo observation has no public-only or "
                "all-players form"
            )
        self._rules = rules
        self.tensor = np.zeros(rules.encoder.size, np.float32)
        self.dict = {name: self.tensor[sl] for name, sl in rules.slices.items()}

    def set_from(self, state: CardGameState, player: int) -> None:
        """Fill ``tensor`` with ``player``'s observation of ``state``."""
        engine = state.engine
        if engine is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self._rules.encoder.encode(engine, player)

    def string_from(self, state: CardGameState, player: int) -> str:
        """``player``'s observation as text: ``p<seat>``, each block's nonzero entries
        (``index`` for a 1, ``index=value`` otherwise) and, if ``player`` is to act,
        ``legal:`` its legal actions. Equal strings exactly when the tensors and the
        legal actions are equal."""
        rules = self._rules
        engine = state.engine
        parts = [f"p{player}"]
        if engine is None:
            return parts[0]
        vec = rules.encoder.encode(engine, player)
        for name, sl in rules.slices.items():
            block = vec[sl]
            hits = np.flatnonzero(block)
            if hits.size:
                entries = [
                    str(i) if block[i] == 1.0 else f"{i}={float(block[i]):.9g}"
                    for i in hits.tolist()
                ]
                parts.append(f"{name}:{','.join(entries)}")
        if state.current_player() == player:
            parts.append("legal:" + ",".join(map(str, sorted(engine.legal_actions()))))
        return " ".join(parts)


class CardGame(pyspiel.Game):
    """An OpenSpiel game over one of the rules engines. A game is a subclass naming its
    spec, ``class SchnauzGame(CardGame, spec=SPEC)``: that sets :attr:`spec` and
    :attr:`game_type` (``game_type(spec)``) and registers the class with OpenSpiel."""

    spec: ClassVar[GameSpec]

    game_type: ClassVar[pyspiel.GameType]

    def __init_subclass__(cls, spec: GameSpec | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if spec is not None:
            cls.spec = spec
            cls.game_type = game_type(spec)
            pyspiel.register_game(cls.game_type, cls)

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        spec = self.spec
        config = config_of(spec, params)
        super().__init__(self.game_type, game_info(spec, config), dict(params or {}))
        self.config = config
        self.rules = Rules(spec, config)

    def new_initial_state(self) -> CardGameState:
        """A game before its first chance node (the first dealer or the first card)."""
        return CardGameState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CardObserver:
        """The observer of a seat's view (see :class:`CardObserver`)."""
        return CardObserver(self.rules, iig_obs_type, params)


def seeded_resampler(seed: int) -> Callable[[CardGameState, int], CardGameState]:
    """A resampler for ``ISMCTSBot.set_resampler`` drawing from one seeded generator, so
    a search with a seeded ``random_state`` is reproducible (OpenSpiel's default sampler
    is seeded from the clock)."""
    rng = np.random.default_rng(seed)

    def resample(state: CardGameState, player: int) -> CardGameState:
        return state.resample_from_infostate(player, rng)

    return resample

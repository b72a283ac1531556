"""One game in the browser: a person in one seat, bots in the others.

A :class:`Table` drives the game's own AEC environment (``raw_env``) exactly as the
terminal game does (:class:`schnauz_env.play.session.PlaySession`): the bots see
``observe(agent)`` as in training, the person's moves go through the same ``step``,
and a :class:`~schnauz_env.records.RecordingEnv` keeps the game's record. After each of
the person's moves the bots play until it is the person's turn again (or the game is
over); what they did comes back as events, in order, for the page to show one by one.

Every move carries the table's ``turn`` (a counter of the person's moves): a move for
another turn (sent twice, or out of turn) is refused, as is a move that is not one of
the legal moves listed, and a refused move changes nothing.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

from policies.base import REGISTRY
from schnauz_env.common.aec import step_out_dead
from schnauz_env.games import env_module
from schnauz_env.play.opponents import FALLBACK, SHIPPED, make_lineup
from schnauz_env.records import Record, RecordingEnv, Seat, file_sha256
from schnauz_env.web.coach import (
    NO_VALUE_HEAD,
    Catalog,
    Decision,
    ModelFile,
    coach_policy,
    expert_estimates,
    move_probabilities,
    require_model,
    review,
    shipped_for,
)
from schnauz_env.web.errors import ApiError, bad_request
from schnauz_env.web.views import (
    final_view,
    legal_moves,
    make_screen,
    move_event,
    result_events,
    table_view,
)

#: How many events of the game the page gets back on a reload (its log).
LOG_EVENTS = 200
#: The longest move a request may send (a Thirteen play of 13 cards, then "play").
MAX_MOVE_ACTIONS = 14


@functools.lru_cache(maxsize=64)
def _sha256(path: str) -> str:
    """A model file's SHA-256 (a record names a model by it), read once per file."""
    return file_sha256(path)


def record_seats(
    game: str, config: Any, seat: int, wanted: list[str] | None, seed: int
) -> list[Seat]:
    """Who sits where, as a record names them: ``human`` at ``seat``; each bot by its
    registered name, a model file by its name and SHA-256 (the shipped ``model`` too),
    with its seed. The same names as ``schnauz play --record`` gives
    (:func:`policies.evaluation.runner.seat_identity`), without importing the evaluation
    floor, whose statistics need SciPy, which the ``web`` extra does not install."""
    wanted = wanted or [SHIPPED if shipped_for(game, config) is not None else FALLBACK]
    seats = [Seat("human") for _ in range(config.num_players)]
    bots = [s for s in range(config.num_players) if s != seat]
    for k, s in enumerate(bots):
        name = wanted[k % len(wanted)]
        if (game, name.partition(":")[0]) in REGISTRY:
            path = shipped_for(game, config) if name == SHIPPED else None
            seats[s] = Seat(name, _sha256(str(path)) if path is not None else None)
        else:  # a model file, never named by a path of this machine
            seats[s] = Seat(Path(name).name, _sha256(name))
        seats[s].seed = seed + 1 + s
    return seats


class Table:
    """A ``game`` table under ``config``: the person in ``seat``, the opponents named
    ``wanted`` (policy specs resolved by the :class:`~schnauz_env.web.coach.Catalog`;
    ``None``: the terminal game's default), the deal and the bots fixed by ``seed``."""

    def __init__(
        self,
        game: str,
        config: Any,
        seat: int,
        wanted: list[str] | None,
        seed: int,
        coach: ModelFile | None = None,
    ) -> None:
        self.game = game
        self.config = config
        self.seat = seat
        self.seed = seed
        self.coach_model = coach
        try:
            lineup = make_lineup(game, config, seat, wanted, seed)
        except ValueError as err:  # a model for other rules, no shipped model, ...
            raise ApiError(422, "invalid", str(err)) from None
        self.bots = lineup.policies
        self.note = lineup.note
        names = ["You" if s == seat else lineup.names[s] for s in range(config.num_players)]
        self.names = names
        self.screen = make_screen(game, names, seat)
        seats = record_seats(game, config, seat, wanted, seed)
        raw = env_module(game).raw_env(**config.to_dict())
        self.env = RecordingEnv(raw, game, seats, meta={"source": "schnauz serve"})
        self.lock = threading.Lock()
        self.turn = 0
        self.log: list[dict[str, Any]] = []
        self.decisions: list[Decision] = []
        self._moves: list[dict[str, Any]] | None = None
        self._watching = False
        self.env.reset(seed=seed)
        for bot in self.bots.values():
            bot.reset()
        state = self.env.game
        self._last_result = state.last_result
        fresh: list[dict[str, Any]] = []
        opening = getattr(state, "opening_result", None)
        if opening is not None:  # Scat: the deal itself ended the first round
            fresh += result_events(game, self.screen, opening, state)
            self._last_result = opening
        fresh += self._advance()
        self.log += fresh
        self._fresh = fresh

    # ------------------------------------------------------------ the game
    @property
    def state(self) -> Any:
        return self.env.game

    def your_turn(self) -> bool:
        state = self.state
        return not state.game_over and state.current == self.seat and not self.screen.is_out(state)

    def moves(self) -> list[dict[str, Any]]:
        """The person's legal moves now (empty when it is not their turn)."""
        if not self.your_turn():
            return []
        if self._moves is None:
            self._moves = legal_moves(self.game, self.screen, self.state)
        return self._moves

    def _step(self, seat: int, action: int) -> list[dict[str, Any]]:
        """Play ``action`` for ``seat``; the events the table saw."""
        state = self.state
        events = []
        said = move_event(self.screen, state, seat, action, self.seat)
        self.env.step(action)
        if said is not None:
            events.append(said)
        result = state.last_result
        if result is not None and result is not self._last_result:
            self._last_result = result
            events += result_events(self.game, self.screen, result, state)
        return events

    def _advance(self) -> list[dict[str, Any]]:
        """Let the bots play until the person is to move or the game is over."""
        events: list[dict[str, Any]] = []
        env, state = self.env, self.state
        while True:
            step_out_dead(self.env)
            if state.game_over:
                break
            seat = state.current
            if seat == self.seat and not self.screen.is_out(state):
                break
            obs = env.observe(env.agent_selection)
            action = int(self.bots[seat].act(obs["observation"], obs["action_mask"]))
            events += self._step(seat, action)
            if not self._watching and self.screen.is_out(state) and not state.game_over:
                self._watching = True
                events.append(
                    {"type": "info", "text": "You are out of the game; the bots play on."}
                )
        if self.your_turn():  # game words met for the first time, as the terminal explains them
            events += [{"type": "info", "text": t.plain} for t in self.screen.explain(state)]
        self._moves = None
        return events

    def play(self, turn: Any, actions: Any) -> list[dict[str, Any]]:
        """The person's move ``actions`` for ``turn``; the events until their next turn.
        Refused (and nothing changed) unless ``turn`` is the current turn and
        ``actions`` one of the legal moves."""
        if isinstance(turn, bool) or not isinstance(turn, int):
            raise bad_request(f"'turn' must be an integer (the table's turn), got {turn!r}")
        if (
            not isinstance(actions, list)
            or not 1 <= len(actions) <= MAX_MOVE_ACTIONS
            or not all(isinstance(a, int) and not isinstance(a, bool) for a in actions)
        ):
            raise bad_request(
                f"'actions' must be a list of 1 to {MAX_MOVE_ACTIONS} action ids (integers), "
                f"got {actions!r}"
            )
        state = self.state
        if state.game_over:
            raise ApiError(409, "game_over", "the game is over: no more moves", turn=self.turn)
        if turn != self.turn:
            raise ApiError(
                409,
                "wrong_turn",
                f"this move is for turn {turn}, but the table is at turn {self.turn}: "
                + (
                    "it was already played (sent twice?)"
                    if turn < self.turn
                    else "that turn has not come yet"
                ),
                turn=self.turn,
            )
        moves = self.moves()
        if not moves:  # the table never waits for the bots, so this is a bug, not a request
            raise ApiError(409, "not_your_turn", "it is not your turn", turn=self.turn)
        chosen = next((m for m in moves if m["actions"] == actions), None)
        if chosen is None:
            raise ApiError(
                422,
                "illegal_move",
                f"{self._name(actions)} is not a legal move now; the legal moves are: "
                + "; ".join(f"{m['label']} {m['actions']}" for m in moves[:30])
                + ("; …" if len(moves) > 30 else ""),
                legal=[m["actions"] for m in moves],
                turn=self.turn,
            )
        self.decisions.append(
            Decision(
                index=len(self.env.recorder.actions),
                state=state.clone(),
                actions=tuple(actions),
                moves=[tuple(m["actions"]) for m in moves],
                labels=[self._label(m) for m in moves],
            )
        )
        events: list[dict[str, Any]] = []
        for a in actions:
            events += self._step(self.seat, a)
        self.turn += 1
        events += self._advance()
        self.log += events
        self._fresh = events
        return events

    def _label(self, move: dict[str, Any]) -> str:
        cards = move.get("cards")
        return f"{move['label']} {' '.join(cards)}" if cards else move["label"]

    def _name(self, actions: list[int]) -> str:
        """``actions`` in words, as far as the rules name them."""
        names = []
        for a in actions:
            try:
                names.append(f"{self.state.action_to_string(a, symbols=True)} ({a})")
            except Exception:  # an id outside the game's table
                names.append(f"action {a} (no such action)")
        return ", ".join(names)

    # ------------------------------------------------------------ what the page gets
    def view(self, events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The table from the person's seat, their moves, and ``events``: those of a
        move just played, or (``None``, for a new or reloaded page) the events of the last
        move and ``log``, the game's latest events."""
        state = self.state
        out = table_view(self.game, self.screen, state, self.seat)
        out.update(
            {
                "game": self.game,
                "seat": self.seat,
                "names": self.names,
                "seed": self.seed,
                "turn": self.turn,
                "your_turn": self.your_turn(),
                "note": self.note,
                "moves": self.moves(),
                "events": self._fresh if events is None else events,
                "final": final_view(self.screen, state, self.seat),
                **({"log": self.log[-LOG_EVENTS:]} if events is None else {}),
                "coach": {
                    "available": self.coach_model is not None,
                    "model": self.coach_model.name if self.coach_model else None,
                },
            }
        )
        return out

    def coach(self, turn: Any) -> dict[str, Any]:
        """The coach's view of the person's current decision (``turn``, to be sure the
        page asks about the moves it shows)."""
        model = require_model(self.coach_model, self.game)
        if turn is not None and turn != self.turn:
            raise ApiError(
                409, "wrong_turn", f"the table is at turn {self.turn}, not {turn}", turn=self.turn
            )
        moves = self.moves()
        if not moves:
            raise ApiError(409, "not_your_turn", "the coach speaks on your turn", turn=self.turn)
        policy = coach_policy(model.path, self.game, self.config)
        state = self.state
        actions = [m["actions"] for m in moves]
        probs = move_probabilities(policy, self.env.encoder, state, self.seat, actions)
        out: dict[str, Any] = {
            "turn": self.turn,
            "model": model.name,
            "probabilities": [{"id": m["id"], "p": p} for m, p in zip(moves, probs, strict=True)],
            "model_move": max(range(len(moves)), key=probs.__getitem__),
            "value": None,
            "value_note": NO_VALUE_HEAD,
            "expert": None,
        }
        if self.game == "schnauz":
            obs = self.env.encoder.encode(state, self.seat)
            out["expert"] = expert_estimates(self.config, obs, actions)
        return out

    def review(self) -> list[dict[str, Any]]:
        """After the game: the person's moves the model rated clearly worse."""
        model = require_model(self.coach_model, self.game)
        if not self.state.game_over:
            raise ApiError(409, "game_not_over", "the review comes after the game")
        policy = coach_policy(model.path, self.game, self.config)
        return review(policy, self.env.encoder, self.seat, self.decisions)

    def record(self) -> Record:
        """The game's record so far (finished once the game is over)."""
        return self.env.record()


def new_table(
    catalog: Catalog,
    game: str,
    config: Any,
    seat: int,
    opponents: list[Any] | None,
    seed: int,
) -> Table:
    """A table whose opponents are named as a request names them (checked against the
    catalog; an operator's model by its file name)."""
    wanted = [catalog.resolve(game, name) for name in opponents] if opponents else None
    return Table(game, config, seat, wanted, seed, catalog.coach_model(game, config))


__all__ = ["LOG_EVENTS", "Table", "new_table"]

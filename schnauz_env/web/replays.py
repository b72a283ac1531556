"""A recorded game, move by move, in the browser: a loaded record or the game just played.

A :class:`ReplaySession` replays a :class:`~schnauz_env.records.Record` through the
game's environment (:class:`schnauz_env.records.Replay`), so every move is checked as
in ``schnauz replay``; a record that stops replaying is shown up to the move that
differs, with the reason. The page asks for a position (the table after ``k`` moves)
from one seat's view or with every hand open. Positions are rebuilt from a copy of the
engine state kept every :data:`CHECKPOINT` moves, so a long game costs little memory.
"""

from __future__ import annotations

from typing import Any

from schnauz_env.play.opponents import bot_name
from schnauz_env.records import Record, RecordError, Replay
from schnauz_env.web.errors import ApiError, invalid
from schnauz_env.web.views import final_view, make_screen, move_event, result_events, table_view

#: A copy of the engine state is kept every this many moves.
CHECKPOINT = 32
#: The longest record the server replays (a long Thirteen match has a few thousand).
MAX_REPLAY_MOVES = 20_000
#: How many events before a position the page gets (the latest ones).
EVENTS_SHOWN = 200


class ReplaySession:
    """``record`` to step through; ``review``: the coach's list of clearly worse moves
    (for the game just played), ``names``: how the table called the seats."""

    def __init__(
        self,
        record: Record,
        names: list[str] | None = None,
        viewer: int | None = None,
        review: list[dict[str, Any]] | None = None,
    ) -> None:
        if len(record.actions) > MAX_REPLAY_MOVES:
            raise invalid(
                f"the record has {len(record.actions)} moves; this server replays at most "
                f"{MAX_REPLAY_MOVES}"
            )
        self.record = record
        self.game = record.game
        humans = [s for s, seat in enumerate(record.seats) if seat.policy == "human"]
        self.default_viewer = (
            viewer if viewer is not None else (humans[0] if len(humans) == 1 else None)
        )
        self.names = names or [
            "human" if s.policy == "human" else bot_name(s.policy) for s in record.seats
        ]
        self.review = review
        self.total = len(record.actions)
        self.error: str | None = None
        self.error_at: int | None = None
        self._checkpoints: dict[int, Any] = {}
        self._walks: dict[int | None, list[tuple[int, dict[str, Any]]]] = {}
        try:
            Replay(record)  # the record as a whole: format, rules, deal
        except RecordError as err:
            raise invalid(f"the record cannot be replayed: {err}") from None
        self._walk(self.default_viewer)
        self.end = self.error_at if self.error_at is not None else self.total

    def _names_for(self, viewer: int | None) -> list[str]:
        return ["You" if s == viewer else n for s, n in enumerate(self.names)]

    def _walk(self, viewer: int | None) -> list[tuple[int, dict[str, Any]]]:
        """Every event of the game as ``viewer`` is told it, each with the position
        from which it is seen (and, on the first walk, the checkpoints and the error)."""
        if viewer in self._walks:
            return self._walks[viewer]
        first = not self._walks
        screen = make_screen(self.game, self._names_for(viewer), viewer)
        walk = Replay(self.record)
        state = walk.env.game
        events: list[tuple[int, dict[str, Any]]] = []
        if first:
            self._checkpoints[0] = state.clone()
        opening = getattr(state, "opening_result", None)
        if opening is not None:
            events += [(0, e) for e in result_events(self.game, screen, opening, state)]
        shown = opening if opening is not None else state.last_result
        try:
            for step in walk:
                k = step.index
                if state.last_result is not None and state.last_result is not shown:
                    shown = state.last_result
                    events += [(k, e) for e in result_events(self.game, screen, shown, state)]
                if first and k % CHECKPOINT == 0:
                    self._checkpoints[k] = state.clone()
                said = move_event(screen, state, step.seat, step.action, viewer)
                if said is not None:
                    said["move"] = k + 1
                    events.append((k + 1, said))
            if state.last_result is not None and state.last_result is not shown:
                events += [
                    (self.total, e)
                    for e in result_events(self.game, screen, state.last_result, state)
                ]
            walk.result()
        except RecordError as err:
            if first:
                self.error = str(err)
                self.error_at = walk.played
        self._walks[viewer] = events
        return events

    def state_at(self, k: int) -> Any:
        """The engine state after the first ``k`` moves (a fresh copy)."""
        base = max(c for c in self._checkpoints if c <= k)
        state = self._checkpoints[base].clone()
        for _, action in self.record.actions[base:k]:
            state.apply(action)
        return state

    def position(self, k: Any, viewer: Any = "default") -> dict[str, Any]:
        """The page's view after ``k`` moves, seen by ``viewer`` (a seat, ``None`` for
        every hand open, ``"default"``: the person who played, if the record says)."""
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= self.end:
            raise ApiError(
                422, "invalid", f"position must be a move number 0..{self.end}, got {k!r}"
            )
        if viewer == "default":
            viewer = self.default_viewer
        n = self.record.num_players
        if viewer is not None and (
            isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < n
        ):
            raise ApiError(422, "invalid", f"seat must be 0..{n - 1} or 'all', got {viewer!r}")
        state = self.state_at(k)
        names = self._names_for(viewer)
        screen = make_screen(self.game, names, viewer)
        out = table_view(self.game, screen, state, viewer)
        events = [e for at, e in self._walk(viewer) if at <= k]
        nxt = None
        if k < self.total:  # at a move that does not replay: the recorded one
            seat, action = self.record.actions[k]
            try:
                text = state.action_to_string(action, symbols=True)
            except Exception:  # an id outside the game's table
                text = f"action {action} (no such action)"
            nxt = {"seat": seat, "who": screen.subject(seat), "text": text}
        out.update(
            {
                "game": self.game,
                "position": k,
                "total": self.total,
                "end": self.end,
                "viewer": viewer,
                "names": names,
                "seed": self.record.seed,
                "events": events[-EVENTS_SHOWN:],
                "next": nxt,
                "final": final_view(screen, state, viewer),
                "error": self.error if k == self.end else None,
                "review": self.review,
                "finished": self.record.finished,
            }
        )
        return out

    def summary(self) -> dict[str, Any]:
        """What the page needs to start stepping."""
        return {
            "game": self.game,
            "total": self.total,
            "end": self.end,
            "error": self.error,
            "seats": [s.to_dict() for s in self.record.seats],
            "names": self.names,
            "viewer": self.default_viewer,
            "review": self.review,
        }


__all__ = ["CHECKPOINT", "MAX_REPLAY_MOVES", "ReplaySession"]

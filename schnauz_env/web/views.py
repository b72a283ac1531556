"""What the page shows, as JSON: the table from one seat, the legal moves, what happened.

The words are the terminal game's (:mod:`schnauz_env.play`): a move is named by the
screen's :meth:`~schnauz_env.play.common.Screen.announce`, a showdown's title and its
explanations (who lost, why, how a tie was broken, what "swimming" means) are those of
the screen's :meth:`~schnauz_env.play.common.Screen.results`, the outcomes those of
:mod:`schnauz_env.play.words`, the legal moves and their notes those of the screen's
menu. This module only takes them apart into fields the page can lay out with card
pictures; it writes no sentence of its own about the rules.

Cards are card codes (``"10H"``; ``None`` for a card the viewer cannot see); the page
shows each as the picture ``/cards/<code>.png``, drawn by :mod:`schnauz_env.render`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from schnauz_env.cards import format_card
from schnauz_env.play.common import Screen, place_name
from schnauz_env.play.scat import ScatScreen
from schnauz_env.play.schnauz import SchnauzScreen
from schnauz_env.play.thirteen import ThirteenScreen, play_label
from schnauz_env.play.words import ZERO_LIVES, scat_outcome, schnauz_outcome

SCREENS: dict[str, type[Screen]] = {
    "schnauz": SchnauzScreen,
    "scat": ScatScreen,
    "thirteen": ThirteenScreen,
}


def make_screen(game: str, names: Sequence[str], seat: int | None) -> Screen:
    """The terminal game's screen of ``game`` for ``seat`` (``None``: every hand open)."""
    return SCREENS[game](list(names), seat)  # type: ignore[arg-type]


def plain(text: Any) -> str:
    """A rich ``Text`` (or a string) as plain text."""
    return text.plain if isinstance(text, Text) else str(text)


def codes(cards: Iterable[int | None]) -> list[str | None]:
    """Cards as codes (``"7C"``); ``None`` stays ``None`` (a card seen from the back)."""
    return [None if c is None else format_card(int(c)) for c in cards]


# ------------------------------------------------------------------ moves


def legal_moves(game: str, screen: Screen, state: Any) -> list[dict[str, Any]]:
    """The moves of the seat to act, in the page's order: ``id`` (index), ``label``,
    ``note``, ``actions`` (the action ids the move plays, in order), and where the move
    touches the cards: ``hand`` (slots of the mover's hand) and ``table`` (table slots
    in Schnauz; the pile in Scat), so that clicking a card can choose it."""
    if game == "thirteen":
        return _thirteen_moves(screen, state)
    from schnauz_env.scat.engine import DISCARD_BASE, DRAW_DISCARD
    from schnauz_env.scat.engine import KNOCK as SCAT_KNOCK
    from schnauz_env.schnauz.engine import SWAP_ALL, SWAP_BASE, swap_slots

    out = []
    for i, m in enumerate(screen.moves(state)):
        a = m.actions[0]
        hand: list[int] = []
        table: list[int] = []
        if game == "schnauz" and SWAP_BASE <= a < SWAP_ALL:
            h, t = swap_slots(a)
            hand, table = [h], [t]
        elif game == "schnauz" and a == SWAP_ALL:
            hand, table = [0, 1, 2], [0, 1, 2]
        elif game == "scat" and DISCARD_BASE <= a < SCAT_KNOCK:
            hand = [a - DISCARD_BASE]
        elif game == "scat" and a == DRAW_DISCARD:
            table = [0]
        out.append(
            {
                "id": i,
                "label": plain(m.label),
                "note": plain(m.note),
                "actions": [int(x) for x in m.actions],
                "hand": hand,
                "table": table,
            }
        )
    return out


def _thirteen_moves(screen: Screen, state: Any) -> list[dict[str, Any]]:
    from schnauz_env.thirteen.combos import STRENGTH
    from schnauz_env.thirteen.engine import DECLARE, PASS, PLAY, play_actions

    if state.phase == DECLARE:
        label = state.action_to_string(PLAY, True)
        return [{"id": 0, "label": label, "note": "", "actions": [PLAY], "hand": [], "table": []}]
    hand = state.hands[state.current]
    plays = sorted(state.legal_plays(), key=lambda p: (len(p), STRENGTH[p[-1]]))
    out: list[dict[str, Any]] = []
    for p in plays:
        out.append(
            {
                "id": len(out),
                "label": play_label(p),
                "note": "",
                "actions": [int(a) for a in play_actions(p)],
                "hand": sorted(hand.index(c) for c in p),
                "table": [],
                "cards": codes(sorted(p, key=STRENGTH.__getitem__)),
            }
        )
    if PASS in state.legal_actions():
        pass_move = next(m for m in screen.moves(state) if m.actions == (PASS,))
        out.append(
            {
                "id": len(out),
                "label": plain(pass_move.label),
                "note": plain(pass_move.note),
                "actions": [PASS],
                "hand": [],
                "table": [],
            }
        )
    return out


# ------------------------------------------------------------------ the table


def table_view(game: str, screen: Screen, state: Any, viewer: int | None) -> dict[str, Any]:
    """The table as ``viewer`` sees it (``None``: every hand open): the header, every
    seat (name, cards, lives or score, notes), the middle of the table, the sentences
    the terminal game shows beside it, and the viewer's hand with its value."""
    out: dict[str, Any] = {
        "header": plain(screen.header(state)),
        "to_act": None if state.game_over else int(state.current),
        "game_over": bool(state.game_over),
        "seats": _seats(game, screen, state, viewer),
        "center": _center(game, screen, state),
        "notes": _notes(screen, state),
    }
    if viewer is not None:
        label = ""
        if game != "thirteen" and state.hands[viewer]:
            label = screen.label_hand(state, state.hands[viewer])  # type: ignore[attr-defined]
        out["hand"] = {"cards": codes(state.hands[viewer]), "label": label}
    return out


def _seats(game: str, screen: Screen, state: Any, viewer: int | None) -> list[dict[str, Any]]:
    seats = []
    for s in range(state.n):
        acting = s == state.current and not state.game_over
        tags: list[str] = []
        seat: dict[str, Any] = {
            "seat": s,
            "name": screen.names[s],
            "you": s == viewer,
            "to_act": acting,
        }
        if game == "thirteen":
            if s in state.finish_order:
                tags.append(f"out {place_name(state.finish_order.index(s) + 1)}")
            elif state.passed[s] and not state.game_over:
                tags.append("passed")
            hand = state.hands[s]
            seat["cards"] = codes(hand) if viewer is None or s == viewer else [None] * len(hand)
            seat["count"] = len(hand)
            seat["score"] = int(state.scores[s])
        else:
            if s == state.dealer and not state.out[s]:
                tags.append("dealer")
            if s == state.knocker:
                tags.append("knocked")
            seat["out"] = bool(state.out[s])
            seat["lives"] = int(state.lives[s])
            seat["lives_text"] = (
                "out"
                if state.out[s]
                else ZERO_LIVES[game]
                if state.lives[s] == 0
                else f"{state.lives[s]} {'life' if state.lives[s] == 1 else 'lives'}"
            )
            seat["cards"] = [] if state.out[s] else codes(state.visible_hand(s, viewer))
        if acting:
            tags.append("to act")
        seat["tags"] = tags
        seats.append(seat)
    return seats


def _center(game: str, screen: Screen, state: Any) -> dict[str, Any]:
    if game == "schnauz":
        return {
            "table": codes(state.table),
            "caption": "" if state.table else "face down until the dealer chooses keep or exchange",
            "out_of_play": codes(state.out_of_play),
            "stock": int(state.stock_size),
        }
    if game == "scat":
        return {
            "pile": codes(state.pile[-1:]),
            "below": codes(state.pile[-4:-1][::-1]),
            "stock": int(state.stock_size),
        }
    from schnauz_env.thirteen.combos import combo_label

    if state.table and state.table_combo is not None:
        caption = f"{combo_label(state.table_combo)} by {screen.who(state.table_by)}"
    elif state.game_over:
        caption = ""
    else:  # the terminal screen's own sentence ("The table is clear: ...")
        caption = plain(_table_lines(screen, state)[0])
    return {
        "table": codes(state.table),
        "caption": caption,
        "selection": codes(state.selection),
    }


def _table_lines(screen: Screen, state: Any) -> list[Text]:
    """The sentences of the terminal screen's table, in order (its first line names the
    cards on the table, which the page draws)."""
    group = screen.table(state)
    assert isinstance(group, Group)
    return [r for r in group.renderables if isinstance(r, Text)]


def _notes(screen: Screen, state: Any) -> list[str]:
    """The terminal screen's sentences beside the table (a knock, the card you drew,
    the card the first play must include), without its line of table cards."""
    return [t.plain for t in _table_lines(screen, state)[1:] if t.plain.strip()]


# ------------------------------------------------------------------ events


def move_event(screen: Screen, state: Any, seat: int, action: int, you: int | None) -> Any:
    """The log line of ``seat`` playing ``action`` (called before it is applied), or
    ``None`` for a step nobody sees (a Thirteen card being selected)."""
    said = screen.announce(state, seat, action)
    if said is None:
        return None
    return {
        "type": "move",
        "seat": int(seat),
        "you": seat == you,
        "who": screen.subject(seat),
        "text": said,
    }


def result_events(game: str, screen: Screen, result: Any, state: Any) -> list[dict[str, Any]]:
    """A round's (or a game's) result as the page shows it: one ``showdown`` per round
    (Scat's tie-break rounds each have their own), with every hand, its value, what it
    cost, and the screen's explanations; Thirteen's player going out as an ``info``."""
    shown = screen.results(result, state)  # once: it marks words as explained
    if game == "thirteen":
        if isinstance(shown, Text):
            return [{"type": "info", "text": shown.plain}]
        assert isinstance(shown, Panel)
        rows = [
            {
                "seat": int(s),
                "name": screen.names[s],
                "you": s == screen.seat,
                "order": place_name(i + 1),
                "points": f"+{result.points.get(s, 0)}",
                "score": int(result.scores[s]),
            }
            for i, s in enumerate(result.finish_order)
        ]
        return [
            {
                "type": "showdown",
                "title": str(shown.title),
                "rows": rows,
                "notes": [],
                "game_over": bool(state.game_over),
            }
        ]
    panels = [shown] if isinstance(shown, Panel) else list(shown.renderables)  # type: ignore[union-attr]
    results = result.chain() if game == "scat" else [result]
    return [
        _showdown(game, screen, r, p, bool(state.game_over))
        for r, p in zip(results, panels, strict=True)
    ]


def _showdown(game: str, screen: Screen, result: Any, panel: Panel, over: bool) -> dict[str, Any]:
    body = panel.renderable
    assert isinstance(body, Group) and isinstance(body.renderables[0], RichTable)
    rows = []
    for s, cards in result.hands.items():
        tags = []
        if s == result.knocker:
            tags.append("knocked")
        if game == "schnauz":
            outcome = schnauz_outcome(result, s)
            if s == result.fire_holder:
                tags.append("Fire!")
        else:
            outcome = scat_outcome(result, s)
            if s in result.blitz_holders:
                tags.append("31!")
        rows.append(
            {
                "seat": int(s),
                "name": screen.names[s],
                "you": s == screen.seat,
                "cards": codes(cards),
                "value": result.labels[s],
                "outcome": outcome,
                "tags": tags,
                "loser": s in result.losers,
            }
        )
    return {
        "type": "showdown",
        "title": str(panel.title),
        "rows": rows,
        "notes": [plain(n) for n in body.renderables[1:]],
        "game_over": over,
    }


# ------------------------------------------------------------------ the end


def final_view(screen: Screen, state: Any, viewer: int | None) -> dict[str, Any] | None:
    """Every seat's place once the game is over (``None`` before), best first, with the
    viewer's verdict in the terminal game's words."""
    if not state.game_over:
        return None
    extra = screen.final_extra(state)
    order = sorted(range(state.n), key=lambda s: state.places[s] or state.n)
    rows = [
        {
            "place": place_name(state.places[s]) if state.places[s] is not None else "-",
            "seat": s,
            "name": screen.names[s],
            "you": s == viewer,
            **{k: v[s] for k, v in extra.items()},
        }
        for s in order
    ]
    verdict = ""
    if viewer is not None:
        place = state.places[viewer]
        if place == 1:
            verdict = "You win!"
        elif place is not None:
            verdict = f"You finished {place_name(place)}."
    return {"header": plain(screen.header(state)), "verdict": verdict, "rows": rows}


__all__ = [
    "SCREENS",
    "codes",
    "final_view",
    "legal_moves",
    "make_screen",
    "move_event",
    "plain",
    "result_events",
    "table_view",
]

"""The table every game's picture is drawn on: felt, seats around it, hands, badges.

A picture is always :data:`HEIGHT` × :data:`WIDTH` pixels, whatever the game and the
table size, so frames of one episode (or of different games) make one video.
The viewer's seat is at the bottom; the player to their left (seat + 1) is next
clockwise, as at a real table.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw

from schnauz_env.cards import SUIT_SYMBOLS
from schnauz_env.render import HEIGHT, WIDTH
from schnauz_env.render.cards import card_back, card_face, card_size, card_slot, draw_suit, font

BACKGROUND = (16, 70, 44)
FELT = (28, 112, 68)
FELT_EDGE = (92, 60, 30)
TEXT = (240, 240, 232)
MUTED = (170, 200, 180)
GOLD = (236, 190, 60)
ACTING = (255, 214, 64)
KNOCK = (210, 50, 50)
BLUE = (90, 160, 235)
GREY = (140, 150, 145)
PIP_RED = (255, 120, 120)  # a red suit symbol that reads on the green felt


@dataclass
class Seat:
    """What one seat shows: a title, its cards (``None`` = a face-down card), tags."""

    seat: int
    title: str
    cards: Sequence[int | None] = ()
    status: str = ""
    tokens: int = 0
    """Small gold tokens drawn after the status (lives)."""
    badges: list[tuple[str, tuple[int, int, int]]] = field(default_factory=list)
    status_color: tuple[int, int, int] | None = None
    acting: bool = False
    dim: bool = False
    raised: frozenset[int] = frozenset()
    """Indices into ``cards`` drawn raised (Thirteen: the selected cards)."""


def seat_centres(
    n: int, bottom: int, rx: float = 330, ry: float = 215
) -> dict[int, tuple[int, int]]:
    """Centre of each seat's block: ``bottom`` at the bottom, then clockwise (to its left)."""
    cx, cy = WIDTH / 2, HEIGHT / 2 + 10
    out = {}
    for k in range(n):
        angle = math.pi / 2 + 2 * math.pi * k / n
        out[(bottom + k) % n] = (round(cx + rx * math.cos(angle)), round(cy + ry * math.sin(angle)))
    return out


class Canvas:
    """A picture of a table under construction; :meth:`array` gives the ``(H, W, 3)`` uint8."""

    def __init__(self) -> None:
        self.image = Image.new("RGBA", (WIDTH, HEIGHT), BACKGROUND)
        self.draw = ImageDraw.Draw(self.image)
        m = 40
        self.draw.ellipse(
            (m, m + 20, WIDTH - m, HEIGHT - m + 10), fill=FELT, outline=FELT_EDGE, width=10
        )

    # ------------------------------------------------------------- primitives
    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int = 16,
        fill: tuple[int, int, int] = TEXT,
        anchor: str = "la",
    ) -> tuple[int, int, int, int]:
        f = font(size)
        if not any(sym in text for sym in SUIT_SYMBOLS):
            self.draw.text(xy, text, font=f, fill=fill, anchor=anchor)
            return tuple(int(v) for v in self.draw.textbbox(xy, text, font=f, anchor=anchor))  # type: ignore[return-value]
        # The built-in font has no suit symbols: draw them as shapes between the words.
        parts = re.split(f"([{''.join(SUIT_SYMBOLS)}])", text)
        pip = size * 0.7
        widths = [
            pip + 5 if part in SUIT_SYMBOLS else self.draw.textlength(part, font=f)
            for part in parts
        ]
        total = sum(widths)
        h, v = anchor[0], anchor[1]
        x = xy[0] - {"l": 0, "m": total / 2, "r": total}[h]
        top, bottom = self.draw.textbbox((0, xy[1]), "8", font=f, anchor=f"l{v}")[1::2]
        for part, w in zip(parts, widths, strict=True):
            if part in SUIT_SYMBOLS:
                suit = SUIT_SYMBOLS.index(part)
                color = PIP_RED if suit in (2, 3) else fill
                draw_suit(self.draw, suit, x + w / 2, (top + bottom) / 2, pip, color)
            elif part:
                self.draw.text((x, xy[1]), part, font=f, fill=fill, anchor=f"l{v}")
            x += w
        left = xy[0] - {"l": 0, "m": total / 2, "r": total}[h]
        return int(left), int(top), int(left + total), int(bottom)

    def badge(
        self, xy: tuple[float, float], text: str, fill: tuple[int, int, int], size: int = 13
    ) -> int:
        """A rounded label with its left edge at ``xy[0]``, centred on ``xy[1]``; returns its width."""
        f = font(size)
        x0, y0, x1, y1 = self.draw.textbbox((0, 0), text, font=f, anchor="lm")
        w = x1 - x0 + 10
        x, y = xy
        self.draw.rounded_rectangle(
            (x, y - size * 0.75, x + w, y + size * 0.75), radius=5, fill=fill
        )
        self.draw.text((x + 5, y), text, font=f, fill=(255, 255, 255), anchor="lm")
        return int(w)

    def tokens(self, xy: tuple[float, float], count: int, radius: int = 6) -> None:
        x, y = xy
        for i in range(count):
            cx = x + radius + i * (2 * radius + 3)
            self.draw.ellipse(
                (cx - radius, y - radius, cx + radius, y + radius), fill=GOLD, outline=(120, 90, 20)
            )

    def paste(self, img: Image.Image, xy: tuple[float, float]) -> None:
        self.image.alpha_composite(img, (int(xy[0]), int(xy[1])))

    def cards(
        self,
        cards: Sequence[int | None],
        centre: tuple[float, float],
        width: int = 56,
        max_span: float = 260,
        raised: frozenset[int] = frozenset(),
        slots: int = 0,
    ) -> tuple[int, int, int, int]:
        """A row of cards centred at ``centre`` (``None`` = face down), overlapping to fit
        ``max_span`` pixels; ``slots`` draws empty places when there are fewer cards."""
        w, h = card_size(width)
        k = max(len(cards), slots, 1)
        step = min(w + 6, (max_span - w) / (k - 1)) if k > 1 else 0
        span = w + step * (k - 1)
        x0 = centre[0] - span / 2
        y0 = centre[1] - h / 2
        for i in range(k):
            x = x0 + i * step
            if i >= len(cards):
                self.paste(card_slot(width), (x, y0))
                continue
            c = cards[i]
            img = card_back(width) if c is None else card_face(int(c), width)
            self.paste(img, (x, y0 - (10 if i in raised else 0)))
        return int(x0), int(y0), int(x0 + span), int(y0 + h)

    def outline(self, box: tuple[float, float, float, float], color=ACTING, width: int = 3) -> None:
        self.draw.rounded_rectangle(box, radius=10, outline=color, width=width)

    # ------------------------------------------------------------------ seats
    def seat(
        self, s: Seat, centre: tuple[int, int], width: int = 56, max_span: float = 200
    ) -> None:
        """A seat's block: title and badges, the hand, then the status and tokens."""
        _, h = card_size(width)
        cx, cy = centre
        top = cy - h / 2 - 22
        color = GREY if s.dim else TEXT
        title_box = self.text((cx, top), s.title, 15, color, anchor="mt")
        x = title_box[2] + 6
        for text, fill in s.badges:
            x += self.badge((x, (title_box[1] + title_box[3]) / 2), text, fill) + 4
        if s.cards:
            box = self.cards(s.cards, (cx, cy), width, max_span, s.raised)
        else:
            box = (int(cx - 40), int(cy - h / 2), int(cx + 40), int(cy + h / 2))
        status_y = cy + h / 2 + 6
        sbox = self.text(
            (cx, status_y), s.status, 14, s.status_color or (GREY if s.dim else MUTED), anchor="mt"
        )
        if s.tokens:
            self.tokens((sbox[2] + 6, (sbox[1] + sbox[3]) / 2), s.tokens)
        if s.acting:
            x0 = min(box[0], title_box[0], sbox[0]) - 8
            x1 = max(box[2], x, sbox[2] + (s.tokens * 15 if s.tokens else 0)) + 8
            self.outline((x0, top - 6, x1, status_y + 22))

    def header(self, lines: Sequence[str], view: str) -> None:
        for i, line in enumerate(lines):
            self.text((14, 10 + 22 * i), line, 18 if i == 0 else 15, TEXT if i == 0 else MUTED)
        self.text((WIDTH - 14, 10), view, 15, MUTED, anchor="ra")

    def array(self) -> np.ndarray:
        """The picture as an ``(HEIGHT, WIDTH, 3)`` uint8 array."""
        return np.asarray(self.image.convert("RGB"), dtype=np.uint8).copy()


def view_label(seat: int | None) -> str:
    return "all hands open" if seat is None else f"seen from seat {seat}"

"""Card faces and card backs drawn with Pillow: rank, suit symbol, red or black.

The suit symbols are drawn as shapes, not font glyphs, so a picture looks the
same on every machine whatever fonts it has; text uses Pillow's built-in font.
Faces are drawn at four times their size and scaled down, for smooth edges, and
cached per card and size. Pillow is imported here, so import this module only
when drawing (the environments import :mod:`schnauz_env.render` lazily).
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from schnauz_env.cards import RANKS

RED = (200, 28, 40)
BLACK = (25, 25, 30)
WHITE = (252, 252, 248)
CARD_EDGE = (120, 120, 120)
BACK_BLUE = (34, 64, 150)
BACK_LINE = (86, 118, 200)

#: Cards are 5:7, like real ones.
ASPECT = 1.4
_SCALE = 4  # supersampling factor


def card_size(width: int) -> tuple[int, int]:
    """``(width, height)`` of a card drawn ``width`` pixels wide."""
    return width, round(width * ASPECT)


@lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's built-in font at ``size`` pixels (scalable since Pillow 10.1)."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: a fixed bitmap font
        return ImageFont.load_default()


def suit_color(suit: int) -> tuple[int, int, int]:
    """Hearts and diamonds red, clubs and spades black (suit index 0 ♣, 1 ♠, 2 ♥, 3 ♦)."""
    return RED if suit in (2, 3) else BLACK


def draw_suit(
    draw: ImageDraw.ImageDraw, suit: int, cx: float, cy: float, size: float, fill=None
) -> None:
    """Draw the symbol of ``suit`` (0 ♣, 1 ♠, 2 ♥, 3 ♦) centred at ``(cx, cy)``, ``size`` tall."""
    fill = fill or suit_color(suit)
    s = size

    def circle(x: float, y: float, r: float) -> None:
        draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)

    if suit == 3:  # diamond
        draw.polygon(
            [(cx, cy - s / 2), (cx + s * 0.38, cy), (cx, cy + s / 2), (cx - s * 0.38, cy)],
            fill=fill,
        )
    elif suit == 2:  # heart: two lobes and a point
        r = s * 0.26
        circle(cx - r * 0.92, cy - s * 0.2, r)
        circle(cx + r * 0.92, cy - s * 0.2, r)
        draw.polygon(
            [
                (cx - 2 * r * 0.93, cy - s * 0.12),
                (cx + 2 * r * 0.93, cy - s * 0.12),
                (cx, cy + s / 2),
            ],
            fill=fill,
        )
    elif suit == 1:  # spade: an upside-down heart on a stem
        r = s * 0.24
        circle(cx - r * 0.92, cy + s * 0.08, r)
        circle(cx + r * 0.92, cy + s * 0.08, r)
        draw.polygon(
            [
                (cx - 2 * r * 0.95, cy + s * 0.02),
                (cx + 2 * r * 0.95, cy + s * 0.02),
                (cx, cy - s / 2),
            ],
            fill=fill,
        )
        draw.polygon(
            [(cx, cy + s * 0.05), (cx - s * 0.17, cy + s / 2), (cx + s * 0.17, cy + s / 2)],
            fill=fill,
        )
    else:  # club: three leaves on a stem
        r = s * 0.2
        circle(cx, cy - s * 0.27, r)
        circle(cx - s * 0.23, cy + s * 0.06, r)
        circle(cx + s * 0.23, cy + s * 0.06, r)
        circle(cx, cy - s * 0.02, r * 0.8)
        draw.polygon(
            [(cx, cy - s * 0.05), (cx - s * 0.16, cy + s / 2), (cx + s * 0.16, cy + s / 2)],
            fill=fill,
        )


def _blank(width: int, fill, outline) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    w, h = card_size(width)
    big = Image.new("RGBA", (w * _SCALE, h * _SCALE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.rounded_rectangle(
        (0, 0, w * _SCALE - 1, h * _SCALE - 1),
        radius=int(w * _SCALE * 0.1),
        fill=fill,
        outline=outline,
        width=max(2, _SCALE),
    )
    return big, draw


def _finish(big: Image.Image, width: int) -> Image.Image:
    return big.resize(card_size(width), Image.Resampling.LANCZOS)


@lru_cache(maxsize=512)
def card_face(card: int, width: int = 60) -> Image.Image:
    """The face of ``card`` (``rank * 4 + suit``) as an RGBA image ``width`` pixels wide."""
    rank, suit = int(card) >> 2, int(card) & 3
    big, draw = _blank(width, WHITE, CARD_EDGE)
    w, h = big.size
    color = suit_color(suit)
    label = RANKS[rank]
    f = font(int(w * (0.3 if len(label) == 1 else 0.26)))
    # corner index: rank over a small suit, top left and (turned) bottom right
    corner = Image.new("RGBA", (int(w * 0.36), int(h * 0.42)), (0, 0, 0, 0))
    cd = ImageDraw.Draw(corner)
    cw = corner.size[0]
    stroke = max(1, int(w * 0.012))  # a little weight for the thin built-in font
    cd.text(
        (cw / 2, h * 0.03),
        label,
        font=f,
        fill=color,
        anchor="mt",
        stroke_width=stroke,
        stroke_fill=color,
    )
    draw_suit(cd, suit, cw / 2, h * 0.3, w * 0.17, color)
    big.alpha_composite(corner, (int(w * 0.02), int(h * 0.02)))
    turned = corner.rotate(180)
    big.alpha_composite(
        turned, (w - corner.size[0] - int(w * 0.02), h - corner.size[1] - int(h * 0.02))
    )
    draw_suit(draw, suit, w * 0.5, h * 0.5, w * 0.4, color)
    return _finish(big, width)


@lru_cache(maxsize=16)
def card_back(width: int = 60) -> Image.Image:
    """The back of a card (for cards the viewer cannot see), ``width`` pixels wide."""
    big, draw = _blank(width, WHITE, CARD_EDGE)
    w, h = big.size
    m = int(w * 0.08)
    draw.rounded_rectangle((m, m, w - m, h - m), radius=int(w * 0.06), fill=BACK_BLUE)
    step = max(6, w // 7)
    lw = max(2, _SCALE)
    for x in range(-h, w, step):
        draw.line((x, 0, x + h, h), fill=BACK_LINE, width=lw)
        draw.line((x + h, 0, x, h), fill=BACK_LINE, width=lw)
    # clear the lines outside the blue panel again
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle((m, m, w - m, h - m), radius=int(w * 0.06), fill=255)
    plain, _ = _blank(width, WHITE, CARD_EDGE)
    plain.paste(big, (0, 0), mask)
    ImageDraw.Draw(plain).rounded_rectangle(
        (m, m, w - m, h - m), radius=int(w * 0.06), outline=WHITE, width=lw
    )
    return _finish(plain, width)


@lru_cache(maxsize=16)
def card_slot(width: int = 60) -> Image.Image:
    """An empty place for a card: a faint outline."""
    w, h = card_size(width)
    big = Image.new("RGBA", (w * _SCALE, h * _SCALE), (0, 0, 0, 0))
    ImageDraw.Draw(big).rounded_rectangle(
        (0, 0, w * _SCALE - 1, h * _SCALE - 1),
        radius=int(w * _SCALE * 0.1),
        outline=(255, 255, 255, 90),
        width=2 * _SCALE,
    )
    return _finish(big, width)

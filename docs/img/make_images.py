"""Make the pictures in docs/play.md: ``python docs/img/make_images.py`` (writes them to
``results/img/``; ``--out docs/img`` replaces the shipped ones).

* ``table.png``: ``render_mode="rgb_array"`` of a Schnauz table, seen from seat 0.
* ``play.png``: ``schnauz play`` running in tmux, its screen captured with colours
  (``tmux capture-pane -e``) and drawn with Pillow in DejaVu Sans Mono.

Needs the ``play`` extra, the ``expert`` baseline, tmux and the DejaVu fonts
(``apt-get install tmux fonts-dejavu-core``).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from rich.terminal_theme import MONOKAI
from rich.text import Text

HERE = Path(__file__).parent
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")


def table_png(path: Path) -> None:
    from schnauz_env import schnauz_v0

    env = schnauz_v0.raw_env(num_players=4, render_mode="rgb_array", render_seat=0)
    env.reset(seed=4)
    rng = np.random.default_rng(1)
    for _ in range(9):  # a few moves into the first round: some cards are known
        legal = [a for a in env.game.legal_actions() if a != 13]
        env.step(int(rng.choice(legal)))
    Image.fromarray(env.render()).save(path, optimize=True)


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def capture_play(cols: int = 104, rows: int = 40) -> str:
    """Start ``schnauz play`` in tmux, make one move, and return the screen with colours."""
    session = "schnauz-play-shot"
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    cmd = f"{sys.executable} -m schnauz_env.play.cli play --seed 11 --speed 0"
    tmux("new-session", "-d", "-s", session, "-x", str(cols), "-y", str(rows), cmd)
    try:
        for keys in (None, "1"):
            if keys is not None:
                tmux("send-keys", "-t", session, keys, "Enter")
            for _ in range(100):  # wait for the prompt
                time.sleep(0.1)
                if tmux("capture-pane", "-p", "-t", session).rstrip().endswith(">"):
                    break
        return tmux("capture-pane", "-p", "-e", "-t", session)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def ansi_png(screen: str, path: Path, size: int = 15) -> None:
    """Draw captured terminal text (with colour codes) as a PNG, cell by cell."""
    regular = ImageFont.truetype(str(FONT_DIR / "DejaVuSansMono.ttf"), size)
    bold = ImageFont.truetype(str(FONT_DIR / "DejaVuSansMono-Bold.ttf"), size)
    cell_w = round(regular.getlength("M"))
    cell_h = round(size * 1.3)
    lines = [Text.from_ansi(line) for line in screen.rstrip("\n").split("\n")]
    while lines and not lines[-1].plain.strip():
        lines.pop()
    cols = max(len(t.plain) for t in lines)
    pad = 14
    bg = tuple(MONOKAI.background_color)
    fg = tuple(MONOKAI.foreground_color)
    image = Image.new("RGB", (cols * cell_w + 2 * pad, len(lines) * cell_h + 2 * pad), bg)
    draw = ImageDraw.Draw(image)
    for y, text in enumerate(lines):
        for x, seg in _cells(text):
            char, style = seg
            top = pad + y * cell_h
            left = pad + x * cell_w
            color = style.color.get_truecolor(MONOKAI)[:3] if style and style.color else fg
            back = (
                style.bgcolor.get_truecolor(MONOKAI, False)[:3] if style and style.bgcolor else None
            )
            if style and style.dim:
                color = tuple((c + b) // 2 for c, b in zip(color, bg, strict=True))
            if back is not None:
                draw.rectangle((left, top, left + cell_w, top + cell_h), fill=back)
            if char.strip():
                font = bold if style and style.bold else regular
                draw.text((left, top + 2), char, font=font, fill=color)
    image.save(path, optimize=True)


def _cells(text: Text):
    styles = [None] * len(text.plain)
    for span in text.spans:
        for i in range(span.start, min(span.end, len(styles))):
            style = span.style if not isinstance(span.style, str) else None
            styles[i] = style if styles[i] is None else styles[i] + style
    for i, char in enumerate(text.plain):
        yield i, (char, styles[i])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Make the pictures of docs/play.md.")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("results/img"),
        help="folder to write table.png and play.png to (default results/img; the "
        "maintainers update the shipped ones with --out docs/img)",
    )
    out = parser.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    table_png(out / "table.png")
    print("wrote", out / "table.png")
    if shutil.which("tmux") is None:
        sys.exit("tmux is needed for play.png (apt-get install tmux)")
    ansi_png(capture_play(), out / "play.png")
    print("wrote", out / "play.png")


if __name__ == "__main__":
    main()

"""render_mode="rgb_array": a picture of the table for every game, of one documented
shape, that changes when a card the viewer can see changes and only then. Each game
draws its own picture (``<game>/picture.py``) with the game-free toolkit
``schnauz_env.render``, imported only when a picture is drawn."""

from __future__ import annotations

import importlib
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("PIL")

from schnauz_env.games import GAMES, env_module, game_module
from schnauz_env.render import SHAPE

PLAYERS = {"schnauz": 4, "scat": 5, "thirteen": 4}


def draw_state(state, seat=None, names=None):
    """The picture of ``state`` drawn by its own game's picture module."""
    game = type(state).__module__.split(".")[1]
    return importlib.import_module(f"schnauz_env.{game}.picture").draw_state(state, seat, names)


def played(game: str, n: int, seed: int = 0, steps: int = 12):
    module = game_module(game)
    state = module.new_game(module.Config(num_players=n), np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        state.apply(int(rng.choice(state.legal_actions())))
    return state


def other_card(state, game: str) -> int:
    """A card in no hand and not face up: from the stock, or (Thirteen) another hand."""
    if game == "thirteen":
        return state.hands[1][0]
    return state.stock[0]


@pytest.mark.parametrize("game", GAMES)
def test_every_env_renders_a_picture_of_the_documented_shape(game):
    module = env_module(game)
    assert "rgb_array" in module.raw_env.metadata["render_modes"]
    env = module.env(num_players=PLAYERS[game], render_mode="rgb_array")
    env.reset(seed=1)
    frames = []
    for _agent in env.agent_iter(max_iter=30):
        obs, _, term, trunc, _ = env.last()
        frames.append(env.render())
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert SHAPE == (640, 960, 3)
    for frame in frames:
        assert isinstance(frame, np.ndarray)
        assert frame.shape == SHAPE and frame.dtype == np.uint8
    assert len({f.tobytes() for f in frames}) > 1, "the picture follows the game"


@pytest.mark.parametrize("game", GAMES)
def test_the_picture_changes_when_a_card_changes(game):
    state = played(game, PLAYERS[game])
    me = 0
    before_open, before_mine = draw_state(state), draw_state(state, seat=me)
    changed = state.clone()
    own = changed.hands[me]
    new = other_card(changed, game)
    if game == "thirteen":  # trade with seat 1's hand
        changed.hands[1][0] = own[0]
    else:
        changed.deck[changed.pos] = own[0]
    own[0] = new
    assert not np.array_equal(draw_state(changed), before_open)
    assert not np.array_equal(draw_state(changed, seat=me), before_mine)


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_view_hides_the_cards_that_seat_cannot_see(game):
    state = played(game, PLAYERS[game], seed=3)
    changed = state.clone()
    s = 2
    hand = changed.hands[s]
    known = getattr(changed, "known", [set()] * changed.n)[s]
    i = next(i for i, c in enumerate(hand) if c not in known)
    if game == "thirteen":  # trade a card with seat 3: both stay hidden from seat 0
        hand[i], changed.hands[3][0] = changed.hands[3][0], hand[i]
    else:
        hand[i], changed.deck[changed.pos] = changed.deck[changed.pos], hand[i]
    assert np.array_equal(draw_state(changed, seat=0), draw_state(state, seat=0))
    assert not np.array_equal(draw_state(changed), draw_state(state))


def test_render_seat_chooses_the_view():
    from schnauz_env import schnauz_v0

    env = schnauz_v0.raw_env(num_players=3, render_mode="rgb_array", render_seat=1)
    env.reset(seed=2)
    assert np.array_equal(env.render(), draw_state(env.game, seat=1))
    env.render_seat = None
    assert np.array_equal(env.render(), draw_state(env.game))
    with pytest.raises(ValueError, match="render_seat"):
        schnauz_v0.raw_env(num_players=3, render_mode="rgb_array", render_seat=3)
    with pytest.raises(RuntimeError, match="before reset"):
        schnauz_v0.raw_env(render_mode="rgb_array").render()
    ansi = schnauz_v0.raw_env(num_players=3, render_mode="ansi", render_seat=0)
    ansi.reset(seed=2)
    hidden = [c for s in (1, 2) for c in ansi.game.hands[s]]
    assert ansi.render().count("??") == len(hidden)


def test_a_game_over_picture_is_drawn_too():
    module = game_module("schnauz")
    state = module.new_game(module.Config(num_players=2, lives=0), np.random.default_rng(0))
    rng = np.random.default_rng(0)
    while not state.game_over:
        state.apply(int(rng.choice(state.legal_actions())))
    frame = draw_state(state, seat=0)
    assert frame.shape == SHAPE and frame.dtype == np.uint8


def test_an_invalid_seat_is_refused():
    state = played("scat", 3)
    for seat in (3, -1, True, "0"):
        with pytest.raises(ValueError, match=r"invalid seat .* must be None or 0\.\.2"):
            draw_state(state, seat)


def test_the_old_draw_state_still_works_with_a_deprecation_warning():
    import schnauz_env.render as render

    state = played("thirteen", 4)
    with pytest.warns(DeprecationWarning, match=r"schnauz_env\.thirteen\.picture\.draw_state"):
        old = render.draw_state(state, seat=1)
    assert np.array_equal(old, draw_state(state, seat=1))


def test_pictures_are_imported_only_when_drawn():
    """Making and playing an env loads neither Pillow nor a picture module, nor any
    other game's package; the drawing toolkit imports no game."""
    code = (
        "import sys\n"
        "from schnauz_env import schnauz_v0, scat_v0, thirteen_v0\n"
        "for m in (schnauz_v0, scat_v0, thirteen_v0):\n"
        "    e = m.env(render_mode='ansi'); e.reset(seed=0); e.render()\n"
        "bad = [n for n in sys.modules if n == 'PIL' or n.endswith('.picture')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    toolkit_only = (
        "import sys\n"
        "import schnauz_env.render.table, schnauz_env.render.lives, schnauz_env.render.cards\n"
        "games = [n for n in sys.modules if n.split('.')[:2] in "
        "(['schnauz_env', g] for g in ('schnauz', 'scat', 'thirteen'))]\n"
        "assert not games, games\n"
    )
    subprocess.run([sys.executable, "-c", toolkit_only], check=True)

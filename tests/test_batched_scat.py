"""The batched Scat engine's own contract: API, invariants, seeding, players, errors; and
the parts of the contract every batched engine keeps alike (an illegal action, finished
games without auto-reset, reseeding), run for each engine.

Its agreement with the reference, move for move, is
tests/test_batched_scat_differential.py; without numba, tests/test_batched_scat_fallback.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from batched_helpers import random_play_invariants

from schnauz_env.cards import parse_card
from schnauz_env.scat import ScatConfig, new_game, stack_deck
from schnauz_env.scat.engine import DISCARD_BASE, DRAW_STOCK, KNOCK, PASS
from schnauz_env.scat.observation import ObservationEncoder

pytest.importorskip("numba", reason="these tests drive the compiled kernels")

from schnauz_env.batched import BatchedScat
from schnauz_env.batched.scat import layout as L
from schnauz_env.batched.scat import reference_decks


def card_multiset(eng: BatchedScat, g: int) -> list[int]:
    """Every card of game ``g`` the engine holds: hands, discard pile and stock."""
    pos = eng.gs[g, L.F_POS]
    cards = [c for hand in eng.hands(g) for c in hand] + eng.pile(g)
    cards += [int(c) for c in eng.arrays.cards[g, L.O_DECK + pos : L.O_DECK + 52]]
    return sorted(cards)


def deck_stream(codes: list[str]) -> np.ndarray:
    """A one-game, one-round deck stream from 52 card codes (top first)."""
    return np.array([[[int(parse_card(c)) for c in codes]]])


@pytest.mark.parametrize(
    "options",
    [
        dict(num_players=4),
        dict(num_players=2, lives=0, buy_ins=2, knock_on_first_turn=True),
        dict(num_players=7, four_card=True, lives=1, max_turns=30),
        dict(num_players=3, no_trinca=True, episode="round"),
    ],
)
def test_random_play_invariants(options: dict) -> None:
    """No card created or lost, masks allow only legal moves, zero-sum rewards whose
    totals are the final places' values, observations inside [0, 1], and games end."""
    cfg = ScatConfig(**options)
    eng = BatchedScat(64, cfg, seed=1)

    def no_card_created_or_lost(g: int) -> None:
        assert card_multiset(eng, g) == list(range(52))

    finished = random_play_invariants(
        eng, no_card_created_or_lost, every=50, whole=cfg.episode == "game"
    )
    assert eng.obs_size == ObservationEncoder(cfg).size and eng.mask.shape == (64, 9)
    assert finished > 20


#: Per engine: an action illegal in game 1 of a fresh three-player engine, the error it
#: raises, and the engine's card rows.
ILLEGAL = {
    "scat": (
        KNOCK,  # not on one's own first turn
        r"action 7 is not legal in game 1 .* at the draw step in phase 'turns'; "
        r"legal actions: 0 \(draw stock\), 1 \(draw discard\)",
        lambda eng: eng.arrays.cards,
    ),
    "schnauz": (
        13,  # knock during the dealer's choice
        r"action 13 is not legal in game 1.*legal actions: 0 \(keep\), 1 \(exchange\)",
        lambda eng: eng.cards,
    ),
}


def batched(engine: str) -> type:
    """The batched engine class of the game ``engine``."""
    from schnauz_env.batched import BatchedSchnauz, BatchedThirteen

    return {"scat": BatchedScat, "thirteen": BatchedThirteen, "schnauz": BatchedSchnauz}[engine]


@pytest.mark.parametrize("engine", list(ILLEGAL))
def test_illegal_action_raises_and_changes_nothing(engine: str) -> None:
    action, message, cards = ILLEGAL[engine]
    eng = batched(engine)(3, num_players=3, seed=0)
    eng.reset()
    before = eng.gs.copy(), cards(eng).copy()
    actions = eng.random_actions().copy()
    actions[1] = action
    with pytest.raises(ValueError, match=message):
        eng.step(actions)
    assert (eng.gs[1] == before[0][1]).all() and (cards(eng)[1] == before[1][1]).all()
    assert not (eng.gs[0] == before[0][0]).all()  # the other games moved
    with pytest.raises(ValueError, match="one per game"):
        eng.step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize(("engine", "options"), [("scat", {"episode": "round"}),
                                                 ("schnauz", {"episode": "round"}),
                                                 ("thirteen", {})])  # fmt: skip
def test_finished_games_wait_without_auto_reset(engine: str, options: dict) -> None:
    eng = batched(engine)(8, num_players=2, seed=3, auto_reset=False, **options)
    eng.reset()
    for _ in range(2000):
        eng.step(eng.random_actions())
        if eng.game_over.all():
            break
    assert eng.game_over.all() and eng.mask.sum() == 0
    state = eng.gs.copy()
    _, _, rewards, ended = eng.step(np.full(8, -1))
    assert (eng.gs == state).all() and not ended.any() and not rewards.any()


def test_seeds_repeat_games_and_fix_the_decks_whatever_the_play() -> None:
    """The same seed plays the same games; a round's deck does not depend on the play
    (RULES.md): the cards dealt to the first round agree between two styles of play."""

    def run(seed: int, greedy: bool) -> tuple[list, np.ndarray]:
        eng = BatchedScat(16, num_players=4, seed=seed)
        eng.reset()
        first = eng.arrays.cards[:, L.O_DECK : L.O_DECK + 13].copy()
        trace = []
        for _ in range(200):
            actions = eng.greedy_actions() if greedy else eng.random_actions()
            obs, _, rewards, _ = eng.step(actions)
            trace.append((obs.copy(), rewards.copy()))
        return trace, first

    a, first_a = run(11, greedy=False)
    b, first_b = run(11, greedy=False)
    for (x, r), (y, s) in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(r, s)
    _, first_greedy = run(11, greedy=True)
    np.testing.assert_array_equal(first_a, first_greedy)
    _, first_other = run(12, greedy=False)
    assert (first_a != first_other).any()


def test_fast_deals_are_uniform() -> None:
    """Each card is dealt to each of the first deck positions about equally often."""
    eng = BatchedScat(5200, num_players=2, episode="round", first_dealer=0, seed=3)
    counts = np.zeros((7, 52))
    for _ in range(4):
        eng.reset()
        dealt = eng.arrays.cards[:, L.O_DECK : L.O_DECK + 7].astype(int)
        for pos in range(7):
            np.add.at(counts[pos], dealt[:, pos], 1)
    expected = 20800 / 52
    chi2 = ((counts - expected) ** 2 / expected).sum(axis=1)
    # 51 degrees of freedom: the 99.99% quantile is about 97
    assert (chi2 < 100).all(), chi2


def test_reference_decks_are_the_reference_shuffles() -> None:
    cfg = ScatConfig(num_players=3, buy_ins=1)
    dealer, perms = reference_decks(cfg, seed=5)
    state = new_game(cfg, np.random.default_rng(5))
    assert state.dealer == dealer and state.deck == perms[0].tolist()
    assert perms.shape == (3 * (cfg.lives + 1) * 2, 52)


def test_a_blitz_on_the_deal_pays_at_reset() -> None:
    """Seat 2 is dealt 31 in hearts: every other seat loses a life before anyone moves;
    in a single-round episode the game is over at once and its rewards are paid."""
    deck = stack_deck(
        {1: "2C 3S 4D", 2: "AH KH QH", 0: "5C 6S 7D"}, discard="9C", stock="8S", dealer=0
    )
    later = np.arange(52, dtype=np.int8)[None, None]  # 2C 2S 2H 2D 3C ...: no blitz
    for episode, over in (("game", False), ("round", True)):
        cfg = ScatConfig(num_players=3, episode=episode)
        eng = BatchedScat(1, cfg, auto_reset=False)
        eng.reset(decks=np.concatenate([deck_stream(deck), later], axis=1), dealers=[0])
        assert bool(eng.game_over[0]) is over
        result = eng.last_result(0)
        assert result["reason"] == "blitz_deal" and result["blitz_holders"] == [2]
        assert result["losers"] == [0, 1]
        assert eng.lives[0].tolist() == [2, 2, 3]
        expect = [-1.0, -1.0, 2.0] if over else [0.0, 0.0, 0.0]
        assert eng.opening_rewards[0].tolist() == expect
        assert eng.rounds[0] == 1 and bool(eng.mask[0].sum() == 0) is over


def test_a_knocker_strictly_lowest_pays_double() -> None:
    deck = stack_deck({1: "2C 3S 4D", 0: "KC QC 9H"}, discard="9D", stock="5H 6H", dealer=0)
    cfg = ScatConfig(num_players=2, episode="round", knock_on_first_turn=True)
    eng = BatchedScat(1, cfg, auto_reset=False)
    eng.reset(decks=deck_stream(deck), dealers=[0])
    assert eng.current[0] == 1
    _, _, rewards, ended = eng.step(np.array([KNOCK]))
    assert eng.current[0] == 0 and not ended[0]
    eng.step(np.array([DRAW_STOCK]))  # seat 0 draws 5H (slot 0) and throws it again
    _, _, rewards, ended = eng.step(np.array([DISCARD_BASE + 0]))
    assert ended[0] and eng.last_result(0)["losses"] == {1: 2}
    assert rewards[0].tolist() == [2.0, -2.0]


def test_errors_say_what_is_wrong() -> None:
    eng = BatchedScat(2, num_players=3, auto_reset=False)
    with pytest.raises(RuntimeError, match="reset"):
        eng.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match=r"dealers must be seats 0\.\.2, got 3"):
        eng.reset(dealers=[0, 3])
    with pytest.raises(TypeError, match=r"dealers must be seats 0\.\.2, got an array of float64"):
        eng.reset(dealers=[0.0, 1.0])
    with pytest.raises(ValueError, match="lives must be integers"):
        eng.reset(lives=[[1, 2, -1], [1, 1, 1]])
    with pytest.raises(ValueError, match="permutation"):
        eng.reset(decks=np.zeros((2, 1, 52), dtype=np.int8))
    with pytest.raises(ValueError, match="unknown Scat option"):
        BatchedScat(2, num_player=3)
    with pytest.raises(ValueError, match="num_games"):
        BatchedScat(0)
    deck = stack_deck({1: "2C 3S 4D", 0: "5C 6S 7D"}, discard="9C", dealer=0)
    one = ScatConfig(num_players=2, lives=0, knock_on_first_turn=True)
    eng = BatchedScat(1, one, auto_reset=False)
    eng.reset(decks=deck_stream(deck), dealers=[0])
    eng.step(np.array([KNOCK]))
    eng.step(np.array([PASS]))  # seat 1 knocked at 4 against 7: strictly lowest, out
    assert eng.game_over[0]
    eng = BatchedScat(1, ScatConfig(num_players=2, lives=3), auto_reset=False)
    eng.reset(decks=deck_stream(deck), dealers=[0])
    for _ in range(200):
        try:
            eng.step(eng.random_actions())
        except ValueError as err:
            assert "ran out of the supplied decks (1 per game)" in str(err)
            break
    else:
        raise AssertionError("the second round found a deck")


def test_a_tie_break_needs_its_decks_in_external_mode() -> None:
    """Both players on the bus tie for lowest when the turn limit ends the round:
    everyone is out at once, so a tie-break deal decides; with external decks it takes
    the queued deck, and without one the step says so."""
    deck = stack_deck({1: "2C 3S 4D", 0: "2S 3H 4C"}, discard="9C", stock="8D", dealer=0)
    cfg = ScatConfig(num_players=2, lives=0, max_turns=1)
    tie = stack_deck({1: "AC KC QC", 0: "2D 3D 5H"}, dealer=0)
    for queued in (False, True):
        eng = BatchedScat(1, cfg, auto_reset=False)
        eng.reset(decks=deck_stream(deck), dealers=[0])
        eng.step(np.array([DRAW_STOCK]))  # seat 1 draws 8D (slot 3) and throws it
        if not queued:
            with pytest.raises(ValueError, match="queue_tie_break_decks"):
                eng.step(np.array([DISCARD_BASE + 3]))
            continue
        eng.queue_tie_break_decks(0, deck_stream(tie)[0])
        _, _, rewards, ended = eng.step(np.array([DISCARD_BASE + 3]))
        result = eng.last_result(0)
        assert ended[0] and result["reason"] == "turn_limit" and result["losers"] == [0, 1]
        assert result["tie_breaks"] == 1 and result["went_out"] == [0]
        assert rewards[0].tolist() == [-1.0, 1.0] and eng.lives[0].tolist() == [0, 0]


@pytest.mark.parametrize(
    ("options", "threshold"),
    [
        (dict(num_players=4), 27.0),
        (dict(num_players=3, no_trinca=True, knock_on_first_turn=True), 24.0),
        (dict(num_players=5, four_card=True, buy_ins=1), 33.5),
        (dict(num_players=2, lives=0), 30.5),
    ],
)
def test_greedy_is_the_policies_greedy(options: dict, threshold: float) -> None:
    """The kernel's greedy moves are ``policies.scat.GreedyPolicy``'s, state for state."""
    scat_policies = pytest.importorskip("policies.scat")
    cfg = ScatConfig(**options)
    policy = scat_policies.GreedyPolicy(cfg, arg=str(threshold))
    eng = BatchedScat(48, cfg, seed=5, greedy_threshold=threshold)
    obs, mask = eng.reset()
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(150):
        ours = eng.greedy_actions().copy()
        theirs = [policy.act(obs[g], mask[g]) for g in range(48)]
        np.testing.assert_array_equal(ours, theirs)
        compared += len(ours)
        # mix in random moves so the greedy players meet every kind of state
        actions = np.where(rng.random(48) < 0.5, ours, eng.random_actions())
        obs, mask, _, _ = eng.step(actions)
    assert compared == 48 * 150


def test_play_random_counts_its_steps() -> None:
    eng = BatchedScat(32, num_players=4, seed=2)
    eng.reset()
    assert eng.play_random(50) == 32 * 50
    assert ((eng.obs >= 0) & (eng.obs <= 1)).all()


@pytest.mark.parametrize("engine", ["scat", "thirteen", "schnauz"])
def test_a_reseeded_engine_plays_the_games_of_a_new_one(engine: str) -> None:
    """``reset(seed=s)`` after any play deals what a new engine seeded ``s`` deals."""
    make = batched(engine)

    def play(eng, steps: int = 300) -> list[list[int]]:
        seen = []
        for _ in range(steps):
            obs, mask, rewards, ended = eng.step(eng.random_actions())
            seen.append([*eng.current.tolist(), *mask.sum(axis=1).tolist()])
        return seen

    fresh = make(8, num_players=3, seed=5)
    fresh.reset(seed=5)
    want = play(fresh)
    used = make(8, num_players=3, seed=1)
    used.reset(seed=1)
    play(used, 500)
    used.reset(seed=5)
    assert play(used) == want

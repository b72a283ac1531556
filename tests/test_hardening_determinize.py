"""A determinization depends on the seat's information only (issue 16, search API).

``state.determinize(seat, rng)`` is the sampling step of information-set search. Over
random states of the three games and every seat:

- two states that differ only in cards the seat cannot see (hidden cards exchanged
  between opponents, or between an opponent and the stock or the undealt cards, together
  with everything derived from them: the dealt part of the deck, another player's
  hidden selection, the game's own generator and stacked decks) give the same
  determinization;
- the determinization keeps the seat's observation, leaves a legal action unless the
  game is over, and keeps what the rules tell the seat (the first leader was dealt the
  lowest card; nobody the game has checked holds a hand that ends the round; instant
  wins).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from conftest import stack

from schnauz_env.scat import ScatConfig
from schnauz_env.scat import new_game as scat_game
from schnauz_env.scat.engine import DISCARD as SCAT_DISCARD
from schnauz_env.scat.engine import TURNS as SCAT_TURNS
from schnauz_env.scat.hands import hand_value
from schnauz_env.scat.observation import ObservationEncoder as ScatEncoder
from schnauz_env.schnauz import SchnauzConfig
from schnauz_env.schnauz import new_game as schnauz_game
from schnauz_env.schnauz.engine import FINAL_CIRCLE, TURNS
from schnauz_env.schnauz.hands import SCHNAUZ, category_of, hand_key
from schnauz_env.schnauz.observation import ObservationEncoder as SchnauzEncoder
from schnauz_env.thirteen import ThirteenConfig
from schnauz_env.thirteen import new_game as thirteen_game
from schnauz_env.thirteen.combos import STRENGTH, strength
from schnauz_env.thirteen.engine import DECLARE, PLAY, instant_win_of, stacked_deck
from schnauz_env.thirteen.observation import ObservationEncoder as ThirteenEncoder

SCHNAUZ_CONFIGS = [
    SchnauzConfig(num_players=2),
    SchnauzConfig(num_players=3, deck="A9", lives=1),
    SchnauzConfig(num_players=4, short_stock="recycle", lives=1),
    SchnauzConfig(num_players=5, deck="A5", ties="share", fire_costs_all=True, lives=0),
    SchnauzConfig(num_players=6, knock_in_first_circle=False, lives=0),
]
SCAT_CONFIGS = [
    ScatConfig(num_players=2, lives=1),
    ScatConfig(num_players=3, knock_on_first_turn=True, lives=0),
    ScatConfig(num_players=4, four_card=True, lives=1),
    ScatConfig(num_players=5, buy_ins=1, no_trinca=True, lives=0),
    ScatConfig(num_players=7, lives=0),
]
THIRTEEN_CONFIGS = [
    ThirteenConfig(num_players=n, opening=opening, instant_wins=instant, episode=episode)
    for n, opening, instant, episode in [
        (2, "include", False, "game"),
        (2, "free", True, "match"),
        (3, "include", True, "game"),
        (3, "free", False, "game"),
        (4, "include", False, "match"),
        (4, "free", True, "game"),
    ]
]
GAMES = [
    *((c, schnauz_game, SchnauzEncoder) for c in SCHNAUZ_CONFIGS),
    *((c, scat_game, ScatEncoder) for c in SCAT_CONFIGS),
    *((c, thirteen_game, ThirteenEncoder) for c in THIRTEEN_CONFIGS),
]


def game_id(game: tuple) -> str:
    config = game[0]
    return (
        f"{config.game_name}-{config.num_players}p-{'-'.join(map(str, config.to_dict().values()))}"
    )


def random_states(config: Any, new_game: Any, seed: int, cap: int = 12) -> list[Any]:
    """Copies of up to ``cap`` states of one random game (seeded), spread over the game
    (the first and the last included)."""
    rng = np.random.default_rng(seed)
    state = new_game(config, np.random.default_rng(seed))
    states = [state.clone()]
    steps = 0
    while not state.game_over and steps < 1500:
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
        steps += 1
        if rng.random() < 0.2:
            states.append(state.clone())
    states.append(state.clone())
    if len(states) > cap:
        states = [states[int(i)] for i in np.linspace(0, len(states) - 1, cap)]
    return states


def fingerprint(state: Any) -> dict[str, Any]:
    """Every slot of ``state`` (the generator by its position; caches left out)."""
    out: dict[str, Any] = {}
    for name in type(state).__slots__:
        if name in ("_cands", "_legal"):
            continue
        value = getattr(state, name)
        if name == "rng":
            value = value.bit_generator.state
        out[name] = value
    return out


def hidden_cards(state: Any, seat: int) -> list[int]:
    return list(state.unseen_cards(seat))


def hidden_twin(state: Any, seat: int, rng: np.random.Generator) -> Any | None:
    """The same state with two cards ``seat`` cannot see exchanged everywhere they are
    (hands, stock, the dealt part of the deck, undealt cards, another player's hidden
    selection), a different generator of the game's own and no stacked decks left:
    what ``seat`` sees is the same. ``None`` if fewer than two cards are hidden."""
    pool = hidden_cards(state, seat)
    if len(pool) < 2:
        return None
    a, b = (int(x) for x in rng.choice(pool, 2, replace=False))
    swap = {a: b, b: a}

    def move(cards: list[int]) -> list[int]:
        return [swap.get(c, c) for c in cards]

    twin = state.clone(rng=np.random.default_rng(int(rng.integers(2**32))))
    twin.pending_decks = [list(reversed(d)) for d in state.pending_decks]
    for s in range(state.n):
        if s != seat:
            twin.hands[s] = move(state.hands[s])
    if hasattr(state, "deck"):  # Schnauz, Scat: hands sorted by card index
        for s in range(state.n):
            twin.hands[s].sort()
        twin.deck = move(state.deck)
    else:  # Thirteen: hands sorted by strength; the selection is hidden from others
        for s in range(state.n):
            twin.hands[s].sort(key=strength)
        twin.undealt = move(state.undealt)
        if state.current != seat:
            twin.selection = move(state.selection)
            if state.opening_card is not None:
                twin.opening_card = swap.get(state.opening_card, state.opening_card)
        twin._cands = None
        twin._legal = None
    return twin


def without_selection(state: Any, seat: int) -> Any | None:
    """A Thirteen state in which the player to act (not ``seat``) has not selected yet:
    ``seat`` cannot tell the two apart."""
    if not getattr(state, "selection", None) or state.current == seat:
        return None
    twin = state.clone()
    twin.selection = []
    twin._cands = None
    twin._legal = None
    return twin


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_determinize_depends_on_the_seats_information_only(game) -> None:
    config, new_game, _ = game
    rng = np.random.default_rng(2024)
    compared = 0
    for seed in range(6):
        for state in random_states(config, new_game, seed):
            for seat in range(state.n):
                twins = [hidden_twin(state, seat, rng) for _ in range(3)]
                twins.append(without_selection(state, seat))
                for twin in twins:
                    if twin is None:
                        continue
                    k = int(rng.integers(2**32))
                    det = state.determinize(seat, np.random.default_rng(k))
                    det_twin = twin.determinize(seat, np.random.default_rng(k))
                    assert fingerprint(det) == fingerprint(det_twin), (seed, seat)
                    compared += 1
    assert compared > 100


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_determinize_keeps_the_view_and_leaves_a_legal_action(game) -> None:
    config, new_game, encoder_class = game
    encoder = encoder_class(config)
    rng = np.random.default_rng(7)
    checked = 0
    for seed in range(6):
        for state in random_states(config, new_game, 100 + seed):
            for seat in range(state.n):
                det = state.determinize(seat, rng)
                assert np.array_equal(encoder.encode(det, seat), encoder.encode(state, seat))
                assert det.game_over or det.legal_actions(), (seed, seat, state)
                assert det.game_over == state.game_over
                assert_rules_kept(det, seat)
                checked += 1
                if not det.game_over:  # the copy plays on to the end
                    play_out(det, rng)
    assert checked > 40


def play_out(state: Any, rng: np.random.Generator, limit: int = 300) -> None:
    for _ in range(limit):
        if state.game_over:
            return
        legal = state.legal_actions()
        assert legal
        state.apply(legal[int(rng.integers(len(legal)))])


def assert_rules_kept(det: Any, seat: int) -> None:
    """What the rules tell ``seat`` holds in the determinization (checked here from the
    rules, independently of the engine's own helpers)."""
    name = det.config.game_name
    if name == "Schnauz" and det.phase in (TURNS, FINAL_CIRCLE):
        for s in det.active:
            assert category_of(hand_key(det.hands[s])) < SCHNAUZ, "a Fire/Schnauz ends the round"
    if name == "Scat" and det.phase == SCAT_TURNS:
        for s in det.active:
            if s == det.current and det.step == SCAT_DISCARD:
                continue
            assert hand_value(det.hands[s], False) != det.config.blitz_value
    if name == "Thirteen" and not det.game_over:
        dealt = {s: list(det.hands[s]) for s in range(det.n)}
        for s, cards in det.log:
            dealt[s].extend(cards)
        if det.lowest_leads:
            lowest = min((c for cards in dealt.values() for c in cards), key=strength)
            assert lowest in dealt[det.leader], "the first leader was dealt the lowest card"
            if det.opening_card is not None:
                assert det.opening_card == lowest and lowest in det.hands[det.leader]
        if det.config.instant_wins and det.phase != DECLARE:
            assert not any(instant_win_of(cards) for cards in dealt.values() if cards)
        if det.phase == DECLARE:
            assert instant_win_of(det.hands[det.current])


def test_thirteen_first_leader_holds_three_of_spades_in_every_copy() -> None:
    """The issue's example: seen from a seat that is not acting, the copy's leader
    holds 3♠ and so can play; it used to hold random cards and have no legal action."""
    state = thirteen_game(ThirteenConfig(), np.random.default_rng(3))
    seat = (state.current + 1) % 4
    for k in range(50):
        det = state.determinize(seat, np.random.default_rng(k))
        assert det.legal_actions() != ()
        assert det.opening_card == det.hands[det.leader][0]  # 3♠, the weakest card
        assert STRENGTH[det.opening_card] == 0


def test_thirteen_hidden_selection_is_not_copied() -> None:
    """The acting player's partial selection is its own secret: a copy made for another
    seat starts that player's turn again, and can always be played on."""
    config = ThirteenConfig(num_players=4)
    state = thirteen_game(config, np.random.default_rng(5))
    state.apply(state.legal_actions()[0])  # the leader selects 3♠
    assert state.selection
    for seat in range(1, 4):
        det = state.determinize(seat, np.random.default_rng(seat))
        assert det.selection == []
        assert det.legal_actions()
    own = state.determinize(state.current, np.random.default_rng(0))
    assert own.selection == state.selection


@pytest.mark.parametrize("num_players", [2, 3])
def test_thirteen_weaker_cards_than_the_opening_card_stay_undealt(num_players: int) -> None:
    """With fewer than four players the leader holds the lowest card dealt: once it is
    played, every weaker card is known to be undealt, and no copy deals it."""
    config = ThirteenConfig(num_players=num_players)
    checked = 0
    for g in range(40):
        state = thirteen_game(config, np.random.default_rng(g))
        opening = state.opening_card
        if STRENGTH[opening] == 0:
            continue  # 3♠ dealt: nothing weaker
        while state.opening_card is not None:  # the leader makes the first play
            state.apply(state.legal_actions()[0])
        weaker = {c for c in range(52) if STRENGTH[c] < STRENGTH[opening]}
        for seat in range(num_players):
            if seat == state.leader:
                continue
            for k in range(5):
                det = state.determinize(seat, np.random.default_rng(k))
                dealt = {c for s in range(num_players) for c in det.hands[s]}
                assert not dealt & weaker
                assert weaker <= set(det.undealt)
                checked += 1
    assert checked > 20


def test_thirteen_declared_instant_win_is_kept_for_other_seats() -> None:
    """With ``instant_wins`` the player to declare holds an instant win in every copy,
    and the players before it in turn order hold none."""
    hands = [
        "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 3D",  # seat 0: a dragon
        "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 4D",
        "2S 2C 2D 2H 5D 6D 7D 8D 9D 10D JD QD KD",  # seat 2: four 2s, after seat 0
        "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH AD",
    ]
    config = ThirteenConfig(instant_wins=True)
    state = thirteen_game(config, np.random.default_rng(0), deck=stacked_deck(hands))
    assert state.phase == DECLARE and state.current == 0
    kinds = set()
    for seat in (1, 2, 3):
        for k in range(30):
            det = state.determinize(seat, np.random.default_rng(k))
            kind = instant_win_of(det.hands[0])
            assert kind is not None
            kinds.add(kind)
            assert det.legal_actions() == (PLAY,)
            assert_rules_kept(det, seat)
            result = det.apply(PLAY)
            assert result.instant_win == kind
    assert kinds == {"dragon", "four 2s"}  # seat 1 and 3 do not see the 2s


def test_lives_games_deal_no_hand_that_would_have_ended_the_round() -> None:
    """Schnauz: after the dealer's choice nobody holds Fire or Schnauz (the round would
    have ended); Scat: before a knock nobody between turns holds a blitz. The copies
    respect that, where a plain shuffle of the hidden cards often breaks it (here seat 1
    sees the four 9s and two 10s: the 18 cards it cannot see are all 10..A)."""
    hands = {
        1: "9C 9S 9H",
        2: "AC AS 10H",
        3: "AH AD 10D",
        4: "JC JS JH",
        5: "JD QC QS",
        0: "QH QD KC",
    }
    deck = stack(hands, ["9D 10C 10S"], dealer=0, deck="A9")
    state = schnauz_game(
        SchnauzConfig(num_players=6, deck="A9"), np.random.default_rng(0), deck=deck, dealer=0
    )
    state.apply(0)  # keep
    assert state.phase == TURNS and state.current == 1
    scat = scat_game(ScatConfig(num_players=2), np.random.default_rng(1))
    scat.apply(scat.legal_actions()[0])  # draw from the stock
    scat.apply(scat.legal_actions()[0])  # discard
    assert scat.phase == SCAT_TURNS and not scat.game_over
    for st in (state, scat):
        for k in range(400):
            det = st.determinize(st.current, np.random.default_rng(k))
            assert_rules_kept(det, st.current)


@pytest.mark.parametrize(
    ("config", "new_game"), [(SCHNAUZ_CONFIGS[1], schnauz_game), (SCAT_CONFIGS[0], scat_game)]
)
def test_dealt_part_of_the_deck_tells_nothing(config, new_game) -> None:
    """The issue's examples: Schnauz opponents' starting hands were readable from
    ``deck[3j:3j+3]`` of a copy, and Scat's blind stock draws from ``deck[pos]``. The
    copy's dealt part holds the same cards with the hidden ones replaced, in card order."""
    state = new_game(config, np.random.default_rng(11))
    rng = np.random.default_rng(0)
    for _ in range(8):
        if state.game_over:
            break
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    for seat in range(state.n):
        det = state.determinize(seat, np.random.default_rng(3))
        dealt = det.deck[: det.pos]
        assert dealt == sorted(dealt)
        assert det.pos == state.pos and len(det.deck) == len(state.deck)
        assert sorted(det.deck) == sorted(state.deck)
        hands = [c for s in range(det.n) for c in det.hands[s]]
        assert set(hands) <= set(dealt)


def test_determinize_refuses_a_seat_that_is_not_at_the_table() -> None:
    for config, new_game, _ in (GAMES[0], GAMES[5], GAMES[10]):
        state = new_game(config, np.random.default_rng(0))
        for bad in (-1, state.n, 1.0, True, "0", None):
            with pytest.raises((ValueError, TypeError), match="seat"):
                state.determinize(bad, np.random.default_rng(0))


def test_twins_do_differ() -> None:
    """The twins of the property test are different states (else it proves nothing)."""
    rng = np.random.default_rng(0)
    differ = 0
    for config, new_game, _ in GAMES:
        for state, seat in itertools.product(random_states(config, new_game, 1)[:4], range(2)):
            twin = hidden_twin(state, seat, rng)
            if twin is not None and fingerprint(twin) != fingerprint(state):
                differ += 1
    assert differ > 40

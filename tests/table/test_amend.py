"""Renaming a card already in the running hand (companion.table.amend): the hand after it goes in again,
with each later play in the seat due then."""

from __future__ import annotations

import copy

from companion.table.amend import drop_from_hand, hand_tail, rename_in_hand
from companion.table.engine_view import new_game

MATCH = {"type": "match", "variant": "paulista", "players": 4}
HAND = {"type": "hand", "dealer": 3, "vira": "5H"}  # manilhas: the sixes; seat 0 leads


def _game(*events: dict) -> object:
    game = new_game(MATCH)
    for event in (HAND, *events):
        game.apply(dict(event))
    return game


def _play(seat: int, card: str) -> dict:
    return {"type": "play", "seat": seat, "card": card}


def test_renaming_a_trick_winner_gives_the_next_trick_to_the_new_winner():
    # seat 3's 2H wins the first trick (2 > A) and leads the second with KC
    game = _game(_play(0, "4C"), _play(1, "AS"), _play(2, "7D"), _play(3, "2H"), _play(3, "KC"))
    again = rename_in_hand(game, "2H", "4H")
    # read as 4H, seat 3 loses the trick to seat 1's AS: the card put down next was seat 1's lead
    assert again == [_play(3, "4H"), _play(1, "KC")]
    assert game.events[-5:] == [_play(0, "4C"), _play(1, "AS"), _play(2, "7D"), _play(3, "4H"), _play(1, "KC")]


def test_renaming_the_vira_changes_the_manilhas():
    game = _game(_play(0, "5C"), _play(1, "AS"), _play(2, "7D"), _play(3, "2H"))
    assert rename_in_hand(game, "5H", "4H") is not None  # the fives are now manilhas: 5C the zap
    assert game.events[-5]["vira"] == "4H"
    assert {"type": "play", "seat": 0} in game.legal_events()  # seat 0 won the trick and leads


def test_a_renaming_the_engine_refuses_leaves_the_game_as_it_was():
    game = _game(_play(0, "4C"), _play(1, "AS"), _play(2, "7D"))
    before = copy.deepcopy(game.events)
    legal = game.legal_events()
    assert rename_in_hand(game, "4C", "AS") is None  # AS is played later in the hand: twice
    assert game.events == before and game.legal_events() == legal


def test_only_a_card_of_the_running_hand_is_renamed():
    game = _game(_play(0, "4C"))
    assert hand_tail(game, "AS") is None
    assert rename_in_hand(game, "AS", "KS") is None
    assert hand_tail(game, "4C") == [_play(0, "4C")]


def test_a_play_taken_out_gives_its_seat_to_the_card_put_down_after_it():
    game = _game(_play(0, "4C"), _play(1, "AS"), _play(2, "7D"))
    again = drop_from_hand(game, "AS")
    assert again == [_play(1, "7D")]  # the 7D was seat 1's card
    assert game.events[-3:] == [HAND, _play(0, "4C"), _play(1, "7D")]


def test_a_vira_or_a_card_not_in_the_hand_is_not_taken_out():
    game = _game(_play(0, "4C"))
    before = copy.deepcopy(game.events)
    assert drop_from_hand(game, "5H") is None and drop_from_hand(game, "KS") is None
    assert game.events == before

"""Decks and card ranking: fixed manilhas, vira manilhas, cartas bravas."""

from __future__ import annotations

import pytest

from companion.cards import Card, CardError, canonical, deck_cards, deck_for
from companion.engine.ranking import manilhas, order_high_to_low, ranking
from companion.engine.variants import VariantError, resolve


@pytest.mark.parametrize("deck,joker,size", [
    ("dirty40", False, 40), ("dirty40", True, 41), ("clean27", False, 27), ("clean27", True, 28),
    ("clean24", False, 24), ("clean28", False, 28), ("spanish40", False, 40), ("spanish48", False, 48),
])
def test_deck_sizes(deck, joker, size):
    cards = deck_cards(deck, joker)
    assert len(cards) == len(set(cards)) == size


def test_clean28_is_a_k_q_j_7_3_2():
    assert {c[:-1] for c in deck_cards("clean28")} == {"A", "K", "Q", "J", "7", "3", "2"}


def test_card_parsing_per_family():
    assert canonical("10d") == "10D"
    assert canonical(" 1e ", "spanish") == "1E"
    assert Card.parse("4C").pretty() == "4♣"
    assert Card.parse("1E", "spanish").pretty() == "1 de espadas"
    for bad, family in (("8E", "spanish2"), ("1E", "french"), ("11X", "spanish"), ("", "french"), ("ZZ", "french")):
        with pytest.raises(CardError):
            canonical(bad, family)
    assert len(deck_for(resolve("argentino"))) == 40


def test_mineiro_fixed_order():
    # README: "Mineiro ranking (full deck), high to low: 4♣ (zap), 7♥ ..., A♠ ..., 7♦ ..., then 3, 2,
    # A, K, J, Q, 7, 6, 5, 4 (suits equal)."  (quote rd_mineiro_order)
    groups = order_high_to_low(resolve("mineiro"))
    assert groups[:4] == [["4C"], ["7H"], ["AS"], ["7D"]]
    ranks = [sorted({c[:-1] for c in g}) for g in groups[4:]]
    assert ranks == [["3"], ["2"], ["A"], ["K"], ["J"], ["Q"], ["7"], ["6"], ["5"], ["4"]]
    # minitruco manual, old manilha (quote man_old_manilha)
    assert manilhas(resolve("mineiro")) == ["4C", "7H", "AS", "7D"]


def test_joker_between_seven_of_diamonds_and_threes():
    o = resolve("mineiro", {"joker": True})
    s = ranking(o)
    assert s["7D"] > s["JK"] > s["3C"]
    with pytest.raises(VariantError):
        resolve("paulista", {"joker": True})


def test_clean27_deck_ranking():
    o = resolve("mineiro", {"deck": "clean27"})
    groups = order_high_to_low(o)
    assert groups[0] == ["4C"] and groups[3] == ["7D"]
    assert sorted({c[:-1] for c in groups[-1]}) == ["Q"]


def test_paulista_vira_jack():
    # "Example: if the vira is a Jack, the cards rank from high to low: ♣K - ♡K - ♠K - ♢K - 3's - 2's - A's
    # - J's - Q's - 7's - 6's - 5's - 4's" (quote br_vira_jack)
    groups = order_high_to_low(resolve("paulista"), "JS")
    assert groups[:4] == [["KC"], ["KH"], ["KS"], ["KD"]]
    assert [g[0][:-1] for g in groups[4:]] == ["3", "2", "A", "J", "Q", "7", "6", "5", "4"]


@pytest.mark.parametrize("vira,manilha", [("5C", "6"), ("7H", "Q"), ("3D", "4"), ("QS", "J"), ("KC", "A")])
def test_paulista_vira_cycle(vira, manilha):
    # "For example if the vira is a Five, the manilhas are the Sixes, if the vira is a Seven the manilhas
    # are the Queens" ... "if the vira is a Three (the highest rank), the manilhas are the Fours" (br_vira_cycle)
    assert manilhas(resolve("paulista"), vira) == [manilha + s for s in "CHSD"]


@pytest.mark.parametrize("vira,manilha,rest", [
    # "If the face-up card is a queen, the jack becomes the manilha, and the rank of cards is J♣, J♥, J♠, J♦,
    # 3, 2, A, K, Q, 7." (quote c28_queen)
    ("QH", "J", ["3", "2", "A", "K", "Q", "7"]),
    # "If the face-up card is a three, the seven becomes the manilha ... 3, 2, A, K, J, Q." (c28_three)
    ("3C", "7", ["3", "2", "A", "K", "J", "Q"]),
    # "If the face-up card is a two, the three becomes the manilha ... 2, A, K, J, Q, 7." (c28_two)
    ("2S", "3", ["2", "A", "K", "J", "Q", "7"]),
])
def test_clean28_vira_examples(vira, manilha, rest):
    groups = order_high_to_low(resolve("clean-28"), vira)
    assert groups[:4] == [[manilha + "C"], [manilha + "H"], [manilha + "S"], [manilha + "D"]]
    assert [g[0][:-1] for g in groups[4:]] == rest


def test_argentine_bravas_and_order():
    # "From high to low, these are the ace of swords, the ace of batons, the seven of swords and the seven
    # of coins." ... "3, 2, 1 (cups and coins), 12, 11, 10, 7 (cups and batons), 6, 5, 4" (quote ar_bravas)
    groups = order_high_to_low(resolve("argentino"))
    assert groups[:4] == [["1E"], ["1B"], ["7E"], ["7O"]]
    assert groups[4:] == [["3B", "3C", "3E", "3O"], ["2B", "2C", "2E", "2O"], ["1C", "1O"],
                          ["12B", "12C", "12E", "12O"], ["11B", "11C", "11E", "11O"], ["10B", "10C", "10E", "10O"],
                          ["7B", "7C"], ["6B", "6C", "6E", "6O"], ["5B", "5C", "5E", "5O"], ["4B", "4C", "4E", "4O"]]


def test_bad_option_combinations_are_rejected():
    for variant, opts in (("paulista", {"deck": "spanish40"}), ("argentino", {"manilhas": "vira"}),
                          ("paulista", {"envido": True}), ("paulista", {"nonsense": 1}),
                          ("paulista", {"target": "x"}), ("paulista", {"ladder": [3, 2]}),
                          ("paulista", {"tie_lead": "random"})):
        with pytest.raises(VariantError):
            resolve(variant, opts)
    assert resolve("paulista", {"ladder": "3-6-9-12", "covered": "false"}).covered is False

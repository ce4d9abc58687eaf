"""Mineiro, Paulista, 2-point and 28-card rules, encoded from the texts."""

from __future__ import annotations

import pytest
from engine_helpers import kinds, new, run, set_score

from companion.engine import IllegalEvent
from companion.engine.tricks import hand_result

A, B, T = 0, 1, None

# The 14 rows of the Mineiro text's table ("Because there are only three tricks, it is easy to list all the
# possible results." -- quote br_table_intro).  Row: trick results (A, B or T=tied), result.
MINEIRO_TABLE = [
    ((A, A), A), ((A, T), A), ((A, B, A), A), ((A, B, T), A), ((A, B, B), B), ((T, A), A), ((T, T, A), A),
    ((T, T, B), B), ((T, B), B), ((B, A, A), A), ((B, A, T), B), ((B, A, B), B), ((B, T), B), ((B, B), B),
]


@pytest.mark.parametrize("tricks,result", MINEIRO_TABLE)
def test_table_rows_pure(tricks, result):
    for k in range(1, len(tricks)):
        assert hand_result(list(tricks[:k]))[0] is False
    assert hand_result(list(tricks)) == (True, result)


class _Cards:
    """Unique cards that make a trick come out as wanted (Mineiro, fixed manilhas)."""

    def __init__(self) -> None:
        self.high = ["KC", "KH", "KS", "KD", "JC", "JH"]
        self.tie = ["2C", "2H", "2S", "2D", "3C", "3H", "3S", "3D"]
        self.low = ["5C", "5H", "5S", "5D", "6C", "6H", "6S", "6D", "4H", "4S", "4D", "QC"]

    def trick(self, order: list[int], result: int | None) -> list[tuple[int, str]]:
        plays = []
        if result is None:
            tie = [self.tie.pop(), self.tie.pop()]
            first = {0: False, 1: False}
            for seat in order:
                if not first[seat % 2]:
                    first[seat % 2] = True
                    plays.append((seat, tie.pop()))
                else:
                    plays.append((seat, self.low.pop()))
        else:
            done = False
            for seat in order:
                if seat % 2 == result and not done:
                    done = True
                    plays.append((seat, self.high.pop()))
                else:
                    plays.append((seat, self.low.pop()))
        return plays


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("tricks,result", MINEIRO_TABLE)
def test_table_rows_through_the_engine(players, tricks, result):
    game = new("mineiro", players)
    run(game, f"hand {players - 1}")
    cards = _Cards()
    for i, wanted in enumerate(tricks):
        assert not game.state.hand_over
        turn = game.state.turn
        order = [(turn + k) % players for k in range(players)]
        for seat, card in cards.trick(order, wanted):
            game.apply({"type": "play", "seat": seat, "card": card})
        assert game.state.tricks[i]["winner"] == wanted
    assert game.state.hand_over
    assert game.records[-1]["winner"] == result
    assert game.score[result] == 1 and game.score[1 - result] == 0


def test_partners_equal_highest_win_and_first_leads():
    # quote br_partners_equal; Mineiro: "Whoever played the first of those cards plays first to the next trick."
    game = new("mineiro")
    out = run(game, "hand 3", "p0 5C", "p1 3C", "p2 6C", "p3 3H")
    assert game.state.tricks[0]["winner"] == 1
    assert game.state.turn == 1
    assert "trick_won" in kinds(out)


@pytest.mark.parametrize("variant,leader", [("mineiro", 1), ("paulista", 0)])
def test_who_leads_after_a_tie(variant, leader):
    # Mineiro: "The player who played the first of the cards that tied ... plays the first card to the next
    # trick." (br_tie_lead_first).  Paulista: "the same player who led to the tied trick leads to the next
    # trick." (br_paulista_tie_lead)
    game = new(variant)
    run(game, "hand 3" + (" QD" if variant == "paulista" else ""), "p0 5C", "p1 3C", "p2 3H", "p3 6C")
    assert game.state.tricks[0]["winner"] is None
    assert game.state.turn == leader


def test_tie_lead_last_option():
    game = new("mineiro", tie_lead="last")
    run(game, "hand 3", "p0 5C", "p1 3C", "p2 3H", "p3 6C")
    assert game.state.turn == 2


def test_truco_vale6_vale9_corro_and_aceito():
    # 'after "truco" - "vale 6" - "vale 9" - "corro" the trucador's team would take 6 tentos without play:
    # after ... "aceito" the trick would be played for 9 tentos.' (quote br_truco_corro)
    game = new("paulista")
    out = run(game, "hand 3 QD", "r0 3", "r1 6", "r2 9", "x3")
    assert game.score == [6, 0]
    assert game.records[-1]["end"] == "refused" and game.records[-1]["stake"] == 6
    assert [o.data.get("to") for o in out if o.kind == "bet" and "to" in o.data] == [3, 6, 9]
    game = new("paulista")
    run(game, "hand 3 QD", "r0", "r1", "r2", "a3", "p0 KC", "p1 6C", "p2 6H", "p3 6S",
        "p0 KH", "p1 6D", "p2 7C", "p3 7H")
    assert game.score == [9, 0]


def test_mineiro_truco_bets_on_the_current_trick():
    # "if team A wins the first trick, there is a truco in the second trick and team B win that trick, team B
    # have won the hand" (quote br_truco_current_trick)
    game = new("mineiro")
    run(game, "hand 3", "p0 KC", "p1 5C", "p2 5H", "p3 5S", "r0", "a1",
        "p0 5D", "p1 KH", "p2 6C", "p3 6H")
    assert game.state.hand_over and game.records[-1]["winner"] == 1 and game.score == [0, 3]
    # In Paulista the same cards leave the hand open: the truco bets on the hand.
    game = new("paulista")
    run(game, "hand 3 QD", "p0 KC", "p1 6C", "p2 6H", "p3 6S", "r0", "a1", "p0 6D", "p1 KH", "p2 7C", "p3 7H")
    assert not game.state.hand_over


def test_mineiro_truco_tie_with_an_earlier_card_loses_for_the_last_bettor():
    # "If any of the highest cards in the trick was played before the truco was said, the team that bet or
    # raised last loses the hand (even if they had previously won a trick)." (quote br_truco_tie_before)
    game = new("mineiro")
    run(game, "hand 3", "p0 KC", "p1 5C", "p2 5H", "p3 5S",  # team 0 wins trick 1
        "p0 5D", "p1 2C", "r2", "a3", "p2 2H", "p3 6C")  # 2C (before the truco) ties 2H (after it)
    assert game.records[-1]["winner"] == 1 and game.score == [0, 3]


def test_mineiro_truco_tie_after_the_truco_goes_to_the_next_trick():
    # "If the highest cards were both (all) played after the truco, then the trick is really tied and another
    # trick is played to decide the result." (br_truco_tie_after)
    game = new("mineiro")
    run(game, "hand 3", "p0 KC", "p1 5C", "p2 5H", "p3 5S", "r0", "a1", "p0 2C", "p1 2H", "p2 5D", "p3 6C")
    assert not game.state.hand_over  # without the truco team 0 (won trick 1) would have won
    run(game, "p0 6H", "p1 KH", "p2 6S", "p3 6D")
    assert game.records[-1]["winner"] == 1 and game.score == [0, 3]


def test_mineiro_last_trick_tied_after_truco_is_a_tied_hand():
    # "If the last trick is tied after a truco was accepted, the whole hand is tied and neither team scores."
    game = new("mineiro")
    run(game, "hand 3", "p0 KC", "p1 5C", "p2 5H", "p3 5S", "p0 5D", "p1 KH", "p2 6C", "p3 6H",
        "r1", "a2", "p1 2C", "p2 2H", "p3 6S", "p0 6D")
    assert game.state.hand_over and game.records[-1]["winner"] is None and game.score == [0, 0]


def test_raise_when_accepting_already_wins():
    # "suppose team A has a score of 7 and team B has 5. Team A says "truco" and team B says "vale 6". It is
    # now illegal (as well as stupid) for team A to say "vale 9"" (quote br_raise_winning); the Mineiro
    # penalty list includes "raising a truco beyond the value your team needs to win the game".
    game = new("mineiro")
    set_score(game, [7, 5])
    run(game, "hand 3", "r0", "r1")
    out = run(game, "r2")
    assert "rule" in kinds(out) and game.score == [7, 6]
    assert game.state.open_bets[0]["to"] == 6  # team B's vale 6 still waits for team A
    assert {"type": "raise", "seat": 0, "to": 9} not in game.legal_events()
    run(game, "a0")
    assert game.state.stake == 6
    strict = new("mineiro", raise_when_winning="illegal")
    set_score(strict, [7, 5])
    run(strict, "hand 3", "r0", "r1")
    with pytest.raises(IllegalEvent, match="already wins"):
        run(strict, "r2")
    paulista = new("paulista")
    set_score(paulista, [7, 5])
    run(paulista, "hand 3 QD", "r0", "r1", "r2")
    assert paulista.state.open_bets[0]["to"] == 9


def test_only_the_accepting_team_raises_and_never_twice_in_a_row():
    # "After a raise has been accepted, the accepting partnership retains the sole right to counter-raise on a
    # subsequent turn." (c28_accepting_team); "A team can't ask for Truco twice in a row." (two_twice);
    # "They can continue the play and interrupt it later to call vale 6" (br_paulista_later_raise)
    game = new("paulista")
    run(game, "hand 3 QD", "r0", "a1", "p0 5C")
    with pytest.raises(IllegalEvent, match="only team 1"):
        run(game, "r2")
    with pytest.raises(IllegalEvent, match="player to play"):
        run(game, "r3")
    run(game, "p1 5H", "p2 5S", "p3 5D")
    run(game, "p0 6C")
    out = run(game, "r1 6")
    assert out[0].data["to"] == 6
    with pytest.raises(IllegalEvent, match="cannot raise its own"):
        run(game, "r3")
    with pytest.raises(IllegalEvent, match="answer"):
        run(game, "p1 6H")
    with pytest.raises(IllegalEvent, match="proposes 9"):
        run(game, "r2 12")


def test_two_point_ladder_and_run_example():
    # "The bet can only be raised in the following order: 4, 6, 10 and 12." (two_ladder)
    # "Example: the hand is worth 6 and a duo asks for 10. If the adversaries run, the ones who asked for Ten
    # will get 6 points (the actual hand value)." (two_run_example)
    game = new("mineiro-2pt")
    assert game.state.stake is None
    run(game, "hand 3", "r0 4", "a1", "p0 5C", "r1 6", "a0", "p1 KH", "p2 6S", "p3 6D", "p1 6C", "r2 10")
    run(game, "x3")
    assert game.score == [6, 0]


def test_minitruco_six_refused_gives_three():
    # 'if the other team accepts this call, the team that wins this "hand" will score 6 points, otherwise, the
    # team that called "six" wins the "hand" and scores 3 points.' (man_six_refused)
    game = new("paulista")
    run(game, "hand 3 QD", "r0", "a1", "p0 5C", "r1", "x2")
    assert game.score == [0, 3]


def test_truco_in_mao_de_onze_loses_the_game_paulista():
    # "When one or both of the teams has 11 points, calling truco automatically gives the victory to the
    # opposing team" (br_paulista_eleven_truco)
    game = new("paulista")
    set_score(game, [11, 4])
    run(game, "hand 3 QD", "eleven 0 play")
    out = run(game, "r1")
    assert any(o.kind == "rule" and "loses the game" in o.text for o in out)
    assert game.state.game_over and game.state.winner == 0
    assert game.records[-1]["end"] == "game_over"


def test_truco_at_ten_loses_the_game_two_point():
    # "At the 10's Hand the players can't ask for Truco. If they do so, they automatically loose the game."
    game = new("mineiro-2pt")
    set_score(game, [4, 10])
    run(game, "hand 3", "eleven 1 play", "r1")
    assert game.state.game_over and game.state.winner == 0


def test_truco_at_eleven_costs_a_tento_in_mineiro():
    # "when either team has a score of 11, the penalty of an irregularity is that the offending team loses 1
    # tento." (br_penalty_eleven) -- and calling truco is one of those irregularities.
    game = new("mineiro")
    set_score(game, [11, 4])
    run(game, "hand 3", "eleven 0 play", "r1")
    assert game.score == [11, 3] and not game.state.hand_over
    run(game, "pen 0")
    assert game.score == [10, 3]


def test_penalty_below_eleven_scores_for_the_opponents():
    game = new("mineiro")
    run(game, "pen 1")
    assert game.score == [1, 0]
    game = new("clean-28")
    run(game, "hand 3 QD", "pen 1")
    assert game.state.game_over and game.state.winner == 0 and game.records[-1]["end"] == "penalty"


@pytest.mark.parametrize("variant,run_points,stake", [("paulista", 1, 3), ("mineiro-2pt", 2, 4)])
def test_mao_de_onze_decision(variant, run_points, stake):
    # "They must then decide whether to play for 3 tentos or to run away, giving the losing team 1 tento."
    vira = " QD" if variant == "paulista" else ""
    at = 11 if variant == "paulista" else 10
    game = new(variant)
    set_score(game, [at, 2])
    run(game, "hand 3" + vira)
    assert game.legal_events() == [{"type": "eleven", "team": 0, "decision": "play"},
                                   {"type": "eleven", "team": 0, "decision": "run"}]
    with pytest.raises(IllegalEvent, match="decide"):
        run(game, "p0 5C")
    with pytest.raises(IllegalEvent):
        run(game, "eleven 1 run")
    run(game, "eleven 0 run")
    assert game.score == [at, 2 + run_points] and game.records[-1]["end"] == "eleven_run"
    run(game, "hand 0" + vira, "eleven 0 play")
    assert game.state.stake == stake
    assert not any(e["type"] == "raise" for e in game.legal_events())


def test_iron_hand_tied_is_replayed():
    # "If the hand is tied, another iron hand is played." (br_iron_tie)
    game = new("mineiro")
    set_score(game, [11, 11])
    run(game, "hand 3")
    assert game.state.hand_kind == "iron"
    run(game, "p0 2C", "p1 2H", "p2 5C", "p3 5H", "p0 3C", "p1 3H", "p2 5S", "p3 5D",
        "p0 KC", "p1 KH", "p2 6S", "p3 6D")
    assert game.score == [11, 11] and not game.state.game_over
    run(game, "hand 0")
    assert game.state.hand_kind == "iron"
    run(game, "p1 KC", "p2 5C", "p3 5H", "p0 5S", "p1 KH", "p2 5D", "p3 6C", "p0 6H")
    assert game.state.game_over and game.state.winner == 1 and game.score == [11, 12]


def test_covered_cards():
    # "Cards cannot be played face down in the first trick." (br_covered_first); "A card played face down can
    # never win a trick" (br_covered); "It is only allowed one face-down card to be played by one's team in a
    # round" (man_one_covered)
    game = new("paulista")
    run(game, "hand 3 QD")
    with pytest.raises(IllegalEvent, match="first trick"):
        run(game, "p0 ?")
    run(game, "p0 6C", "p1 6H", "p2 KC", "p3 6S")
    run(game, "p2 ?")
    assert {"type": "play", "seat": 0, "covered": True} not in game.legal_events()
    run(game, "p3 7C")
    with pytest.raises(IllegalEvent, match="face-down"):
        run(game, "p0 ?")
    run(game, "p0 6D", "p1 ?")
    assert game.state.tricks[1]["winner"] == 1
    assert game.state.tricks[1]["cards"][0] == [2, None]


def test_covered_card_never_wins():
    game = new("mineiro", players=2)
    run(game, "hand 1", "p0 KC", "p1 5C", "p0 ?", "p1 4H")
    assert game.state.tricks[1]["winner"] == 1
    with pytest.raises(IllegalEvent):
        run(new("clean-28"), "hand 3 QD", "p0 KC", "p1 2C", "p2 3C", "p3 KH", "p2 ?")


def test_clean28_strict_rules():
    # "If all three tricks result in ties, the dealer's partnership loses the game." (c28_all_tied)
    game = new("clean-28")
    run(game, "hand 3 7D", "p0 2C", "p1 2H", "p2 JC", "p3 JH", "p0 3C", "p1 3H", "p2 JS", "p3 JD",
        "p0 KC", "p1 KH", "p2 7C", "p3 7H")
    assert game.state.game_over and game.state.winner == 0
    # "If a player lays down a card out of turn, that player's partnership loses the game." (c28_out_of_turn)
    game = new("clean-28")
    out = run(game, "hand 3 7D", "p0 2C", "p2 2H")
    assert game.state.game_over and game.state.winner == 1 and "rule" in kinds(out)
    # Elsewhere a card out of turn is simply refused.
    game = new("paulista")
    with pytest.raises(IllegalEvent, match="turn"):
        run(game, "hand 3 QD", "p1 2C")


def test_all_tied_nobody_scores_in_paulista():
    # 'If all three rounds get tied, no team wins the "hand".' (man_all_tied)
    game = new("paulista")
    run(game, "hand 3 QD", "p0 2C", "p1 2H", "p2 6C", "p3 6H", "p0 3C", "p1 3H", "p2 6S", "p3 6D",
        "p0 KC", "p1 KH", "p2 7S", "p3 7D")
    assert game.score == [0, 0] and game.records[-1]["winner"] is None


def test_duplicate_and_foreign_cards_are_refused():
    game = new("paulista")
    run(game, "hand 3 QD", "p0 5C")
    for bad in ("p1 5C", "p1 QD", "p1 8C", "p1 1E", "p1 XX"):
        with pytest.raises(IllegalEvent):
            run(game, bad)
    assert game.state.trick == [[0, "5C"]]


def test_accept_then_raise_scores_like_a_counter_raise():
    # TABLE-LOG.md: '"Quiero retruco" may be logged as `accept` then `raise`; both forms must score the same.'
    a, b = new("paulista"), new("paulista")
    run(a, "hand 3 QD", "r0", "a1", "r1", "x2")
    run(b, "hand 3 QD", "r0", "r1", "x2")
    assert a.score == b.score == [0, 3]
    # ...but only right after the accept: later the raise waits for the raiser's turn
    c = new("paulista")
    run(c, "hand 3 QD", "r0", "a1", "p0 5C")
    with pytest.raises(IllegalEvent, match="player to play"):
        run(c, "r3")


def test_mineiro_no_betting_once_the_truco_trick_is_under_way():
    # "Any remaining players then play their cards to the trick and the result is decided without further
    # betting."
    game = new("mineiro")
    run(game, "hand 3", "r0", "a1", "p0 5C")
    with pytest.raises(IllegalEvent, match="without further betting"):
        run(game, "r1")


def test_rule_outcome_names_the_special_hand():
    game = new("paulista")
    set_score(game, [4, 11])
    run(game, "hand 3 QD", "eleven 1 play")
    out = run(game, "r1")
    assert [o.text for o in out if o.kind == "rule"] == ["truco called in a mão de onze: team 1 loses the game"]


def test_best_of_three_games():
    game = new("paulista", games=3, target=1, eleven_at=0)
    run(game, "hand 3 QD", "r0", "x1")
    assert game.state.game_over and not game.state.match_over and game.state.games == [1, 0]
    assert {"type": "hand", "dealer": 0, "vira": None} in game.legal_events()
    run(game, "hand 0 QD")
    assert game.score == [0, 0] and game.state.game_number == 2
    run(game, "f0", "hand 1 QD", "f2")
    assert game.state.match_over and game.match_winner == 1 and game.legal_events() == []
    with pytest.raises(IllegalEvent, match="match is over"):
        run(game, "hand 2 QD")


def test_highest_card_after_a_tied_first_trick_is_reported():
    # 28-card: "If the first trick results in a tie, each player must play their highest card in the second trick."
    game = new("clean-28")
    out = run(game, "hand 3 7D", "p0 2C", "p1 2H", "p2 JC", "p3 JH", "p0 KC", "p1 KH", "p2 JS", "p3 JD",
              "p0 3C", "p1 AH", "p2 7C", "p3 7H")
    rules = [o for o in out if o.kind == "rule"]
    assert rules and rules[0].data == {"rule": "highest_after_tie", "seat": 0}


def test_paulista_iron_hand_decides_the_game_and_six_players():
    game = new("paulista")
    set_score(game, [11, 11])
    run(game, "hand 3 QD", "p0 3C", "p1 5C", "p2 5H", "p3 5S", "p0 3H", "p1 5D", "p2 6C", "p3 6H")
    assert game.state.game_over and game.state.winner == 0 and game.score == [12, 11]
    six = new("paulista", 6)
    run(six, "hand 5 QD", "p0 3C", "p1 5C", "p2 5H", "p3 5S", "p4 4C", "p5 4H")
    assert six.state.tricks[0]["winner"] == 0 and six.state.hand_kind == "redonda"


def test_penalty_with_explicit_points_and_undo_of_a_penalty():
    game = new("mineiro")
    run(game, "hand 3")
    game.apply({"type": "penalty", "team": 0, "reason": "talked about cards", "points": 2})
    assert game.score == [0, 2]
    run(game, "undo")
    assert game.score == [0, 0]


TIED_HAND = ("hand 1 4D", "p0 KC", "p1 KH", "r0", "a1", "p0 7C", "p1 7H", "p0 QC", "p1 QH")


def test_tied_hand_stake_and_dealer_by_default():
    # Paulista: a fully tied hand scores nothing, the next hand is worth 1 and the deal passes on.
    game = new("paulista", 2)
    out = run(game, *TIED_HAND)
    assert "hand_tied" in kinds(out) and game.score == [0, 0]
    assert game.legal_events() == [{"type": "hand", "dealer": 0, "vira": None}]
    run(game, "hand 0 4D")
    assert game.state.stake == 1


def test_tied_hand_stake_carries_and_same_dealer_options():
    # "Others play that ... if the value of the tied hand was increased by a truco, this increased value
    # automatically applied to the next hand." / "Some play that after a tied hand, the next hand is dealt
    # by the same dealer." (brazilian-truco-mineiro-paulista.txt, Result of a tied hand)
    game = new("paulista", 2, tied_stake_carries=True, tied_same_dealer=True)
    run(game, *TIED_HAND)
    assert game.legal_events() == [{"type": "hand", "dealer": 1, "vira": None}]
    out = run(game, "hand 1 4D")
    assert [o.data.get("rule") for o in out if o.kind == "rule"] == ["tied_stake_carries"]
    assert game.state.stake == 3
    assert {"type": "raise", "seat": 0, "to": 6} in game.legal_events()
    run(game, "p0 KC", "p1 4H", "p0 7C", "p1 4S")  # team 0 wins the next hand at the carried stake
    assert game.score == [3, 0]
    run(game, "hand 0 4D")
    assert game.state.stake == 1  # a won hand carries nothing


"""Argentine truco: envido, flor, truco ladder, ties, six players -- the text's examples.

Seats for the four-player examples: East deals (seat 3), so North (0) is the mano, then West (1), South (2),
East (3); North-South are team 0, West-East team 1 (``seat % 2``).
"""

from __future__ import annotations

import pytest
from engine_helpers import kinds, new, run, set_score

from companion.engine import IllegalEvent

N, W, S, E = 0, 1, 2, 3


def argentino(players: int = 4, **options):
    return new("argentino", players, **options)


def test_envido_real_real_quiero_is_worth_eight():
    # 'Example: East: "Envido", North: "Real envido", West: "Real Envido", South: "Quiero". Whoever has the best
    # Envido, their team will win 8 points (2 + 3 + 3).' (quote ar_envido_quiero)
    game = argentino()
    run(game, "hand 3", "e3 envido", "e0 real_envido", "e1 real_envido", "a2")
    # every seat may declare (the mano, expected first, is listed first); a flor may still cancel the envido
    assert game.legal_events() == ([{"type": "points", "seat": s} for s in (N, W, S, E)]
                                   + [{"type": "flor", "seat": s, "kind": "flor"} for s in (N, W, S, E)])
    run(game, "pt0 30", "g1", "g3")
    assert game.score == [8, 0]
    assert game.records == [] and not game.state.hand_over  # the hand goes on


def test_envido_real_real_no_quiero_is_worth_five():
    # 'East-West automatically win 5 points (2 + 3), as West's bet was rejected.' (quote ar_envido_no_quiero)
    game = argentino()
    out = run(game, "hand 3", "e3 envido", "e0 real_envido", "e1 real_envido", "x2")
    assert game.score == [0, 5] and "envido_won" in kinds(out)


def test_single_refused_envido_is_worth_one():
    game = argentino()
    run(game, "hand 3", "e3 envido", "x0")
    assert game.score == [0, 1]


def test_falta_envido_as_defence():
    # "North-South have a score of 14 buenas (29 points); East-West have 2 buenas (17 points). East says "Real
    # envido" and North answers with "Falta envido" ... If E-W say "No quiero" now, N-S will score 3 points and
    # win, so the only sensible course for E-W is to say "Quiero", and the winners of the Envido will score just
    # one point." (quote ar_falta)
    game = argentino()
    set_score(game, [29, 17])
    run(game, "hand 3", "e3 real_envido", "e0 falta_envido")
    with pytest.raises(IllegalEvent):
        run(game, "e1 envido")  # falta envido cannot be raised
    run(game, "x1")
    assert game.score == [32, 17] and game.state.game_over and game.state.winner == 0
    assert game.records[-1]["end"] == "game_over"
    game = argentino()
    set_score(game, [29, 17])
    run(game, "hand 3", "e3 real_envido", "e0 falta_envido", "a1", "pt0 20", "pt1 27", "pt2 25")
    assert game.score == [29, 18]


def test_envido_declarations_with_mano_priority():
    # "Example: East is dealer and the Envido holdings are: North 28; West 26; South 31; East 31." North
    # declares, West says son buenas, East declares 31 and South then announces 31 and wins on priority.
    game = argentino()
    run(game, "hand 3", "e0 envido", "a1", "pt0 28", "g1")
    flores = [{"type": "flor", "seat": s, "kind": "flor"} for s in (N, W, S, E)]
    # East is expected next; South (whose partner leads) may declare too, but not concede to his own team
    assert game.legal_events() == [{"type": "points", "seat": E}, {"type": "good", "seat": E},
                                   {"type": "points", "seat": S}] + flores
    run(game, "pt3 31")
    assert game.legal_events() == [{"type": "points", "seat": S}, {"type": "good", "seat": S}] + flores
    run(game, "pt2 31")
    assert game.score == [2, 0]
    assert game.records == [] and game.state.envido["team"] == 0


def test_envido_only_in_the_first_trick_and_before_the_truco():
    # "You cannot make the first bet on the Envido after you have played your first card or after you have bet
    # or accepted a bet on the Truco." (quote ar_envido_first_trick)
    game = argentino()
    run(game, "hand 3", "p0 4C")
    with pytest.raises(IllegalEvent, match="already played"):
        run(game, "e0 envido")
    run(game, "r1", "e2 envido")  # the truco's answerers may still bet envido first ("el envido va primero")
    with pytest.raises(IllegalEvent, match="answer the envido"):
        run(game, "p1 5C")
    with pytest.raises(IllegalEvent, match="own envido"):
        run(game, "a2")
    run(game, "x1")
    assert game.score == [1, 0]
    run(game, "a0")  # now the truco
    with pytest.raises(IllegalEvent):
        run(game, "e3 envido")  # envido is over for this hand
    game = argentino()
    run(game, "hand 3", "r0", "a1")
    with pytest.raises(IllegalEvent, match="truco"):
        run(game, "e3 envido")


def test_flor_three_flores_best_takes_nine():
    # "if North has a Flor 4-10-12, South has a Flor 2-3-10 and East has a Flor 1-3-5 then East's Flor wins
    # ... if all three of them announced Flor, the East-West team will win 9 points for the three flores."
    game = argentino()
    run(game, "hand 3", "fl0", "fl2", "fl3")
    legal = game.legal_events()
    assert legal[:3] == [{"type": "points", "seat": s} for s in (N, S, E)]  # North first, in order
    # before the comparison starts: West's own flor, con flor me achico and the contraflor bets
    assert {"type": "flor", "seat": W, "kind": "flor"} in legal
    assert {"type": "flor", "seat": E, "kind": "contraflor"} in legal
    assert {"type": "flor", "seat": N, "kind": "contraflor_al_resto"} in legal
    assert {"type": "refuse", "seat": E} in legal
    run(game, "pt0 24")
    assert game.legal_events() == [{"type": "points", "seat": E}, {"type": "good", "seat": E},
                                   {"type": "points", "seat": S}]
    run(game, "pt3 29", "pt2 25")
    assert game.score == [0, 9]
    with pytest.raises(IllegalEvent):
        run(game, "e1 envido")  # no envido once there was a flor


def test_flor_tie_goes_to_the_earlier_player():
    game = argentino()
    run(game, "hand 3", "fl1", "fl2", "pt1 30", "pt2 30")
    assert game.score == [0, 6]


def test_contraflor_al_resto_example():
    # "Suppose the score is 8 buenas - 6 malas, two opposing players have Flor and a bet of "Contraflor al
    # resto" is accepted. ... If the 6 malas team have the better Flor, they score the 7 points the leading team
    # needed for game plus 6 points for the two Flores, a total of 13 points, bringing their score up to 4
    # buenas." (quote ar_contraflor_resto)
    game = argentino()
    set_score(game, [23, 6])
    run(game, "hand 3", "fl0", "fl1 contraflor_al_resto", "a0")
    assert game.legal_events() == [{"type": "points", "seat": N}, {"type": "points", "seat": W}]
    with pytest.raises(IllegalEvent):
        run(game, "x2")  # after "con flor quiero" conceding is son buenas, not con flor me achico
    run(game, "pt0 25", "pt1 31")
    assert game.score == [23, 19] and game.state.score_text == ["8 buenas", "4 buenas"]
    game = argentino()
    set_score(game, [23, 6])
    run(game, "hand 3", "fl0", "fl1 contraflor_al_resto", "a0", "pt0 33", "g1")
    assert game.state.game_over and game.state.winner == 0


def test_contraflor_accepted_refused_and_raised():
    # README: "contraflor (proposes the best flor takes 6)"; "A refused contraflor gives the raising team 4."
    game = argentino()
    run(game, "hand 3", "fl0", "fl1 contraflor", "a0", "pt0 25", "g1")
    assert game.score == [6, 0]
    game = argentino()
    run(game, "hand 3", "fl0", "fl1 contraflor", "x2")
    assert game.score == [0, 4]
    game = argentino(target=30)
    set_score(game, [10, 4])
    run(game, "hand 3", "fl0", "fl1 contraflor", "fl2 contraflor_al_resto", "a3", "pt0 21", "pt1 22", "pt2 23", "g3")
    assert game.state.game_over and game.state.winner == 0


def test_flor_table_rows():
    # Seats here: East is the mano (seat 0), then North 1, West 2, South 3 (dealer); E-W team 0, N-S team 1.
    e, n, w, s = 0, 1, 2, 3
    # "N-S score 6 points Only one team has Flores so no betting is possible." (quote ar_flor_flor)
    game = argentino()
    run(game, "hand 3", f"fl{n}", f"fl{s}", "p0 4C")
    assert game.score == [0, 6]
    # "N-S score 4 points 3 for North's Flor and 1 for E-W's surrender" (quote ar_achico)
    game = argentino()
    run(game, "hand 3", f"fl{n}", f"x{w}")
    assert game.score == [0, 4]
    # "E-W score 4 points South surrenders on behalf of the partnership" (quote ar_south_surrenders)
    game = argentino()
    run(game, "hand 3", f"fl{e}", f"fl{n}", f"x{s}")
    assert game.score == [4, 0]
    # "North tried to surrender before South had had a turn to speak. South's Flor announcement overrides
    # North's surrender." -> three flores, the best takes 9 (quote ar_override)
    game = argentino()
    out = run(game, "hand 3", f"fl{e}", f"x{n}", f"fl{s}")
    assert "rule" in kinds(out) and game.score == [0, 0]
    run(game, f"pt{e} 30", f"pt{n} 31")
    assert game.score == [0, 9]
    # "By simply announcing Flor, West leaves it to East to answer North's bet." -> 9 plus what the leader needs
    game = argentino()
    run(game, "hand 3", f"fl{e}", f"fl{n} contraflor_al_resto", f"fl{w}", f"a{e}")
    run(game, f"pt{e} 25", f"pt{n} 26", f"g{w}")
    assert game.score == [0, 30 + 9]


def test_flor_cancels_envido_then_truco_is_answered():
    # 'East says "Truco", North says "Falta envido", West says "Quiero", and South says "Flor". North's and
    # West's bets are cancelled, North-South will score 3 points for the Flor, and North-South must now answer
    # East's original bet of "Truco".' (quote ar_flor_cancels)
    game = argentino()
    out = run(game, "hand 3", "r3", "e0 falta_envido", "a1", "fl2")
    assert any(o.kind == "rule" and "cancels" in o.text for o in out)
    run(game, "a0")
    assert game.score == [3, 0]
    assert game.state.stake == 2 and game.state.may_raise == 0


def test_truco_retruco_vale_cuatro_refusals():
    # '"No Quiero", in which case play ceases and the team which said "Retruco" scores 2.' (ar_retruco_refused)
    game = argentino()
    run(game, "hand 3", "r0", "a1", "r1", "x0")
    assert game.score == [0, 2]
    # '... the team which said "Vale cuatro" scores 3.' (quote ar_vale_cuatro_refused)
    game = argentino()
    run(game, "hand 3", "r0", "a1", "r1", "a2", "r2 4", "x3")
    assert game.score == [3, 0]
    # "Quiero retruco" as accept then raise scores like the bare counter-raise (TABLE-LOG.md).
    a, b = argentino(), argentino()
    run(a, "hand 3", "r0", "a1", "r1", "x0")
    run(b, "hand 3", "r0", "r1", "x0")
    assert a.score == b.score == [0, 2]


def test_play_while_truco_is_open_in_argentine_truco():
    game = argentino()
    run(game, "hand 3", "r0", "p0 4C", "p1 5C")
    run(game, "a1")
    assert game.state.stake == 2


def test_tied_trick_leader_leads_again():
    # "East leads a king and North, West and South all play twos. The trick is tied and East leads again."
    game = argentino()
    run(game, "hand 3", "p0 12C", "p1 2C", "p2 2O", "p3 2E")
    assert game.state.tricks[0]["winner"] is None and game.state.turn == 0


def test_all_tied_goes_to_the_mano():
    # "If all three tricks are tied then the Truco is won by the team of the mano" (quote ar_all_tied)
    game = argentino()
    run(game, "hand 0", "p1 3C", "p2 3O", "p3 4C", "p0 4O", "p1 2C", "p2 2O", "p3 5C", "p0 5O",
        "p1 12C", "p2 12O", "p3 6C", "p0 6O")
    assert game.score == [0, 1] and game.records[-1]["winner"] == 1


def test_envido_scored_before_the_truco_can_end_the_game():
    # "On each deal, the Flor or Envido is scored before the Truco, so if winning the Flor or Envido takes a team
    # to 15 buenas or beyond, that team automatically wins the game" (quote ar_scored_first)
    game = argentino()
    set_score(game, [10, 28])
    run(game, "hand 3", "r0", "e1 envido", "a2", "pt0 20", "pt1 33", "g2")
    assert game.state.game_over and game.state.winner == 1 and game.score == [10, 30]
    with pytest.raises(IllegalEvent):
        run(game, "a1")


def test_envido_at_end_of_hand_option_allows_a_draw():
    game = argentino(envido_scored="end_of_hand")
    set_score(game, [29, 28])
    run(game, "hand 3", "e1 envido", "a0", "pt0 20", "pt1 33", "g2", "p0 1E", "p1 4C", "p2 4O", "p3 4B",
        "p0 1B", "p1 5C", "p2 5O", "p3 5B")
    assert game.score == [30, 30] and game.state.game_over and game.state.winner is None


def test_fold_and_fold_envido_point_option():
    game = argentino()
    run(game, "hand 3", "f1")
    assert game.score == [1, 0] and game.records[-1]["end"] == "fold"
    game = argentino(fold_envido_point=True)
    run(game, "hand 3", "f1")
    assert game.score == [2, 0]
    game = argentino()
    run(game, "hand 3", "e0 envido", "f1")  # going to the deck concedes the open envido too
    assert game.score == [2, 0]


def test_two_players():
    game = argentino(players=2)
    run(game, "hand 1", "e0 envido", "a1", "pt0 27", "pt1 30", "p0 1E", "p1 4C", "p0 1B", "p1 5C")
    assert game.score == [1, 2]


def test_six_players_redonda_and_pica_pica():
    # README: "deals alternate between redonda (an ordinary three-against-three hand) and pica-pica (three
    # one-against-one hands between opposite players, each scored for its team). At 25 points (10 buenas) or
    # more, only redonda is played." (quotes rd_pica_pica, ar_six)
    game = argentino(players=6)
    run(game, "hand 5")
    assert game.state.hand_kind == "redonda"
    run(game, "f0")
    run(game, "hand 0")
    assert game.state.hand_kind == "pica-pica"
    # duels: (1, 4), (2, 5), (3, 0); each seat only meets its opposite player
    assert sorted(game.state.turns) == [1, 2, 3]
    run(game, "p1 4C", "p4 5C")  # seat 4 wins trick 1 of the first duel
    run(game, "r2", "x5")  # second duel: truco refused, team 0 scores 1
    run(game, "f0")  # third duel: seat 0 goes to the deck, team 1 scores 1
    run(game, "p4 1E", "p1 6C")
    assert game.state.hand_over
    rec = game.records[-1]
    assert rec["kind"] == "pica-pica" and len(rec["duels"]) == 3
    assert rec["points"] == [2, 1] and game.score == [2, 2]
    run(game, "hand 1")
    assert game.state.hand_kind == "redonda"
    game = argentino(players=6)
    set_score(game, [25, 0])
    run(game, "hand 5", "f0", "hand 0")
    assert game.state.hand_kind == "redonda"


def test_a_pica_pica_deal_keeps_every_duels_cards_seen():
    # "three one-against-one hands" of one deal (quote rd_pica_pica): one deck, so a card the first duel
    # played is out for the others.  The state shows the live duel's tricks; ``seen`` is the whole deal's
    game = argentino(players=6)
    run(game, "hand 5", "f0", "hand 0", "p1 4C", "p4 5C", "f1")  # the first duel (1, 4) is over
    assert game.state.turns == [2, 3] and game.state.tricks == []
    assert game.state.seen == ["4C", "5C"]
    with pytest.raises(IllegalEvent, match="already been seen"):
        run(game, "p2 4C")
    run(game, "p2 6C")
    assert game.state.seen == ["4C", "5C", "6C"]


def test_argentine_has_no_covered_cards_and_no_eleven():
    game = argentino()
    set_score(game, [11, 11])
    run(game, "hand 3")
    assert game.state.hand_kind == "normal"
    run(game, "p0 4C", "p1 5C", "p2 6C", "p3 7C")
    with pytest.raises(IllegalEvent):
        run(game, "p3 ?")


def test_malas_buenas_text():
    # "a team which has 12 points has "12 malas", and a team with 18 points has "3 buenas""
    game = argentino()
    set_score(game, [12, 18])
    assert game.state.score_text == ["12 malas", "3 buenas"]
    game = argentino()
    set_score(game, [15, 16])
    assert game.state.score_text == ["15 malas", "1 buenas"]


def test_contraflor_al_resto_refused():
    game = argentino()
    run(game, "hand 3", "fl0", "fl1 contraflor_al_resto", "x0")
    assert game.score == [0, 4]
    game = argentino()
    run(game, "hand 3", "fl0", "fl1 contraflor", "fl2 contraflor_al_resto",
        "x1")
    assert game.score == [6, 0]  # the contraflor stood when al resto answered it

"""The simulated table that answers the companion's card questions (``--answer`` of the table
evaluation): it says what a player who looks at the card would say."""

from __future__ import annotations

from types import SimpleNamespace

from companion.table.answers import TableAnswers
from companion.table.engine_view import MemoryTableLog
from companion.table.fusion import Fusion, FusionConfig
from companion.table.observations import Proposal

from .streams import pica_pica

MATCH = {"type": "match", "variant": "paulista", "players": 4}
BOX_A, BOX_B, BOX_C = (100.0, 100.0, 160.0, 180.0), (300.0, 100.0, 360.0, 180.0), (200.0, 300.0, 260.0, 380.0)
STATES = [
    {"t": 0.0, "cards": [{"card": "5H", "box": list(BOX_C)}]},
    {"t": 2.0, "cards": [{"card": "5H", "box": list(BOX_C)}, {"card": "4C", "box": list(BOX_A)}]},
    {"t": 4.0, "cards": [{"card": "5H", "box": list(BOX_C)}, {"card": "4C", "box": list(BOX_A)},
                         {"card": "back", "box": list(BOX_B)}]},
]


def _fusion() -> Fusion:
    fusion = Fusion(MemoryTableLog(MATCH), FusionConfig(settle_timeout=None), first_dealer=3)
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "5H"}, 0.0))
    fusion.tick(1.0)
    return fusion


def _weak(seat: int, card: str, t: float, box, alternatives=()) -> Proposal:
    return Proposal({"type": "play", "seat": seat, "card": card}, t, confidence=0.4, flags=["low_confidence"],
                    box=box, alternatives=list(alternatives))


def _run(fusion: Fusion, answers: TableAnswers, until: float) -> None:
    t = fusion.now
    while t < until:
        t = round(t + 0.1, 3)
        fusion.tick(t)
        answers(SimpleNamespace(fusion=fusion), None, None)


def test_the_truth_is_the_card_under_the_box_at_that_time():
    answers = TableAnswers(STATES)
    assert answers.truth_at(2.5, BOX_A) == "4C"
    assert answers.truth_at(1.0, BOX_A) is None  # not put down yet
    assert answers.truth_at(4.5, (305.0, 105.0, 362.0, 178.0)) == "back"
    assert answers.truth_at(4.5, (500.0, 400.0, 560.0, 470.0)) is None


def test_a_right_reading_is_confirmed_after_the_delay_and_not_before():
    fusion, answers = _fusion(), TableAnswers(STATES, delay=1.0)
    fusion.submit(_weak(0, "4C", 2.0, BOX_A, ["4S"]))
    _run(fusion, answers, 2.8)
    assert len(fusion.pending) == 1 and not answers.counts  # asked, not answered yet
    _run(fusion, answers, 4.0)
    assert fusion.log.events[-1] == {"type": "play", "seat": 0, "card": "4C"}
    assert dict(answers.counts) == {"confirmed": 1}


def test_a_wrong_reading_is_put_right_from_the_readings_offered_or_typed():
    fusion, answers = _fusion(), TableAnswers(STATES, delay=0.5)
    fusion.submit(_weak(0, "4S", 2.0, BOX_A, ["7C", "4C"]))  # the truth is the second reading offered
    _run(fusion, answers, 3.5)
    assert fusion.log.events[-1] == {"type": "play", "seat": 0, "card": "4C"}
    fusion, answers = _fusion(), TableAnswers(STATES, delay=0.5)
    fusion.submit(_weak(0, "4S", 2.0, BOX_A, ["7C"]))  # not offered: typed
    _run(fusion, answers, 3.5)
    assert fusion.log.events[-1] == {"type": "play", "seat": 0, "card": "4C"}
    assert dict(answers.counts) == {"typed": 1}


def test_a_face_down_card_taken_for_a_face_is_typed_face_down_and_a_covered_one_confirmed():
    fusion, answers = _fusion(), TableAnswers(STATES, delay=0.5)
    fusion.submit(_weak(0, "4C", 4.0, BOX_B))
    _run(fusion, answers, 5.5)
    # typed face down (in paulista's first trick the engine refuses it: nothing goes in, nothing waits)
    assert fusion.log.events[-1]["type"] == "hand" and not fusion.pending
    assert dict(answers.counts) == {"typed": 1}
    fusion, answers = _fusion(), TableAnswers(STATES, delay=0.5)
    fusion.submit(Proposal({"type": "play", "seat": 0, "covered": True}, 4.0, confidence=0.4,
                           flags=["low_confidence"], box=BOX_B))
    _run(fusion, answers, 5.5)
    # confirmed, not rejected (a face-down card in the first trick is illegal in paulista, so the engine
    # keeps it pending: the answer cannot make an illegal play legal)
    assert dict(answers.counts) == {"confirmed": 1} and not fusion.rejected


def test_a_question_about_no_card_the_player_can_see_is_left_to_the_timeout():
    fusion, answers = _fusion(), TableAnswers(STATES, delay=0.5)
    fusion.submit(_weak(0, "4C", 4.0, (500.0, 400.0, 560.0, 470.0)))
    _run(fusion, answers, 5.5)
    assert len(fusion.pending) == 1 and not fusion.rejected
    assert dict(answers.counts) == {"left": 1}


def test_cards_settled_unasked_and_voice_doubts_are_left_alone():
    fusion = Fusion(MemoryTableLog(MATCH), FusionConfig(settle_timeout=5.0), first_dealer=3)
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "5H"}, 0.0))
    fusion.tick(1.0)
    answers = TableAnswers(STATES, delay=0.5)
    quiet = _weak(0, "4S", 2.0, BOX_A)
    quiet.flags.append("unrivalled")
    fusion.submit(quiet)
    _run(fusion, answers, 3.5)
    # in at once, shown '~' while it settles; nobody is asked
    assert not fusion.pending and fusion.settling == [quiet] and not answers.counts


def test_an_impossible_card_is_named_when_another_card_lies_there():
    states = list(STATES) + [{"t": 6.0, "cards": [{"card": "5H", "box": list(BOX_C)}, {"card": "4C", "box": list(BOX_A)},
                                                  {"card": "7C", "box": list(BOX_B)}]}]
    fusion, answers = _fusion(), TableAnswers(states, delay=0.5)
    fusion.submit(Proposal({"type": "play", "seat": 0, "card": "4C"}, 2.0, box=BOX_A))
    _run(fusion, answers, 6.0)
    # the 7C read as the 4C already out (shown, never applied), and a ghost of the 4C itself
    fusion.submit(Proposal({"type": "play", "seat": 1, "card": "4C"}, 6.0, blocking=False, flags=["duplicate"],
                           box=BOX_B, alternatives=["KC", "7C"]))
    fusion.submit(Proposal({"type": "play", "seat": 1, "card": "4C"}, 6.1, blocking=False, flags=["duplicate"],
                           box=BOX_A, alternatives=["4S"]))
    _run(fusion, answers, 7.5)
    assert fusion.log.events[1:] == [{"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "7C"}]
    assert dict(answers.counts) == {"alert_chosen": 1}


def test_a_doubt_about_the_seat_is_left_to_the_reordering_and_the_timeout():
    """A card in another seat's zone is often one seen before the card put down first; confirming it
    would fix its seat before the late card puts the two back in the order of their zones."""
    fusion, answers = _fusion(), TableAnswers(STATES, delay=0.5)
    fusion.submit(Proposal({"type": "play", "seat": 0, "card": "4C"}, 2.0, flags=["wrong_seat"], box=BOX_A))
    _run(fusion, answers, 3.5)
    assert len(fusion.pending) == 1 and not answers.counts


def test_the_table_says_who_made_a_call_both_teams_could_have_made():
    fusion = pica_pica()
    calls = [(2.0, {"type": "raise", "seat": 2, "to": 2}), (5.0, {"type": "raise", "seat": 4, "to": 2})]
    answers = TableAnswers([], delay=0.5, calls=calls)
    fusion.hear_words(2.0, "truco")  # the companion names seat 4; seat 2 said it
    _run(fusion, answers, 4.0)
    assert fusion.log.events[-1] == {"type": "raise", "seat": 2, "to": 2}
    assert answers.counts == {"call_chosen": 1}
    fusion.hear_words(5.0, "quiero")
    fusion.hear_words(5.5, "truco")  # named right this time (seat 4's duel is the first with no bet)
    _run(fusion, answers, 8.0)
    assert fusion.log.events[-1]["type"] == "raise" and fusion.log.events[-1]["seat"] == 4
    assert answers.counts == {"call_chosen": 1, "call_confirmed": 1}


def test_asked_for_the_vira_the_player_names_the_card_by_the_deck_not_the_play_under_the_box():
    """Seed 9: "new hand, vira AH?" pointed at seat 3's first play, an AH; the simulated player
    looked under the box and confirmed it, though the vira turned by the deck was the QH."""
    states = [{"t": 0.0, "cards": [{"card": "5H", "box": list(BOX_C), "role": "vira"},
                                   {"card": "4C", "box": list(BOX_A), "role": "play"}]}]
    for box, vira in ((BOX_A, "4C"), (BOX_C, "5H")):
        fusion = Fusion(MemoryTableLog(MATCH), FusionConfig(settle_timeout=None), first_dealer=3)
        answers = TableAnswers(states, delay=0.5)
        fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": vira}, 1.0, confidence=0.4,
                               flags=["low_confidence"], box=box))
        _run(fusion, answers, 2.5)
        assert fusion.log.events[-1] == {"type": "hand", "dealer": 3, "vira": "5H"}
        assert dict(answers.counts) == ({"typed": 1} if vira == "4C" else {"confirmed": 1})


# seat 0's 4C lay in its zone from t 2 and the camera never read it; seat 1's 7D, put down at t 3 in seat 1's zone,
# was proposed for seat 0 (the seat due) and held for lying in seat 1's zone
BOX_SEAT0, BOX_SEAT1 = (100.0, 300.0, 160.0, 380.0), (400.0, 200.0, 460.0, 280.0)
MISSED_STATES = [
    {"t": 0.0, "cards": [{"card": "5H", "box": list(BOX_C), "role": "vira", "seat": None, "t_on": 0.0}]},
    {"t": 2.0, "cards": [{"card": "5H", "box": list(BOX_C), "role": "vira", "seat": None, "t_on": 0.0},
                         {"card": "4C", "box": list(BOX_SEAT0), "role": "play", "seat": 0, "t_on": 2.0}]},
    {"t": 3.0, "cards": [{"card": "5H", "box": list(BOX_C), "role": "vira", "seat": None, "t_on": 0.0},
                         {"card": "4C", "box": list(BOX_SEAT0), "role": "play", "seat": 0, "t_on": 2.0},
                         {"card": "7D", "box": list(BOX_SEAT1), "role": "play", "seat": 1, "t_on": 3.0}]},
]


def _held_in_seat_1(card: str = "7D") -> Proposal:
    return Proposal({"type": "play", "seat": 0, "card": card}, 3.0, flags=["wrong_seat"], box=BOX_SEAT1, zone=1,
                    reason="card lies in seat 1's zone, but it is seat 0's turn")


def test_the_due_seats_card_the_camera_missed_is_typed_and_the_held_card_takes_its_zones_seat():
    fusion, answers = _fusion(), TableAnswers(MISSED_STATES, delay=0.5)
    fusion.submit(_held_in_seat_1())
    _run(fusion, answers, 3.3)
    assert fusion.messages[-1].endswith("if the camera missed seat 0's card, type it (play 0 CARD)")  # what the table is asked
    assert not answers.counts
    _run(fusion, answers, 4.5)
    assert fusion.log.events[-2:] == [{"type": "play", "seat": 0, "card": "4C"},
                                      {"type": "play", "seat": 1, "card": "7D"}]
    assert dict(answers.counts) == {"missed_typed": 1} and not fusion.pending


def test_no_card_is_typed_when_the_due_seat_has_none_down_or_the_held_card_is_the_due_seats():
    # the held card is seat 0's own, put down outside its zone: a seat doubt, left to the fusion
    own = [{**s, "cards": [{**c, "seat": 0} if c["card"] == "7D" else c for c in s["cards"]]} for s in MISSED_STATES]
    # seat 0's card is put down after the held card (seen early, not missed): nothing to type yet
    late = [{**s, "cards": [{**c, "t_on": 3.5} if c["card"] == "4C" else c for c in s["cards"]]}
            for s in MISSED_STATES]
    # seat 0's card on the table is one of the last hand's, put down before this hand's deal (seed 504)
    old = [{**s, "cards": [{**c, "t_on": -3.0} if c["card"] == "4C" else c for c in s["cards"]]}
           for s in MISSED_STATES]
    for states in (own, late, old):
        fusion, answers = _fusion(), TableAnswers(states, delay=0.5)
        fusion.submit(_held_in_seat_1())
        _run(fusion, answers, 4.5)
        assert "missed_typed" not in answers.counts and len(fusion.pending) == 1
    # asked directly: seat 0's 4C is the missed card until the log holds it
    fusion, answers = _fusion(), TableAnswers(MISSED_STATES)
    held = _held_in_seat_1()
    fusion.pending_since[held.id] = 3.0
    assert answers.missed(fusion, held) == {"type": "play", "seat": 0, "card": "4C"}
    fusion.enter({"type": "play", "seat": 0, "card": "4C"})
    assert answers.missed(fusion, held) is None


def test_a_missed_card_the_engine_refuses_is_counted_and_the_question_stays():
    """Seat 0's missed card lies face down in the first trick, where Paulista lets no card be played covered:
    the typed play is refused with the engine's reason, counted as refused, and the held card is still asked
    about (nothing entered, nothing lost)."""
    backs = [{**s, "cards": [{**c, "card": "back"} if c["card"] == "4C" else c for c in s["cards"]]}
             for s in MISSED_STATES]
    fusion, answers = _fusion(), TableAnswers(backs, delay=0.5)
    fusion.submit(_held_in_seat_1())
    _run(fusion, answers, 4.5)
    assert dict(answers.counts) == {"missed_refused": 1}
    assert [e["type"] for e in fusion.log.events] == ["hand"] and len(fusion.pending) == 1
    assert list(fusion.messages)[-1] == "rejected typed event: a card cannot be played face down in the first trick"

"""The tracker on recorded detection streams (tests/table/fixtures/*.jsonl),
through fusion and the real engine, with nobody confirming anything."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from companion.table.fusion import FusionConfig
from companion.table.observations import BACK, DETECTOR, OUTLINE, Detection, FrameDetections, Proposal
from companion.table.replay import UNATTENDED
from companion.table.session import TableSession
from companion.table.tracker import (FACE_DOWN_REASON, Anchor, TableTracker, TableView, Track, TrackerConfig,
                                     _read_face_down, closing_event)
from companion.table.zones import Calibration, Zones

from .streams import events, run_stream

HAND = {"type": "hand", "dealer": 3, "vira": "5H"}


def test_flickering_card_is_played_once_and_misread_frame_is_outvoted():
    s = run_stream("flicker")
    assert events(s) == [HAND, {"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "AS"}]
    assert not s.fusion.pending and not s.fusion.alerts


def test_card_seen_twice_is_flagged_not_applied():
    s = run_stream("seen_twice")
    assert events(s) == [HAND, {"type": "play", "seat": 0, "card": "4C"}]
    assert [a.flags for a in s.fusion.alerts] == [["duplicate"]]
    assert not s.fusion.pending  # an alert never blocks the table


def test_impossible_reading_falls_back_to_the_next_best_one_for_confirmation():
    s = run_stream("misread")
    assert events(s) == [HAND, {"type": "play", "seat": 0, "card": "4C"}]
    (pending,) = s.fusion.pending
    assert pending.event == {"type": "play", "seat": 1, "card": "AS"}
    assert "reread" in pending.flags and "read as 4C" in pending.reason
    assert not s.fusion.alerts


def test_card_of_the_wrong_deck_is_flagged_not_applied():
    s = run_stream("wrong_deck")
    assert events(s) == [HAND]
    (alert,) = s.fusion.alerts
    assert alert.flags == ["not_in_deck"] and "8C" in alert.reason


def test_card_in_another_seats_zone_is_held_for_confirmation():
    s = run_stream("wrong_seat")
    assert events(s) == [HAND, {"type": "play", "seat": 0, "card": "4C"}]
    (pending,) = s.fusion.pending
    assert pending.flags == ["wrong_seat"]
    assert pending.event == {"type": "play", "seat": 1, "card": "KD"}  # the seat comes from the turn order
    assert "seat 3" in pending.reason
    assert s.fusion.confirm()
    assert events(s)[-1] == {"type": "play", "seat": 1, "card": "KD"}


def test_cards_seen_in_the_wrong_order_take_the_seats_of_their_zones():
    s = run_stream("crossed")
    assert events(s) == [HAND, {"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "AS"},
                         {"type": "play", "seat": 2, "card": "KD"}]
    assert not s.fusion.pending


def test_a_card_seen_late_takes_its_seat_before_the_cards_seen_before_it():
    # found on a rendered six-player session: a covered card hidden by the hand that put it down
    # was seen after the next two plays, and every card of the rest of the hand went to the wrong seat
    for fusion in (None, FusionConfig(**UNATTENDED.__dict__)):
        s = run_stream("late_covered", fusion=fusion)
        first_trick = [{"type": "play", "seat": seat, "card": card} for seat, card in enumerate(["4C", "AS", "KD", "JH"])]
        assert events(s) == [HAND, *first_trick, {"type": "play", "seat": 1, "card": "7D"},
                             {"type": "play", "seat": 2, "covered": True}, {"type": "play", "seat": 3, "card": "QS"},
                             {"type": "play", "seat": 0, "card": "5C"}]
        assert not s.fusion.pending


def test_table_cleared_early_proposes_the_end_of_the_hand():
    s = run_stream("cleared_early")
    assert events(s)[:3] == [HAND, {"type": "play", "seat": 0, "card": "4C"},
                             {"type": "play", "seat": 1, "card": "AS"}]
    (pending,) = s.fusion.pending
    assert pending.flags == ["table_cleared"]
    assert pending.event == {"type": "fold", "seat": 2}  # seat 2 was due to play
    s.fusion.reject()
    assert not s.fusion.pending and len(events(s)) == 3


def test_a_new_deal_after_a_swept_table_closes_the_hand_the_engine_still_runs():
    # seat 2's card was never seen: without the close, the new vira (4C, played in the old hand)
    # would be flagged as a duplicate and QD would become seat 2's missing play
    s = run_stream("new_deal", fusion=FusionConfig(**UNATTENDED.__dict__))
    assert events(s) == [HAND, {"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "AS"},
                         {"type": "fold", "seat": 2},  # no trick decided: the seat due to play
                         {"type": "hand", "dealer": 0, "vira": "4C"}, {"type": "play", "seat": 1, "card": "QD"}]
    closed = [a for a in s.fusion.applied if a.proposal is not None and "new_deal" in a.proposal.flags]
    assert len(closed) == 1 and closed[0].resolved_by == "timeout"
    assert [p.flags for p in s.fusion.rejected] == [["table_cleared"]]  # the sweep alone proves no fold


def test_a_new_deal_is_asked_about_when_someone_is_watching():
    s = run_stream("new_deal")
    assert len(events(s)) == 3
    # the new deal's close is dated back to the sweep, so it is asked first; confirmed, the table's other
    # question (cleared: fold?) is answered too
    assert [p.flags for p in s.fusion.pending] == [["new_deal"], ["table_cleared"]]
    assert s.fusion.pending[0].event == {"type": "fold", "seat": 2}
    s.fusion.confirm()
    s.fusion.tick(s.fusion.now + 1.0)
    assert events(s)[3:] == [{"type": "fold", "seat": 2}, {"type": "hand", "dealer": 0, "vira": "4C"},
                             {"type": "play", "seat": 1, "card": "QD"}]
    assert not s.fusion.pending and [p.flags for p in s.fusion.rejected] == [["table_cleared"]]


def test_a_table_hidden_for_a_moment_is_no_new_deal():
    s = run_stream("all_hidden", fusion=FusionConfig(**UNATTENDED.__dict__))
    assert events(s) == [HAND, {"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "AS"},
                         {"type": "play", "seat": 2, "card": "KD"}]
    assert not s.fusion.alerts and not s.fusion.rejected
    assert any("left the view" in e for e in s.tracker.events)  # it did look like a sweep for a moment


def test_without_a_vira_a_moments_blackout_never_ends_the_hand():
    # mineiro turns no vira (5H by the deck is the first play); KD after the blackout is the next play
    s = run_stream("all_hidden", variant="mineiro", fusion=FusionConfig(**UNATTENDED.__dict__))
    assert [e["type"] for e in events(s)] == ["hand", "play", "play", "play", "play"]
    assert events(s)[-1]["card"] == "KD"


def test_a_doubtful_card_is_read_again_while_it_waits():
    # asked about (no settling unasked): the waiting proposal takes the new reading
    s = run_stream("covered_at_first", fusion=FusionConfig(**{**UNATTENDED.__dict__, "settle_timeout": None}))
    assert events(s) == [HAND, {"type": "play", "seat": 0, "card": "AS"}]
    reasons = [a.proposal.reason for a in s.fusion.applied]
    assert "read again as 5H (first 4H)" in reasons[0] and "read again as AS (first KS)" in reasons[1]


def test_a_weak_card_in_the_log_while_it_settles_is_renamed_when_read_again():
    # read weakly with no rival, the vira and the play go in at once (Fusion.settling); read otherwise
    # before their time is up, each is renamed in the log
    s = run_stream("covered_at_first", fusion=FusionConfig(**UNATTENDED.__dict__))
    assert s.log.game.events == [HAND, {"type": "play", "seat": 0, "card": "AS"}]
    assert [a.resolved_by for a in s.fusion.applied] == ["settle", "amend", "amend"] * 2
    assert [e["type"] for e in events(s)] == ["hand", "undo", "hand", "play", "undo", "play"]
    assert s.tracker.events == ["0.50s 4H read again as 5H", "2.50s KS read again as AS"]


def test_a_card_asked_about_whose_rival_fades_goes_in_without_an_answer():
    # live (nobody answers): 4C read 4S in two of its first frames is asked about ("or 1: 4S"); read 4C in
    # every frame after, the rival fades, the question is withdrawn and the card settles (Fusion.settling)
    s = run_stream("rival_fades")
    assert events(s) == [HAND, {"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "7D"}]
    assert any(m.startswith("? seat 0 plays 4C") for m in s.fusion.messages)
    assert [a.resolved_by for a in s.fusion.applied] == ["auto", "settle", "auto"]
    # without it, the question waits for the table, and seat 1's card behind it
    held = run_stream("rival_fades", tracker=TrackerConfig(quiet_rivals=False))
    assert events(held) == [HAND] and len(held.fusion.pending) == 1


def test_someone_asked_about_a_doubtful_vira_sees_its_latest_reading():
    s = run_stream("covered_at_first", fusion=FusionConfig(settle_timeout=None))
    (pending, *_) = s.fusion.pending
    assert pending.event == HAND and pending.alternatives[0] == "4H"  # the first reading is still offered
    assert s.fusion.confirm() and events(s) == [HAND]


def test_a_card_put_down_after_the_hand_ended_is_no_vira():
    s = run_stream("late_card")
    got = events(s)
    assert got[0] == HAND and len(got) == 9 and got[-1] == {"type": "play", "seat": 2, "card": "4H"}
    assert not any(e["type"] == "hand" for e in got[1:])
    (alert,) = s.fusion.alerts
    assert alert.flags == ["after_hand"] and alert.event["card"] == "KC" and alert.event["seat"] == 0


def test_a_hand_ended_by_a_ghost_goes_on_when_the_next_card_comes():
    # a weak box in seat 0's zone went in as seat 1's KS (asked about; unattended, applied at the timeout).
    # Seat 1's own 4H, in its zone, is then held for seat 2's turn: taking the ghost out puts it in its
    # seat's zone, so the ghost is taken out there (the log shows the undo: Fusion._reread_for_zones)
    want = [(0, "7C"), (1, "7D"), (2, "QS"), (3, "JH"), (3, "4C"), (0, "QD"), (1, "4H"), (2, "5C"),
            (0, "7S"), (1, "4S"), (2, "2D"), (3, "3C")]
    s = run_stream("ghost_ends_hand", fusion=FusionConfig(**UNATTENDED.__dict__))
    assert [(e["seat"], e["card"]) for e in s.log.game.events if e["type"] == "play"] == want
    assert [e["type"] for e in events(s)].count("undo") == 1
    assert s.log.game.state.to_dict()["score"] == [0, 1] and not s.fusion.alerts
    assert any("KS, a doubtful card outside its seat's zone, was no play" in m for m in s.fusion.messages)
    # without that (reread_gain None) 4H goes in as seat 2's, the ghost wins the trick and ends the hand, and
    # seat 2's 5C comes "after the hand": taking the ghost out lets the hand go on with every card in its own
    # seat's zone, so it is taken out then (the log shows the undos: Fusion._after_hand)
    s = run_stream("ghost_ends_hand", fusion=FusionConfig(**{**UNATTENDED.__dict__, "reread_gain": None}))
    assert [(e["seat"], e["card"]) for e in s.log.game.events if e["type"] == "play"] == want
    assert [e["type"] for e in events(s)].count("undo") == 2
    assert s.log.game.state.to_dict()["score"] == [0, 1] and not s.fusion.alerts
    assert any("KS, a doubtful card outside its seat's zone, was no play" in m for m in s.fusion.messages)
    # without either (reopen_gain None too) the hand ends on the ghost and 5C is only shown; so are the last
    # trick's cards, put down while that hand's vira still lies by the deck (7S, by the deck, is no vira: it waits)
    shown = run_stream("ghost_ends_hand", fusion=FusionConfig(**{**UNATTENDED.__dict__, "reopen_gain": None,
                                                                 "reread_gain": None}))
    assert {"type": "play", "seat": 1, "card": "KS"} in events(shown)
    assert [(a.flags, a.event["card"]) for a in shown.fusion.alerts] == [
        (["after_hand"], "5C"), (["after_hand"], "4S"), (["after_hand"], "2D"), (["after_hand"], "3C")]
    assert sum(e["type"] == "hand" for e in events(shown)) == 1


def test_a_hand_ended_by_a_misread_trick_winner_goes_on_once_two_late_cards_fit_their_seats():
    # seat 0's AS read JS (AS in one frame of four) lets KD win the trick and end the hand.  The next card
    # alone (seat 0's 7S) fits "JS was AS" with nothing else to back it, so it waits for the one after it
    # (seat 1's 4S, in seat 1's zone, seat 1 being due next): then the hand goes in again with AS
    s = run_stream("misread_winner", fusion=FusionConfig(**UNATTENDED.__dict__))
    plays = [(e["seat"], e["card"]) for e in s.log.game.events if e["type"] == "play"]
    assert plays == [(0, "7C"), (1, "7D"), (2, "QS"), (3, "JH"), (3, "KD"), (0, "AS"), (1, "4H"), (2, "5C"),
                     (0, "7S"), (1, "4S"), (2, "2D"), (3, "3C")]
    assert "JS was AS: the hand goes on, and 7S is its play" in s.fusion.messages and not s.fusion.alerts
    # not waiting for a second card (reopen_wait None), one card is too little: the last trick is only shown
    shown = run_stream("misread_winner", fusion=FusionConfig(**{**UNATTENDED.__dict__, "reopen_wait": None}))
    assert [a.event["card"] for a in shown.fusion.alerts] == ["7S", "4S", "2D", "3C"]
    assert {"type": "play", "seat": 0, "card": "JS"} in events(shown)


def test_the_next_vira_turned_where_the_last_one_lay_opens_the_next_hand_at_once():
    # The old vira's track outlived the moment the table was empty and took the new vira's readings:
    # the new hand began only once they outvoted the old ones, after its first plays (rendered seed 2).
    s = run_stream("vira_replaced")
    got = events(s)
    assert got[9] == {"type": "hand", "dealer": 0, "vira": "KD"}
    assert got[10:] == [{"type": "play", "seat": 1, "card": "3S"}]
    assert not s.fusion.alerts and not s.fusion.pending


def test_the_next_vira_read_as_the_old_one_at_first_still_opens_the_next_hand():
    # Barely readable while the hand covers it, the new vira was read as the old one, which kept the old
    # track going; its own readings never outvoted the old ones (rendered seed 6, a whole hand lost).
    s = run_stream("vira_misread_as_old")
    got = events(s)
    assert got[9] == {"type": "hand", "dealer": 0, "vira": "KD"}
    assert got[10:] == [{"type": "play", "seat": 1, "card": "3S"}]


def test_the_same_vira_dealt_again_where_it_lay_opens_the_next_hand():
    # The next deal turned the same card where the last vira lay, 1.1 s after the table was swept: it was
    # taken for the finished hand's vira seen again, and the whole hand went missing (rendered seed 5).
    s = run_stream("vira_again")
    got = events(s)
    assert got[9] == {"type": "hand", "dealer": 0, "vira": "5H"}
    assert got[10:] == [{"type": "play", "seat": 1, "card": "3S"}]
    assert not s.fusion.alerts and not s.fusion.pending


def test_a_first_card_boxed_as_a_back_while_put_down_still_opens_the_hand():
    # Set aside as a card dealt face down, it never opened the hand; the next card did, one seat off
    # (rendered seed 3, a Mineiro hand).
    s = run_stream("back_first", variant="mineiro")
    assert events(s) == [{"type": "hand", "dealer": 3}, {"type": "play", "seat": 0, "card": "QD"},
                         {"type": "play", "seat": 1, "card": "7C"}]


def test_a_barely_readable_box_over_cards_already_played_is_no_play():
    # The pile boxed again took a seat's turn, and every later card of the trick went to the seat
    # after its own (rendered seed 3, a six-player Paulista hand).
    s = run_stream("pile_ghost", fusion=FusionConfig(**UNATTENDED.__dict__))  # nobody answers
    assert events(s)[5:] == [{"type": "play", "seat": 3, "card": "4C"}, {"type": "play", "seat": 0, "card": "4D"},
                             {"type": "play", "seat": 1, "card": "4S"}]
    assert [a.flags[0] for a in s.fusion.alerts] == ["pile"]


def test_a_play_read_as_another_card_in_nearly_every_frame_since_it_went_in_is_renamed():
    s = run_stream("late_misread")
    assert s.log.game.events == [HAND, {"type": "play", "seat": 0, "card": "4C"},
                                 {"type": "play", "seat": 1, "card": "7D"}]
    assert any("7C read as 4C" in m for m in s.fusion.messages)


def test_the_closing_fold_gives_the_stake_to_the_team_ahead_on_tricks():
    view = TableView(4, frozenset(), True, True, 3, frozenset(), 0, turns=(3,), mano=1, trick_winners=(1,))
    assert closing_event(view) == {"type": "fold", "seat": 0}  # seat 3 (team 1, ahead) is due: team 0 folds
    assert closing_event(TableView(4, frozenset(), True, True, 2, frozenset(), 0, trick_winners=(1,))) == {
        "type": "fold", "seat": 2}
    tied = TableView(4, frozenset(), True, True, 2, frozenset(), 0, trick_winners=(0, 1))
    assert closing_event(tied) == {"type": "fold", "seat": 3}  # one trick each: the first trick's team is ahead
    betting = TableView(4, frozenset(), True, True, None, frozenset(), 0, answering_seat=1, trick_winners=(0,))
    assert closing_event(betting) == {"type": "refuse", "seat": 1}


def test_face_down_card_becomes_a_covered_play_and_the_deck_is_no_play():
    s = run_stream("covered")
    assert events(s) == [HAND,
                         {"type": "play", "seat": 0, "card": "7C"}, {"type": "play", "seat": 1, "card": "7D"},
                         {"type": "play", "seat": 2, "card": "QS"}, {"type": "play", "seat": 3, "card": "JH"},
                         {"type": "play", "seat": 3, "covered": True}]


def test_vira_is_the_first_card_by_the_deck():
    s = run_stream("vira")
    assert events(s) == [{"type": "hand", "dealer": 3, "vira": "7H"}, {"type": "play", "seat": 0, "card": "QD"}]


def test_without_calibration_the_zones_are_learned_from_the_first_trick():
    s = run_stream("uncalibrated")
    assert events(s)[1:] == [{"type": "play", "seat": 0, "card": "7C"}, {"type": "play", "seat": 1, "card": "7D"},
                             {"type": "play", "seat": 2, "card": "QS"}, {"type": "play", "seat": 3, "card": "JH"},
                             {"type": "play", "seat": 3, "card": "4C"}]
    assert not s.fusion.pending  # the guessed zones (seat 0 at the bottom) would have flagged 4C
    assert s.tracker.zones.cal.source == "learned"
    assert s.tracker.zones.zone_of((480, 240)) == 0 and s.tracker.zones.zone_of((320, 400)) == 3


def test_vira_seen_after_the_first_play_still_opens_the_hand():
    s = run_stream("vira_late")
    assert events(s) == [{"type": "hand", "dealer": 3, "vira": "7H"}, {"type": "play", "seat": 0, "card": "QD"}]


def test_no_vira_variant_starts_the_hand_with_the_first_card():
    s = run_stream("vira", variant="mineiro")  # mineiro turns no vira: 7H in the middle is a play
    assert events(s)[0] == {"type": "hand", "dealer": 3}
    assert events(s)[1]["type"] == "play"


class _FakeTable:
    """A view that only knows turn order, for the tracker alone."""

    def __init__(self) -> None:
        self.view = TableView(4, frozenset({"4C", "AS", "7H"}), False, True, 0, frozenset(), 0)
        self.proposals: list[Proposal] = []

    def submit(self, p: Proposal) -> None:
        self.proposals.append(p)


def _frame(t: float, *dets: tuple[str, float, tuple[float, float]]) -> FrameDetections:
    return FrameDetections(t, tuple(Detection(label, conf, (x - 30, y - 43, x + 30, y + 43))
                                    for label, conf, (x, y) in dets), None, (640, 480))


def test_a_single_false_detection_never_counts():
    table = _FakeTable()
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))), TrackerConfig(min_frames=3))
    tracker.update(_frame(0.0, ("AS", 0.9, (320, 400))), lambda: table.view, table.submit)
    for k in range(1, 15):
        tracker.update(_frame(k / 10), lambda: table.view, table.submit)
    assert table.proposals == []


def test_weak_card_is_proposed_with_low_confidence_flag():
    table = _FakeTable()
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(4):
        tracker.update(_frame(k / 10, ("AS", 0.4, (320, 400))), lambda: table.view, table.submit)
    (p,) = table.proposals
    assert p.event == {"type": "play", "seat": 0, "card": "AS"} and "low_confidence" in p.flags


def test_back_in_the_middle_is_the_deck():
    table = _FakeTable()
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(5):
        tracker.update(_frame(k / 10, (BACK, 0.9, (330, 240))), lambda: table.view, table.submit)
    assert table.proposals == []


def _unsure_frame(t: float, label: str, conf: float, presence: float,
                  alternatives: tuple[tuple[str, float], ...] = ()) -> FrameDetections:
    x, y = 320, 400
    return FrameDetections(t, (Detection(label, conf, (x - 30, y - 43, x + 30, y + 43), presence, alternatives),),
                           None, (640, 480))


def test_a_card_surely_there_but_hard_to_name_is_asked_about_not_ignored():
    """Detector 0.9 sure a card lies there, classifier 0.2 sure which: before, the
    product 0.18 fell under the tracking threshold and the card (often the vira)
    vanished, derailing the hand; now it is proposed, flagged for confirmation."""
    table = _FakeTable()
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(6):  # (read under settle_confidence: it is given 2 x min_frames)
        tracker.update(_unsure_frame(k / 10, "AS", 0.18, 0.9), lambda: table.view, table.submit)
    (p,) = table.proposals
    assert p.event == {"type": "play", "seat": 0, "card": "AS"} and "low_confidence" in p.flags
    # the same weak reading without a separate presence is still ignored for as long (a faint false positive)
    table, tracker = _FakeTable(), TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(6):
        tracker.update(_frame(k / 10, ("AS", 0.18, (320, 400))), lambda: table.view, table.submit)
    assert table.proposals == []


def test_weak_card_is_asked_about_only_when_another_possible_reading_rivals_it():
    """Read at 0.4: with a possible runner-up (4C) a third as supported or more, the table is asked;
    with only runner-ups outside the cards left (KS, QD) or a far weaker one, the card is flagged
    ``unrivalled`` too (fusion applies it after a moment, unasked)."""
    cases = (((("4C", 0.3),), False), ((("KS", 0.4), ("QD", 0.3)), True), ((("4C", 0.1),), True))
    for alternatives, unrivalled in cases:
        table = _FakeTable()
        tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
        for k in range(4):
            tracker.update(_unsure_frame(k / 10, "AS", 0.4, 0.9, alternatives), lambda: table.view, table.submit)
        (p,) = table.proposals
        assert p.event == {"type": "play", "seat": 0, "card": "AS"} and "low_confidence" in p.flags
        assert ("unrivalled" in p.flags) == unrivalled, alternatives
        if not unrivalled:
            assert p.alternatives == ["4C"]


def test_an_impossible_reading_falls_back_on_a_runner_up_never_read_first():
    """8H is not in this deck; the classifier's second reading of the card, 4C, was never
    its first in any frame: it is proposed (for confirmation), with the reason."""
    table = _FakeTable()
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(8):
        tracker.update(_unsure_frame(k / 10, "8H", 0.5, 0.9, (("KS", 0.3), ("4C", 0.2))),
                       lambda: table.view, table.submit)
    (p,) = table.proposals  # KS (not in the deck either) is passed over
    assert p.event["card"] == "4C" and "reread" in p.flags and "read as 8H" in p.reason
    (track,) = tracker.tracks
    assert track.label == "4C" and 0.0 < track.confidence < 0.5 and track.share == 0.0


def test_the_window_draws_a_card_decided_on_a_reading_never_first():
    """The live window labels every box with its track's confidence; a track
    decided on a runner-up reading has no frame with that label (it crashed
    the window once)."""
    import numpy as np

    from companion.table.display import annotate
    from companion.table.engine_view import MemoryTableLog
    from companion.table.session import TableSession

    session = TableSession(MemoryTableLog({"type": "match", "variant": "paulista", "players": 4}),
                           zones=Zones(Calibration((320, 240), (320, 400), 4, (640, 480))), first_dealer=3)
    for k in range(8):
        session.feed_detections(_unsure_frame(k / 10, "8H", 0.5, 0.9, (("KS", 0.3), ("4C", 0.2))))
    (track,) = [t for t in session.tracker.tracks if t.label_override]  # KS: in Paulista's deck
    assert track.counts.get(track.label, 0) == 0
    out = annotate(np.zeros((480, 640, 3), np.uint8), session)
    assert out.shape[0] == 480 and out.shape[1] > 640


def test_presence_and_alternatives_survive_a_recorded_stream():
    det = Detection("QH", 0.21, (1.0, 2.0, 3.0, 4.0), 0.93, (("KH", 0.12), ("JH", 0.05)))
    frame = FrameDetections(1.5, (det, Detection("back", 0.9, (5.0, 6.0, 7.0, 8.0))), 3, (640, 480))
    again = FrameDetections.from_dict(frame.to_dict())
    assert again == frame
    assert "presence" not in frame.to_dict()["detections"][1]  # old streams' format unchanged
    assert "outline" not in frame.to_dict()["detections"][1]
    outlined = FrameDetections(1.6, (Detection("back", 0.3, (5.0, 6.0, 7.0, 8.0), 0.3, (), 0.0),
                                     Detection("QH", 0.8, (1.0, 2.0, 3.0, 4.0), 0.8, (), 0.91)), 4, (640, 480))
    assert FrameDetections.from_dict(outlined.to_dict()) == outlined  # 0.0 (no outline fits) is kept apart from None



def test_what_boxed_a_card_survives_a_recorded_stream_and_old_streams_read_as_they_were(tmp_path):
    """``found_by`` is written where it is not the detector, and where a reader of streams recorded before it
    would guess it wrong (a detector box at presence 0.5 exactly); an old stream's box at presence 0.5 was an
    outline's, and is read so."""
    from companion.table.observations import read_stream, write_stream

    square = Detection("4E", 0.15, (1.0, 2.0, 3.0, 4.0), 0.5, (), 0.0, OUTLINE)
    box_at_half = Detection("4E", 0.15, (1.0, 2.0, 3.0, 4.0), 0.5)
    plain = Detection("QH", 0.8, (5.0, 6.0, 7.0, 8.0), 0.8)
    frame = FrameDetections(0.1, (square, box_at_half, plain), 1, (640, 480))
    written = frame.to_dict()["detections"]
    assert [d.get("found_by") for d in written] == [OUTLINE, DETECTOR, None]  # old streams' format unchanged
    assert FrameDetections.from_dict(frame.to_dict()) == frame
    old = {"label": "4E", "confidence": 0.15, "box": [1, 2, 3, 4], "presence": 0.5}
    assert Detection.from_dict(old).found_by == OUTLINE
    assert Detection.from_dict({**old, "presence": 0.45}).found_by == DETECTOR
    # a stream naming anything else is a clear error, with its line
    path = tmp_path / "s.jsonl"
    write_stream(path, [frame], fps=10.0)
    assert read_stream(path)[1] == [frame]
    path.write_text(path.read_text().replace('"found_by": "outline"', '"found_by": "finger"'))
    with pytest.raises(ValueError, match="s.jsonl:2.*finger"):
        read_stream(path)


def test_an_unsure_vira_is_proposed_with_its_other_readings():
    table = _FakeTable()
    table.view = TableView(4, frozenset({"4C", "AS", "7H", "KH"}), True, False, None, frozenset(), 3)
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    box = (290.0, 197.0, 350.0, 283.0)  # by the table centre
    for k in range(6):
        frame = FrameDetections(k / 10, (Detection("7H", 0.3, box, 0.9, (("KH", 0.2), ("8H", 0.1))),), None, (640, 480))
        tracker.update(frame, lambda: table.view, table.submit)
    (p,) = table.proposals
    assert p.event["type"] == "hand" and p.event["vira"] == "7H" and "low_confidence" in p.flags
    assert p.alternatives == ["KH"]  # 8H is not in this deck


def test_a_card_the_detector_barely_sees_for_seconds_is_still_played():
    """Found on rendered sessions: a jack the detector scored 0.15-0.3 for 6 s was never
    tracked, and every later card of the hand took the wrong seat."""
    weak = [(k / 10, ("AS", 0.2, (320, 400))) for k in range(12)]
    table, tracker = _FakeTable(), TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for t, det in weak:
        tracker.update(_frame(t, det), lambda: table.view, table.submit)
    (p,) = table.proposals
    assert p.event == {"type": "play", "seat": 0, "card": "AS"} and "low_confidence" in p.flags
    assert p.t == 0.0  # dated from its first weak sighting
    # without weak tracking the card is lost
    table, tracker = _FakeTable(), TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))),
                                                TrackerConfig(weak_confidence=None))
    for t, det in weak:
        tracker.update(_frame(t, det), lambda: table.view, table.submit)
    assert table.proposals == []


def test_a_fleeting_weak_box_is_no_card_and_keeps_no_table_in_play():
    table = _FakeTable()
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(30):
        dets = [("AS", 0.2, (320, 400))] if k < TrackerConfig().weak_frames - 1 else []
        tracker.update(_frame(k / 10, *dets), lambda: table.view, table.submit)
    assert table.proposals == []
    assert not tracker.undecided_before(10.0)  # words heard meanwhile do not wait for it


def test_weak_sightings_keep_a_card_seen_well_in_one_track():
    table = _FakeTable()
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(20):  # seen well, then only weakly (a hand half over it): one card, one play
        conf = 0.9 if k < 4 else 0.2
        tracker.update(_frame(k / 10, ("AS", conf, (320, 400))), lambda: table.view, table.submit)
    assert [p.event for p in table.proposals] == [{"type": "play", "seat": 0, "card": "AS"}]
    assert len(tracker.tracks) == 1


def _back_frame(t: float, alternatives: tuple[tuple[str, float], ...]) -> FrameDetections:
    x, y = 320, 400
    return FrameDetections(t, (Detection(BACK, 0.5, (x - 30, y - 43, x + 30, y + 43), 0.5, alternatives),),
                           None, (640, 480))


def test_a_card_set_aside_face_down_that_the_cleared_table_forgot_is_looked_at_again_as_a_face():
    """A back in seat 0's zone while no hand runs is set aside (dealt face down).  Read weakly, it does
    not hold the table, which (``reset_seconds`` on) counts as cleared and forgets the cards set aside
    while their tracks live on.  Read as a face later, the card is looked at again as one -- which raised
    ValueError (its anchor was no longer in the list) and ended the run: a rendered Argentine session of
    seed 336, with a table that answers."""
    table = _FakeTable()
    table.view = TableView(4, frozenset({"4C", "AS", "7H"}), False, False, None, frozenset(), 0)
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    view = lambda: table.view  # noqa: E731
    for k in range(8):
        tracker.update(_frame(k / 10, (BACK, 0.6, (320, 400))), view, table.submit)
    (track,) = tracker.tracks
    assert track.decided and track.anchor.kind == "ignored"
    # what an empty table between hands does (at seed 336 the back, read weakly, did not hold the table)
    tracker._forget_finished(0.75, "table cleared")
    for k in range(8, 25):
        tracker.update(_frame(k / 10, ("4C", 0.9, (320, 400))), view, table.submit)
    # the first card of a hand: the deal, then the play
    assert [p.event for p in table.proposals][0] == {"type": "hand", "dealer": 0}
    assert [p.event.get("card") for p in table.proposals if p.event["type"] == "play"] == ["4C"]


def test_a_back_where_the_rules_forbid_face_down_cards_is_read_as_its_likeliest_face():
    """Found on rendered Clean-28 hands (no face-down cards in that variant): a 3 with one big
    pip was read as a back, the covered play was refused, and the seat's turn was lost."""
    table = _FakeTable()
    table.view = TableView(4, frozenset({"4C", "AS", "7H"}), False, True, 0, frozenset(), 0, face_down_ok=False)
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(6):  # (seen 2 x min_frames frames: a back seen a moment is no card, see below)
        tracker.update(_back_frame(k / 10, (("AS", 0.2), ("KS", 0.1))), lambda: table.view, table.submit)
    (p,) = table.proposals
    assert p.event == {"type": "play", "seat": 0, "card": "AS"}
    assert p.flags[0] == "reread" and "face down" in p.reason and p.blocking  # asked about, never applied silently
    # at the face's own confidence (its runner-up support a frame), not the back's 0.5: the surer box of two wins
    assert p.confidence == pytest.approx(0.2)
    # where a face-down card may be played, the same back is a covered play
    table.proposals.clear()
    table.view = TableView(4, frozenset({"4C", "AS", "7H"}), False, True, 0, frozenset(), 0, face_down_ok=True)
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(8):  # (seen covered_frames frames: a back seen a moment may be a card carried face down)
        tracker.update(_back_frame(k / 10, (("AS", 0.2), ("KS", 0.1))), lambda: table.view, table.submit)
    (p,) = table.proposals
    assert p.event == {"type": "play", "seat": 0, "covered": True}



def test_a_back_read_as_its_face_is_no_face_down_reading_once_taken_for_the_deck():
    """The tracker's face-down reading goes with the name it gave: a play read from a back as its face and then
    taken for the deck (or named the vira by it) stands for no face any more, so it is never a play's surer twin.
    Before session 76 the name was set by hand and the flag stayed behind."""
    track = Track(1, (290.0, 357.0, 350.0, 443.0), 0.0, 0.5)
    track.anchor = Anchor("AS", track.box, "play", 0, 0.5, 1)
    track.relabel("AS", f"{FACE_DOWN_REASON}; next best reading AS", face_down=True)
    assert _read_face_down(track)
    track.rename("KS")  # read again while it settled: still a back's face
    assert _read_face_down(track) and track.label == "KS"
    TableTracker._take_for_deck(track)
    assert track.label == BACK and not _read_face_down(track)
    assert "face down" in track.relabel_reason  # why it was once reread stays on record


# squares of a chequered cloth far from seat 0's card, in seat 2's and seat 1's zones (no seat due but 0)
CLOTH = ((320, 80), (480, 240))


def _outlined_back(t: float, outline: float | None, at: tuple[float, float] = (320, 400),
                   cloth: tuple[tuple[float, float], ...] = ()) -> FrameDetections:
    """A back at ``at`` outlined so surely, and a back on each of ``cloth``'s places that nothing outlines."""
    dets = [Detection(BACK, 0.3, (x - 30, y - 43, x + 30, y + 43), 0.3, (("AS", 1e-5),), o)
            for (x, y), o in [(at, outline)] + [(c, 0.0) for c in cloth]]
    return FrameDetections(t, tuple(dets), None, (640, 480))


def test_a_back_no_card_outline_fits_is_the_cloth_not_a_covered_play():
    """Found on a rendered Mineiro session on a chequered cloth (seed 449): the pale squares were boxed as
    backs at 0.15-0.5 all session, in every seat's zone, and went in as covered plays; all four hands were
    lost.  The outline model outlined none of them.  Where a frame holds several backs nothing outlines, away
    from the deck, they are dropped; one outlined is a covered play, and so is one whose outline was never
    measured (an older stream)."""
    for outline, played in ((0.0, False), (0.1, False), (0.6, True), (None, True)):
        table = _FakeTable()
        table.view = TableView(4, frozenset({"4C", "AS", "7H"}), False, True, 0, frozenset(), 0, face_down_ok=True)
        tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
        for k in range(20):
            tracker.update(_outlined_back(k / 10, outline, cloth=CLOTH), lambda: table.view, table.submit)
        assert [p.event for p in table.proposals if p.blocking] == (
            [{"type": "play", "seat": 0, "covered": True}] if played else [])
    # the bar is a setting: None keeps every back, outlined or not
    table = _FakeTable()
    table.view = TableView(4, frozenset({"4C", "AS", "7H"}), False, True, 0, frozenset(), 0, face_down_ok=True)
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))), TrackerConfig(back_outline=None))
    for k in range(20):
        tracker.update(_outlined_back(k / 10, 0.0, cloth=CLOTH), lambda: table.view, table.submit)
    assert {"type": "play", "seat": 0, "covered": True} in [p.event for p in table.proposals]


def _finder_squares(t: float, outline: float, found_by: str = OUTLINE, at: tuple[float, float] = (320, 400),
                    cloth: bool = True) -> FrameDetections:
    """From 0.5 s on (an empty table before it: the tracker's scenery learns nothing), a face at ``at`` (seat 0's
    place) read as 4E at 0.15 and outlined at ``outline``, boxed at presence 0.5 by ``found_by`` (``OUTLINE``: by
    the outline finders alone), and, with ``cloth``, a cloth square in seat 2's zone found the same way."""
    if t < 0.5:
        return FrameDetections(t, (), None, (640, 480))
    found = ((at, outline), (CLOTH[0], 0.0)) if cloth else ((at, outline),)
    return FrameDetections(t, tuple(Detection("4E", 0.15, (x - 30, y - 43, x + 30, y + 43), 0.5, (("1E", 0.1),), o,
                                              found_by) for (x, y), o in found), None, (640, 480))


def _faces_played(config: TrackerConfig, frames: Callable[[float], FrameDetections]) -> list[dict[str, object]]:
    table = _FakeTable()
    table.view = TableView(4, frozenset({"4E", "1E", "7H"}), False, True, 0, frozenset(), 0)
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))), config)
    for k in range(40):
        tracker.update(frames(k / 10), lambda: table.view, table.submit)
    plays = [p.event for p in table.proposals if p.event.get("card") and p.event.get("seat") == 0]
    return [e for k, e in enumerate(plays) if e not in plays[:k]]  # (a weak card is proposed again while unanswered)


def test_a_face_the_finders_alone_boxed_and_the_outline_model_does_not_outline_is_the_cloth():
    """Found on a rendered Argentine session on a large pink-and-blue checked cloth (seed 585 s04-argentino-4p, 0 of 4
    hands): the outline finders took its squares for card-shaped paper, no detector box behind them, the classifier
    named them 4E or 1E at 0.13-0.24, and they went in as the first plays of every hand; the outline model outlined
    them at 0.  Where a frame holds two such things at least (or backs no outline fits), they are dropped; a
    finder's box the model outlines, or a detector's box, is a card."""
    four = [{"type": "play", "seat": 0, "card": "4E"}]
    assert _faces_played(TrackerConfig(), lambda t: _finder_squares(t, 0.0)) == []
    assert _faces_played(TrackerConfig(), lambda t: _finder_squares(t, 0.6)) == four
    assert _faces_played(TrackerConfig(), lambda t: _finder_squares(t, 0.0, found_by=DETECTOR)) == four
    # the bar is a setting: None keeps them
    assert _faces_played(TrackerConfig(finder_outline=None), lambda t: _finder_squares(t, 0.0)) == four


def test_a_square_of_the_cloth_alone_or_by_the_deck_is_the_cloth_too():
    """Seed 554 s09-argentino-2p (1 of 4 hands): one square of a checked cloth, alone in its frames, found by the
    finders, named 5E at 0.17 and outlined at 0, opened a hand nobody had dealt.  Seed 705 s09-argentino-6p: a
    square by the deck, so found and named 4E at 0.32, went in as the first play of a hand.  A back alone so
    outlined may be a card half under another (kept, see the next test); a face the finders alone boxed is not."""
    four = [{"type": "play", "seat": 0, "card": "4E"}]
    assert _faces_played(TrackerConfig(), lambda t: _finder_squares(t, 0.0, cloth=False)) == []
    assert _faces_played(TrackerConfig(), lambda t: _finder_squares(t, 0.6, cloth=False)) == four
    assert _faces_played(TrackerConfig(), lambda t: _finder_squares(t, 0.0, found_by=DETECTOR, cloth=False)) == four
    by_deck = (300.0, 290.0)  # in the centre zone, where the deck's unoutlined backs are kept
    assert _faces_played(TrackerConfig(finder_outline=None), lambda t: _finder_squares(t, 0.0, at=by_deck)) == four
    assert _faces_played(TrackerConfig(), lambda t: _finder_squares(t, 0.0, at=by_deck)) == []


def test_the_tracker_and_the_vision_layer_name_what_boxed_a_card_alike():
    """The tracker tells an outline's box by ``found_by``, which the vision layer sets; the table keeps its own
    names so as not to import the vision layer.  Streams recorded before ``found_by`` told such a box by its
    presence alone (the vision layer's OUTLINE_SCORE then), and are read so."""
    from companion.vision.settings import FOUND_BY_DETECTOR, FOUND_BY_OUTLINE

    assert (DETECTOR, OUTLINE) == (FOUND_BY_DETECTOR, FOUND_BY_OUTLINE)


def _boxed_twice(t: float, outlines: tuple[float | None, float | None]) -> FrameDetections:
    """From 0.5 s on, seat 0's 2C boxed twice: read 2C at 0.34 (presence 0.47) and 3C at 0.23 (presence 0.50), the
    boxes overlapping at IoU 0.65 (neither 80 % inside the other), outlined ``outlines``."""
    if t < 0.5:
        return FrameDetections(t, (), None, (640, 480))
    return FrameDetections(t, (Detection("2C", 0.34, (295.0, 302.0, 369.0, 378.0), 0.47, (), outlines[0]),
                               Detection("3C", 0.23, (300.0, 293.0, 376.0, 366.0), 0.5, (), outlines[1])),
                           None, (640, 480))


def test_one_card_boxed_twice_under_two_names_is_one_play_under_the_surer_name():
    """Rendered seed 808 (a Mineiro hand for four): seat 0's 2C was boxed twice from the frame it was put down, and
    the box seen a little more surely, named 3C, went in for seat 0; the 2C went in later for the next seat.  Two
    cards overlapping that much cannot both be outlined whole: the boxes are one card, named as the surer name."""
    assert _faces_played(TrackerConfig(), lambda t: _boxed_twice(t, (0.97, 0.97))) == [
        {"type": "play", "seat": 0, "card": "2C"}]
    # one outlined poorly (a card half under the other): two cards, as before, and so without outlines, or with
    # the setting off
    for outlines in ((0.97, 0.4), (None, None)):
        assert _faces_played(TrackerConfig(), lambda t: _boxed_twice(t, outlines))[0]["card"] == "3C"
    assert _faces_played(TrackerConfig(twice=None), lambda t: _boxed_twice(t, (0.97, 0.97)))[0]["card"] == "3C"


def test_one_back_weakly_outlined_alone_is_still_a_covered_play():
    """Found on fresh seeds 480-495 (session 67): a real covered card half under another was outlined at 0.14,
    the only such back in its frames, and dropped; the play was missed (three hands lost so).  The cloth reads
    as backs in many places at once; one alone is a card."""
    table = _FakeTable()
    table.view = TableView(4, frozenset({"4C", "AS", "7H"}), False, True, 0, frozenset(), 0, face_down_ok=True)
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(20):
        tracker.update(_outlined_back(k / 10, 0.14), lambda: table.view, table.submit)
    assert [p.event for p in table.proposals] == [{"type": "play", "seat": 0, "covered": True}]


def test_the_deck_keeps_its_backs_though_no_outline_fits_a_stack():
    """The deck is a stack, which the outline model outlines weakly or not at all: its backs in the middle
    are kept (the tracker anchors the deck there), whatever their outline."""
    table = _FakeTable()
    table.view = TableView(4, frozenset({"4C", "AS", "7H"}), False, True, 0, frozenset(), 0, face_down_ok=True)
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(6):
        tracker.update(_outlined_back(k / 10, 0.0, at=(320, 240)), lambda: table.view, table.submit)
    assert table.proposals == [] and any(a.kind == "deck" for a in tracker.anchors)
    # ... but a square beside it, in a seat's zone, is not the deck (on the chequered cloth a square by the
    # centre was taken for the deck, and the squares beside it went in as covered plays)
    beside = (320, 330)
    assert tracker._zone((290, 287, 350, 373)) == 0 and tracker._by_deck((290, 287, 350, 373))
    for k in range(6, 26):
        tracker.update(_outlined_back(k / 10, 0.0, at=beside, cloth=CLOTH), lambda: table.view, table.submit)
    assert [p for p in table.proposals if p.blocking] == []


def test_a_back_beside_the_deck_in_a_seats_zone_is_read_as_a_face_where_face_down_is_forbidden():
    """Found on a rendered four-player Mineiro hand (seed 2, never tuned on before): seat 1 put its KD
    down beside the deck, read as a back.  Beside the deck the face-down rule was skipped (backs there are
    the deck), yet the card lay in a seat's zone and went in as a covered play, which the engine refused
    in the first trick: the play was lost and every later card took the seat beside its own.  A back in a
    seat's zone is now read as its likeliest face there too; one in the middle stays the deck's."""
    table = _FakeTable()
    table.view = TableView(4, frozenset({"4C", "AS", "7H"}), False, True, 0, frozenset(), 0, face_down_ok=False)
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    deck = Detection(BACK, 0.9, (290.0, 197.0, 350.0, 283.0), 0.9)
    for k in range(4):  # the deck in the middle
        tracker.update(FrameDetections(k / 10, (deck,), None, (640, 480)), lambda: table.view, table.submit)
    assert table.proposals == [] and any(a.kind == "deck" for a in tracker.anchors)
    card = Detection(BACK, 0.5, (290.0, 297.0, 350.0, 383.0), 0.5, (("AS", 0.2), ("KS", 0.1)))
    assert tracker._zone(card.box) == 0 and tracker._by_deck(card.box)
    for k in range(4, 12):
        tracker.update(FrameDetections(k / 10, (deck, card), None, (640, 480)), lambda: table.view, table.submit)
    (p,) = table.proposals
    assert p.event == {"type": "play", "seat": 0, "card": "AS"} and "face down" in p.reason


def test_the_engine_tells_where_a_face_down_card_may_be_played():
    from companion.engine import Game
    from companion.table.engine_view import view_of

    game = Game({"type": "match", "variant": "paulista", "players": 2})
    game.apply({"type": "hand", "dealer": 1, "vira": "4C"})
    assert not view_of(game).face_down_ok  # never in the first trick
    game.apply({"type": "play", "seat": 0, "card": "7H"})
    game.apply({"type": "play", "seat": 1, "card": "4H"})
    assert view_of(game).face_down_ok  # seat 0 won the first trick and leads
    game = Game({"type": "match", "variant": "clean-28", "players": 2})
    game.apply({"type": "hand", "dealer": 1, "vira": "7C"})
    game.apply({"type": "play", "seat": 0, "card": "KH"})
    game.apply({"type": "play", "seat": 1, "card": "QH"})
    assert not view_of(game).face_down_ok  # never in this variant


def test_a_barely_readable_face_up_card_by_the_deck_is_shown_not_played():
    """Found on rendered hands: the deck or the vira boxed twice at the deal, read at 0.03-0.1,
    became a play and shifted every later seat of the hand."""
    table = _FakeTable()
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(6):
        tracker.update(FrameDetections(k / 10, (Detection("7H", 0.08, (300, 197, 360, 283), 0.9),), None, (640, 480)),
                       lambda: table.view, table.submit)
    (p,) = table.proposals
    assert p.flags[0] == "by_deck" and not p.blocking  # an alert: shown, never applied
    # read clearly, a card by the deck is still a play
    table, tracker = _FakeTable(), TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    for k in range(4):
        tracker.update(FrameDetections(k / 10, (Detection("7H", 0.7, (300, 197, 360, 283), 0.9),), None, (640, 480)),
                       lambda: table.view, table.submit)
    (p,) = table.proposals
    assert p.event == {"type": "play", "seat": 0, "card": "7H"} and p.blocking


def test_a_barely_readable_card_waits_for_the_hand_over_it_to_lift():
    """Found on a rendered session: while the hand that put a 4S down still covered it, the
    detector boxed its lower half as a JS (0.1) and its top and its whole weakly as a 4S for
    three frames.  Decided then, the JS was played and the 4S became a second play."""
    half, top, full, whole = (358, 393, 425, 447), (354, 357, 419, 415), (352, 368, 426, 444), (354, 358, 424, 446)
    frames = [FrameDetections(0.0, (), None, (640, 480))]  # the bare table first (what scenery learns from)
    for k in range(1, 21):
        if k < 4:
            dets = (Detection("JS", 0.1, half, 0.4), Detection("4S", 0.18, full, 0.21), Detection("4S", 0.09, top, 0.2996))
        else:
            dets = (Detection("4S", 0.75, whole, 0.75),)
        frames.append(FrameDetections(k / 10, dets, None, (640, 480)))
    plays = {}
    for settle in (0.0, TrackerConfig().settle_confidence):
        table = _FakeTable()
        table.view = TableView(4, frozenset({"4S", "JS", "7H"}), False, True, 0, frozenset(), 0)
        tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))),
                               TrackerConfig(settle_confidence=settle))
        for frame in frames:
            tracker.update(frame, lambda: table.view, table.submit)
        plays[settle] = [p.event["card"] for p in table.proposals]
    assert plays == {0.0: ["JS", "4S"], 0.2: ["4S"]}


def test_at_a_deal_the_surer_face_by_the_deck_is_the_vira():
    """An unseen deck's back read as a weak face (QS 0.11), seen a frame before the vira beside it
    (read 0.17): the deck was decided first and became the vira (a rendered Clean-28 session)."""
    deck = frozenset({"QS", "2S", "2C", "4C"})
    table = _FakeTable()
    table.view = TableView(4, deck, True, False, None, frozenset(), 3)

    def submit(p: Proposal) -> None:
        table.submit(p)
        if p.event.get("type") == "hand":  # the engine deals: a hand runs, seat 0 to play
            table.view = TableView(4, deck, True, True, 0, frozenset({p.event["vira"]}), 0, hand_number=1)

    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    back_read_as_face = Detection("QS", 0.11, (330.0, 200.0, 390.0, 286.0), 0.8, (("KS", 0.05),))
    vira = Detection("2C", 0.17, (250.0, 210.0, 330.0, 270.0), 0.9, (("2S", 0.1),))
    tracker.update(FrameDetections(0.0, (back_read_as_face,), None, (640, 480)), lambda: table.view, submit)
    for k in range(1, 12):
        tracker.update(FrameDetections(k / 10, (back_read_as_face, vira), None, (640, 480)), lambda: table.view, submit)
    assert [p.event for p in table.proposals if p.event.get("type") == "hand"] == [
        {"type": "hand", "dealer": 3, "vira": "2C"}]
    (ghost,) = [p for p in table.proposals if p.event.get("type") == "play"]
    assert ghost.event["card"] == "QS" and ghost.flags[0] == "by_deck" and not ghost.blocking


def test_a_card_turned_face_up_where_the_deck_lay_is_the_vira_not_the_deck():
    """The deck lifted to deal and the vira turned where it lay, its box over the deck's: the deck, as
    the tracker remembers it, took the face-up card for itself read otherwise, and the hand had no vira
    (a rendered Clean-28 session: the next card played became the vira, three hands lost)."""
    deck = frozenset({"7H", "2S", "2C", "4C"})
    table = _FakeTable()
    table.view = TableView(4, deck, True, False, None, frozenset(), 3)
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    lying = Detection(BACK, 0.93, (290.0, 197.0, 350.0, 283.0), 0.93)
    turned = Detection("7H", 0.5, (292.0, 199.0, 352.0, 285.0), 0.9, (("2C", 0.1),))
    frames = [FrameDetections(k / 10, (lying,), None, (640, 480)) for k in range(10)]  # the deck, decided
    frames += [FrameDetections(k / 10, (), None, (640, 480)) for k in range(10, 20)]  # lifted, dealt
    frames += [FrameDetections(k / 10, (turned,), None, (640, 480)) for k in range(20, 30)]
    for frame in frames:
        tracker.update(frame, lambda: table.view, table.submit)
    assert [p.event for p in table.proposals] == [{"type": "hand", "dealer": 3, "vira": "7H"}]
    # a back seen there again is still the deck, nothing new
    for k in range(30, 45):
        tracker.update(FrameDetections(k / 10, (lying,), None, (640, 480)), lambda: table.view, table.submit)
    assert len(table.proposals) == 1


# a deck and its vira by it, seen from the first frame (the frames built in the tests below)
DECK = Detection(BACK, 0.93, (330.8, 196.8, 389.3, 283.0), 0.93)
VIRA = Detection("5H", 0.89, (237.9, 209.4, 322.9, 270.3), 0.89)


def _card(label: str, x: float, y: float, conf: float = 0.9) -> Detection:
    """A card read ``label`` at ``conf``, its box 60x86 about (x, y) (the frames built in the tests below)."""
    return Detection(label, conf, (x - 30, y - 43, x + 30, y + 43), conf)


def _frames(seconds: float, *cards: tuple[Detection, float, float]) -> list[FrameDetections]:
    """10 frames a second: the deck and vira, and each (detection, from, until) while it lasts."""
    out = []
    for k in range(int(round(seconds * 10))):
        t = round(k * 0.1, 1)
        seen = [DECK, VIRA] + [d for d, start, end in cards if start <= t < end]
        out.append(FrameDetections(t, tuple(seen), None, (640, 480)))
    return out


def test_a_short_sweep_is_a_sweep_whatever_the_frame_times_add_up_to():
    """Frame times are decimals (46.7, 47.0); 47.0 - 46.7 falls a hair short of 0.3 in floating point,
    so a table empty for exactly the sweep time was no sweep: the new deal's vira was taken for the
    old one, and a rendered Clean-28 session lost its whole last hand."""
    import dataclasses

    from companion.table.observations import read_stream

    from .streams import FIXTURES, run_frames

    header, frames = read_stream(FIXTURES / "new_deal.jsonl")
    played = [f for f in frames if f.t < 5.0]
    dealt = [f for f in frames if f.t >= 7.5]
    empty = next(f for f in frames if not f.detections)
    for gap in range(6, 13):  # empty frames between the swept hand and the new deal
        stream = list(played) + [dataclasses.replace(empty, t=round((len(played) + k) * 0.1, 1)) for k in range(gap)]
        start = len(stream)
        stream += [dataclasses.replace(f, t=round((start + k) * 0.1, 1)) for k, f in enumerate(dealt)]
        session = run_frames(stream, calibration=Calibration.from_dict(header["calibration"]))
        assert [e["type"] for e in events(session)] == ["hand", "play", "play", "fold", "hand", "play"], gap


def test_of_two_cards_read_alike_the_one_in_the_seats_zone_keeps_the_reading():
    """Seat 0 is due.  A card in seat 1's zone is misread as 4C (its runner-up AS) and decided first,
    for seat 0; the real 4C shows a moment later in seat 0's zone.  It was shown as "already out" and
    never played, and every later card went to the wrong seat (a rendered six-player Argentine hand).
    The waiting card takes its next reading, and the two go in with the seats of their zones."""
    from .streams import run_frames

    misread = Detection("4C", 0.45, (449.4, 127.7, 510.5, 213.7), 0.9, (("AS", 0.3),))
    real = Detection("4C", 0.5, (218.9, 357.9, 278.8, 443.7), 0.9, (("4S", 0.1),))
    session = run_frames(_frames(8.0, (misread, 1.0, 99), (real, 1.5, 99)))
    assert events(session) == [HAND, {"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "AS"}]
    assert any("read again as AS" in e for e in session.tracker.events)


def test_a_back_box_seen_a_moment_beside_a_card_being_put_down_is_no_card():
    """While a hand puts a card down, the detector boxed the hand and the card's edge as a back for
    four frames.  Face down is not allowed in the first trick, so the back was read as its likeliest
    face and went in as a play (a rendered Mineiro hand: every later card took the wrong seat)."""
    from .streams import run_frames

    card = Detection("4C", 0.9, (218.9, 357.9, 278.8, 443.7), 0.9)
    hand_over_it = Detection(BACK, 0.32, (190.0, 330.0, 262.0, 404.0), 0.32, (("2D", 0.01),))
    session = run_frames(_frames(6.0, (hand_over_it, 1.0, 1.4), (card, 1.0, 99)))
    assert events(session) == [HAND, {"type": "play", "seat": 0, "card": "4C"}]


def test_a_box_mostly_inside_a_surer_one_is_that_card_boxed_again():
    """The detector boxed a card and, under it, its lower part (mostly inside the first box) as a second
    card; the second went in as the next seat's play, and the truco said after it was given to the
    wrong seat (a rendered Clean-28 hand).  A box mostly inside a surer one is the same card."""
    from .streams import run_frames

    card = Detection("4C", 0.6, (290.0, 357.0, 350.0, 443.0), 0.9)
    part = Detection("2H", 0.2, (295.0, 395.0, 350.0, 450.0), 0.5)  # IoU 0.48, 87 % inside
    session = run_frames(_frames(6.0, (card, 1.0, 99), (part, 1.0, 99)))
    assert events(session) == [HAND, {"type": "play", "seat": 0, "card": "4C"}]


def test_a_second_card_read_alike_in_the_zone_of_the_seat_due_is_that_seats_play():
    """Seat 1 is due and puts a card down in its zone; it is read as 4C, which seat 0's card, still in
    view, was read as.  Its next reading was too weak to be offered, so it was shown as "already out"
    and the play was lost: every later card took the wrong seat (a rendered Mineiro hand).  A second
    physical card in the zone of the seat due is that seat's play; its face is asked about."""
    from .streams import run_frames

    first = Detection("4C", 0.9, (290.0, 357.0, 350.0, 443.0), 0.9)
    second = Detection("4C", 0.5, (449.4, 127.7, 510.5, 213.7), 0.9, (("AS", 0.02),))
    session = run_frames(_frames(8.0, (first, 1.0, 99), (second, 2.5, 99)))
    assert events(session) == [HAND, {"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "AS"}]
    (applied,) = [a for a in session.fusion.applied if a.event.get("card") == "AS"]
    assert "reread" in applied.proposal.flags and applied.resolved_by == "timeout"  # asked about, not taken silently


def test_a_card_read_alike_overlapping_its_seats_earlier_card_is_that_seats_next_play():
    """Seat 0 wins the first trick and leads the second: its new card lies in its row, over part of its
    first card (IoU 0.16), and is read as that card.  A second physical card was told from the same
    card seen again only when the two boxes overlapped under 0.1, so this one was shown as "already
    out", the play was lost and every later card of the hand took the wrong seat (rendered seed 8, a
    six-player Clean-28 hand)."""
    from .streams import run_frames

    first = Detection("3S", 0.9, (290.0, 357.0, 350.0, 443.0), 0.9)
    trick = [(Detection("4D", 0.9, (470.0, 197.0, 530.0, 283.0), 0.9), 2.0, 99),
             (Detection("5S", 0.9, (290.0, 27.0, 350.0, 113.0), 0.9), 3.0, 99),
             (Detection("7H", 0.9, (110.0, 197.0, 170.0, 283.0), 0.9), 4.0, 99)]
    again = Detection("3S", 0.5, (330.0, 370.0, 390.0, 456.0), 0.9, (("KS", 0.02),))
    session = run_frames(_frames(9.0, (first, 1.0, 99), *trick, (again, 5.5, 99)))
    assert events(session) == [HAND, {"type": "play", "seat": 0, "card": "3S"}, {"type": "play", "seat": 1, "card": "4D"},
                               {"type": "play", "seat": 2, "card": "5S"}, {"type": "play", "seat": 3, "card": "7H"},
                               {"type": "play", "seat": 0, "card": "KS"}]
    (applied,) = [a for a in session.fusion.applied if a.event.get("card") == "KS"]
    assert "reread" in applied.proposal.flags  # its face was in doubt: asked about, not taken silently
    assert not session.fusion.alerts


def test_a_waiting_card_is_never_renamed_to_a_card_already_out_in_its_hand():
    """A doubtful card waits; the next card proposed ends the hand in the view the tracker reads, which
    then has no cards out.  Read again as a card already played in that hand, the waiting card was
    renamed to it, refused by the engine, and its play lost (a rendered Mineiro hand)."""
    table = _FakeTable()
    table.view = TableView(4, frozenset({"4C", "AS", "7H", "KH"}), False, True, 0, frozenset(), 0, hand_number=1)
    tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
    view = lambda: table.view  # noqa: E731
    for k in range(6):  # seat 0 plays 4C, surely
        tracker.update(_frame(k / 10, ("4C", 0.9, (320, 400))), view, table.submit)
    table.view = TableView(4, frozenset({"4C", "AS", "7H", "KH"}), False, True, 1, frozenset({"4C"}), 0, hand_number=1)
    for k in range(6, 12):  # seat 1's card, read KH at a doubt: it waits
        tracker.update(_frame(k / 10, ("4C", 0.9, (320, 400)), ("KH", 0.3, (480, 240))), view, table.submit)
    (waiting,) = [p for p in table.proposals if p.event.get("card") == "KH"]
    # the next card ends the hand in the view: nothing out any more
    table.view = TableView(4, frozenset({"4C", "AS", "7H", "KH"}), False, False, None, frozenset(), 0, hand_number=1)
    for k in range(12, 40):  # seat 1's card now read 4C, surely (4C lies in seat 0's zone)
        tracker.update(_frame(k / 10, ("4C", 0.9, (320, 400)), ("4C", 0.8, (480, 240))), view, table.submit)
    assert waiting.event["card"] == "KH"


def test_two_boxes_first_seen_together_in_one_seats_zone_are_one_card():
    """A card being put down showed several boxes in its first frame (the card, the hand over it); two
    became plays of consecutive seats and every later card of the hand took the wrong seat (a rendered
    Clean-28 hand).  A seat puts down one card at a time: the weaker box is shown, not played."""
    from .streams import run_frames

    card = Detection("4C", 0.6, (290.0, 357.0, 350.0, 443.0), 0.9)
    hand_over_it = Detection("2H", 0.1, (300.0, 380.0, 370.0, 450.0), 0.5)  # IoU 0.46, 64 % inside
    session = run_frames(_frames(6.0, (card, 1.0, 99), (hand_over_it, 1.0, 99)))
    assert events(session) == [HAND, {"type": "play", "seat": 0, "card": "4C"}]
    assert ["twin_box" in a.flags for a in session.fusion.alerts] == [True]


def test_of_two_boxes_first_seen_together_the_one_that_stays_is_the_card():
    """The surer of two boxes around a card being put down went in as the play; it was the card half
    under the hand (a rendered Argentine 4O read 2O at 0.31) and was gone a moment later, while the
    box flagged beside it stayed and was read 4O at 0.89 for seconds.  The hand went in with 2O and
    ended a trick early.  The box that stays is the card: the play is renamed to its reading."""
    from companion.table.engine_view import view_of

    from .streams import run_frames

    half_put_down = Detection("2H", 0.31, (290.0, 357.0, 340.0, 405.0), 0.36)
    card_at_first = Detection("4C", 0.26, (290.0, 357.0, 350.0, 443.0), 0.32)  # IoU 0.46 with the other
    card = Detection("4C", 0.9, (290.0, 357.0, 350.0, 443.0), 0.9)
    session = run_frames(_frames(6.0, (half_put_down, 1.0, 1.4), (card_at_first, 1.0, 1.4), (card, 1.4, 99)))
    # the log shows the first reading, its undo, and the card that stayed
    assert events(session) == [HAND, {"type": "play", "seat": 0, "card": "2H"}, {"type": "undo"},
                               {"type": "play", "seat": 0, "card": "4C"}]
    assert view_of(session.log.game, 3).played == {"5H", "4C"}  # the vira and the card


def test_a_weak_face_down_play_is_asked_about_only_when_a_face_reading_rivals_it():
    """A back read at 0.5 where a face-down card may be played: with a face reading (AS) over a third
    of the back's support, the table is asked; with only far weaker or impossible ones (KS is not in
    this deck) it is ``unrivalled`` and settles unasked.  Measured on the rendered sessions: the 24
    weak covered plays asked about were all face down."""
    for alternatives, unrivalled in (((("AS", 0.3),), False), ((("AS", 0.1), ("KS", 0.4)), True)):
        table = _FakeTable()
        table.view = TableView(4, frozenset({"4C", "AS", "7H"}), False, True, 0, frozenset(), 0, face_down_ok=True)
        tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))
        for k in range(8):  # (covered_frames)
            tracker.update(_back_frame(k / 10, alternatives), lambda: table.view, table.submit)
        (p,) = table.proposals
        assert p.event == {"type": "play", "seat": 0, "covered": True} and "low_confidence" in p.flags
        assert ("unrivalled" in p.flags) == unrivalled, alternatives
        assert p.alternatives == []  # a face-down play offers no face to pick


def test_a_card_read_surely_takes_its_name_back_from_a_card_read_so_a_moment():
    """Seat 0's card was read 4C for its first frames (so it went in as 4C) and AS ever after; seat 1's
    card is read 4C in every frame.  The later card used to give way (rendered sessions: in 9 of 22
    such conflicts it was the one read right, each time read so throughout while the earlier card was
    read so in at most 60 % of its frames).  Now the earlier card is renamed and the hand goes in again."""
    from .streams import run_frames

    first_look = Detection("4C", 0.9, (218.9, 357.9, 278.8, 443.7), 0.9, (("AS", 0.05),))
    after = Detection("AS", 0.9, (218.9, 357.9, 278.8, 443.7), 0.9, (("4C", 0.05),))
    second = Detection("4C", 0.8, (449.4, 127.7, 510.5, 213.7), 0.9, (("4S", 0.1),))
    session = run_frames(_frames(8.0, (first_look, 1.0, 1.7), (after, 1.7, 99), (second, 3.0, 99)))
    assert session.log.game.events == [HAND, {"type": "play", "seat": 0, "card": "AS"},
                                       {"type": "play", "seat": 1, "card": "4C"}]
    assert {"type": "undo"} in session.log.events  # the log shows the renaming
    assert any("read again as AS" in e for e in session.tracker.events)


def test_a_card_read_alike_throughout_keeps_its_name():
    """The converse: seat 0's card read 4C in every frame keeps it; seat 1's takes its next reading."""
    from .streams import run_frames

    first = Detection("4C", 0.9, (218.9, 357.9, 278.8, 443.7), 0.9, (("AS", 0.05),))
    second = Detection("4C", 0.8, (449.4, 127.7, 510.5, 213.7), 0.9, (("4S", 0.3),))
    session = run_frames(_frames(8.0, (first, 1.0, 99), (second, 3.0, 99)))
    assert session.log.game.events == [HAND, {"type": "play", "seat": 0, "card": "4C"},
                                       {"type": "play", "seat": 1, "card": "4S"}]
    assert {"type": "undo"} not in session.log.events


def test_two_cards_read_alike_surely_the_zones_decide(monkeypatch):
    """Both cards read 4C in every frame: the readings cannot tell which is misread, so the tracker asks
    the view (``TableView.retake_fits``, answered by fusion from the seats' zones).  Told the renaming
    fits, it renames the earlier card; told it does not, the later card takes its next reading."""
    from companion.table.fusion import Fusion

    from .streams import run_frames

    first = Detection("4C", 0.9, (218.9, 357.9, 278.8, 443.7), 0.9, (("AS", 0.05),))
    second = Detection("4C", 0.8, (449.4, 127.7, 510.5, 213.7), 0.9, (("4S", 0.3),))
    asked = []
    for fits, seat0 in ((True, "AS"), (False, "4C")):
        monkeypatch.setattr(Fusion, "retake_fits_zones",
                            lambda self, game, card, name, zone, fits=fits: asked.append((card, name)) or fits)
        session = run_frames(_frames(8.0, (first, 1.0, 99), (second, 3.0, 99)))
        assert session.log.game.events[1] == {"type": "play", "seat": 0, "card": seat0}
        assert session.log.game.events[2] == {"type": "play", "seat": 1, "card": "4C" if fits else "4S"}
    assert asked and set(asked) == {("4C", "AS")}


def test_without_a_vira_a_hand_gathered_in_a_short_sweep_is_closed_by_the_next_deal():
    """Without a vira the next deal is told only by the table staying empty (``cleared_seconds``).  A
    six-player Argentine table was empty 1.1 s between hands, and the hand the engine still ran (a card
    the camera missed) took every card of the next one: the whole session went wrong.  None of the swept
    cards came back: they were gathered, so a new card once that long has passed is a new deal."""
    import dataclasses

    from companion.table.observations import read_stream

    from .streams import FIXTURES, run_frames

    header, frames = read_stream(FIXTURES / "new_deal.jsonl")
    played = [f for f in frames if f.t < 5.0]
    dealt = [f for f in frames if f.t >= 7.5]
    empty = next(f for f in frames if not f.detections)
    for gap in (11, 12):  # 1.1 s and 1.2 s of empty table between the hands
        stream = list(played) + [dataclasses.replace(empty, t=round((len(played) + k) * 0.1, 1)) for k in range(gap)]
        start = len(stream)
        stream += [dataclasses.replace(f, t=round((start + k) * 0.1, 1)) for k, f in enumerate(dealt)]
        session = run_frames(stream, variant="mineiro", calibration=Calibration.from_dict(header["calibration"]),
                             fusion=FusionConfig(**UNATTENDED.__dict__))
        # mineiro turns no vira: 5H by the deck was the first play; seat 3's card was never seen
        assert events(session)[3:] == [{"type": "play", "seat": 2, "card": "4C"}, {"type": "fold", "seat": 3},
                                       {"type": "hand", "dealer": 0}, {"type": "play", "seat": 1, "card": "4C"},
                                       {"type": "play", "seat": 2, "card": "QD"}], gap
        closed = [a for a in session.fusion.applied if a.proposal is not None and "new_deal" in a.proposal.flags]
        assert len(closed) == 1


def test_a_card_the_bare_table_is_read_as_is_scenery_not_a_play():
    """A checked cloth was read as the 1E at five places of the empty table, before anyone dealt, and at
    new places later; one of them went in as the first play of the first hand and every seat of that
    hand was one off (rendered seed 16, an Argentine session lost three hands).  One face read at two
    places of the first frame is the table's: dropped there, and anywhere no surer.  The real card of
    that name, read surely when it is played, still goes in."""
    from .streams import run_frames

    pattern = [Detection("1E", conf, box, conf) for conf, box in (
        (0.45, (60.0, 360.0, 140.0, 440.0)), (0.4, (540.0, 40.0, 620.0, 120.0)), (0.35, (20.0, 150.0, 100.0, 230.0)))]
    deck = Detection(BACK, 0.9, (330.0, 197.0, 390.0, 283.0), 0.9)
    plays = [(Detection("10O", 0.8, (290.0, 357.0, 350.0, 443.0), 0.9), 1.0, 99),
             (Detection("12E", 0.85, (449.0, 128.0, 510.0, 214.0), 0.9), 2.5, 99),
             (Detection("1E", 0.42, (380.0, 40.0, 440.0, 120.0), 0.42), 3.5, 99),  # the pattern read at a new place
             (Detection("1E", 0.85, (200.0, 30.0, 260.0, 116.0), 0.9), 5.0, 99)]  # seat 2 plays the real 1E
    frames = []
    for k in range(80):
        t = round(k * 0.1, 1)
        seen = pattern + ([deck] if t >= 0.5 else []) + [d for d, start, end in plays if start <= t < end]
        frames.append(FrameDetections(t, tuple(seen), None, (640, 480)))
    session = run_frames(frames, variant="argentino")
    assert events(session) == [{"type": "hand", "dealer": 3}, {"type": "play", "seat": 0, "card": "10O"},
                               {"type": "play", "seat": 1, "card": "12E"}, {"type": "play", "seat": 2, "card": "1E"}]
    assert not session.fusion.alerts and not session.fusion.pending
    assert any("the table itself reads as 1E at 3 places" in e for e in session.tracker.events)


def test_a_card_outlined_over_a_square_of_the_cloth_read_as_it_is_still_a_play():
    """Rendered seed 531 (an Argentine session for six, on a small checked cloth): the bare table read 4E at three
    places, every square outlined at 0; seat 0's real 4E, put down over one of them, was outlined 0.56 but named
    only 0.28, no surer than the squares, and was dropped as the table.  Outlined where the cloth was not, it is
    a card."""
    from .streams import run_frames

    def session(outline: float) -> list[dict[str, object]]:
        pattern = [Detection("4E", conf, box, 0.5, (), 0.0) for conf, box in (
            (0.3, (60.0, 360.0, 140.0, 440.0)), (0.25, (540.0, 40.0, 620.0, 120.0)), (0.25, (200.0, 30.0, 260.0, 116.0)))]
        deck = Detection(BACK, 0.9, (330.0, 197.0, 390.0, 283.0), 0.9, (), 0.9)
        plays = [(Detection("10O", 0.8, (290.0, 357.0, 350.0, 443.0), 0.9, (), 0.9), 1.0),
                 (Detection("12E", 0.85, (449.0, 128.0, 510.0, 214.0), 0.9, (), 0.9), 2.5),
                 (Detection("4E", 0.28, (202.0, 32.0, 262.0, 118.0), 0.3, (), outline), 4.0)]  # over a square
        frames = []
        for k in range(80):
            t = round(k * 0.1, 1)
            seen = pattern + ([deck] if t >= 0.5 else []) + [d for d, start in plays if start <= t]
            frames.append(FrameDetections(t, tuple(seen), None, (640, 480)))
        return events(run_frames(frames, variant="argentino"))

    two = [{"type": "hand", "dealer": 3}, {"type": "play", "seat": 0, "card": "10O"},
           {"type": "play", "seat": 1, "card": "12E"}]
    assert session(0.56) == [*two, {"type": "play", "seat": 2, "card": "4E"}]
    assert session(0.0) == two  # outlined as the cloth is: the cloth


def test_a_vira_first_boxed_as_a_back_where_the_deck_then_lies_beside_it_is_the_vira():
    """The vira's first frames, while it was being turned, were boxed as a back: its track was taken for the
    deck.  The deck itself then showed beside it, and the vira, read 7H in every frame from then on, stayed
    the deck; a faint box over the deck's corner read QH at 0.04 became the vira, and three hands were
    scored wrong (rendered seed 32, a Clean-28 session).  A track taken for the deck that reads as a face
    while another deck lies in view is looked at again as a face, and a fainter face by the deck waits."""
    from .streams import run_frames

    turned = (246.0, 173.0, 330.0, 235.0)
    frames = []
    for k in range(40):
        t = round(k * 0.1, 1)
        seen = []
        if 0.6 <= t < 1.0:
            seen.append(Detection(BACK, 0.49, turned, 0.49))
        elif t >= 1.0:
            seen += [Detection(BACK, 0.6, (321.0, 191.0, 390.0, 257.0), 0.6),
                     Detection("7H", 0.27, (248.0, 172.0, 337.0, 241.0), 0.75, (("3H", 0.05),)),
                     Detection("QH", 0.04, (303.0, 201.0, 387.0, 278.0), 0.36, (("QS", 0.02),))]
        frames.append(FrameDetections(t, tuple(seen), None, (640, 480)))
    session = run_frames(frames)
    assert events(session)[:1] == [{"type": "hand", "dealer": 3, "vira": "7H"}]


def test_a_card_played_that_the_detector_sees_only_weakly_keeps_the_hand_on_the_table():
    """A rendered Mineiro hand (no vira): its first card, seen well while put down, then boxed at
    presence 0.22 once it lay still, was played, then taken for swept a moment later (no box of the
    frame at 0.3 or more: the deck was seen weakly too), the table counted as cleared, and the next card
    closed the hand as a new deal: three hands lost.  A card played, still read as the card played,
    makes a frame no blank one however weakly it is seen: the next card is the hand's next play."""
    from .streams import run_frames

    deck = Detection(BACK, 0.25, (330.8, 196.8, 389.3, 283.0), 0.25)
    landing = Detection("4C", 0.45, (218.9, 357.9, 278.8, 443.7), 0.5, (("4S", 0.1),))  # being put down
    lying = Detection("4C", 0.2, landing.box, 0.22, (("4S", 0.01),))  # lying still: seen weakly
    second = Detection("AS", 0.8, (449.4, 127.7, 510.5, 213.7), 0.9)
    frames = []
    for k in range(60):
        t = round(k * 0.1, 1)
        seen = [deck] + ([landing] if 1.0 <= t < 1.4 else [lying] if t >= 1.4 else []) + ([second] if t >= 4.5 else [])
        frames.append(FrameDetections(t, tuple(seen), None, (640, 480)))
    session = run_frames(frames, variant="mineiro")
    assert events(session) == [{"type": "hand", "dealer": 3}, {"type": "play", "seat": 0, "card": "4C"},
                               {"type": "play", "seat": 1, "card": "AS"}]
    assert not any("left the view" in e or "cleared during" in e for e in session.tracker.events)


def test_a_covered_card_the_camera_never_saw_goes_in_when_the_next_card_lies_in_the_next_seats_zone():
    """The late-covered stream with seat 2's covered card never seen at all: QS lies in seat 3's zone
    while seat 2 is due.  Unattended, it used to go in as seat 2's play at the timeout, and every later
    card of the hand took the wrong seat.  Seat 3 is the next to play, seat 2 may play face down: a
    covered play goes in for seat 2 first (flagged ``unseen``), then QS and 5C for the seats of their
    zones."""
    import dataclasses

    from companion.table.observations import read_stream

    from .streams import FIXTURES, run_frames

    header, frames = read_stream(FIXTURES / "late_covered.jsonl")
    deck = (330.8, 196.8, 389.3, 283.0)
    unseen = [dataclasses.replace(f, detections=tuple(d for d in f.detections if d.label != BACK or
                                                    abs(d.box[0] - deck[0]) < 20 and abs(d.box[1] - deck[1]) < 20))
              for f in frames]
    session = run_frames(unseen, calibration=Calibration.from_dict(header["calibration"]))
    first_trick = [{"type": "play", "seat": seat, "card": card} for seat, card in enumerate(["4C", "AS", "KD", "JH"])]
    assert events(session) == [HAND, *first_trick, {"type": "play", "seat": 1, "card": "7D"},
                               {"type": "play", "seat": 2, "covered": True}, {"type": "play", "seat": 3, "card": "QS"},
                               {"type": "play", "seat": 0, "card": "5C"}]
    (inferred,) = [a for a in session.fusion.applied if a.proposal is not None and "unseen" in a.proposal.flags]
    assert inferred.resolved_by == "timeout" and "never seen" in inferred.proposal.reason
    # in the first trick nobody may play face down: there the card still goes in for the seat due
    early = [dataclasses.replace(f, detections=tuple(d for d in f.detections if d.label != "AS")) for f in frames]
    session = run_frames(early, calibration=Calibration.from_dict(header["calibration"]))
    assert not any(a.proposal is not None and "unseen" in a.proposal.flags for a in session.fusion.applied)


class _DealingTable(_FakeTable):
    """A view that opens a hand (``hand_number`` counting up, seat 0 due) on each new hand proposed."""

    def __init__(self, deck: frozenset[str]) -> None:
        super().__init__()
        self.deck = deck
        self.view = TableView(4, deck, True, False, None, frozenset(), 3)
        self.hands: list[dict] = []
        self.tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))))

    def submit(self, p: Proposal) -> None:
        super().submit(p)
        if p.event.get("type") == "hand":
            self.hands.append(p.event)
            self.view = TableView(4, self.deck, True, True, 0, frozenset({p.event["vira"]}), 0,
                                  hand_number=len(self.hands))

    def hand_over(self) -> None:
        """The engine ends the running hand (its cards still lie there)."""
        self.view = TableView(4, self.deck, True, False, None, frozenset(), 0, hand_number=len(self.hands))

    def frame(self, t: float, *seen: Detection) -> None:
        self.tracker.update(FrameDetections(round(t, 1), seen, None, (640, 480)), lambda: self.view, self.submit)

    def reject_vira(self, vira: str) -> None:
        """The table says no to the hand proposed with ``vira`` (as Fusion.reject marks it): it is undone."""
        for p in self.proposals:
            if p.event.get("vira") == vira and p.rejected_by is None:
                p.rejected_by, p.settled = "key", True
        self.hands = [h for h in self.hands if h.get("vira") != vira]
        self.view = TableView(4, self.deck, True, False, None, frozenset(), 3, hand_number=len(self.hands))

    def proposed(self, kind: str, key: str) -> list[str]:
        """What each proposal of this ``kind`` named under ``key`` ("vira", "card"), rejected ones included."""
        return [p.event.get(key) for p in self.proposals if p.event.get("type") == kind]


def test_the_same_vira_turned_again_after_a_short_sweep_is_a_new_deal():
    """A rendered Paulista table turned 6D for two hands in a row.  Between them nothing at all was seen
    for 0.7 s, less than a track's patience, and the new 6D lay where the old one had: it was taken for
    the finished hand's vira seen again, and the whole next hand was shown as cards after the hand.
    Nothing seen for ``blank_seconds`` between hands ends the finished hand's cards."""
    table = _DealingTable(frozenset({"5H", "4C", "AS", "7D"}))
    vira = Detection("5H", 0.9, (237.9, 209.4, 322.9, 270.3), 0.9)
    played = Detection("4C", 0.9, (218.9, 357.9, 278.8, 443.7), 0.9)
    for k in range(30):
        if k == 20:
            table.hand_over()
        table.frame(k * 0.1, DECK, vira, *((played,) if k >= 10 else ()))
    for k in range(30, 37):  # gathered: nothing at all for 0.7 s
        table.frame(k * 0.1)
    for k in range(37, 50):  # the next deal turns the same card where the last vira lay
        table.frame(k * 0.1, DECK, vira)
    hands = table.hands
    assert hands == [{"type": "hand", "dealer": 3, "vira": "5H"}, {"type": "hand", "dealer": 0, "vira": "5H"}]


def test_the_deck_read_as_a_face_while_the_last_vira_still_lies_there_is_no_new_deal():
    """A held-out deck's back was read QC at p 0.1 by the classifier.  Once the engine ended a hand, the
    deck, seen afresh by the vira that still lay there, was taken for the next hand's vira four seconds
    before the table was swept; the real deal then closed that phantom hand, and a hand was lost.  No vira
    is turned while the last one still lies where it was: the next hand opens with the real deal."""
    table = _DealingTable(frozenset({"5H", "4C", "QC", "7D"}))
    vira = Detection("5H", 0.9, (237.9, 209.4, 322.9, 270.3), 0.9)
    played = Detection("4C", 0.9, (218.9, 357.9, 278.8, 443.7), 0.9)
    deck_as_face = Detection("QC", 0.05, DECK.box, 0.45)
    next_vira = Detection("7D", 0.85, (240.0, 205.0, 325.0, 268.0), 0.85)
    for k in range(60):
        if k == 20:
            table.hand_over()
        table.frame(k * 0.1, vira, *((played,) if k >= 10 else ()), *((deck_as_face,) if k >= 24 else ()))
    for k in range(60, 70):  # gathered: nothing at all for a second
        table.frame(k * 0.1)
    for k in range(70, 85):  # the next deal
        table.frame(k * 0.1, DECK, next_vira)
    hands = table.hands
    assert hands == [{"type": "hand", "dealer": 3, "vira": "5H"}, {"type": "hand", "dealer": 0, "vira": "7D"}]


def test_the_vira_is_the_face_named_more_surely_not_the_deck_read_as_a_face():
    """A rendered one-pip deck's vira 3S was read 3C in its first frames, and its back beside it QC at a
    classifier probability of 0.29 in every frame (surely boxed, barely named).  By confidence times
    share the deck looked the surer face and became the vira; by how surely each is named (the detector's
    presence divided out: 0.44 for the 3S) the vira is taken."""
    table = _DealingTable(frozenset({"3S", "3C", "QC", "7D"}))
    vira_box, deck_box = (250.0, 200.0, 332.0, 265.0), (312.0, 222.0, 375.0, 286.0)
    for k in range(20):
        if k < 3:  # the vira still turning: read 3C, 3S the runner-up
            table.frame(k * 0.1, Detection("3C", 0.15, vira_box, 0.61, (("3S", 0.13),)))
        else:
            table.frame(k * 0.1, Detection("3S", 0.2, vira_box, 0.44, (("3C", 0.09),)),
                        Detection("QC", 0.18, deck_box, 0.62, (("QS", 0.08),)))
    assert table.hands == [{"type": "hand", "dealer": 3, "vira": "3S"}]


def test_a_vira_the_table_rejects_is_taken_for_the_deck_and_the_face_beside_it_becomes_the_vira():
    """A rendered deal: the vira, boxed as a back while it was turned, was taken for the deck, and the
    deck, read QC, was proposed as the vira.  The table said no, and nothing was proposed again: the vira,
    read 3D from then on, stayed the deck, and a seat's first card became the vira.  A vira the table
    rejects is the deck: the face taken for the deck is looked at again, and proposed as the vira."""
    table = _DealingTable(frozenset({"3D", "QC", "3S", "7D"}))
    vira_box, deck_box = (243.0, 187.0, 322.0, 245.0), (327.0, 191.0, 382.0, 263.0)
    for k in range(40):
        turning = k < 6  # being turned: boxed as a back
        vira = Detection(BACK, 0.6, vira_box, 0.6) if turning else Detection("3D", 0.3, vira_box, 0.55)
        table.frame(k * 0.1, vira, *((Detection("QC", 0.06, deck_box, 0.55),) if k >= 1 else ()))
        if "QC" in [h["vira"] for h in table.hands]:  # the table: "no, that is the deck"
            table.reject_vira("QC")
    assert table.proposed("hand", "vira") == ["QC", "3D"]


def test_after_the_table_rejects_a_vira_a_card_taken_for_a_play_of_that_hand_can_be_the_vira():
    """A rendered deal: the deck, read QC, went in as the vira, and the real vira, KD, seen a moment later
    by the deck, was taken for the first play of that hand.  The table said no to QC; KD stayed a play of
    a hand that never was, and a seat's card became the vira.  The cards taken for plays of the rejected
    vira's hand are looked at again."""
    table = _DealingTable(frozenset({"KD", "QC", "KC", "7D"}))
    deck_box, vira_box = (323.0, 196.0, 381.0, 270.0), (248.0, 220.0, 320.0, 280.0)
    for k in range(50):  # (QC named at p 0.3, KD at 0.51: not far surer, so no swap, see the test below)
        table.frame(k * 0.1, Detection("QC", 0.12, deck_box, 0.4),
                    *((Detection("KD", 0.19, vira_box, 0.37),) if k >= 6 else ()))
        if k == 20:  # the table: "QC is no vira"
            table.reject_vira("QC")
    assert table.proposed("play", "card")[:1] == ["KD"]
    assert table.proposed("hand", "vira") == ["QC", "KD"]


def test_a_face_by_the_deck_named_far_more_surely_than_the_vira_still_waiting_is_the_vira():
    """A rendered one-pip deal: the deck, read AS at p 0.06 alone for four frames, was proposed as the vira;
    the real vira, AC at p 0.4, turned beside it a moment later, was taken for the first play.  While the
    vira waits (or settles), a face by the deck named at least twice as surely takes its place."""
    table = _DealingTable(frozenset({"AC", "AS", "QC", "7D"}))
    deck_box, vira_box = (321.0, 167.0, 382.0, 226.0), (244.0, 172.0, 325.0, 233.0)
    for k in range(30):
        table.frame(k * 0.1, Detection("AS", 0.05, deck_box, 0.72),
                    *((Detection("AC", 0.2, vira_box, 0.52),) if k >= 4 else ()))
    assert table.proposed("hand", "vira") == ["AC"] and table.proposed("play", "card") == []
    assert any("AC by the deck, named far more surely than the vira AS" in e for e in table.tracker.events)


def test_a_vira_taken_for_the_deck_while_it_was_turned_takes_the_place_of_the_deck_gone_in_as_the_vira():
    """A rendered one-pip deal (seed 537): the vira JD was boxed as a back for its first four frames, so its
    track was taken for the deck; the deck beside it, read QC at p 0.08 (a back the classifier never saw),
    was decided in the same frame and went in as the vira.  From then on the card taken for the deck read
    JD at p 0.4 in every frame, but a decided card was never compared with the vira again, and two hands
    were lost.  A card taken for the deck that reads as a face in its last frames, named far more surely
    than the vira still waiting, is the vira, and that vira the deck."""
    table = _DealingTable(frozenset({"JD", "QC", "3S", "7D"}))
    deck_box, vira_box = (329.0, 166.0, 379.0, 222.0), (255.0, 179.0, 326.0, 232.0)
    for k in range(30):
        vira = (Detection(BACK, 0.17, vira_box, 0.17) if k < 4
                else Detection("JD", 0.25, vira_box, 0.6, (("JH", 0.05),)))
        table.frame(k * 0.1, Detection("QC", 0.03, deck_box, 0.45, (("QS", 0.02),)), vira)
    assert table.proposed("hand", "vira") == ["JD"] and table.proposed("play", "card") == []
    assert any("JD by the deck, named far more surely than the vira QC" in e for e in table.tracker.events)


def test_once_the_deck_gone_in_as_the_vira_gives_way_the_name_it_took_is_free_for_a_play():
    """The test above through fusion (rendered seed 971, a six-player Clean-28 deal): the deck, read QC,
    waited as the vira and gave way to the real vira JD; seat 2's QC put down a moment later was still
    shown as "already out in this hand" (what the table looked like was not worked out anew after the
    waiting vira was renamed in place), and every later card of the hand took the seat before its own."""
    from .streams import run_frames

    deck_box, vira_box = (329.0, 166.0, 379.0, 222.0), (255.0, 179.0, 326.0, 232.0)
    frames = []
    for k in range(50):
        t = round(k * 0.1, 1)
        seen = [Detection("QC", 0.03, deck_box, 0.45, (("QS", 0.02),))] if t >= 0.5 else []
        if 0.5 <= t < 0.9:
            seen.append(Detection(BACK, 0.17, vira_box, 0.17))
        elif t >= 0.9:
            seen.append(Detection("JD", 0.25, vira_box, 0.6, (("JH", 0.2),)))  # JH a rival: it waits
        if t >= 1.3:  # while the renamed vira still waits
            seen.append(Detection("QC", 0.6, (290.0, 330.0, 350.0, 420.0), 0.7, (("QS", 0.05),)))
        frames.append(FrameDetections(t, tuple(seen), None, (640, 480)))
    session = run_frames(frames, variant="clean-28")
    assert events(session) == [{"type": "hand", "dealer": 3, "vira": "JD"},
                               {"type": "play", "seat": 0, "card": "QC"}]
    assert not session.fusion.alerts


def test_a_card_taken_for_the_deck_read_as_a_face_now_and_then_leaves_the_vira_alone():
    """The other side of the test above: the deck, boxed as a back, read as a face in a frame here and there
    (never in its last three frames in a row) is still the deck, whatever that face's probability; the
    vira stays."""
    table = _DealingTable(frozenset({"JD", "QC", "3S", "7D"}))
    deck_box, vira_box = (329.0, 166.0, 379.0, 222.0), (255.0, 179.0, 326.0, 232.0)
    for k in range(30):
        deck = (Detection("QC", 0.55, deck_box, 0.6) if k % 3 == 2 and k > 8
                else Detection(BACK, 0.6, deck_box, 0.9, (("QC", 0.01),)))
        table.frame(k * 0.1, deck, *((Detection("JD", 0.1, vira_box, 0.25),) if k >= 4 else ()))
    assert table.proposed("hand", "vira") == ["JD"]
    assert not any("named far more surely" in e for e in table.tracker.events)


def _put_down_boxed_twice(lower: Detection, upper: Detection) -> TableSession:
    """A Clean-28 hand (vira 7S, seat 0 to play): seat 0's card, put down at 2 s, is boxed in every frame as
    ``lower`` and ``upper`` at once; seat 1's KD follows at 5 s.  The session after 9 s."""
    from .streams import run_frames

    deck = Detection(BACK, 0.6, (330.0, 196.0, 390.0, 280.0), 0.6)
    vira = Detection("7S", 0.7, (250.0, 200.0, 325.0, 262.0), 0.8)
    seat_1 = Detection("KD", 0.7, (470.0, 200.0, 540.0, 280.0), 0.8)
    frames = []
    for k in range(90):
        t = round(k * 0.1, 1)
        seen = ([deck, vira] if t >= 0.5 else []) + ([lower, upper] if t >= 2.0 else []) + ([seat_1] if t >= 5.0 else [])
        frames.append(FrameDetections(t, tuple(seen), None, (640, 480)))
    return run_frames(frames, variant="clean-28")


def test_a_card_boxed_as_a_back_and_as_a_weak_face_in_one_frame_is_one_play_of_its_seat():
    """A rendered Clean-28 hand (seed 1019): seat 0's 3H, put down, was boxed in the same frame as a back
    over its lower half (0.29; the 3H its best face) and as a 2H at 0.04 over its upper half, both outlined
    as one card.  The back went in as 3H (a card face down is forbidden there) with the confidence of a
    runner-up, 0.01, so the 2H counted as the surer box and went in too, as seat 0's next play.  A card
    that went in from a back read as face down is never the less sure of two such boxes."""
    lower = Detection(BACK, 0.29, (329.0, 324.0, 393.0, 382.0), 0.29, (("3H", 0.011), ("AH", 0.010)), 0.9)
    upper = Detection("2H", 0.043, (340.0, 301.0, 397.0, 343.0), 0.28, (("QH", 0.040), ("7H", 0.037)), 0.9)
    session = _put_down_boxed_twice(lower, upper)
    assert events(session) == [{"type": "hand", "dealer": 3, "vira": "7S"}, {"type": "play", "seat": 0, "card": "3H"},
                               {"type": "play", "seat": 1, "card": "KD"}]
    assert [a.flags[0] for a in session.fusion.alerts] == ["twin_box"]


def test_a_card_boxed_as_a_back_and_as_a_face_named_surely_in_one_frame_is_one_play_of_that_face():
    """The other side of the test above (rendered seed 502, a Clean-28 hand): seat 0's 7H, put down, was boxed
    in the same frame as a back (its runner-up faces AH, 2H at 0.01) and as a 7H named at p 0.6.  The back went
    in as AH, a card face down being forbidden there; the face box is the same card, so it is no second play
    but names the one play.  Named at p 0.15 (the test above) it does not."""
    lower = Detection(BACK, 0.3, (329.0, 324.0, 393.0, 382.0), 0.3, (("AH", 0.011), ("2H", 0.009)), 0.9)
    upper = Detection("7H", 0.12, (340.0, 301.0, 397.0, 343.0), 0.2, (("AH", 0.03), ("3H", 0.02)), 0.9)
    session = _put_down_boxed_twice(lower, upper)
    assert events(session) == [{"type": "hand", "dealer": 3, "vira": "7S"}, {"type": "play", "seat": 0, "card": "7H"},
                               {"type": "play", "seat": 1, "card": "KD"}]
    assert [a.flags[0] for a in session.fusion.alerts] == ["twin_box"]

def test_a_card_of_the_hand_just_ended_boxed_again_by_the_deck_opens_no_hand():
    """A Mineiro hand (no vira) is over, its cards still on the table.  A hand passes over seat 2's 5H,
    which lies within reach of the deck; boxed again, it is read KH.  Taken for the next hand's first
    card, it opened a hand nobody dealt, and every play of the real next hand took the wrong seat (a
    rendered Mineiro table).  It lies where a card of the ended hand was seen a moment before: it is
    that card, shown as put down after the hand, not applied."""
    from .streams import run_frames

    plays = [_card("3S", 280, 400), _card("4D", 480, 200), _card("5H", 330, 145), _card("6D", 160, 200),
             _card("3D", 360, 400), _card("4S", 480, 280), _card("5C", 250, 100), _card("6S", 160, 280)]
    frames = []
    for k in range(140):
        t = round(k * 0.1, 1)
        seen = [DECK] + [d for i, d in enumerate(plays) if t >= 1.0 + i and not (d.label == "5H" and 9.0 <= t < 9.5)]
        if t >= 9.5:
            seen = [d for d in seen if d.label != "5H"] + [_card("KH", 330, 145, 0.3)]
        frames.append(FrameDetections(t, tuple(seen), None, (640, 480)))
    session = run_frames(frames, variant="mineiro")
    got = events(session)
    assert [e["type"] for e in got] == ["hand"] + ["play"] * 8, got
    assert [(a.flags[0], a.event["card"]) for a in session.fusion.alerts] == [("after_hand", "KH")]


def test_the_same_card_dealt_where_it_lay_in_the_swept_hand_is_a_new_card_once_the_table_was_gathered():
    """A Mineiro hand lost a card to the camera and its cards were swept while the engine still waited.
    The next hand's mano put down the same card (4D) where his 4D of the swept hand had lain, 2.4 s after
    the sweep: it was taken for the old card seen again (the view blocked, the card never moved), no
    play, and the whole hand was lost (a rendered Argentine table).  Once none of the swept hand's cards
    has been seen again for cleared_seconds, they were gathered, and a card there is a new deal's."""
    from .streams import run_frames

    swept = [(_card("3S", 280, 400), 1.0), (_card("4D", 480, 200), 2.0), (_card("5H", 250, 100), 3.0)]
    frames = []
    for k in range(110):
        t = round(k * 0.1, 1)
        seen = [DECK] + [d for d, start in swept if start <= t < 5.0]
        if t >= 7.4:
            seen.append(_card("4D", 480, 200))
        frames.append(FrameDetections(t, tuple(seen), None, (640, 480)))
    session = run_frames(frames, variant="mineiro")
    got = events(session)
    assert [e["type"] for e in got] == ["hand", "play", "play", "play", "fold", "hand", "play"], got
    assert got[-1] == {"type": "play", "seat": 1, "card": "4D"}


def test_a_played_card_boxed_in_two_halves_while_the_next_seat_plays_is_no_new_card():
    """Seat 2's 6D lies played; while seat 3 puts down 7H, the detector boxes 6D as two halves for three
    frames: its lower half read as a back (joined to 6D's own track) and its upper half read 2D at 0.21.
    The half went in as seat 3's play and 7H as seat 0's (a rendered Paulista hand).  A box within a
    played card, out of turn, seen only while that card was not read as itself, is part of it: shown,
    not applied."""
    from .streams import run_frames

    six = _card("6D", 330, 94)
    lower = Detection(BACK, 0.37, (300.0, 77.0, 360.0, 137.0), 0.37)
    upper = Detection("2D", 0.21, (300.0, 54.0, 362.0, 99.0), 0.62, (("6D", 0.05),))
    seven = Detection("7H", 0.45, (130.0, 197.0, 190.0, 283.0), 0.47)
    frames = _frames(6.0, (_card("KS", 280, 400), 0.5, 99), (_card("QD", 480, 200), 1.5, 99), (six, 2.5, 3.5),
                     (lower, 3.5, 3.8), (upper, 3.5, 3.8), (six, 3.8, 99), (seven, 3.5, 99))
    session = run_frames(frames)
    plays = [(e["seat"], e["card"]) for e in events(session) if e["type"] == "play"]
    assert plays == [(0, "KS"), (1, "QD"), (2, "6D"), (3, "7H")], plays
    assert [(a.flags[0], a.event["card"]) for a in session.fusion.alerts] == [("pile", "2D")]


def test_a_forbidden_back_out_of_turn_with_no_face_in_it_is_no_card():
    """First trick: no card may be played face down.  A weak back box beside seat 1's played card, in seat
    1's zone while seat 2 is due, read as no face at all (its best face under 0.001), was taken for its
    likeliest face and went in as seat 2's play (a rendered Mineiro hand).  It is shown, not applied."""
    from .streams import run_frames

    ghost = Detection(BACK, 0.15, (437.0, 280.0, 501.0, 345.0), 0.15, (("JC", 0.0004),))
    frames = _frames(6.0, (_card("KS", 280, 400), 0.5, 99), (_card("QD", 480, 200), 1.5, 99), (ghost, 2.5, 99),
                     (_card("3H", 330, 94), 3.5, 99))
    session = run_frames(frames)
    plays = [(e["seat"], e["card"]) for e in events(session) if e["type"] == "play"]
    assert plays == [(0, "KS"), (1, "QD"), (2, "3H")], plays
    assert [(a.flags[0], a.event["card"]) for a in session.fusion.alerts] == [("ghost", "JC")]


def test_a_card_put_down_sliding_over_the_seats_earlier_card_is_a_card_of_its_own():
    """Seat 2 won the first trick with 6D and leads the second: its JC is put down sliding in over the 6D,
    which it hides.  The 6D's track followed the new card's boxes; decided already, it was never proposed
    again, and seat 2's play was lost (a rendered Mineiro hand's KC so, beside its seat's 5D).  The card,
    read JC for half a second and far from where 6D lay, is a track of its own and goes in."""
    from .streams import run_frames

    frames = _frames(9.0, (_card("KS", 280, 400), 0.5, 99), (_card("QD", 480, 200), 1.5, 99),
                     (_card("6D", 330, 94), 2.5, 5.0), (_card("7H", 160, 240), 3.5, 99),
                     (_card("JC", 345, 94), 5.0, 5.3), (_card("JC", 360, 94), 5.3, 5.6),
                     (_card("JC", 375, 94), 5.6, 99), (_card("AH", 90, 240), 7.0, 99))
    session = run_frames(frames)
    plays = [(e["seat"], e.get("card")) for e in events(session) if e["type"] == "play"]
    assert plays == [(0, "KS"), (1, "QD"), (2, "6D"), (3, "7H"), (2, "JC"), (3, "AH")], plays
    assert any("JC put down on 6D" in e for e in session.tracker.events)


def test_a_back_seen_a_moment_in_the_zone_of_the_seat_due_is_no_covered_play():
    """Second trick: face-down plays are allowed.  Seat 2's card is carried in face down and shows its back
    for three frames before it lands face up a moment later.  The back went in as seat 2's covered play,
    and the face that followed was held as a card out of turn (a rendered Mineiro hand ended on it).  A back
    in a seat's zone is a covered play only once seen for ``covered_frames`` frames."""
    from .streams import run_frames

    carried = Detection(BACK, 0.5, (370.0, 27.0, 430.0, 113.0), 0.5)
    frames = _frames(9.0, (_card("KS", 280, 400), 0.5, 99), (_card("QD", 480, 200), 1.5, 99),
                     (_card("6D", 330, 94), 2.5, 99), (_card("7H", 160, 240), 3.5, 99),
                     (carried, 5.0, 5.3), (_card("JC", 400, 80), 6.0, 99), (_card("AH", 90, 240), 7.5, 99))
    session = run_frames(frames)
    plays = [(e["seat"], e.get("card")) for e in events(session) if e["type"] == "play"]
    assert plays == [(0, "KS"), (1, "QD"), (2, "6D"), (3, "7H"), (2, "JC"), (3, "AH")], plays


def test_a_played_card_seen_only_weakly_keeps_the_table_from_being_swept():
    """A Mineiro hand (no vira): the first card, JD, is only ever read weakly (boxes scored 0.23-0.27;
    a surer box beside it, the hand that put it down, went a moment later).  The table counted as empty,
    was taken for swept, and the next seat's card closed the hand as a new deal (a rendered session lost
    three hands so).  A play seen in the frame and still read as its own face holds the table, however
    weakly."""
    from .streams import run_frames

    weak = Detection("JD", 0.25, (250.0, 357.0, 310.0, 443.0), 0.25, (("KD", 0.05),))
    part = Detection("4D", 0.06, (262.0, 350.0, 300.0, 400.0), 0.56, (("JD", 0.05),))  # a hand, a moment
    frames = []
    for k in range(60):
        t = round(k * 0.1, 1)
        seen = [DECK]
        if t >= 0.5:
            seen.append(weak)
        if 0.5 <= t < 0.8:
            seen.append(part)
        if t >= 4.0:
            seen.append(_card("7H", 480, 200))
        frames.append(FrameDetections(t, tuple(seen), None, (640, 480)))
    session = run_frames(frames, variant="mineiro")
    kinds = [(e["type"], e.get("seat"), e.get("card")) for e in events(session)]
    assert kinds == [("hand", None, None), ("play", 0, "JD"), ("play", 1, "7H")], kinds
    assert not any("left the view" in e for e in session.tracker.events)


def test_a_weak_card_put_down_over_a_played_one_gets_its_own_track():
    """Seat 0's AS is played; then a 4C is put down partly over it, read weakly, and the AS, still showing,
    is read more weakly still, its box mostly inside the 4C's.  Before, the AS's box was dropped as part of the
    surer 4C and the AS's track took the 4C's box and readings: the 4C never reached the game (a rendered
    six-player hand of seed 304, lost).  Now the AS is seen again where it lay, and the 4C is a card of its own."""
    def run(config: TrackerConfig) -> list[Proposal]:
        table = _FakeTable()
        tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))), config)
        for k in range(5):
            tracker.update(_frame(k / 10, ("AS", 0.9, (320, 400))), lambda: table.view, table.submit)
        for k in range(5, 25):  # the detector sure of a card there (0.44), the classifier less of which
            frame = FrameDetections(k / 10, (Detection("4C", 0.17, (305, 362, 365, 448), 0.44),
                                             Detection("AS", 0.11, (290, 357, 350, 443), 0.2)), None, (640, 480))
            tracker.update(frame, lambda: table.view, table.submit)
        return table.proposals

    got = run(TrackerConfig())
    assert [p.event["card"] for p in got] == ["AS", "4C"]
    assert "low_confidence" in got[1].flags
    assert [p.event["card"] for p in run(TrackerConfig(still_there_iou=None))] == ["AS"]


def test_a_card_put_down_over_the_seats_earlier_card_read_as_it_at_first_is_a_play_of_its_own():
    """Seat 2 won the first trick with 6D and leads the second: its JC is put down over part of the 6D, which
    still shows beside it, and is read 6D for its first half second.  Its new track was taken for the 6D found
    again (the same reading, overlapping) and never proposed, though the 6D's own track was in view at once
    as another box: seat 2's play was lost, and the hand with it (rendered Argentine seeds 337 and 340).  A
    young track read as a card whose own track is seen elsewhere waits ``elsewhere_frames`` before it is
    taken for that card."""
    from .streams import run_frames

    frames = _frames(9.0, (_card("KS", 280, 400), 0.5, 99), (_card("QD", 480, 200), 1.5, 99),
                     (_card("6D", 330, 94), 2.5, 99), (_card("7H", 160, 240), 3.5, 99),
                     (_card("6D", 350, 110, 0.5), 5.0, 5.5), (_card("JC", 350, 110), 5.5, 99),
                     (_card("AH", 90, 240), 7.0, 99))
    played = [(0, "KS"), (1, "QD"), (2, "6D"), (3, "7H")]

    def plays(config: TrackerConfig) -> list[tuple[int, str | None]]:
        session = run_frames(frames, tracker=config)
        return [(e["seat"], e.get("card")) for e in events(session) if e["type"] == "play"]

    assert plays(TrackerConfig()) == played + [(2, "JC"), (3, "AH")]
    assert (2, "JC") not in plays(TrackerConfig(elsewhere_frames=None))  # found again: the play lost


def _nested_frame(t: float, inner_outline: float | None, outer_outline: float | None) -> FrameDetections:
    """A box named QH around parts of two cards (presence 0.41), and inside it a weak box of the AS (0.17)."""
    x, y = 320, 400
    outer = Detection("QH", 0.16, (x - 45, y - 55, x + 45, y + 55), 0.41, (("KH", 0.05),), outer_outline)
    inner = Detection("AS", 0.11, (x - 30, y - 43, x + 30, y + 43), 0.17, (("KS", 0.01),), inner_outline)
    return FrameDetections(t, (outer, inner), None, (640, 480))


def test_a_weak_box_inside_a_surer_one_is_the_card_when_only_it_is_outlined_as_one():
    """Found on a rendered six-player Clean-28 hand (seed 468): seat 4's one-pip AH, boxed at presence 0.17 and
    outlined at 0.72, lay inside a box named QH at 0.41 outlined at 0.37 that took in it and the card beside it;
    dropped as that box's part for 9 s, the play was missed.  Kept when the outline model fits it as a whole card
    and the surer box poorly; dropped as before where the outlines say otherwise or were never measured."""
    def tracked(inner: float | None, outer: float | None, config: TrackerConfig = TrackerConfig()) -> bool:
        table = _FakeTable()
        tracker = TableTracker(Zones(Calibration((320, 240), (320, 400), 4, (640, 480))), config)
        tracker.update(_frame(0.0), lambda: table.view, table.submit)  # the opening frame: an empty table
        for k in range(1, 20):
            tracker.update(_nested_frame(k / 10, inner, outer), lambda: table.view, table.submit)
        return any("AS" in track.votes for track in tracker.tracks)

    assert tracked(0.72, 0.37)
    assert not tracked(0.72, 0.6)  # the surer box is a card too: the inner one is its part
    assert not tracked(0.4, 0.37)  # the inner box is no whole card either
    assert not tracked(None, None)  # an older stream
    assert not tracked(0.72, 0.37, TrackerConfig(inside_outline=None))


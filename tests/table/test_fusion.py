"""Fusion: card and voice proposals ordered by time, pending proposals
confirmed or rejected by key or voice, undo, typed events."""

from __future__ import annotations

from companion.table.engine_view import MemoryTableLog, view_of
from companion.table.fusion import Fusion, FusionConfig
from companion.table.observations import Proposal, VoiceObservation
from companion.table.tracker import closing_event
from companion.table.voice import VoiceInterpreter

from .streams import pica_pica

MATCH = {"type": "match", "variant": "paulista", "players": 4}


def _fusion(**config) -> Fusion:
    fusion = Fusion(MemoryTableLog(MATCH), FusionConfig(**config), first_dealer=3)
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "5H"}, 0.0))
    fusion.tick(1.0)
    return fusion


def _card(seat: int, card: str, t: float, **kw) -> Proposal:
    return Proposal({"type": "play", "seat": seat, "card": card}, t, **kw)


def test_late_card_is_put_before_a_call_said_after_it():
    fusion = _fusion(hold=0.5, voice_hold=0.5)
    fusion.interpreter = VoiceInterpreter("pt", "paulista").interpret
    fusion.submit(_card(0, "4C", 2.0))
    # "truco" by seat 1 is only legal once seat 0's card is down: words said at
    # 2.4 arrive before the card's proposal is released
    fusion.hear_words(2.4, "truco")
    fusion.tick(2.45)
    assert fusion.log.events[-1]["type"] == "hand"
    fusion.tick(3.0)
    assert fusion.log.events[1:] == [{"type": "play", "seat": 0, "card": "4C"},
                                     {"type": "raise", "seat": 1, "to": 3}]


def test_out_of_order_arrivals_are_applied_in_time_order():
    fusion = _fusion(hold=1.0)
    fusion.submit(_card(1, "AS", 3.0))
    fusion.submit(_card(0, "4C", 2.0))  # proposed later, happened earlier
    fusion.tick(5.0)
    assert [e.get("seat") for e in fusion.log.events[1:]] == [0, 1]


def test_flagged_proposal_blocks_until_confirmed():
    fusion = _fusion()
    fusion.submit(_card(0, "4C", 2.0, flags=["low_confidence"], confidence=0.4))
    fusion.submit(_card(1, "AS", 3.0))
    fusion.tick(10.0)
    assert len(fusion.log.events) == 1 and len(fusion.pending) == 1
    assert fusion.confirm(by="key")
    fusion.tick(10.1)
    assert [e.get("card") for e in fusion.log.events[1:]] == ["4C", "AS"]


def test_a_proposal_the_table_rejects_says_so_and_one_dropped_at_the_timeout_does_not():
    # the tracker looks again at a vira the table said no to (TableTracker._not_the_vira): only the
    # table's word marks a proposal rejected, not the unattended timeout
    fusion = _fusion()
    doubt = _card(0, "4C", 2.0, flags=["low_confidence"], confidence=0.4)
    fusion.submit(doubt)
    fusion.tick(2.5)
    assert fusion.reject(by="voice") and doubt.settled and doubt.rejected_by == "voice"
    unattended = _fusion(pending_timeout=1.0)
    nobody = _card(0, "4C", 2.0, flags=["low_confidence"], confidence=0.4)
    nobody.event["seat"] = -1  # a card with no seat: dropped at the timeout
    unattended.submit(nobody)
    for k in range(30):
        unattended.tick(2.0 + 0.2 * k)
    assert nobody.settled and nobody in unattended.rejected and nobody.rejected_by is None


def test_weak_card_without_a_rival_goes_in_at_once_and_settles_without_a_question():
    """Live (no pending timeout): a card read weakly with no possible rival reading goes in at once,
    shown '~' and open for ``settle_timeout``; the cards after it do not wait.  One with a rival waits
    for the table's answer."""
    fusion = _fusion()  # live: pending_timeout None
    fusion.submit(_card(0, "4C", 2.0, flags=["low_confidence", "unrivalled"], confidence=0.3))
    fusion.submit(_card(1, "AS", 3.0))
    fusion.tick(2.5)
    assert not fusion.pending and fusion.messages[-1].startswith("~ seat 0 plays 4C")
    assert [p.event["card"] for p in fusion.settling] == ["4C"]
    fusion.tick(3.2)  # the next card goes in without waiting for the first to settle
    assert [e.get("card") for e in fusion.log.events[1:]] == ["4C", "AS"]
    assert fusion.applied[-2].resolved_by == "settle" and fusion.applied[-1].resolved_by == "auto"
    fusion.tick(4.6)  # 2 s after it went in (at 2.5): in the log for good
    assert not fusion.settling and not fusion.reject(by="key")
    asked = _fusion()
    asked.submit(_card(0, "4C", 2.0, flags=["low_confidence"], confidence=0.3))
    asked.tick(30.0)
    assert len(asked.log.events) == 1 and asked.messages[-1].startswith("? seat 0 plays 4C")
    # with a second doubt (another seat's zone) it is asked about too; and settle_timeout None asks always
    for flags, config in ((["low_confidence", "unrivalled", "wrong_seat"], {}),
                          (["low_confidence", "unrivalled"], {"settle_timeout": None})):
        held = _fusion(**config)
        held.submit(_card(0, "4C", 2.0, flags=flags, confidence=0.3))
        held.tick(2.5)
        held.tick(30.0)
        assert len(held.log.events) == 1 and len(held.pending) == 1


def test_settle_at_once_off_holds_the_weak_card_and_the_cards_after_it():
    fusion = _fusion(settle_at_once=False)
    fusion.submit(_card(0, "4C", 2.0, flags=["low_confidence", "unrivalled"], confidence=0.3))
    fusion.submit(_card(1, "AS", 3.0))
    fusion.tick(2.5)
    fusion.tick(4.0)
    assert len(fusion.pending) == 1 and len(fusion.log.events) == 1
    fusion.tick(4.6)  # 2 s after it was held
    assert [e.get("card") for e in fusion.log.events[1:]] == ["4C", "AS"]


def test_a_card_asked_about_goes_in_at_once_when_its_doubt_turns_quiet():
    """The tracker reads on while a card waits for an answer; when its rival readings fade it flags the
    card ``unrivalled`` (TableTracker._read_again): the question is withdrawn and the card goes in,
    open while it settles, and the card behind it follows."""
    fusion = _fusion()
    asked = _card(0, "4C", 2.0, flags=["low_confidence"], confidence=0.3, alternatives=["4S"])
    fusion.submit(asked)
    fusion.submit(_card(1, "AS", 3.0))
    fusion.tick(3.0)
    assert fusion.pending == [asked] and len(fusion.log.game.events) == 1
    asked.flags.append("unrivalled")
    fusion.revised()
    fusion.tick(3.2)
    assert not fusion.pending and fusion.settling == [asked]
    assert [e.get("card") for e in fusion.log.game.events[1:]] == ["4C", "AS"]


def test_a_hand_closed_by_a_new_deal_is_closed_as_it_is_when_the_close_goes_in():
    """The camera closes a hand a new deal interrupted with the event that fitted when it proposed the
    close: refusing the truco then waiting.  The truco was accepted before the close went in: the
    refusal no longer fits, and the hand is closed with a fold instead (it never closed, and the new
    deal went into it: a rendered Argentine session under --noise hard)."""
    fusion = _fusion(pending_timeout=2.0)
    fusion.submit(_card(0, "4C", 1.5))
    fusion.submit(Proposal({"type": "raise", "seat": 1, "to": 3}, 2.0, source="voice"))
    fusion.tick(2.5)
    close = Proposal({"type": "refuse", "seat": 0}, 3.5, 0.5, "vision", ["new_deal"], "a new deal began", True)
    fusion.submit(Proposal({"type": "accept", "seat": 0}, 3.0, source="voice"))
    fusion.submit(close)
    fusion.tick(4.0)
    fusion.tick(7.0)  # unattended: the close goes in after the timeout
    game = fusion.log.game
    assert game.events[-1]["type"] == "fold" and "the hand had changed" in close.reason
    assert not view_of(game, 3).in_hand  # closed: the new deal can open the next hand


def _settled(fusion: Fusion, **kw) -> Proposal:
    """Seat 0's weak 4C in at once (other readings 7C, KC), seat 1's AS after it."""
    weak = _card(0, "4C", 2.0, flags=["low_confidence", "unrivalled"], confidence=0.3, alternatives=["7C", "KC"],
                 **kw)
    fusion.submit(weak)
    fusion.submit(_card(1, "AS", 3.0))
    fusion.tick(3.2)
    assert [e.get("card") for e in fusion.log.game.events[1:]] == ["4C", "AS"]
    return weak


def test_a_settling_card_rejected_is_taken_out_and_the_next_card_takes_its_seat():
    fusion = _fusion()
    weak = _settled(fusion)
    assert fusion.reject(by="key")
    assert fusion.log.game.events[1:] == [{"type": "play", "seat": 0, "card": "AS"}]
    assert fusion.rejected == [weak] and not fusion.settling
    assert not fusion.reject(by="key")  # nothing else to reject
    # after its time, a reject finds nothing: the card is in for good (undo still takes it back)
    late = _fusion()
    _settled(late)
    late.tick(5.3)  # it went in at 3.2
    assert not late.reject(by="key") and len(late.log.game.events) == 3


def test_a_settling_vira_is_not_taken_out_and_an_undone_card_no_longer_settles():
    fusion = Fusion(MemoryTableLog(MATCH), FusionConfig(), first_dealer=3)
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "5H"}, 0.0, 0.3, flags=["low_confidence", "unrivalled"]))
    fusion.tick(0.5)
    assert [p.event.get("vira") for p in fusion.settling] == ["5H"]
    assert not fusion.reject(by="key")  # a hand cannot lose its vira: named or typed instead
    assert fusion.messages[-1].startswith("cannot take new hand")
    assert fusion.log.game.events[-1] == {"type": "hand", "dealer": 3, "vira": "5H"}
    weak = _fusion()
    _settled(weak)
    assert weak.undo() and weak.undo()  # the AS, then the 4C
    assert not weak.settling and not weak.reject(by="key")


def test_a_settling_card_is_confirmed_or_named_by_the_table():
    fusion = _fusion()
    _settled(fusion)
    assert fusion.confirm(by="key") and not fusion.settling
    assert fusion.applied[-2].event["card"] == "4C" and fusion.applied[-2].resolved_by == "confirm"
    named = _fusion()
    _settled(named)
    assert named.choose(1, by="board")  # "or 1: 7C"
    assert [e.get("card") for e in named.log.game.events[1:]] == ["7C", "AS"]
    assert [a.resolved_by for a in named.applied if a.event.get("type") == "play"][-2:] == ["confirm", "amend"]
    # the camera no longer renames a card the table named
    named.submit(Proposal({"type": "rename", "card": "7C", "name": "4C"}, 3.5))
    named.tick(4.0)
    assert [e.get("card") for e in named.log.game.events[1:]] == ["7C", "AS"]


def test_a_settling_card_read_again_is_renamed_in_the_log():
    """The tracker reads a settling card otherwise before its time is up: a rename (see
    TableTracker._read_again), and the hand goes in again after it."""
    fusion = _fusion()
    weak = _settled(fusion)
    assert weak.open_until is not None and weak.open_until > 3.2
    fusion.submit(Proposal({"type": "rename", "card": "4C", "name": "7C"}, 3.5))
    fusion.tick(4.0)
    assert [e.get("card") for e in fusion.log.game.events[1:]] == ["7C", "AS"]


def test_rejected_proposal_is_dropped_and_the_rest_goes_on():
    fusion = _fusion()
    fusion.submit(_card(2, "4C", 2.0, flags=["wrong_seat"]))
    fusion.submit(_card(0, "AS", 3.0))
    fusion.tick(10.0)
    assert fusion.reject(by="button")
    fusion.tick(10.1)
    assert fusion.log.events[1:] == [{"type": "play", "seat": 0, "card": "AS"}]
    assert fusion.rejected[0].event["seat"] == 2


def test_illegal_event_is_held_with_the_engines_message():
    fusion = _fusion()
    fusion.submit(Proposal({"type": "raise", "seat": 0, "to": 3}, 1.5, source="voice"))
    fusion.submit(Proposal({"type": "raise", "seat": 2, "to": 6}, 2.0, source="voice"))  # its own team's truco
    fusion.tick(5.0)
    (p,) = fusion.pending
    assert "illegal" in p.flags and p.reason
    assert not fusion.confirm()  # still illegal: stays pending
    assert fusion.pending


def test_spoken_yes_and_no_resolve_the_pending_proposal():
    fusion = _fusion(voice_hold=0.2)
    fusion.interpreter = VoiceInterpreter("pt", "paulista").interpret
    fusion.submit(_card(0, "4C", 2.0, flags=["low_confidence"]))
    fusion.tick(3.0)
    assert fusion.pending
    fusion.hear_words(3.5, "sim")
    fusion.tick(4.0)
    assert not fusion.pending and fusion.log.events[-1]["card"] == "4C"
    fusion.submit(_card(1, "AS", 5.0, flags=["low_confidence"]))
    fusion.tick(6.0)
    fusion.hear_words(6.5, "não")
    fusion.tick(7.0)
    assert not fusion.pending and fusion.log.events[-1]["card"] == "4C"
    assert fusion.rejected[-1].event["card"] == "AS"


def test_undo_is_always_possible_and_logged():
    fusion = _fusion()
    fusion.submit(_card(0, "4C", 2.0))
    fusion.tick(3.0)
    assert fusion.undo()
    assert fusion.log.events[-1] == {"type": "undo"}
    assert fusion.game.state.to_dict()["trick"] == []
    assert fusion.enter({"type": "play", "seat": 0, "card": "AS"})
    assert fusion.game.state.to_dict()["trick"] == [[0, "AS"]]


def test_unattended_timeout_accepts_legal_and_drops_illegal():
    fusion = _fusion(pending_timeout=2.0, auto_action="accept")
    fusion.submit(_card(0, "4C", 2.0, flags=["low_confidence"]))
    fusion.submit(Proposal({"type": "raise", "seat": 1, "to": 3}, 2.5, source="voice"))
    fusion.submit(_card(1, "4C", 8.0, flags=["wrong_seat"]))  # illegal: 4C is out already
    for t in (3.0, 5.5, 8.5, 11.0, 14.0):
        fusion.tick(t)
    assert fusion.log.events[1:] == [{"type": "play", "seat": 0, "card": "4C"},
                                     {"type": "raise", "seat": 1, "to": 3}]
    assert not fusion.pending and fusion.rejected[-1].event["card"] == "4C"


def test_unattended_a_card_refused_under_its_reading_goes_in_under_its_first_legal_other_reading():
    """Seed 11: a 10C read 2B, with 2B already out in the hand, was dropped at the timeout; the seat due
    never got its card and every later card of the hand went to the wrong seat.  A table answering
    from the readings offered would have picked the 10C: unattended, the first one the engine takes."""
    fusion = _fusion(pending_timeout=2.0, auto_action="accept")
    fusion.submit(_card(0, "4C", 2.0))
    fusion.submit(_card(1, "4C", 3.0, flags=["low_confidence"], source="vision", alternatives=["5H", "JC", "KD"]))
    for t in (3.5, 6.0, 9.0):
        fusion.tick(t)
    # 4C out, 5H the vira: the JC goes in for seat 1
    assert fusion.log.events[1:] == [{"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "JC"}]
    assert not fusion.rejected and "next reading JC" in fusion.applied[-1].proposal.reason
    # with no other reading the engine takes, it is dropped as before
    fusion = _fusion(pending_timeout=2.0, auto_action="accept")
    fusion.submit(_card(0, "4C", 2.0))
    fusion.submit(_card(1, "4C", 3.0, flags=["low_confidence"], source="vision", alternatives=["5H"]))
    for t in (3.5, 6.0, 9.0):
        fusion.tick(t)
    assert len(fusion.log.events) == 2 and fusion.rejected[-1].event["card"] == "4C"


def test_matched_voice_observation_with_confirm_decision_is_pending():
    fusion = _fusion()
    fusion.hear(VoiceObservation(2.0, "truco", ({"event": {"type": "raise", "seat": 0, "to": 3},
                                                 "confidence": 0.9, "decision": "confirm"},)))
    fusion.tick(5.0)
    (p,) = fusion.pending
    assert p.flags == ["speech_confirm"] and p.source == "voice"


def test_unattended_timeout_never_folds_a_hand_for_a_swept_table():
    fusion = _fusion(pending_timeout=2.0, auto_action="accept")
    fusion.submit(_card(0, "4C", 2.0))
    fusion.submit(Proposal({"type": "fold", "seat": 1}, 4.0, 0.5, "vision", ["table_cleared"]))
    for t in (3.0, 5.0, 8.0):
        fusion.tick(t)
    assert fusion.log.events[-1] == {"type": "play", "seat": 0, "card": "4C"}
    assert fusion.rejected[-1].flags == ["table_cleared"]


def test_scoreboard_buttons_confirm_reject_undo_and_type():
    from companion.board import BoardCommand, BoardHub
    from companion.commands.run import board_commands

    fusion = _fusion()
    fusion.submit(_card(0, "4C", 2.0, flags=["low_confidence"]))
    fusion.submit(_card(1, "AS", 3.0, flags=["low_confidence"]))
    fusion.tick(5.0)
    hub = BoardHub()
    first = fusion.pending[0]
    hub.submit(BoardCommand("confirm", pending_id=str(first.id)))
    assert board_commands(hub, fusion) == 1
    fusion.tick(5.1)
    second = fusion.pending[0]
    hub.submit(BoardCommand("reject", pending_id=str(second.id)))
    hub.submit(BoardCommand("event", event={"type": "play", "seat": 1, "card": "KD"}))
    hub.submit(BoardCommand("undo"))
    assert board_commands(hub, fusion) == 3
    assert fusion.log.events[1:] == [{"type": "play", "seat": 0, "card": "4C"},
                                     {"type": "play", "seat": 1, "card": "KD"}, {"type": "undo"}]
    assert fusion.rejected[-1].event["card"] == "AS"


def test_scoreboard_buttons_pick_a_reading_of_a_waiting_card_or_name_an_impossible_one():
    from companion.board import BoardCommand, BoardHub
    from companion.commands.run import board_commands, publish
    from companion.table.session import TableSession

    session = TableSession(MemoryTableLog(MATCH), first_dealer=3)
    fusion = session.fusion
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "5H"}, 0.0))
    fusion.submit(_card(0, "4C", 1.0, flags=["low_confidence"], alternatives=["4S", "AC"]))
    fusion.tick(2.0)
    hub = BoardHub()
    publish(hub, session)
    (shown,) = hub.snapshot()["pending"]
    assert shown["alternatives"] == ["4S", "AC"]
    hub.submit(BoardCommand("choose", pending_id=shown["id"], index=2))
    assert board_commands(hub, fusion) == 1
    assert fusion.log.events[-1] == {"type": "play", "seat": 0, "card": "AC"}
    fusion.submit(_card(1, "AC", 3.0, blocking=False, flags=["duplicate"], alternatives=["KC", "7C"]))
    fusion.tick(4.0)
    publish(hub, session)
    (alert,) = hub.snapshot()["pending"]
    assert alert["kind"] == "alert" and alert["alternatives"] == ["KC", "7C"]
    hub.submit(BoardCommand("choose", pending_id=alert["id"], index=2))
    board_commands(hub, fusion)
    assert fusion.log.events[-1] == {"type": "play", "seat": 1, "card": "7C"}
    publish(hub, session)
    assert hub.snapshot()["pending"] == []  # named: nothing left to show


def test_a_settling_card_is_shown_with_its_buttons_and_in_the_window():
    from companion.board import BoardCommand, BoardHub
    from companion.commands.run import board_commands, publish
    from companion.table.display import status_lines
    from companion.table.session import TableSession

    session = TableSession(MemoryTableLog(MATCH), first_dealer=3)
    fusion = session.fusion
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "5H"}, 0.0))
    fusion.submit(_card(0, "4C", 1.0, flags=["low_confidence", "unrivalled"], alternatives=["4S"]))
    fusion.tick(1.5)
    assert any(line.startswith("~ seat 0 plays 4C") and "n takes it out" in line for line in status_lines(session))
    hub = BoardHub()
    publish(hub, session)
    (shown,) = hub.snapshot()["pending"]
    assert shown["kind"] == "settling" and shown["alternatives"] == ["4S"]
    hub.submit(BoardCommand("reject", pending_id=shown["id"]))
    assert board_commands(hub, fusion) == 1
    assert fusion.log.game.events[1:] == []
    publish(hub, session)
    assert hub.snapshot()["pending"] == []


def test_scoreboard_snapshot_carries_state_pending_and_heard():
    from companion.board import BoardHub
    from companion.commands.run import publish
    from companion.table.session import TableSession

    session = TableSession(MemoryTableLog(MATCH), first_dealer=3)
    session.fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "5H"}, 0.0))
    session.fusion.submit(_card(0, "4C", 1.0, flags=["wrong_seat"]))
    session.fusion.heard.append((1.5, "truco"))
    session.fusion.tick(3.0)
    hub = BoardHub()
    publish(hub, session)
    snap = hub.snapshot()
    assert snap["state"]["vira"] == "5H"
    assert snap["pending"][0]["event"] == {"type": "play", "seat": 0, "card": "4C"}
    assert snap["pending"][0]["id"] == str(session.fusion.pending[0].id)
    assert snap["heard"] == ["truco"]


def _resolved(events):
    out = []
    for e in events:
        if e["type"] == "undo":
            out.pop()
        else:
            out.append(e)
    return out


def _two_player_trick() -> Fusion:
    """Paulista for two, vira 5H: seat 0 leads 3C, seat 1 answers 4D; seat 0 wins and leads."""
    fusion = Fusion(MemoryTableLog({"type": "match", "variant": "paulista", "players": 2}), FusionConfig(),
                    first_dealer=1)
    fusion.submit(Proposal({"type": "hand", "dealer": 1, "vira": "5H"}, 0.0))
    fusion.submit(_card(0, "3C", 1.0))
    fusion.tick(1.5)
    return fusion


def test_card_recognised_after_a_call_it_preceded_is_put_back_before_it():
    fusion = _two_player_trick()
    # seat 1 answered 4D at 2.0, but the camera saw it only after seat 0's truco (3.0) was applied...
    fusion.submit(Proposal({"type": "raise", "seat": 0, "to": 3}, 3.0, 1.0, "voice"))
    fusion.tick(4.5)
    assert fusion.log.events[-1]["type"] != "raise"  # seat 1 is due: not seat 0's truco yet
    fusion.submit(_card(1, "4D", 2.0))  # ...it happened first, so it goes first
    fusion.tick(4.6)
    assert _resolved(fusion.log.events[1:]) == [{"type": "play", "seat": 0, "card": "3C"},
                                                {"type": "play", "seat": 1, "card": "4D"},
                                                {"type": "raise", "seat": 0, "to": 3}]
    assert not fusion.pending


def test_call_applied_before_a_late_card_is_undone_and_heard_again_after_it():
    fusion = _two_player_trick()
    fusion.interpreter = VoiceInterpreter("pt", "paulista").interpret
    fusion.config.voice_hold = 0.2
    fusion.submit(_card(1, "4D", 2.0))
    fusion.tick(2.5)
    # seat 0 won the trick and leads AS at 3.0; seat 1 says "truco" at 3.5.  The camera sees AS only
    # at 4.5, so "truco" was first taken for seat 0's (seat 0 was due) and applied
    fusion.hear_words(3.5, "truco")
    fusion.tick(4.0)
    assert fusion.log.events[-1] == {"type": "raise", "seat": 0, "to": 3}
    fusion.submit(_card(0, "AS", 3.0))
    fusion.tick(4.5)
    assert fusion.log.events[-3:] == [{"type": "undo"}, {"type": "play", "seat": 0, "card": "AS"},
                                      {"type": "raise", "seat": 1, "to": 3}]
    assert not fusion.pending


def test_a_doubtful_card_can_be_confirmed_under_another_reading():
    fusion = _fusion()
    prop = _card(0, "4C", 2.0, flags=["low_confidence"])
    prop.alternatives = ["4S", "AC"]
    fusion.submit(prop)
    fusion.tick(3.0)
    assert "1: 4S" in fusion.pending[0].describe()
    assert fusion.choose(2)
    assert fusion.log.events[-1] == {"type": "play", "seat": 0, "card": "AC"}


def test_a_doubtful_vira_can_be_confirmed_under_another_reading():
    """The vira sets the manilhas: a misread one spoils the whole hand, so its
    other readings are offered like a card's."""
    fusion = Fusion(MemoryTableLog(MATCH), FusionConfig(), first_dealer=3)
    prop = Proposal({"type": "hand", "dealer": 3, "vira": "QH"}, 0.0, 0.3, flags=["low_confidence"])
    prop.alternatives = ["KH", "JH"]
    fusion.submit(prop)
    fusion.tick(1.0)
    assert "1: KH" in fusion.pending[0].describe()
    assert fusion.choose(1)
    assert fusion.log.events[-1] == {"type": "hand", "dealer": 3, "vira": "KH"}


def test_an_impossible_card_can_be_named_from_its_other_readings():
    """A 7C read as the JC already out is an alert, never applied; with nothing pending, a digit
    names it from its other readings (as if typed), once; the engine still judges the name."""
    fusion = _fusion()
    fusion.submit(_card(0, "JC", 2.0))
    fusion.tick(3.0)
    alert = _card(1, "JC", 4.0, blocking=False, flags=["duplicate"], alternatives=["KC", "7C"])
    fusion.submit(alert)
    fusion.tick(5.0)
    assert fusion.log.events[-1] == {"type": "play", "seat": 0, "card": "JC"}  # shown, not applied
    assert not fusion.choose(3)  # no third reading
    assert fusion.choose(2)
    assert fusion.log.events[-1] == {"type": "play", "seat": 1, "card": "7C"}
    assert not fusion.choose(1)  # named once: nothing left to choose for
    assert len(fusion.log.events) == 3


def test_an_alert_is_named_only_while_nothing_waits_for_the_seat_due_and_as_the_engine_allows():
    fusion = _fusion()
    fusion.submit(_card(0, "JC", 2.0))
    fusion.tick(3.0)
    fusion.submit(_card(1, "JC", 4.0, blocking=False, flags=["duplicate"], alternatives=["AC", "KC"]))
    fusion.submit(_card(1, "AS", 4.5, flags=["low_confidence"], alternatives=["AC"]))
    fusion.tick(6.0)
    alert = fusion.alerts[-1]
    assert not fusion.choose(2, pid=alert.id)  # the AS waits: naming the alert now would jump it
    assert fusion.choose(1)  # the pending AS -> AC, not the alert
    assert fusion.log.events[-1] == {"type": "play", "seat": 1, "card": "AC"}
    assert not fusion.choose(1, pid=alert.id)  # AC is out now: the engine refuses it
    assert fusion.choose(2, pid=alert.id)  # KC, for the seat due now (seat 1 has played)
    assert fusion.log.events[-1] == {"type": "play", "seat": 2, "card": "KC"}


def _truco_trick() -> Fusion:
    """Paulista for four, vira 5H (manilhas: the 6s): seat 0 leads 4C, seat 1 calls truco, seat 2
    accepts; seat 1 plays 7D and seat 2 the zap (6C).  Seat 3 is due; seat 2 will lead the next trick."""
    fusion = _fusion(hold=0.2, voice_hold=0.3)
    fusion.interpreter = VoiceInterpreter("pt", "paulista").interpret
    fusion.submit(_card(0, "4C", 1.0))
    fusion.hear_words(1.5, "truco")
    fusion.hear_words(2.0, "aceito")
    fusion.submit(_card(1, "7D", 2.5))
    fusion.submit(_card(2, "6C", 3.0))
    fusion.tick(4.0)
    assert [e["type"] for e in fusion.log.events[1:]] == ["play", "raise", "accept", "play", "play"]
    return fusion


def test_words_that_fit_no_call_are_heard_again_behind_a_card_seen_late():
    fusion = _truco_trick()
    # seat 3 puts KD down at 3.5 but the camera first sees it at 6.0; seat 2, leading the next trick,
    # says "seis" at 4.5: without seat 3's card it fits no call (a raise waits for its turn)
    fusion.hear_words(4.5, "seis")
    fusion.tick(5.0)
    assert fusion.log.events[-1] == {"type": "play", "seat": 2, "card": "6C"}
    assert "heard 'seis': no call fits the game now" in fusion.messages
    fusion.submit(_card(3, "KD", 6.0))
    fusion.tick(6.3)
    fusion.tick(6.7)
    assert fusion.log.events[-2:] == [{"type": "play", "seat": 3, "card": "KD"}, {"type": "raise", "seat": 2, "to": 6}]
    assert not fusion.queue and not fusion.unplaced


def test_words_that_fit_no_call_are_not_heard_again_behind_a_card_seen_much_later():
    fusion = _truco_trick()
    fusion.hear_words(4.5, "seis")
    fusion.tick(5.0)
    fusion.submit(_card(3, "KD", 4.5 + fusion.config.rehear_late + 0.5))  # long after: not the card they waited for
    fusion.tick(12.0)
    assert fusion.log.events[-1] == {"type": "play", "seat": 3, "card": "KD"}
    assert [e["type"] for e in fusion.log.events].count("raise") == 1


def test_a_refusal_said_while_a_card_waits_is_a_refusal_not_a_no():
    """ "não quero" contains "não": while a card waited for confirmation it was taken for a "no",
    rejected the card, and the refusal was lost (a rendered Clean-28 hand that never ended)."""
    fusion = _fusion(voice_hold=0.5)
    fusion.interpreter = VoiceInterpreter("pt", "paulista").interpret
    fusion.submit(_card(0, "4C", 2.0, flags=["low_confidence"], confidence=0.3))
    fusion.hear_words(2.6, "truco")
    fusion.hear_words(3.4, "não quero")
    for t in (3.0, 4.0, 5.0):
        fusion.tick(t)
    assert [p.event for p in fusion.pending] == [{"type": "play", "seat": 0, "card": "4C"}]
    assert not fusion.rejected
    fusion.confirm()
    fusion.tick(6.0)
    assert fusion.log.events[1:] == [{"type": "play", "seat": 0, "card": "4C"},
                                     {"type": "raise", "seat": 1, "to": 3},
                                     {"type": "refuse", "seat": 0}]


def test_unattended_a_card_the_table_named_while_it_waited_is_that_card_seen_again_not_a_new_play():
    """Seeds 442 and 444 (session 66, answered): the table rejected "seat 3 plays AH" and typed the 3H that lay
    there; the camera proposed the same card again as 3H, for the seat due (its zone seat 3's), and at the timeout
    it went in under its next reading as that seat's play, a play nobody made.  Now it is dropped; a card in
    another seat's zone is still put in under its next reading."""

    def run(zone: int) -> Fusion:
        fusion = _fusion(pending_timeout=2.0, auto_action="accept")
        fusion.submit(_zoned(0, "AH", 2.0, 0, flags=["low_confidence"], alternatives=["7H"]))
        fusion.tick(2.5)
        assert fusion.reject("key") and fusion.enter({"type": "play", "seat": 0, "card": "3H"})
        # the same card, first seen before the table typed it, named as typed, for the seat due now
        fusion.submit(_zoned(1, "3H", 2.2, zone, flags=["wrong_seat", "low_confidence"], alternatives=["2H", "7H"]))
        for t in (3.0, 5.5, 8.0):
            fusion.tick(t)
        return fusion

    fusion = run(zone=0)
    assert fusion.log.events[1:] == [{"type": "play", "seat": 0, "card": "3H"}]
    assert "the table named this 3H already" in fusion.rejected[-1].reason
    fusion.submit(_zoned(1, "KS", 9.0, 1))
    fusion.tick(10.0)
    assert fusion.log.events[-1] == {"type": "play", "seat": 1, "card": "KS"}
    # in another seat's zone it is another card, misread: its next reading goes in for the seat due, as before
    assert run(zone=1).log.events[1:] == [{"type": "play", "seat": 0, "card": "3H"},
                                          {"type": "play", "seat": 1, "card": "2H"}]


def test_a_card_held_until_its_seats_turn_passed_goes_in_for_the_seat_due():
    """Clean-28 makes a card played out of turn lose the game: a card the camera saw, held for a doubt
    while the cards behind it went in, must not end the game for a seat the tracker named seconds ago."""
    match = {"type": "match", "variant": "clean-28", "players": 4}
    fusion = Fusion(MemoryTableLog(match), FusionConfig(), first_dealer=3)
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "KC"}, 0.0))
    fusion.tick(1.0)
    fusion.submit(_card(0, "3D", 2.0))
    fusion.submit(_card(2, "QS", 3.0))  # named when seat 1 was thought to have played; seat 1 is due
    fusion.tick(5.0)
    assert fusion.log.events[1:] == [{"type": "play", "seat": 0, "card": "3D"},
                                     {"type": "play", "seat": 1, "card": "QS"}]
    assert "turn had passed" in fusion.applied[-1].proposal.reason
    assert not fusion.game.game_over
    # what the table types is taken as said: an out-of-turn play typed in still costs the game
    fusion.enter({"type": "play", "seat": 3, "card": "2H"})
    assert fusion.game.game_over


def test_the_tracker_sees_held_cards_in_the_seats_they_will_go_in_for():
    """The projection the tracker reads applied waiting cards with the seats the tracker named: a
    stale seat there was an out-of-turn play, a Clean-28 game was over in the projection, and the
    tracker ignored the next cards put down (a rendered Clean-28 hand lost two plays)."""
    match = {"type": "match", "variant": "clean-28", "players": 4}
    fusion = Fusion(MemoryTableLog(match), FusionConfig(), first_dealer=3)
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "KC"}, 0.0))
    fusion.tick(1.0)
    fusion.submit(_card(0, "3D", 2.0, flags=["low_confidence"], confidence=0.3))
    fusion.submit(_card(2, "QS", 3.0, flags=["wrong_seat"]))  # seat 1 is due after seat 0
    fusion.tick(5.0)
    assert len(fusion.pending) == 1 and len(fusion.log.events) == 1
    view = fusion.view()
    assert view.in_hand and not view.game_over
    assert view.turn == 2 and view.cards_this_hand == 2


def test_a_card_that_retakes_its_name_renames_the_card_applied_earlier():
    """The tracker judged the card that went in as 2H a misread (read 2H in few of its frames) and the
    new one, read 2H throughout, the real 2H: the earlier card becomes its other reading (4H), the hand
    after it goes in again -- 4H loses the trick, so seat 1 leads -- and then the new card goes in."""
    fusion = _fusion()
    for k, (seat, card) in enumerate([(0, "4C"), (1, "AS"), (2, "7D"), (3, "2H")]):
        fusion.submit(_card(seat, card, 2.0 + k))
    fusion.tick(7.0)
    fusion.submit(Proposal({"type": "play", "seat": 3, "card": "2H"}, 8.0, retakes=("4H", "3H")))
    assert fusion.projected_game().events[-2:] == [_card(3, "4H", 0).event, _card(1, "2H", 0).event]
    fusion.tick(9.0)
    game = fusion.log.game
    assert game.events[1:] == [_card(0, "4C", 0).event, _card(1, "AS", 0).event, _card(2, "7D", 0).event,
                               _card(3, "4H", 0).event, _card(1, "2H", 0).event]
    assert fusion.log.events[-3:-1] == [{"type": "undo"}, _card(3, "4H", 0).event]  # the log shows it
    assert any("that one is 4H" in m for m in fusion.messages)


def test_a_card_whose_retake_the_engine_refuses_goes_in_under_its_own_next_reading():
    fusion = _fusion()
    for k, (seat, card) in enumerate([(0, "4C"), (1, "AS"), (2, "7D")]):
        fusion.submit(_card(seat, card, 2.0 + k))
    fusion.tick(6.0)
    # renaming seat 0's 4C to AS would put AS in twice: the new card takes its fallback, 3H
    fusion.submit(Proposal({"type": "play", "seat": 3, "card": "4C"}, 7.0, retakes=("AS", "3H")))
    fusion.tick(8.0)
    assert fusion.log.events[1:] == [_card(0, "4C", 0).event, _card(1, "AS", 0).event, _card(2, "7D", 0).event,
                                     _card(3, "3H", 0).event]


def _zoned(seat: int, card: str, t: float, zone: int, **kw) -> Proposal:
    return Proposal({"type": "play", "seat": seat, "card": card}, t, source="vision", zone=zone, **kw)


def _misread_winner(trick_two: list[tuple[int, str, int]]) -> Fusion:
    """Trick 1: seat 1's card went in as 7S (vira 5H: the 6s are manilhas), seat 2's KD took the trick;
    then ``trick_two`` (seat, card, zone) went in."""
    fusion = _fusion()
    for k, (seat, card) in enumerate([(0, "4C"), (1, "7S"), (2, "KD"), (3, "JH")]):
        fusion.submit(_zoned(seat, card, 2.0 + k, seat))
    for k, (seat, card, zone) in enumerate(trick_two):
        fusion.submit(_zoned(seat, card, 6.0 + k, zone))
    fusion.tick(10.0)
    assert len(fusion.log.game.events) == 8
    return fusion



def test_two_sure_readings_alike_the_zones_say_which_card_is_misread():
    """Seat 1's first card was a 6D (a manilha) read 7S, surely; the real 7S comes later, read as surely.
    The readings cannot tell, but since the misread trick winner every card lay in the zone of the seat
    beside the one the engine named: renaming seat 1's card puts them all in their zones, so the
    tracker is told it fits (through the view) and asks for the renaming."""
    fusion = _misread_winner([(2, "QC", 1), (3, "4H", 2), (0, "5C", 3)])
    assert fusion.retake_fits_zones(fusion.log.game, "7S", "6D", 0)
    assert fusion.view().retake_fits("7S", "6D", 0)
    fusion.submit(_zoned(1, "7S", 11.0, 0, retakes=("6D", "7C")))
    fusion.tick(12.0)
    game = fusion.log.game
    assert game.events[1:] == [_card(0, "4C", 0).event, _card(1, "6D", 0).event, _card(2, "KD", 0).event,
                               _card(3, "JH", 0).event, _card(1, "QC", 0).event, _card(2, "4H", 0).event,
                               _card(3, "5C", 0).event, _card(0, "7S", 0).event]
    assert any("that one is 6D" in m for m in fusion.messages)


def test_two_sure_readings_alike_stay_when_the_zones_do_not_say_otherwise():
    """The same conflict where every card lies in its seat's zone: renaming seat 1's 7S would put the
    later cards outside their zones, so it does not fit (the tracker then lets the new card take its
    own next reading, as before)."""
    fusion = _misread_winner([(2, "QC", 2), (3, "4H", 3), (0, "5C", 0)])
    assert not fusion.retake_fits_zones(fusion.log.game, "7S", "6D", 1)
    assert not fusion.view().retake_fits("7S", "6D", 1)
    assert not fusion.retake_fits_zones(fusion.log.game, "9S", "6D", 1)  # no such card in the hand


def test_a_call_either_team_could_have_made_offers_every_seat_that_could_have():
    # One microphone cannot tell who spoke.  A rendered pica-pica hand put a truco in the wrong duel,
    # its "no quiero" ended that duel, and the last duel's six cards went to the wrong two seats; the
    # table could only reject the call and type it again.  Now one key names the seat.
    fusion = pica_pica()
    fusion.hear_words(2.0, "truco")
    fusion.tick(3.0)
    (prop,) = fusion.pending
    assert prop.event == {"type": "raise", "seat": 4, "to": 2}
    assert prop.alternatives == ["seat 0", "seat 1", "seat 2", "seat 3", "seat 5"]
    assert "who said it?" in prop.describe() and "[or 1: seat 0, 2: seat 1" in prop.describe()
    assert fusion.choose(3)
    assert fusion.log.events[-1] == {"type": "raise", "seat": 2, "to": 2}
    assert not fusion.pending


def test_a_call_only_one_seat_could_have_made_offers_no_seats():
    fusion = _fusion(hold=0.5, voice_hold=0.5)
    fusion.interpreter = VoiceInterpreter("pt", "paulista").interpret
    fusion.hear_words(2.0, "truco")
    fusion.tick(3.0)
    assert fusion.log.events[-1] == {"type": "raise", "seat": 0, "to": 3} and not fusion.pending
    assert not fusion.choose(1)  # nothing to choose


def test_an_unsure_trick_winner_is_read_again_when_the_next_tricks_cards_lie_a_seat_off():
    """Seat 1's 6D (a manilha under vira 5H) went in, unsure, as 7S: seat 2's KD took trick 1 and the
    engine gave seat 2 the lead.  Seat 1 leads QC in its zone (held a seat off, then applied for seat 2
    when nobody answers), and seat 2 puts 4H in its own much later: a second card a seat off.  Read as 6D, its next reading, seat 1's card wins trick 1 and both cards
    lie in their seats' zones: it is renamed, and the held card goes in for its zone's seat."""
    from companion.table.replay import UNATTENDED

    fusion = Fusion(MemoryTableLog(MATCH), FusionConfig(**UNATTENDED.__dict__), first_dealer=3)
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "5H"}, 0.0))
    unsure = {"flags": ["low_confidence"], "alternatives": ["6D", "7C"], "confidence": 0.3}
    for k, (seat, card) in enumerate([(0, "4C"), (1, "7S"), (2, "KD"), (3, "JH")]):
        fusion.submit(_zoned(seat, card, 1.0 + k, seat, **(unsure if card == "7S" else {})))
    fusion.submit(_zoned(2, "QC", 8.0, 1, flags=["wrong_seat"]))
    fusion.submit(_zoned(3, "4H", 18.0, 2, flags=["wrong_seat"]))
    for step in range(250):
        fusion.tick(1.0 + step * 0.1)
    assert fusion.log.game.events[1:] == [
        _card(0, "4C", 0).event, _card(1, "6D", 0).event, _card(2, "KD", 0).event, _card(3, "JH", 0).event,
        _card(1, "QC", 0).event, _card(2, "4H", 0).event]
    assert any("7S was 6D" in m for m in fusion.messages)


def test_a_sure_trick_winner_is_not_read_again_for_the_zones():
    """The same cards with seat 1's 7S read surely: the zones alone rename no sure card (two cards read
    alike, both surely, are the tracker's to bring up: see above)."""
    from companion.table.replay import UNATTENDED

    fusion = Fusion(MemoryTableLog(MATCH), FusionConfig(**UNATTENDED.__dict__), first_dealer=3)
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "5H"}, 0.0))
    for k, (seat, card) in enumerate([(0, "4C"), (1, "7S"), (2, "KD"), (3, "JH")]):
        fusion.submit(_zoned(seat, card, 1.0 + k, seat, alternatives=["6D"] if card == "7S" else []))
    fusion.submit(_zoned(2, "QC", 8.0, 1, flags=["wrong_seat"]))
    fusion.submit(_zoned(3, "4H", 18.0, 2, flags=["wrong_seat"]))
    for step in range(250):
        fusion.tick(1.0 + step * 0.1)
    assert fusion.log.game.events[2] == _card(1, "7S", 0).event
    assert not any("was 6D" in m for m in fusion.messages)


def test_a_card_read_again_since_it_went_in_is_renamed_unless_the_table_said_what_it_is():
    fusion = _fusion(hold=0.5)
    fusion.submit(_zoned(0, "7C", 2.0, 0))
    fusion.submit(_zoned(1, "7D", 3.0, 1, flags=["low_confidence"], alternatives=["6D"]))
    fusion.tick(4.0)
    assert fusion.confirm("key")  # the table says seat 1's card is the 7D
    fusion.submit(Proposal({"type": "rename", "card": "7C", "name": "4C"}, 5.0))
    fusion.submit(Proposal({"type": "rename", "card": "7D", "name": "6D"}, 5.0))
    fusion.submit(Proposal({"type": "rename", "card": "KS", "name": "KH"}, 5.0))  # no such card in the hand
    fusion.tick(6.0)
    assert fusion.log.game.events[1:] == [_card(0, "4C", 0).event, _card(1, "7D", 0).event]
    assert any("7C read as 4C since it went in: renamed" in m for m in fusion.messages)
    assert not fusion.queue and not fusion.pending


def test_unattended_a_face_down_card_outside_the_due_seats_zone_is_left_out_at_the_timeout():
    """Measured on replays of the rendered sessions: of the covered plays read surely but lying in another
    seat's zone than the seat due, 13 were no covered play of that seat (a back of the deck or of a
    gathered trick, a face card read as a back) and 2 were.  At the unattended timeout such a card is
    left out; a face-up card there still goes in (the zones cannot say its card is not that seat's), and
    a face-down card in the due seat's own zone too."""
    def after_first_trick() -> Fusion:
        fusion = _fusion(pending_timeout=2.0, auto_action="accept")
        for seat, card in enumerate(["4C", "AS", "KD", "JH"]):  # AS takes the trick: seat 1 leads
            fusion.submit(_card(seat, card, 2.0 + seat))
        fusion.tick(7.0)
        assert len(fusion.log.events) == 5
        return fusion

    fusion = after_first_trick()
    fusion.submit(Proposal({"type": "play", "seat": 1, "covered": True}, 8.0, 0.8, "vision", ["wrong_seat"], zone=3))
    for t in (9.0, 12.0, 20.0):
        fusion.tick(t)
    assert len(fusion.log.events) == 5 and fusion.rejected[-1].event.get("covered")
    fusion = after_first_trick()
    fusion.submit(Proposal({"type": "play", "seat": 1, "covered": True}, 8.0, 0.4, "vision", ["low_confidence"], zone=1))
    fusion.submit(_card(2, "7D", 9.0, flags=["wrong_seat"], zone=0))  # face up, in seat 0's zone: in for seat 2
    for t in (9.0, 12.0, 20.0, 30.0):
        fusion.tick(t)
    assert fusion.log.events[5:] == [{"type": "play", "seat": 1, "covered": True}, {"type": "play", "seat": 2, "card": "7D"}]


def test_a_pica_pica_deal_the_camera_closes_is_closed_whole():
    # A six-player pica-pica deal is three duels; a fold ends only the duel of the seat that folds.  The
    # camera closed a deal it had lost a card of (a new deal began) with one fold: the other duels ran
    # on, the next deal's first card was illegal and its cards went into them (a rendered Argentine
    # table lost the next hand).  Each duel still open gets its own closing event.
    fusion = pica_pica()
    before = len(fusion.log.events)
    view = fusion.view()
    assert view.in_hand and len(view.seats_due) == 3
    fusion.submit(Proposal(closing_event(view), 1.0, 0.5, "vision", ["new_deal"],
                           "a new deal began while the hand was not over", True, 1.0))
    fusion.tick(2.0)
    if fusion.pending:
        assert fusion.confirm()
    closes = [e for e in fusion.log.events[before:] if e["type"] in ("fold", "refuse")]
    assert len(closes) == 3 and len({e["seat"] for e in closes}) == 3
    assert not fusion.view().in_hand
    assert fusion.enter({"type": "hand", "dealer": 4})


def test_the_cards_of_a_finished_duel_stay_out_for_the_rest_of_the_deal():
    # A pica-pica deal is three duels and the engine's state shows only the live duel's tricks, but it
    # refuses a card any duel played.  Read from the live duel alone, the view forgot the first duel's
    # cards: a card of it read again later went in as a new play and was refused, and a card misread
    # as it could not be taken back (seed 258, s04-argentino-6p, hand 4)
    fusion = pica_pica()
    for event in ({"type": "play", "seat": 4, "card": "4C"}, {"type": "play", "seat": 1, "card": "5C"},
                  {"type": "fold", "seat": 4}):
        assert fusion.enter(event)
    view = fusion.view()
    assert view.in_hand and 4 not in view.seats_due and 1 not in view.seats_due
    assert {"4C", "5C"} <= view.played
    assert not fusion.enter({"type": "play", "seat": view.seats_due[0], "card": "4C"})


def test_a_guessed_caller_is_moved_to_the_duel_the_cards_say_is_still_played():
    # One microphone cannot tell who spoke.  In a pica-pica deal (duels 0-3, 1-4, 2-5; seats 4, 5 and 0 to
    # play first) nobody answered "who said it?": the truco went in for seat 4 and its "no quiero" for seat
    # 1, ending duel 1-4.  Seat 5 plays, then seat 4: its card lies in seat 4's zone, whose duel is over.
    # Had seat 0 (the same team) called, in duel 0-3, every card lies in its seat's zone (had seat 2, seat
    # 5's card would not): the call is moved there and the hand goes in again after it
    fusion = Fusion(MemoryTableLog({"type": "match", "variant": "argentino", "players": 6}),
                    FusionConfig(hold=0.5, voice_hold=0.5, pending_timeout=1.0), first_dealer=2)
    for event in ({"type": "hand", "dealer": 2}, {"type": "raise", "seat": 3, "to": 2}, {"type": "refuse", "seat": 4},
                  {"type": "hand", "dealer": 3}):
        assert fusion.enter(event)
    fusion.interpreter = VoiceInterpreter("es", "argentino").interpret
    fusion.hear_words(2.0, "truco")
    fusion.tick(5.0)
    fusion.hear_words(6.0, "no quiero")
    fusion.tick(8.0)
    assert fusion.log.events[-2:] == [{"type": "raise", "seat": 4, "to": 2}, {"type": "refuse", "seat": 1}]
    fusion.submit(Proposal({"type": "play", "seat": 5, "card": "4C"}, 9.0, 0.9, "vision", [], "", True, 9.0, zone=5))
    fusion.tick(9.6)
    fusion.submit(Proposal({"type": "play", "seat": fusion.view().turn, "card": "5E"}, 10.0, 0.9, "vision",
                           ["wrong_seat"], "card lies in seat 4's zone", True, 10.0, zone=4))
    for t in (10.6, 10.7):
        fusion.tick(t)
    assert fusion.log.events[-4:] == [{"type": "raise", "seat": 0, "to": 2}, {"type": "refuse", "seat": 3},
                                      {"type": "play", "seat": 5, "card": "4C"}, {"type": "play", "seat": 4, "card": "5E"}]
    assert any("was seat 0's" in m for m in fusion.messages)


def test_a_card_put_down_at_mao_de_onze_says_the_team_plays():
    """Team 0 has 11: it decides whether to play the hand.  Nobody said it aloud; the first card put down says
    it plays.  Before, every card of the hand was refused for having no seat due, and the hand was lost."""
    from companion.table.replay import UNATTENDED

    fusion = Fusion(MemoryTableLog({"type": "match", "variant": "paulista", "players": 2}),
                    FusionConfig(**UNATTENDED.__dict__), first_dealer=1)
    dealer = 1
    for _ in range(11):  # team 0 to 11 points: team 1 runs from eleven hands
        fusion.enter({"type": "hand", "dealer": dealer, "vira": "5H"})
        fusion.enter({"type": "fold", "seat": 1})
        dealer = 1 - dealer
    fusion.enter({"type": "hand", "dealer": dealer, "vira": "5H"})
    assert view_of(fusion.game, 1).turns == ()  # waiting for team 0's decision
    fusion.submit(Proposal({"type": "play", "seat": 1, "card": "4C"}, 10.0, flags=["no_turn"],
                           reason="no seat is due to play"))
    fusion.tick(15.0)
    fusion.tick(40.0)  # (unattended: held for its doubt, then applied)
    assert fusion.log.events[-2:] == [{"type": "eleven", "team": 0, "decision": "play"},
                                      {"type": "play", "seat": 1, "card": "4C"}]
    assert [a.proposal.flags for a in fusion.applied[-2:]][0] == ["inferred"]
    assert fusion.undo() and fusion.log.events[-1] == {"type": "undo"}


def test_a_card_put_down_while_the_truco_waits_says_it_was_accepted():
    """Seat 1 called truco; nobody was heard answering (a loud table, a word the recogniser missed), and seat 1
    puts its card down.  A refused truco ends the hand and a raise is said aloud, so the truco was accepted:
    that goes in first, flagged, then the card.  Before, the card was refused and every later card of the
    hand took the wrong seat.  A card that does not go in even so (4C is out already) infers nothing."""
    for config in ({}, {"pending_timeout": 2.0, "auto_action": "accept"}):
        fusion = _fusion(**config)
        fusion.submit(_card(0, "4C", 2.0))
        fusion.submit(Proposal({"type": "raise", "seat": 1, "to": 3}, 2.5, source="voice"))
        fusion.tick(3.0)
        fusion.submit(_card(1, "4C", 3.5))  # the same card again: impossible, no answer is inferred from it
        fusion.tick(8.0)
        fusion.tick(12.0)
        assert fusion.log.events[-1] == {"type": "raise", "seat": 1, "to": 3}
        fusion.reject()
        fusion.submit(_card(1, "AS", 13.0))
        fusion.tick(13.5)
        fusion.tick(20.0)
        assert fusion.log.events[-3:] == [{"type": "raise", "seat": 1, "to": 3}, {"type": "accept", "seat": 0},
                                          {"type": "play", "seat": 1, "card": "AS"}], config
        assert fusion.applied[-2].proposal.flags == ["inferred"] and "accepted" in fusion.applied[-2].proposal.reason


def test_words_that_fit_no_call_after_a_ghost_ended_the_hand_are_heard_again_when_it_is_taken_out():
    """An Argentine hand for two (replayed from a rendered session): seat 1 called truco in the last trick
    and seat 0 said "quiero" 19 ms after a weak box in seat 0's zone was taken for seat 1's card (cards
    may be played while a truco waits).  Unattended, the ghost went in at its timeout, won the trick,
    ended the hand, and "quiero" fitted no call.  Seat 1's real card, put down after, takes the ghost out
    (the hand goes on); the words heard while the ghost was in are heard again, so the truco is accepted
    and the hand is worth 2, as it was.  Before, the "quiero" was lost and the hand scored 1."""
    fusion = Fusion(MemoryTableLog({"type": "match", "variant": "argentino", "players": 2}),
                    FusionConfig(pending_timeout=2.0, auto_action="accept", seat_timeout=4.0, hold=0.2,
                                 voice_hold=0.3), first_dealer=0)
    fusion.interpreter = VoiceInterpreter("es", "argentino").interpret
    fusion.submit(Proposal({"type": "hand", "dealer": 0}, 1.9, source="vision"))
    for k, (seat, card) in enumerate([(1, "3B"), (0, "6B"), (1, "12B"), (0, "3O"), (0, "3E")]):
        fusion.submit(_zoned(seat, card, 2.0 + 1.5 * k, seat))
    fusion.submit(Proposal({"type": "raise", "seat": 1, "to": 2}, 11.1, source="voice"))
    fusion.tick(11.5)
    fusion.submit(_zoned(1, "5B", 12.6, 0, flags=["wrong_seat", "low_confidence"], confidence=0.16,
                         alternatives=["12C", "2B"]))
    fusion.hear_words(12.619, "quiero")
    fusion.tick(13.0)
    fusion.submit(_zoned(1, "7E", 14.1, 1, flags=["after_hand"]))
    for now in (16.0, 17.0, 18.2, 18.5, 19.0):
        fusion.tick(now)
    events = fusion.log.game.events
    assert events[-3:] == [{"type": "raise", "seat": 1, "to": 2}, {"type": "accept", "seat": 0},
                           {"type": "play", "seat": 1, "card": "7E"}]
    assert fusion.log.game.state.to_dict()["score"] == [0, 2]
    assert any("'quiero' heard again" in m for m in fusion.messages) and not fusion.unplaced


def _unattended_kd_takes_trick_one() -> Fusion:
    """Nobody answers; vira 5H; trick 1 4C, KD, 7S, JH from seats 0-3, each in its zone: seat 1 leads trick 2."""
    from companion.table.replay import UNATTENDED

    fusion = Fusion(MemoryTableLog(MATCH), FusionConfig(**UNATTENDED.__dict__), first_dealer=3)
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "5H"}, 0.0))
    for k, (seat, card) in enumerate([(0, "4C"), (1, "KD"), (2, "7S"), (3, "JH")]):
        fusion.submit(_zoned(seat, card, 1.0 + k, seat))
    return fusion


def _tick_until(fusion: Fusion, t: float, until: float) -> float:
    """``fusion`` ticked every 0.1 stream seconds from ``t`` until ``until``; the time reached."""
    while t < until:
        fusion.tick(t)
        t += 0.1
    return t


def test_a_card_renamed_late_takes_its_first_name_back_when_the_next_tricks_cards_say_so():
    """The traced loss of seed 253 (a rendered Mineiro hand), made small.  Seat 2's JC, read unsure, took
    trick 2 and went in; the tracker then read it as 7C (its readings flip-flopped), which gave the trick,
    and the lead, to seat 0's QS.  Seat 2 leads trick 3 in its own zone, then seat 3 in its: one card
    alone is a seat off, as a card put down out of turn would be, but the two together are the lead of
    the renamed trick's true winner.  The renamed card carries its proposal through the amend, so it is
    renamed back, and both cards go in for the seats of their zones."""
    fusion = _unattended_kd_takes_trick_one()
    unsure = {"flags": ["low_confidence"], "alternatives": ["7C", "QC"], "confidence": 0.3}
    for k, (seat, card) in enumerate([(1, "5C"), (2, "JC"), (3, "4H"), (0, "QS")]):  # JC takes trick 2
        fusion.submit(_zoned(seat, card, 5.0 + k, seat, **(unsure if card == "JC" else {})))
    fusion.submit(Proposal({"type": "rename", "card": "JC", "name": "7C"}, 10.0))
    t = _tick_until(fusion, 1.0, 12.0)
    assert fusion.log.game.events[6] == _card(2, "7C", 0).event  # renamed: seat 0 leads trick 3
    assert view_of(fusion.log.game, 3).turn == 0
    fusion.submit(_zoned(0, "2D", 12.0, 2, flags=["wrong_seat"]))
    t = _tick_until(fusion, t, 14.0)  # alone, a card a seat off renames nothing
    assert fusion.log.game.events[6] == _card(2, "7C", 0).event
    fusion.submit(_zoned(1, "3H", 14.0, 3, flags=["wrong_seat"]))
    t = _tick_until(fusion, t, 30.0)
    assert fusion.log.game.events[5:] == [
        _card(1, "5C", 0).event, _card(2, "JC", 0).event, _card(3, "4H", 0).event, _card(0, "QS", 0).event,
        _card(2, "2D", 0).event, _card(3, "3H", 0).event]
    assert any("7C was JC" in m for m in fusion.messages)


def test_an_amend_keeps_each_cards_proposal_and_the_tables_word():
    """A hand put in again (here: a card the table took out) keeps, for each event it puts in again, the
    proposal it came from and how it went in: a card the table confirmed is still the table's after it,
    and the camera's late re-read does not rename it."""
    fusion = _fusion(hold=0.5, settle_timeout=5.0)
    fusion.submit(_zoned(0, "7C", 2.0, 0, flags=["low_confidence", "unrivalled"], alternatives=["4C"]))
    fusion.tick(3.0)
    (settling,) = fusion.settling
    fusion.submit(_zoned(1, "7D", 4.0, 1, flags=["low_confidence"], alternatives=["6D", "5D"]))
    fusion.tick(5.0)
    assert fusion.confirm("key")  # the table says seat 1's card is the 7D
    sure = _zoned(2, "KS", 6.0, 2)
    fusion.submit(sure)
    fusion.tick(7.0)
    assert fusion.reject("key", pid=settling.id)  # ... and that seat 0's card was no card
    live = list(fusion._running_hand())
    assert [a.event for a in live] == [_card(1, "KS", 0).event, _card(0, "7D", 0).event]
    assert live[0].origin is sure and live[0].resolved_by == "amend" and live[0].how == "auto"
    assert live[1].how == "confirm"
    fusion.submit(Proposal({"type": "rename", "card": "7D", "name": "6D"}, 7.5))
    fusion.tick(8.5)
    assert fusion.log.game.events[1:] == [_card(0, "7D", 0).event, _card(1, "KS", 0).event]


def test_a_weak_card_that_went_in_outside_its_seats_zone_is_taken_out_when_the_next_card_says_so():
    """Seat 1 led trick 2; a barely read card lying in seat 3's zone went in first as seat 1's lead (the
    unattended timeout puts a face-up card in), so seat 1's own card, put down in its zone, was held for
    seat 2's turn (a rendered Clean-28 hand of seed 262: one ghost, and every card of the trick a seat
    off).  Taking the ghost out puts both back: it is taken out and the held card goes in for seat 1."""
    fusion = _unattended_kd_takes_trick_one()
    fusion.submit(_zoned(1, "2C", 6.0, 3, flags=["wrong_seat", "low_confidence"], alternatives=["3C"],
                         confidence=0.05))
    t = _tick_until(fusion, 1.0, 20.0)
    assert fusion.log.game.events[5] == _card(1, "2C", 0).event
    fusion.submit(_zoned(2, "QD", 20.0, 1, flags=["wrong_seat"]))
    t = _tick_until(fusion, t, 40.0)
    assert fusion.log.game.events[5:] == [_card(1, "QD", 0).event]
    assert any("2C, a doubtful card outside its seat's zone, was no play" in m for m in fusion.messages)


def test_a_held_card_can_be_a_weak_card_of_its_seat_seen_again_and_the_next_cards_take_their_zones_seats():
    """Seat 0's last card of trick 1 was first read, barely, as 5C while it was put down, and went in; the
    camera then read it as QC where it lay, a new card to the tracker, held for seat 1's turn (a rendered
    Mineiro hand of seed 259).  Seat 1's face-down card and seat 2's 3S, each in its zone, queue behind.
    Taken as seat 0's card seen again, the weak card is renamed QC and the held card is no new play: then
    every card lies in its seat's zone.  Seat 1's face-down card, flagged a seat off when it was seen, takes
    its seat at once (left flagged, the unattended timeout would leave a face-down card out)."""
    from companion.table.replay import UNATTENDED

    fusion = Fusion(MemoryTableLog(MATCH), FusionConfig(**UNATTENDED.__dict__), first_dealer=0)
    fusion.submit(Proposal({"type": "hand", "dealer": 0, "vira": "5H"}, 0.0))
    for k, (seat, card) in enumerate([(1, "KD"), (2, "7S"), (3, "JH")]):  # KD takes trick 1 either way
        fusion.submit(_zoned(seat, card, 1.0 + k, seat))
    fusion.submit(_zoned(0, "5C", 4.0, 0, flags=["low_confidence"], alternatives=["5S"], confidence=0.02))
    t = _tick_until(fusion, 1.0, 10.0)
    assert fusion.log.game.events[4] == _card(0, "5C", 0).event
    fusion.submit(_zoned(1, "QC", 10.0, 0, flags=["wrong_seat"]))
    fusion.submit(Proposal({"type": "play", "seat": 2, "covered": True}, 12.0, 0.8, "vision", ["wrong_seat"], zone=1))
    fusion.submit(_zoned(3, "3S", 13.0, 2, flags=["wrong_seat"]))
    _tick_until(fusion, t, 40.0)
    assert fusion.log.game.events[1:] == [
        _card(1, "KD", 0).event, _card(2, "7S", 0).event, _card(3, "JH", 0).event, _card(0, "QC", 0).event,
        {"type": "play", "seat": 1, "covered": True}, _card(2, "3S", 0).event]
    assert any("5C was QC, seen again" in m for m in fusion.messages) and not fusion.rejected

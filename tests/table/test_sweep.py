"""A table gathered while the engine still runs the hand (a card the camera missed kept it open):
what was said while it lay empty, and a new deal put down before the old cards' tracks ran out."""

from __future__ import annotations

import dataclasses

from companion.table.engine_view import MemoryTableLog
from companion.table.fusion import Fusion, FusionConfig
from companion.table.observations import Proposal, read_stream
from companion.table.replay import UNATTENDED
from companion.table.session import SessionConfig, TableSession
from companion.table.voice import VoiceInterpreter
from companion.table.zones import Calibration, Zones

from .streams import FIXTURES, events, run_frames

MINEIRO = {"type": "match", "variant": "mineiro", "players": 4}
SWEPT_AT = 20.0


def _open_mineiro_hand() -> Fusion:
    """Dealer 3, so seat 0 is mano; trick 1 went to seat 0's 3S, trick 2 is half played and
    seat 2's card is what the camera missed: the engine waits on it while the table is gathered."""
    fusion = Fusion(MemoryTableLog(MINEIRO), FusionConfig(**UNATTENDED.__dict__), first_dealer=3)
    fusion.interpreter = VoiceInterpreter("pt", "mineiro").interpret
    for event in ({"type": "hand", "dealer": 3}, *({"type": "play", "seat": s, "card": c} for s, c in
                                                  ((0, "3S"), (1, "5D"), (2, "6C"), (3, "KH"), (0, "QD"), (1, "JC")))):
        assert fusion.enter(event)
    fusion.swept = lambda: SWEPT_AT  # (the tracker's swept_since: every card left the view at 20.0)
    return fusion


def _new_deal(fusion: Fusion, card_t: float) -> None:
    """What the tracker submits when the next hand's first card is put down: the old hand closed
    (dated back to the sweep), the deal and the card."""
    fusion.submit(Proposal({"type": "fold", "seat": 2}, SWEPT_AT + 1e-3, 0.5, "vision", ["new_deal"],
                           "a new deal began", True))
    fusion.submit(Proposal({"type": "hand", "dealer": 0}, card_t, 1.0, "vision", [], "first card of a new hand"))
    fusion.submit(Proposal({"type": "play", "seat": 1, "card": "4C"}, card_t, 0.9, "vision"))
    fusion.swept = lambda: None


def test_a_truco_said_while_the_table_lies_gathered_goes_into_the_hand_the_next_card_opens():
    # rendered seed 12: the truco went into the old hand, was accepted there, and two hands were scored wrong
    fusion = _open_mineiro_hand()
    fusion.hear_words(21.0, "truco")
    fusion.hear_words(22.0, "aceito")
    fusion.tick(23.5)
    assert fusion.log.events[-1] == {"type": "play", "seat": 1, "card": "JC"}  # they wait for the next card
    _new_deal(fusion, 24.0)
    for now in (24.5, 27.0, 30.0):
        fusion.tick(now)
    assert fusion.log.events[-5:] == [{"type": "fold", "seat": 2}, {"type": "hand", "dealer": 0},
                                      {"type": "raise", "seat": 1, "to": 3}, {"type": "accept", "seat": 0},
                                      {"type": "play", "seat": 1, "card": "4C"}]
    # the camera's deal of the hand the call opened is the same deal: set aside, not asked about
    assert "the first card's deal: the hand was opened already by a call" in fusion.messages
    assert not fusion.queue and not fusion.pending


def test_a_fold_said_while_the_table_lies_gathered_ends_the_old_hand_without_waiting_for_a_card():
    fusion = _open_mineiro_hand()
    fusion.hear_words(21.0, "corro")
    fusion.tick(22.5)
    (pending,) = fusion.pending  # who said it is asked (either team could have), not held for the next card
    assert pending.event == {"type": "fold", "seat": 2}
    fusion.tick(25.0)
    assert fusion.log.events[-1] == {"type": "fold", "seat": 2} and not fusion.view().in_hand


def test_words_wait_for_the_next_card_at_most_swept_wait_then_go_in_as_before():
    fusion = _open_mineiro_hand()
    fusion.hear_words(21.0, "truco")
    fusion.tick(21.0 + fusion.config.swept_wait - 0.5)
    assert fusion.log.events[-1]["type"] == "play"
    fusion.tick(21.0 + fusion.config.swept_wait + 0.1)
    assert fusion.log.events[-1] == {"type": "raise", "seat": 2, "to": 3}  # the old hand's seat due


def test_words_said_before_the_sweep_are_not_held():
    fusion = _open_mineiro_hand()
    fusion.hear_words(SWEPT_AT - 0.5, "truco")
    fusion.tick(SWEPT_AT + 1.0)
    assert fusion.log.events[-1] == {"type": "raise", "seat": 2, "to": 3}


def _stream(gap: int, words: tuple[tuple[float, str], ...] = ()) -> TableSession:
    """new_deal.jsonl (Paulista, vira 5H, seats 0 and 1 play, seat 2's card never seen) with ``gap`` empty
    frames after the hand's cards leave, then the next deal at once: the deck, the vira 4C where 5H lay,
    later seat 1's QD where seat 1's AS lay."""
    header, frames = read_stream(FIXTURES / "new_deal.jsonl")
    played = [f for f in frames if f.t < 5.0]
    dealt = [f for f in frames if f.t >= 8.0]
    empty = next(f for f in frames if not f.detections)
    stream = list(played) + [dataclasses.replace(empty, t=round((len(played) + k) * 0.1, 1)) for k in range(gap)]
    start = len(stream)
    stream += [dataclasses.replace(f, t=round((start + k) * 0.1, 1)) for k, f in enumerate(dealt)]
    if not words:
        return run_frames(stream, calibration=Calibration.from_dict(header["calibration"]))
    log = MemoryTableLog({"type": "match", "variant": "paulista", "players": 4})
    session = TableSession(log, zones=Zones(Calibration.from_dict(header["calibration"])),
                           config=SessionConfig(fusion=FusionConfig(**UNATTENDED.__dict__)),
                           voice=VoiceInterpreter("pt", "paulista"), first_dealer=3)
    said = list(words)
    for frame in stream:
        while said and frame.t >= said[0][0]:
            session.feed_words(*said.pop(0))
        session.feed_detections(frame)
    session.finish()
    return session


def test_a_new_deal_put_down_before_the_old_cards_tracks_ran_out_still_opens_the_next_hand():
    # rendered seed 13: the table was empty 0.8 s, and the next vira, turned where the last one lay, joined
    # the old vira's track (still within track_patience); the whole next hand was taken for the old one
    for gap in (7, 8, 9):
        got = events(_stream(gap))
        assert [e["type"] for e in got] == ["hand", "play", "play", "fold", "hand", "play"], gap
        assert got[4] == {"type": "hand", "dealer": 0, "vira": "4C"} and got[5]["card"] == "QD", gap


def test_a_truco_said_between_the_sweep_and_the_next_deal_goes_in_behind_its_vira():
    session = _stream(12, words=((5.6, "truco"), (5.9, "aceito")))
    assert events(session)[3:] == [
        {"type": "fold", "seat": 2},  # the camera's close of the old hand (no truco refused in it)
        {"type": "hand", "dealer": 0, "vira": "4C"},
        {"type": "raise", "seat": 1, "to": 3}, {"type": "accept", "seat": 0},  # the new hand's, before its first card
        {"type": "play", "seat": 1, "card": "QD"}]

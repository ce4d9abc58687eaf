"""Recording, rejection, resume and concurrent writers of the match history."""

from __future__ import annotations

import json

import pytest

from companion.engine import Game, IllegalEvent
from companion.history.models import APPLIED, FINISHED, LIVE, PENDING, REJECTED, dump_event
from companion.history.recorder import MatchRecorder, NothingToResume
from companion.tablelog import score_log

NAMES = ["Ana", "Bia", "Caio", "Duda"]


def test_every_event_is_stored_in_order_and_the_result_is_the_engines(store, sim_log):
    log = sim_log("paulista", 2, min_events=40, names=NAMES)
    rec = MatchRecorder.start(store, log[0], venue="Bar do Zé", source="typed")
    for event in log[1:]:
        rec.record(event, source="vision")
    rows = store.events(rec.match_id)
    assert [r.payload for r in rows] == [dump_event(e) for e in log]
    assert {r.status for r in rows} == {APPLIED}
    assert [r.seq for r in rows] == list(range(len(log)))
    expected = score_log([json.dumps(e) for e in log])
    match = store.get_match(rec.match_id)
    assert [match.score0, match.score1] == expected["score"]
    assert match.winner_team == expected["winner"]
    assert match.status == FINISHED and match.ended_at is not None
    assert match.names == NAMES and match.venue == "Bar do Zé"
    assert [s.team for s in match.seats] == [0, 1, 0, 1]


def test_a_rejected_event_is_kept_with_its_message_and_changes_nothing(store):
    rec = MatchRecorder.start(store, {"type": "match", "variant": "paulista", "players": 4})
    rec.record({"type": "hand", "dealer": 3, "vira": "4D"})
    before = rec.game.state.to_dict()
    with pytest.raises(IllegalEvent):
        rec.record({"type": "play", "seat": 2, "card": "7H"}, source="voice")  # seat 0 is to play
    assert rec.game.state.to_dict() == before
    row = store.events(rec.match_id)[-1]
    assert row.status == REJECTED and row.source == "voice" and "turn" in row.error.lower()
    rec.record({"type": "play", "seat": 0, "card": "7H"})
    assert [r.status for r in store.events(rec.match_id)] == [APPLIED, APPLIED, REJECTED, APPLIED]


def test_resume_rebuilds_the_same_game_and_continues(store, sim_log):
    log = sim_log("argentino", 5, min_events=60, names=NAMES)
    half = len(log) // 2
    rec = MatchRecorder.start(store, log[0])
    for event in log[1:half]:
        rec.record(event)
    rec.undo()                      # an undo is an event like the others
    rec.record(log[half - 1])
    live_state = rec.game.state.to_dict()
    del rec

    resumed = MatchRecorder.resume(store)
    assert resumed.game.state.to_dict() == live_state
    assert resumed.report.applied == half + 1 and resumed.report.reapplied_pending == 0
    for event in log[half:]:
        resumed.record(event)
    expected = score_log([json.dumps(e) for e in log])
    assert resumed.game.state.to_dict()["score"] == expected["score"]
    assert store.get_match(resumed.match_id).status == FINISHED
    with pytest.raises(NothingToResume):
        MatchRecorder.resume(store)


def test_a_pending_event_left_by_a_crash_is_applied_on_resume(store):
    """The process died after committing an event and before applying it."""
    rec = MatchRecorder.start(store, {"type": "match", "variant": "paulista", "players": 4})
    rec.record({"type": "hand", "dealer": 3, "vira": "4D"})
    seq = rec._append({"type": "raise", "seat": 0}, "voice")   # committed, never applied
    assert store.events(rec.match_id)[-1].status == PENDING
    resumed = MatchRecorder.resume(store, rec.match_id)
    assert resumed.report.reapplied_pending == 1
    assert store.events(rec.match_id)[seq].status == APPLIED
    assert resumed.game.state.to_dict()["open_bets"][0]["kind"] == "truco"


def test_a_second_writer_on_the_same_match_is_merged_not_lost(store):
    """The board (or another device) appends to the match; the live recorder catches up."""
    rec = MatchRecorder.start(store, {"type": "match", "variant": "paulista", "players": 4})
    rec.record({"type": "hand", "dealer": 3, "vira": "4D"})
    other = MatchRecorder.resume(store, rec.match_id)
    other.record({"type": "play", "seat": 0, "card": "7H"}, source="board")
    rec.record({"type": "play", "seat": 1, "card": "KS"})      # seq 2 is taken: sync, then seq 3
    rows = store.events(rec.match_id)
    assert [(r.seq, r.source, r.status) for r in rows[2:]] == [(2, "board", APPLIED), (3, "typed", APPLIED)]
    reference = Game({"type": "match", "variant": "paulista", "players": 4})
    for r in rows[1:]:
        reference.apply(r.data)
    assert rec.game.state.to_dict() == reference.state.to_dict()


def test_abandon_and_soft_delete_keep_the_rows(store):
    rec = MatchRecorder.start(store, {"type": "match", "variant": "paulista", "players": 4, "names": NAMES})
    rec.record({"type": "hand", "dealer": 3, "vira": "4D"})
    assert store.latest_live_match().id == rec.match_id and rec.is_live
    rec.abandon()
    assert store.latest_live_match() is None
    store.soft_delete(rec.match_id, "test match")
    assert store.list_matches() == []
    assert [m.id for m in store.list_matches(include_deleted=True)] == [rec.match_id]
    kept = store.get_match(rec.match_id)
    assert kept.deleted_reason == "test match" and len(kept.events) == 2
    store.restore(rec.match_id)
    assert [m.id for m in store.list_matches(player="bia")] == [rec.match_id]


def test_a_bad_match_line_stores_nothing(store):
    with pytest.raises(IllegalEvent):
        MatchRecorder.start(store, {"type": "match", "variant": "paulista", "players": 5})
    assert store.list_matches(include_deleted=True) == []
    assert LIVE == "live"


def test_a_resumed_recorder_gives_back_its_table_log(store):
    match = {"type": "match", "variant": "paulista", "players": 4, "names": NAMES}
    rec = MatchRecorder.start(store, match)
    rec.record({"type": "hand", "dealer": 3, "vira": "4D"})
    with pytest.raises(IllegalEvent):
        rec.record({"type": "raise", "seat": 2})
    resumed = MatchRecorder.resume(store)
    assert resumed.match_event == match
    assert resumed.stored_events() == [match, {"type": "hand", "dealer": 3, "vira": "4D"}]
    assert len(resumed.stored_events(include_rejected=True)) == 3


def test_a_match_is_found_by_a_uuid_prefix_made_of_digits(store):
    """Found by a CI run: `history delete 77563547` took the uuid's first eight characters for a
    match id (one uuid in about 40 starts with eight digits) and said there was no such match."""
    from companion.history.models import Match
    from companion.history.store import NoSuchMatch

    rec = MatchRecorder.start(store, {"type": "match", "variant": "paulista", "players": 4, "names": NAMES})
    with store.session() as s:
        s.get(Match, rec.match_id).uuid = "77563547-0000-4000-8000-000000000000"
        s.commit()
    assert store.find_match("77563547").id == rec.match_id
    assert store.find_match(str(rec.match_id)).id == rec.match_id  # an id still wins
    with pytest.raises(NoSuchMatch, match="no match 99"):
        store.find_match("99")

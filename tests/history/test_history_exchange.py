"""Export and import: import(export(match)) gives the same match, through JSONL and CSV."""

from __future__ import annotations

import io
import json

import pytest

from companion.cli import main
from companion.engine import IllegalEvent
from companion.history.exchange import ImportError_, export_csv, export_jsonl, import_text
from companion.history.recorder import MatchRecorder
from companion.history.store import HistoryStore
from companion.tablelog import score_log


def _fingerprint(match) -> dict:
    """Everything a match is, except the database's own row ids."""
    return {
        "uuid": match.uuid, "variant": match.variant, "players": match.players_count,
        "options": match.options, "target": match.target, "venue": match.venue, "table": match.table_name,
        "started_at": match.started_at.replace(tzinfo=None), "status": match.status,
        "ended_at": match.ended_at and match.ended_at.replace(tzinfo=None),
        "score": [match.score0, match.score1], "winner": match.winner_team, "note": match.note,
        "deleted": match.deleted_at, "seats": [(s.seat, s.team, s.name) for s in match.seats],
        "events": [(e.seq, e.type, e.payload, e.source, e.status, e.error, e.recorded_at.replace(tzinfo=None))
                   for e in match.events],
    }


@pytest.fixture
def recorded(store, sim_log, names):
    """A finished match with a rejected event, an undo and several sources."""
    log = sim_log("argentino", 11, min_events=50, names=names)
    rec = MatchRecorder.start(store, log[0], venue="Clube Atlético", source="typed")
    for i, event in enumerate(log[1:], 1):
        rec.record(event, source=("vision", "voice", "typed")[i % 3])
        if i == 5:
            with pytest.raises(IllegalEvent):
                rec.record({"type": "play", "seat": 0, "card": "1E", "covered": "yes"}, source="voice")
            rec.record({"type": "note", "text": "Bia arrived late"}, source="typed")
    return store.get_match(rec.match_id), log


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_import_of_an_export_is_the_same_match(recorded, tmp_path, fmt):
    match, _log = recorded
    out = io.StringIO()
    (export_jsonl(match, out) if fmt == "jsonl" else export_csv([match], out))
    other = HistoryStore(f"sqlite:///{tmp_path / 'other.sqlite'}")
    [new_id] = import_text(other, out.getvalue())
    copy = other.get_match(new_id)
    assert _fingerprint(copy) == _fingerprint(match)
    again = io.StringIO()
    (export_jsonl(copy, again) if fmt == "jsonl" else export_csv([copy], again))
    assert again.getvalue() == out.getvalue()


def test_the_jsonl_export_is_a_table_log_that_scores_the_same(recorded):
    match, log = recorded
    out = io.StringIO()
    export_jsonl(match, out, applied_only=True)
    lines = out.getvalue().splitlines()
    assert json.loads(lines[0]) == log[0]
    assert json.loads(lines[1])["type"] == "note" and json.loads(lines[1])["history"]["uuid"] == match.uuid
    result = score_log(lines)
    assert result["errors"] == []
    assert result["score"] == score_log([json.dumps(e) for e in log])["score"] == [match.score0, match.score1]


def test_a_plain_table_log_imports_and_is_scored_by_the_engine(store, sim_log):
    log = sim_log("paulista", 3, min_events=20)
    text = "".join(json.dumps(e) + "\n" for e in log) + json.dumps({"type": "raise", "seat": 9}) + "\n"
    [mid] = import_text(store, text)
    match = store.get_match(mid)
    expected = score_log(text.splitlines())
    assert [match.score0, match.score1] == expected["score"]
    assert match.events[-1].status == "rejected" and match.events[-1].source == "import"
    assert match.status == "finished"


def test_importing_twice_needs_a_new_uuid(recorded, tmp_path):
    match, _ = recorded
    out = io.StringIO()
    export_jsonl(match, out)
    store = HistoryStore(f"sqlite:///{tmp_path / 'x.sqlite'}")
    import_text(store, out.getvalue() + out.getvalue().replace(match.uuid, "0" * 8 + match.uuid[8:]))
    with pytest.raises(ImportError_, match="already in the store"):
        import_text(store, out.getvalue())
    [copy] = import_text(store, out.getvalue(), new_uuid=True)
    assert store.get_match(copy).uuid != match.uuid
    assert len(store.list_matches()) == 3


def test_history_commands_end_to_end(store, recorded, tmp_path, capsys):
    match, _ = recorded
    url = store.url
    assert main(["history", "--db", url, "list"]) == 0
    assert f"#{match.id}" in capsys.readouterr().out
    assert main(["history", "show", str(match.id), "--db", url, "--events"]) == 0
    shown = capsys.readouterr().out
    assert "Clube Atlético" in shown and "rejected" in shown
    exported = tmp_path / "m.jsonl"
    assert main(["history", "export", str(match.id), "--db", url, "-o", str(exported)]) == 0
    csv_file = tmp_path / "all.csv"
    assert main(["history", "export", "--format", "csv", "--db", url, "-o", str(csv_file)]) == 0
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    assert main(["history", "import", str(exported), "--db", other]) == 0
    assert main(["history", "import", str(exported), "--db", other]) == 1       # same uuid again
    assert "already" in capsys.readouterr().err
    assert main(["history", "stats", "--db", url, "--json", "--chart", str(tmp_path / "s.svg")]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["matches"] == 1 and set(stats["players"]) == {"Ana", "Bia", "Caio", "Duda"}
    assert (tmp_path / "s.svg").read_text().lstrip().startswith("<?xml")
    assert main(["history", "chart", str(match.id), "--db", url, "-o", str(tmp_path / "m.png")]) == 0
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["history", "delete", match.uuid[:8], "--db", url, "--reason", "test"]) == 0
    capsys.readouterr()
    assert main(["history", "list", "--db", url]) == 0
    assert f"#{match.id}" not in capsys.readouterr().out
    assert main(["history", "list", "--deleted", "--db", url]) == 0
    assert "(deleted)" in capsys.readouterr().out
    assert main(["history", "show", "999", "--db", url]) == 1

"""``companion run``'s live loop, with a rendered video standing in for the
camera (time not slept away), the reference detector standing in for the
weights, no window and no microphone: events go to the history database and
the JSONL log as they happen."""

from __future__ import annotations

import json

import pytest

from companion.cli import main


def test_live_loop_records_into_history_and_log(tmp_path, monkeypatch, capsys):
    from companion.synth.art import list_designs

    if not list_designs("french"):
        pytest.skip("no French card art on this machine")
    import companion.commands.run as run_cmd
    import companion.vision.detector as vision
    from companion.table.render_session import RenderOptions, SessionRenderer, render_session
    from companion.table.script import make_script
    from companion.table.simulate import ReferenceDetector
    from companion.table.zones import Calibration, save_calibration

    script = make_script("paulista", hands=1, seed=3, first_dealer=0)
    opts = RenderOptions(seed=3)
    meta = render_session(tmp_path / "s", script, opts, video=True)
    ref = ReferenceDetector(SessionRenderer(script, opts), meta["states"])
    monkeypatch.setattr(vision, "CardDetector", lambda family: ref)
    monkeypatch.setattr(run_cmd.time, "sleep", lambda s: None)
    save_calibration(Calibration.from_dict(meta["calibration"]), tmp_path / "cal.json")
    log = tmp_path / "live.jsonl"
    db = tmp_path / "history.sqlite"
    code = main(["run", "--variant", "paulista", "--camera", str(tmp_path / "s" / "video.mp4"), "--no-window",
                 "--no-mic", "--calibration", str(tmp_path / "cal.json"), "--log", str(log), "--db", str(db),
                 "--names", "Ana", "Bia", "Caio", "Duda"])
    assert code == 0
    out = capsys.readouterr().out
    assert "plays" in out
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0]["type"] == "match" and lines[0]["names"] == ["Ana", "Bia", "Caio", "Duda"]
    truth_cards = [e for e in script.log if e["type"] in ("hand", "play")]
    assert [e for e in lines if e["type"] in ("hand", "play")] == truth_cards  # no voice: calls missing

    from companion.history.store import HistoryStore

    store = HistoryStore(str(db))
    (match,) = store.list_matches()
    stored = [row.data for row in store.events(match.id)]
    assert stored[1:] == lines[1:]


def test_resume_goes_on_with_the_unfinished_match(tmp_path, monkeypatch, capsys):
    """After a crash, `run --resume` rebuilds the game from the history and
    mirrors what is already there into the new JSONL log."""
    from companion.history.recorder import MatchRecorder
    from companion.history.store import HistoryStore

    db = tmp_path / "history.sqlite"
    store = HistoryStore(str(db))
    rec = MatchRecorder.start(store, {"type": "match", "variant": "paulista", "players": 4}, source="camera")
    rec.record({"type": "hand", "dealer": 0, "vira": "5H"}, source="vision")
    rec.record({"type": "play", "seat": 1, "card": "4C"}, source="vision")
    store.close()
    import companion.commands.run as run_cmd
    import companion.vision.detector as vision

    monkeypatch.setattr(vision, "CardDetector", lambda family: type("Blind", (), {"detect": lambda s, i: []})())
    monkeypatch.setattr(run_cmd.time, "sleep", lambda s: None)
    from companion.paths import DATA_DIR

    log = tmp_path / "resumed.jsonl"
    code = main(["run", "--variant", "paulista", "--camera", str(DATA_DIR / "demo" / "video.mp4"), "--no-window",
                 "--no-mic", "--db", str(db), "--resume", "--log", str(log)])
    assert code == 0
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[1:] == [{"type": "hand", "dealer": 0, "vira": "5H"}, {"type": "play", "seat": 1, "card": "4C"}]
    assert "resumed" in capsys.readouterr().err

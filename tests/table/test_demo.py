"""``companion demo`` both ways: the full pipeline (here with the reference
detector standing in for the weights when they are absent) and the plain
fallback when no detector can run."""

from __future__ import annotations

import json

import pytest

from companion.cli import main
from companion.commands import demo
from companion.paths import DATA_DIR


def test_demo_without_detector_says_so_and_scores_the_example_log(monkeypatch, capsys):
    monkeypatch.setattr(demo, "_detector", lambda family, deck: (None, "model file not found: models/x.onnx"))
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "cannot run here" in out and "example table log" in out
    assert "final score" in out


def test_demo_full_pipeline_prints_events_score_and_the_voice_source(monkeypatch, capsys, tmp_path):
    from companion.synth.art import list_designs

    if not list_designs("french"):
        pytest.skip("no French card art on this machine")
    from companion.table.render_session import RenderOptions, SessionRenderer
    from companion.table.script import SessionScript
    from companion.table.simulate import ReferenceDetector

    meta = json.loads((DATA_DIR / "demo" / "session.json").read_text())
    script = SessionScript.from_dict(meta["script"])
    ref = ReferenceDetector(SessionRenderer(script, RenderOptions(**meta["render"])), meta["states"])
    monkeypatch.setattr(demo, "_detector", lambda family, deck: (ref, None))
    log = tmp_path / "demo.jsonl"
    assert main(["demo", "--audio", "no", "--log", str(log), "--save-video", str(tmp_path / "a.mp4")]) == 0
    out = capsys.readouterr().out
    assert "timed transcript" in out
    assert "right" in out and "3/3" in out
    assert "seat 0 raises to 3" in out  # a call, through the speech matcher
    from companion.table.evaluate import normalise

    got = [normalise(json.loads(x)) for x in log.read_text().splitlines()]
    truth = [normalise(json.loads(x)) for x in (DATA_DIR / "demo" / "truth.jsonl").read_text().splitlines()]
    assert got == truth  # calls compared by team: the microphone cannot tell partners apart
    assert (tmp_path / "a.mp4").stat().st_size > 10_000


def test_replay_command_writes_the_log_and_prints_the_score(monkeypatch, capsys, tmp_path):
    from companion.synth.art import list_designs

    if not list_designs("french"):
        pytest.skip("no French card art on this machine")
    import companion.vision.detector as vision
    from companion.table.render_session import RenderOptions, SessionRenderer
    from companion.table.script import SessionScript
    from companion.table.simulate import ReferenceDetector
    from companion.table.zones import Calibration, save_calibration

    folder = DATA_DIR / "demo"
    meta = json.loads((folder / "session.json").read_text())
    script = SessionScript.from_dict(meta["script"])
    ref = ReferenceDetector(SessionRenderer(script, RenderOptions(**meta["render"])), meta["states"])
    monkeypatch.setattr(vision, "CardDetector", lambda family, **kw: ref)
    save_calibration(Calibration.from_dict(meta["calibration"]), tmp_path / "cal.json")
    log = tmp_path / "out.jsonl"
    code = main(["replay", str(folder / "video.mp4"), "--variant", "paulista", "--transcript",
                 str(folder / "transcript.json"), "--calibration", str(tmp_path / "cal.json"),
                 "--dealer", str(script.timed_log[0][1]["dealer"]), "--log", str(log), "--json"])
    assert code == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["score"] == script.score and not scored["errors"]
    assert len(log.read_text().splitlines()) == len(script.log)

"""``companion listen --text`` and the CLI's errors (no audio or model needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main


@pytest.fixture()
def truco_log(tmp_path: Path) -> Path:
    log = tmp_path / "log.jsonl"
    log.write_text('{"type": "match", "variant": "argentino", "players": 4}\n'
                   '{"type": "hand", "dealer": 3}\n'
                   '{"type": "raise", "seat": 0, "to": 2}\n')
    return log


def test_text_after_log_json(truco_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["listen", "--text", "quiero retruco", "--after", str(truco_log), "--json", "--lang", "es"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decision"] == "apply"
    assert [e["event"] for e in out["events"]] == [{"type": "accept", "seat": 1}, {"type": "raise", "seat": 1, "to": 3}]
    assert all(e["team"] == 1 and not e["needs_seat_question"] for e in out["events"])


def test_text_chatter_is_ignored(truco_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["listen", "--text", "che, pasame el mate", "--after", str(truco_log), "--json", "--lang", "es"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"] == "ignore"


def test_text_without_log_asks_who(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["listen", "--text", "truco", "--lang", "pt", "--variant", "paulista"]) == 0
    out = capsys.readouterr().out
    assert "CONFIRM" in out and "both teams" in out


def test_bad_log_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text('{"type": "match", "variant": "argentino", "players": 4}\n{"type": "accept", "seat": 1}\n')
    assert main(["listen", "--text", "quiero", "--after", str(log), "--lang", "es"]) == 2
    assert "line 2" in capsys.readouterr().err


def test_missing_model_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path))
    monkeypatch.delenv("COMPANION_VOSK_MODEL", raising=False)
    wav = tmp_path / "x.wav"
    import numpy as np
    import soundfile

    soundfile.write(str(wav), np.zeros(1600, dtype=np.int16), 16000)
    assert main(["listen", "--wav", str(wav), "--lang", "es"]) == 2
    assert "companion models download --lang es" in capsys.readouterr().err

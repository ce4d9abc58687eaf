"""Spoken feedback: phrases from the engine's outcomes, audio through espeak-ng."""

from __future__ import annotations

import shutil
import wave

import pytest

from companion.engine import Game
from companion.feedback import Speaker, SpeechUnavailable, phrases


def _said(lang, match, events, names=None):
    game = Game(match)
    out = []
    for e in events:
        outcomes = game.apply(e)
        out.append(phrases(lang, outcomes, game.state.to_dict(), names))
    return out


def test_truco_and_score_in_portuguese():
    said = _said("pt", {"type": "match", "variant": "paulista", "players": 4}, [
        {"type": "hand", "dealer": 3, "vira": "4D"},
        {"type": "raise", "seat": 0},
        {"type": "raise", "seat": 1},
        {"type": "refuse", "seat": 0},
    ])
    assert said[0] == []
    assert said[1] == ["Truco! Vale três"]
    assert said[2] == ["Seis! Vale seis"]
    assert said[3] == ["Correu", "0 a 3"]           # team 1 called seis: it scores the 3


def test_envido_in_spanish_with_names():
    names = ["Ana", "Bia"]
    said = _said("es", {"type": "match", "variant": "argentino", "players": 2}, [
        {"type": "hand", "dealer": 1},
        {"type": "envido", "seat": 0, "kind": "envido"},
        {"type": "accept", "seat": 1},
        {"type": "points", "seat": 0, "points": 28},
        {"type": "points", "seat": 1, "points": 31},
    ], names)
    assert said[1] == ["Envido"]
    assert said[2] == ["Envido querido"]
    assert said[4] == ["Envido para Bia"]


def test_unknown_language_is_refused():
    with pytest.raises(ValueError):
        phrases("fr", [])


def test_missing_espeak_gives_a_clear_message(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SpeechUnavailable, match="apt-get install espeak-ng"):
        Speaker("pt")


def test_espeak_speaks_portuguese(tmp_path):
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    speaker = Speaker("pt")
    wav = speaker.synthesize("Truco! Vale três", tmp_path / "truco.wav")
    with wave.open(str(wav)) as w:
        seconds = w.getnframes() / w.getframerate()
    assert 0.5 < seconds < 5
    speaker.close()

"""The real vosk path, end to end, with the Korean small model from PyPI.

espeak-ng says the Korean stand-in words (the ``ko`` lexicon); the same
lexicon, grammar, recogniser, listener and matcher code as for pt/es runs
on them: vocabulary check and respelling ("엔비도" is spelled "엔 비 도"),
grammar switched with the game (SetGrammar mid-stream), partial and final
results, word times, the WAV/FLAC path and the CLI.

"트루코" is synthesised from the spelling "투루코": espeak-ng's rendering of
the former is one the model hears as other words; the grammar word is 트루코.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from speech_helpers import ladder_view

from companion.speech.audio import FileSource, blocks
from companion.speech.grammar import GrammarBuilder, check_vocabulary
from companion.speech.lexicon import lexicon_from_dict, load_lexicon
from companion.speech.listener import Listener
from companion.speech.models import word_lookup
from companion.speech.recognizer import VoskRecognizer
from companion.speech.tts import compose, espeak_available, write_wav
from companion.speech.view import StaticView

pytestmark = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")

RATE = 130
SESSION = [("좋아 게임", None), ("투루코", "truco"), ("수락", "accept"), ("여섯", "seis"), ("좋아 게임", None)]


@pytest.fixture(scope="module")
def session() -> tuple[np.ndarray, list[Any]]:
    return compose(SESSION, "ko", rate=RATE, noise=30)


def _run(listener: Listener, audio: np.ndarray, view: Any, apply: bool = True) -> list[Any]:
    heard = []
    for pcm, _ in blocks(audio):
        for item in listener.feed(pcm):
            heard.append(item)
            if apply and item.event is not None and item.event.decision == "apply":
                view = view.after(item.event.event)
                listener.set_view(view)
    heard.extend(listener.finish())
    return heard


def test_vocabulary_check_and_respelling(ko_model: Any) -> None:
    lexicon = load_lexicon("ko")
    report = check_vocabulary(lexicon, word_lookup(ko_model))
    assert report.respelled == {"엔비도": ("엔", "비", "도")}
    assert not report.missing
    assert "트루코" in report.known
    odd = lexicon_from_dict({"lang": "ko", "phrases": [
        {"id": "x", "say": ["쀍쀍쀍"], "events": [{"type": "accept"}]},
        {"id": "y", "say": ["수락"], "events": [{"type": "accept"}]},
    ]})
    odd_report = check_vocabulary(odd, word_lookup(ko_model))
    assert odd_report.missing == {"쀍쀍쀍"}
    assert any("쀍쀍쀍" in line and "x" in line for line in odd_report.lines(odd))


def test_grammar_follows_the_game(ko_model: Any) -> None:
    lexicon = load_lexicon("ko")
    builder = GrammarBuilder(lexicon, check_vocabulary(lexicon, word_lookup(ko_model)))
    opening = builder.phrases(ladder_view())
    assert "트루코" in opening and "엔 비 도" in opening and "수락" in opening  # one step ahead
    assert "여섯" not in opening and "네" not in opening
    nothing = builder.phrases(StaticView([{"type": "play", "seat": 0}], {"players": 4}))
    assert "트루코" not in nothing and "수락" not in nothing
    assert {"좋아", "게임", "이거"} <= set(nothing)  # fillers always
    asking = builder.phrases(StaticView([], {"players": 4}), confirmation=True)
    assert {"네", "아니"} <= set(asking)


def test_stream_partials_finals_times_and_grammar_switches(ko_model: Any, session: Any) -> None:
    audio, segments = session
    listener = Listener(load_lexicon("ko"), ko_model, ladder_view())
    heard = _run(listener, audio, ladder_view())
    events = [h for h in heard if h.event is not None]
    assert [h.event.event for h in events] == [
        {"type": "raise", "seat": 0, "to": 3},
        {"type": "accept", "seat": 1},
        {"type": "raise", "seat": 1, "to": 6},
    ]
    ends = {s.label: s.end for s in segments if s.label}
    for item, label in zip(events, ["truco", "accept", "seis"]):
        # Emitted soon after the word ended (or even before: the grammar leaves one choice).
        assert -0.4 < item.detected_at - ends[label] < 1.0, (label, item.detected_at, ends[label])
        assert item.event.time is not None and abs(item.event.time - ends[label]) < 0.6
    assert any(h.source == "partial" for h in events)
    assert listener.recognizer.grammar_switches >= 2  # SetGrammar between utterances
    # Now a raise to 6 waits for its answer: the raise to 9 is one step ahead.
    assert "아홉" in listener.recognizer.grammar and "여섯" not in listener.recognizer.grammar


def test_reserved_word_silent_when_not_legal(ko_model: Any, session: Any) -> None:
    audio, _ = session
    view = StaticView([{"type": "play", "seat": 0}], {"players": 4, "turn": 0})
    listener = Listener(load_lexicon("ko"), ko_model, view)
    heard = _run(listener, audio, view)
    assert [h for h in heard if h.event is not None] == []


def test_final_results_carry_word_times(ko_model: Any) -> None:
    audio, segments = compose([("수락", "accept"), ("거절", "refuse")], "ko", rate=RATE, gap=1.2)
    recognizer = VoskRecognizer(ko_model, ["수락", "거절", "좋아", "게임"])
    finals = []
    partial_seen = False
    for pcm, _ in blocks(audio):
        update = recognizer.accept(pcm)
        if update.final:
            finals.extend(update.words)
        elif update.words:
            partial_seen = True
    finals.extend(recognizer.finish().words)
    assert partial_seen
    said = [w for w in finals if w.text in ("수락", "거절")]
    assert [w.text for w in said] == ["수락", "거절"]
    for word, segment in zip(said, segments):
        assert word.start < word.end
        assert abs(word.end - segment.end) < 0.35, (word, segment)
        assert 0.0 < word.conf <= 1.0


def test_respelled_word_becomes_its_event(ko_model: Any) -> None:
    audio, _ = compose([("엔비도", "envido")], "ko", rate=RATE)
    listener = Listener(load_lexicon("ko"), ko_model, ladder_view())
    heard = _run(listener, audio, ladder_view(), apply=False)
    assert [h.event.event for h in heard if h.event] == [{"type": "envido", "seat": 0, "kind": "envido"}]
    assert heard[0].event.said == "엔비도"


def test_confirmation_by_voice(ko_model: Any) -> None:
    audio, _ = compose([("네", "yes")], "ko", rate=RATE)
    view = StaticView([], {"players": 4})
    listener = Listener(load_lexicon("ko"), ko_model, view)
    listener.set_view(view, confirmation=True)
    heard = _run(listener, audio, view, apply=False)
    answers = [h.confirmation for h in heard if h.confirmation is not None]
    assert len(answers) == 1 and answers[0].answer is True


def test_wav_and_flac_through_the_cli(ko_model: Any, session: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """``companion listen --wav`` after a table log: events applied to the game as heard."""
    import soundfile

    from companion.cli import main

    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))  # the tuned-model overlay goes here

    audio, segments = session
    wav = write_wav(tmp_path / "session.wav", audio)
    # The same talk as 44.1 kHz stereo FLAC: read, mixed down and resampled by the file source.
    stereo = np.repeat(np.interp(np.arange(int(len(audio) * 44100 / 16000)) * 16000 / 44100,
                                 np.arange(len(audio)), audio)[:, None], 2, axis=1).astype(np.int16)
    flac = tmp_path / "session.flac"
    soundfile.write(str(flac), stereo, 44100)
    assert abs(FileSource(flac).duration - len(audio) / 16000) < 0.01
    log = tmp_path / "log.jsonl"
    log.write_text('{"type": "match", "variant": "paulista", "players": 4}\n'
                   '{"type": "hand", "dealer": 3, "vira": "4D"}\n')
    for path in (wav, flac):
        assert main(["listen", "--wav", str(path), "--lang", "ko", "--after", str(log), "--json"]) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
        events = [o["event"] for o in lines if "event" in o]
        # Truco by the seat on turn, accepted by the other team, then "여섯" (six):
        # a raise to 6 by them, applied or put to the table as the engine's
        # rules for raising out of turn say.
        assert events[:2] == [{"type": "raise", "seat": 0, "to": 3}, {"type": "accept", "seat": 1}], lines
        assert all(o["decision"] == "apply" for o in lines[:2])
        assert events[2:] in ([], [{"type": "raise", "seat": 1, "to": 6}]), lines
        ends = {s.label: s.end for s in segments if s.label}
        for line, label in zip(lines, ["truco", "accept", "seis"]):
            assert abs(line["time"] - ends[label]) < 0.6, (label, line)


def test_wrong_language_model_is_an_error_not_a_crash(ko_model: Any) -> None:
    """vosk segfaults on a grammar with no known word; the listener refuses first."""
    from companion.speech.recognizer import RecognizerError

    with pytest.raises(RecognizerError, match="model for this language"):
        Listener(load_lexicon("es"), ko_model)

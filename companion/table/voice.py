"""Voice into the table stream: words (from audio or a timed transcript)
become :class:`~companion.table.observations.VoiceObservation` objects.

The speech layer (``companion.speech``) decides what words mean for the game
as it stands; this module only feeds it the right game (the engine with
everything buffered and pending applied, as the tracker sees it) and
wraps its answer.  Two sources of words:

* audio: a WAV file or the microphone through ``companion.speech``'s vosk
  recogniser, when a pt/es model is installed (``companion models``);
* a timed transcript (JSON list of ``{"t", "words"}``), the stand-in used by
  the demo and the evaluation when no model is installed.  The words still go
  through the matcher; only the recogniser is skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.table.observations import VoiceObservation


class MicrophoneError(RuntimeError):
    """No microphone, or the audio device cannot be opened."""


class VoiceInterpreter:
    """Words + the current game -> a VoiceObservation (events or yes/no)."""

    def __init__(self, lang: str, variant: str | None = None) -> None:
        from companion.speech.lexicon import load_lexicon
        from companion.speech.matcher import Matcher

        self.lang = lang
        self.lexicon = load_lexicon(lang, variant)
        self.matcher = Matcher(self.lexicon)

    def interpret(self, t: float, words: str | list[Any], game: Any, pending: bool,
                  source: str = "transcript") -> VoiceObservation:
        from companion.speech.view import GameView

        text = words if isinstance(words, str) else " ".join(getattr(w, "text", str(w)) for w in words)
        result = self.matcher.match(words, GameView(game))
        if result.events:
            events = []
            for heard in result.events:
                when = t if heard.time is None or isinstance(words, str) else heard.time
                events.append({"event": dict(heard.event), "confidence": float(heard.confidence),
                               "decision": heard.decision, "t": when,
                               "reasons": list(heard.reasons),
                               # both teams could have said it: every seat that could have (the table is asked)
                               "seats": list(heard.seats) if heard.needs_seat_question else []})
            return VoiceObservation(t, text, tuple(events), None, None, source)
        if pending:
            answer = self.matcher.confirmation(words)
            if answer is not None:
                return VoiceObservation(t, text, (), "yes" if answer.answer else "no", None, source)
        return VoiceObservation(t, text, (), None, None, source)


def call_language(options: Any) -> str:
    """The language the calls are said in by default: Spanish-suited decks are
    played in Spanish (Argentine truco), French-suited ones in Portuguese."""
    return "es" if options.family == "spanish" else "pt"


def load_transcript(path: str | Path) -> list[dict[str, Any]]:
    """A timed transcript: a JSON list of ``{"t": seconds, "words": "..."}``
    (``text`` is accepted for ``words``; other fields are kept)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"cannot read transcript {path}: {err}") from None
    if isinstance(data, dict):
        data = data.get("calls") or data.get("transcript") or []
    items = []
    for item in data:
        if "t" not in item or not (item.get("words") or item.get("text")):
            raise ValueError(f"transcript {path}: every item needs 't' and 'words': {item!r}")
        items.append({**item, "words": item.get("words") or item.get("text")})
    return sorted(items, key=lambda x: float(x["t"]))


def speech_model_available(lang: str) -> Path | None:
    """The installed vosk model for ``lang`` (``companion models``), or None."""
    try:
        from companion.speech.models import ModelError, resolve_model
    except ImportError:
        return None
    try:
        return resolve_model(lang)
    except (ModelError, ValueError, KeyError):
        return None


class WordSpotter:
    """The speech layer's listener used only to *hear*: every phrase of the
    language and the yes/no words are in its grammar, and what it reports
    goes on as words with their audio time, to be interpreted late by fusion
    against the game as it stands then."""

    def __init__(self, lang: str, variant: str | None = None, model_path: str | Path | None = None) -> None:
        from companion.speech.lexicon import load_lexicon
        from companion.speech.listener import Listener, OpenView
        from companion.speech.models import load_vosk_model, resolve_model

        self.lexicon = load_lexicon(lang, variant)
        model = load_vosk_model(resolve_model(lang, model_path))
        self.listener = Listener(self.lexicon, model, OpenView(self.lexicon), early=False)
        self.listener.set_view(self.listener.view, confirmation=True)
        self._yes = sorted(self.lexicon.yes)[0] if self.lexicon.yes else "yes"
        self._no = sorted(self.lexicon.no)[0] if self.lexicon.no else "no"

    def _words(self, heard: list[Any], now: float) -> list[tuple[float, str]]:
        out = []
        for h in heard:
            if h.event is not None:
                t = h.event.time if h.event.time is not None else now
                out.append((float(t), h.event.said))
            elif h.confirmation is not None:
                t = h.confirmation.time if h.confirmation.time is not None else now
                out.append((float(t), self._yes if h.confirmation.answer else self._no))
        # the listener stops reporting yes/no after one answer: keep it listening for the next
        self.listener.set_view(self.listener.view, confirmation=True)
        return out

    def feed(self, pcm: bytes, now: float) -> list[tuple[float, str]]:
        return self._words(self.listener.feed(pcm), now)

    def finish(self, now: float) -> list[tuple[float, str]]:
        return self._words(self.listener.finish(), now)


def audio_words(path: str | Path, lang: str, variant: str | None = None) -> list[tuple[float, str]]:
    """(audio time, words) heard in a sound file by the installed vosk model.
    Raises the speech layer's ModelError when no model for ``lang`` is installed."""
    from companion.speech.audio import blocks, read_audio

    spotter = WordSpotter(lang, variant)
    out: list[tuple[float, str]] = []
    t = 0.0
    for pcm, t in blocks(read_audio(path)):
        out += spotter.feed(pcm, t)
    out += spotter.finish(t)
    return sorted(out)


def check_microphone() -> None:
    """Raise :class:`MicrophoneError` with a clear message when no input
    device can be opened."""
    try:
        import sounddevice as sd
    except OSError as err:  # PortAudio library missing
        raise MicrophoneError(f"no audio system: {err} (install libportaudio2)") from None
    try:
        devices = sd.query_devices()
    except Exception as err:  # noqa: BLE001 - any PortAudio failure means no microphone
        raise MicrophoneError(f"cannot list audio devices: {err}") from None
    inputs = [d for d in devices if d.get("max_input_channels", 0) > 0]
    if not inputs:
        raise MicrophoneError("no microphone found (no audio input device); "
                              "run without --mic or plug one in")



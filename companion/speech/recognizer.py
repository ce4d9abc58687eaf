"""A thin wrapper over vosk's KaldiRecognizer: feed PCM, get words with times.

Two details of vosk 0.3.45 shape it.  SetGrammar aborts the process when
called while an utterance is being decoded, so a new grammar is held
until the recogniser is between utterances: right after a final result, or
when the audio has been quiet long enough that a Reset loses nothing.  And
partial results carry no word times when a grammar is set, so a word heard
in a partial is stamped with the current audio time (the listener refines
it to the time the word first showed); final results have real times.  Word times are seconds of
audio since the recogniser was created (vosk keeps them absolute across
utterances and resets).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from companion.speech.matcher import Word

SAMPLE_RATE = 16000
PARTIAL_LAG = 0.0  # subtracted from a partial word's first-seen time; 0-0.1 s measured alike (bench)
QUIET_RMS = 300.0  # int16 RMS under which a block counts as quiet
QUIET_SECONDS = 0.4  # quiet needed before a pending grammar may reset the decoder


class RecognizerError(RuntimeError):
    """The recogniser cannot run as asked (vosk would crash on it)."""


def _check_grammar(grammar: list[str]) -> None:
    # vosk 0.3.45 dies with a segmentation fault on a grammar without a single
    # in-vocabulary word; the grammar builder only emits in-vocabulary words,
    # so an empty list means the model does not speak the lexicon's language.
    if not grammar:
        raise RecognizerError(
            "empty grammar: none of the lexicon's words is in this model's vocabulary "
            "(is it the model for this language?)"
        )


@dataclass
class Update:
    """What one block of audio changed."""

    audio_time: float  # seconds of audio fed so far
    final: bool  # True: ``words`` is a closed utterance; False: a partial hypothesis
    words: list[Word] = field(default_factory=list)
    text: str = ""


class VoskRecognizer:
    """Streaming recogniser over a loaded ``vosk.Model``."""

    def __init__(
        self,
        model: Any,
        grammar: list[str] | None = None,
        sample_rate: int = SAMPLE_RATE,
        partial_lag: float = PARTIAL_LAG,
    ):
        import vosk

        self._vosk = vosk
        self.model = model
        self.sample_rate = sample_rate
        self.partial_lag = partial_lag
        self.grammar = sorted(set(grammar)) if grammar is not None else None
        if self.grammar is not None:
            _check_grammar(self.grammar)
            self._rec = vosk.KaldiRecognizer(model, sample_rate, json.dumps(self.grammar, ensure_ascii=False))
        else:
            self._rec = vosk.KaldiRecognizer(model, sample_rate)
        self._rec.SetWords(True)
        self._samples = 0
        self._pending: list[str] | None = None
        self._quiet = 0.0
        self._last_partial = ""
        self.grammar_switches = 0

    @property
    def audio_time(self) -> float:
        return self._samples / self.sample_rate

    def set_grammar(self, phrases: list[str]) -> None:
        """Listen for these phrases from the next safe point on (see module doc)."""
        phrases = sorted(set(phrases))
        _check_grammar(phrases)
        if phrases == self.grammar:
            self._pending = None
            return
        self._pending = phrases

    @property
    def grammar_pending(self) -> bool:
        return self._pending is not None

    def _switch(self) -> None:
        assert self._pending is not None
        self._rec.SetGrammar(json.dumps(self._pending, ensure_ascii=False))
        self.grammar = self._pending
        self._pending = None
        self.grammar_switches += 1

    def accept(self, pcm: bytes) -> Update:
        """Feed 16-bit mono PCM at ``sample_rate``; returns the partial or final words."""
        samples = np.frombuffer(pcm, dtype=np.int16)
        self._samples += len(samples)
        rms = float(np.sqrt(np.mean(samples.astype(np.float64) ** 2))) if len(samples) else 0.0
        self._quiet = self._quiet + len(samples) / self.sample_rate if rms < QUIET_RMS else 0.0
        if self._rec.AcceptWaveform(pcm):
            update = self._final(json.loads(self._rec.Result()))
            if self._pending is not None:
                self._switch()
            return update
        partial = json.loads(self._rec.PartialResult()).get("partial", "")
        if self._pending is not None and not partial and self._quiet >= QUIET_SECONDS:
            self._rec.Reset()
            self._switch()
        if partial != self._last_partial:
            self._last_partial = partial
        estimate = self.audio_time - self.partial_lag
        words = [Word(w, None, estimate) for w in partial.split()]
        return Update(self.audio_time, False, words, partial)

    def _final(self, result: dict[str, Any]) -> Update:
        self._last_partial = ""
        words = [Word.from_vosk(item) for item in result.get("result", [])]
        return Update(self.audio_time, True, words, result.get("text", ""))

    def finish(self) -> Update:
        """Close the current utterance (end of a file or of listening)."""
        update = self._final(json.loads(self._rec.FinalResult()))
        if self._pending is not None:
            self._switch()
        return update

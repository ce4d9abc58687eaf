"""The live loop: audio blocks in, table-log events out, grammar kept in step.

``Listener`` joins the recogniser, the grammar builder and the matcher.
The caller owns the game: after applying what it accepts it calls
``set_view`` so the grammar follows the game.  To keep latency low an
event is emitted from a partial result as soon as its words are there,
when it may be applied without asking and its words cannot still grow
into a longer phrase ("con flor" may become "con flor quiero"); anything
that needs confirming waits for the final result and its real word times.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from companion.speech.grammar import GrammarBuilder, VocabularyReport, check_vocabulary
from companion.speech.lexicon import Lexicon
from companion.speech.matcher import Confirmation, HeardEvent, Matcher, Word
from companion.speech.models import word_lookup
from companion.speech.recognizer import Update, VoskRecognizer
from companion.speech.text import fold
from companion.speech.view import TableView


class OpenView:
    """Every phrase is legal, for every seat: listening without a game.

    Used by ``companion listen`` without ``--after``: it shows what was said;
    the team is unknown, so every event asks who said it.
    """

    def __init__(self, lexicon: Lexicon, players: int = 4):
        self.players = players
        legal: list[dict[str, Any]] = []
        for phrase in lexicon.phrases:
            for template in phrase.events:
                base = {k: v for k, v in template.items() if k not in ("to", "bet", "points")}
                if base["type"] == "eleven":
                    legal.extend({**base, "team": t} for t in range(2))
                else:
                    legal.extend({**base, "seat": s} for s in range(players))
        unique = {tuple(sorted(e.items())): e for e in legal}
        self._legal = list(unique.values())

    def legal_events(self) -> list[dict[str, Any]]:
        return self._legal

    def state(self) -> dict[str, Any]:
        return {"players": self.players}

    def after(self, event: dict[str, Any]) -> OpenView:
        return self

    def accepts(self, event: dict[str, Any]) -> bool:
        return True


@dataclass
class Heard:
    """Something the listener reports: an event or an answer to a confirmation."""

    detected_at: float  # audio time when it was emitted (for latency)
    source: str  # "partial" or "final"
    event: HeardEvent | None = None
    confirmation: Confirmation | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"detected_at": round(self.detected_at, 3), "source": self.source}
        if self.event is not None:
            out.update(self.event.to_dict())
        if self.confirmation is not None:
            c = self.confirmation
            out["confirmation"] = {"answer": c.answer, "time": c.time, "confidence": round(c.confidence, 3)}
        return out


class Listener:
    """Audio blocks in, ``Heard`` events and yes/no answers out (see the module doc).

    ``early``: emit apply-events from partial results (else finals only,
    about 0.5 s later).  ``stable_blocks``: how many earlier partials must
    show the same words first (2 measured best: bench/speech_latency.py).
    ``partial_lag``: seconds subtracted from the audio time at which a word
    first showed in a partial, to stamp an event heard early (partials carry
    no word times; measured median error about 0.2 s either way).  Word and event
    times are seconds of audio fed to this listener.
    """

    def __init__(
        self,
        lexicon: Lexicon,
        model: Any,
        view: TableView | None = None,
        *,
        early: bool = True,
        report: VocabularyReport | None = None,
        matcher: Matcher | None = None,
        partial_lag: float | None = None,
        stable_blocks: int = 2,
    ):
        self.lexicon = lexicon
        self.report = report or check_vocabulary(lexicon, word_lookup(model))
        self.matcher = matcher or Matcher(lexicon, respell=self.report.respell_map())
        self.grammar = GrammarBuilder(lexicon, self.report, self.matcher)
        self.view: TableView = view if view is not None else OpenView(lexicon)
        self.confirming = False
        self.early = early
        kwargs = {} if partial_lag is None else {"partial_lag": partial_lag}
        self.recognizer = VoskRecognizer(model, self.grammar.phrases(self.view), **kwargs)
        self._emitted: set[tuple[str, int]] = set()
        self.stable_blocks = stable_blocks  # partials that must agree before an early event
        self._history: list[tuple[str, ...]] = []  # the words of the last partials
        self._seen_at: list[float] = []  # audio time each word of the partial first appeared
        self.trace: list[tuple[float, str, str]] | None = None  # (audio time, partial/final, text) when set to []
        self._last_text = ""
        self._answered = False
        self._prefixes = {
            form.folded[:k] for p in lexicon.phrases for form in p.forms for k in range(1, len(form.words))
        }

    def set_view(self, view: TableView, confirmation: bool = False) -> None:
        """The game moved on (or a confirmation is now pending): update what is listened for."""
        self._answered = False
        if view is self.view and confirmation == self.confirming:
            return  # nothing changed: keep the grammar (building it costs a few ms)
        self.view = view
        self.confirming = confirmation
        self.recognizer.set_grammar(self.grammar.phrases(view, confirmation))

    def feed(self, pcm: bytes) -> list[Heard]:
        return self._handle(self.recognizer.accept(pcm))

    def finish(self) -> list[Heard]:
        return self._handle(self.recognizer.finish())

    def _open_tail(self, words: list[Word]) -> int:
        """How many trailing words could still grow into a longer phrase."""
        folded = tuple(fold(w.text) for w in words)
        for k in range(min(len(folded), 4), 0, -1):
            if folded[-k:] in self._prefixes:
                return k
        return 0

    def _stamp(self, update: Update) -> Update:
        """Partial words get the time they first appeared (minus the decoder's lag)."""
        if update.final:
            self._seen_at = []
            return update
        words = update.words
        previous = self._history[-1] if self._history else ()
        common = 0
        while common < min(len(words), len(previous)) and words[common].text == previous[common]:
            common += 1
        self._seen_at = self._seen_at[:common] + [update.audio_time] * (len(words) - common)
        lag = self.recognizer.partial_lag
        stamped = [Word(w.text, None, at - lag, w.conf) for w, at in zip(words, self._seen_at)]
        return Update(update.audio_time, False, stamped, update.text)

    def _handle(self, update: Update) -> list[Heard]:
        update = self._stamp(update)
        source = "final" if update.final else "partial"
        if self.trace is not None and (update.final or update.text != self._last_text):
            self.trace.append((update.audio_time, source, update.text))
        self._last_text = "" if update.final else update.text
        out: list[Heard] = []
        current = tuple(w.text for w in update.words)
        recent = self._history[-self.stable_blocks :] if self.stable_blocks else []
        stable = update.final or (
            self.early and len(recent) == self.stable_blocks and all(h == current for h in recent)
        )
        if update.words and self.confirming and not self._answered and stable:
            answer = self.matcher.confirmation(update.words)
            if answer is not None:
                self._answered = True
                out.append(Heard(update.audio_time, source, confirmation=answer))
        if update.words:
            result = self.matcher.match(update.words, self.view)
            tail = 0 if update.final else self._open_tail(result.heard)
            seen: Counter[str] = Counter()
            for event in result.events:
                key = (event.phrase, seen[event.phrase])
                seen[event.phrase] += 1
                if key in self._emitted:
                    continue
                if not update.final:
                    if not self.early or event.decision != "apply":
                        continue
                    if event.span[1] > len(result.heard) - tail:
                        continue
                    # The words up to the phrase must have been the same in the last
                    # partials: a partial can still turn "truco" into "trucho".
                    said_upto = len(update.words) - (len(result.heard) - event.span[1])
                    if len(recent) < self.stable_blocks or any(
                        h[:said_upto] != current[:said_upto] for h in recent
                    ):
                        continue
                self._emitted.add(key)
                out.append(Heard(update.audio_time, source, event=event))
        if update.final:
            self._history.clear()
        else:
            self._history = (self._history + [current])[-max(self.stable_blocks, 1) :]
        if update.final:
            self._emitted.clear()
            self._answered = self._answered and not self.confirming
        return out

"""The vosk grammar: the reserved phrases that can matter now, plus fillers.

A small vosk model decoding against a grammar can only output grammar
words and rarely says [unk]; without fillers any talk at the table would be
forced onto the nearest reserved word.  So the grammar holds the phrases
whose events are legal now (or one step ahead: "quiero" then "retruco"),
the lexicon's fillers and near misses ("trucho" must win over "truco"),
and the yes/no words while a confirmation is pending.  Words the model
does not know are spelled with words it does ("re truco"), found from the
lexicon's respellings or by splitting the word; the matcher joins them back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from companion.speech.lexicon import Lexicon
from companion.speech.matcher import Matcher
from companion.speech.view import TableView

UNK = "[unk]"


@dataclass
class VocabularyReport:
    """How each lexicon word reaches the model's vocabulary."""

    known: set[str] = field(default_factory=set)
    respelled: dict[str, tuple[str, ...]] = field(default_factory=dict)
    missing: set[str] = field(default_factory=set)  # reserved words with no spelling at all
    dropped: set[str] = field(default_factory=set)  # fillers etc. the model lacks (just left out)
    has_unk: bool = False

    def spelling(self, word: str) -> tuple[str, ...] | None:
        if word in self.known:
            return (word,)
        return self.respelled.get(word)

    def respell_map(self) -> dict[str, list[tuple[str, ...]]]:
        return {word: [seq] for word, seq in self.respelled.items()}

    def lines(self, lexicon: Lexicon) -> list[str]:
        out = []
        for word, seq in sorted(self.respelled.items()):
            out.append(f"'{word}' is not in the model's vocabulary: listened for as '{' '.join(seq)}'")
        for word in sorted(self.missing):
            phrases = sorted(
                p.id for p in lexicon.phrases for f in p.forms if word in f.words
            )
            out.append(
                f"'{word}' is not in the model's vocabulary and has no in-vocabulary spelling: "
                f"forms with it are not listened for (phrases: {', '.join(phrases)}); "
                f"their other forms still are"
            )
        if self.dropped:
            out.append(f"fillers left out (not in vocabulary): {', '.join(sorted(self.dropped))}")
        return out


def _split(word: str, has_word: Callable[[str], bool]) -> tuple[str, ...] | None:
    """Spell ``word`` as two in-vocabulary words ("contraflor" -> "contra flor")."""
    for cut in range(2, len(word) - 1):
        left, right = word[:cut], word[cut:]
        if has_word(left) and has_word(right):
            return (left, right)
    return None


def check_vocabulary(lexicon: Lexicon, has_word: Callable[[str], bool]) -> VocabularyReport:
    """Check every lexicon word against the model (vosk's find_word)."""
    report = VocabularyReport(has_unk=has_word(UNK))
    for word in sorted(lexicon.reserved_words()):
        if has_word(word):
            report.known.add(word)
            continue
        spelled = next(
            (seq for seq in lexicon.respell.get(word, []) if all(has_word(w) for w in seq)), None
        ) or _split(word, has_word)
        if spelled:
            report.respelled[word] = tuple(spelled)
        else:
            report.missing.add(word)
    for word in sorted(lexicon.fillers | lexicon.near_misses | lexicon.yes | lexicon.no):
        if word in report.known or word in report.respelled:
            continue
        if has_word(word):
            report.known.add(word)
        else:
            report.dropped.add(word)
    return report


class GrammarBuilder:
    """Builds the phrase list for vosk's SetGrammar from the game's state."""

    def __init__(self, lexicon: Lexicon, report: VocabularyReport, matcher: Matcher | None = None):
        self.lexicon = lexicon
        self.report = report
        self.matcher = matcher or Matcher(lexicon, respell=report.respell_map())

    def _spell(self, words: tuple[str, ...]) -> str | None:
        out: list[str] = []
        for word in words:
            seq = self.report.spelling(word)
            if seq is None:
                return None
            out.extend(seq)
        return " ".join(out)

    def background(self, confirmation: bool = False) -> set[str]:
        words = set(self.lexicon.fillers | self.lexicon.near_misses)
        if confirmation:
            words |= self.lexicon.yes | self.lexicon.no
        spelled = {self._spell((w,)) for w in words}
        return {s for s in spelled if s}

    def phrases(self, view: TableView | None, confirmation: bool = False, lookahead: bool = True) -> list[str]:
        """Every phrase worth hearing now, in the model's spelling; None view: all phrases."""
        if view is None:
            wanted = {p.id for p in self.lexicon.phrases}
        else:
            wanted = self.matcher.possible_phrases(view, lookahead=lookahead)
        out = set(self.background(confirmation))
        for phrase in self.lexicon.phrases:
            if phrase.id not in wanted:
                continue
            for form in phrase.forms:
                spelled = self._spell(form.words)
                if spelled:
                    out.add(spelled)
        if self.report.has_unk:
            out.add(UNK)
        return sorted(out)

"""The reserved words of a language as data: phrases, fillers, confusions.

A lexicon file (``lexicons/<lang>.json``) lists each table phrase with the
table-log events it can mean, in order of preference: "corro" is a refusal
when a bet is open, a fold when none is, the run decision in a mão de onze.
The matcher picks the first alternative the game allows, so the data stays
free of game logic.  Everything the recogniser may hear but must never act
on (table chatter, near misses such as "trucho") is listed too: the
grammar uses those words to absorb talk that would otherwise be forced onto
a reserved word.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from companion.speech.text import char_distance, fold, tokenize

LEXICON_PACKAGE = "companion.speech.lexicons"

# Cost of replacing an expected word with a heard word that is not in the
# lexicon at all (typed input, a model spelling): scaled by the character
# edit ratio; beyond MAX_CHAR_RATIO the words are simply different.
CHAR_SUB_SCALE = 1.6
MAX_CHAR_RATIO = 0.34


class LexiconError(ValueError):
    """A lexicon file is malformed."""


@dataclass(frozen=True)
class Form:
    """One way of saying a phrase: its words (model spelling) and extra cost."""

    words: tuple[str, ...]
    cost: float = 0.0

    @property
    def folded(self) -> tuple[str, ...]:
        return tuple(fold(w) for w in self.words)


@dataclass(frozen=True)
class Phrase:
    """A reserved phrase: the forms it is said in and the events it can mean.

    ``events`` are templates: fields to match against the engine's legal
    events (``to`` is a list of acceptable stakes), plus fields the phrase
    supplies itself (``points`` for a declared number).  ``bet`` names the
    open bet the answer refers to ("con flor quiero" answers a flor).
    """

    id: str
    forms: tuple[Form, ...]
    events: tuple[dict[str, Any], ...]
    variants: frozenset[str] | None = None


@dataclass
class Lexicon:
    lang: str
    description: str
    phrases: list[Phrase]
    fillers: set[str]
    near_misses: set[str]
    yes: set[str]
    no: set[str]
    respell: dict[str, list[tuple[str, ...]]]
    subs: dict[tuple[str, str], float]
    model: dict[str, Any] = field(default_factory=dict)
    espeak_voice: str | None = None
    variant: str | None = None

    # -- vocabulary -------------------------------------------------------
    def reserved_words(self) -> set[str]:
        """Every word that appears in a reserved phrase (model spelling)."""
        return {w for p in self.phrases for f in p.forms for w in f.words}

    def all_words(self) -> set[str]:
        return self.reserved_words() | self.fillers | self.near_misses | self.yes | self.no

    def known_folded(self) -> set[str]:
        return {fold(w) for w in self.all_words()}

    # -- costs ------------------------------------------------------------
    def substitution_cost(self, heard: str, expected: str, known: set[str] | None = None) -> float:
        """Cost of taking ``heard`` (folded) for the lexicon word ``expected`` (folded).

        Explicit confusions come from the data.  A heard word the lexicon
        knows as something else (a filler, a near miss) is never bent into a
        reserved word; only unknown words (typing, spelling variants) get a
        cost from their character distance.
        """
        if heard == expected:
            return 0.0
        explicit = self.subs.get((heard, expected))
        if explicit is not None:
            return explicit
        if known is None:
            known = self.known_folded()
        if heard in known:
            return float("inf")
        ratio = char_distance(heard, expected) / max(len(heard), len(expected))
        if ratio > MAX_CHAR_RATIO:
            return float("inf")
        return CHAR_SUB_SCALE * ratio

    def yes_no(self, words: list[str]) -> bool | None:
        """True/False when the words say only yes or only no, else None."""
        folded = [fold(w) for w in words]
        yes = {fold(w) for w in self.yes}
        no = {fold(w) for w in self.no}
        said_yes = any(w in yes for w in folded)
        said_no = any(w in no for w in folded)
        if said_yes == said_no:
            return None
        return said_yes


def _forms(raw: list[Any], phrase_id: str) -> tuple[Form, ...]:
    forms = []
    for item in raw:
        if isinstance(item, str):
            text, cost = item, 0.0
        elif isinstance(item, dict) and "text" in item:
            text, cost = item["text"], float(item.get("cost", 0.0))
        else:
            raise LexiconError(f"phrase {phrase_id!r}: bad form {item!r}")
        words = tuple(tokenize(text))
        if not words:
            raise LexiconError(f"phrase {phrase_id!r}: empty form")
        forms.append(Form(words, cost))
    return tuple(forms)


def _points_phrases(spec: dict[str, Any]) -> list[Phrase]:
    """Expand the number words into one ``points`` phrase per value."""
    words = spec.get("words", [])
    alternatives = spec.get("alternatives", {})
    prefixes = [tuple(tokenize(p)) for p in spec.get("prefixes", [])]
    variants = frozenset(fold(v) for v in spec["variants"]) if spec.get("variants") else None
    phrases = []
    for value, text in enumerate(words):
        texts = [text, *alternatives.get(str(value), [])]
        forms: list[Form] = []
        for t in texts:
            base = tuple(tokenize(t))
            forms.append(Form(base))
            forms.extend(Form(prefix + base) for prefix in prefixes)
        phrases.append(
            Phrase(f"points_{value}", tuple(forms), ({"type": "points", "points": value},), variants)
        )
    return phrases


def lexicon_from_dict(data: dict[str, Any], variant: str | None = None) -> Lexicon:
    """Build a lexicon from parsed data (a file, or a test's own dict)."""
    try:
        lang = data["lang"]
        raw_phrases = data["phrases"]
    except KeyError as missing:
        raise LexiconError(f"lexicon lacks {missing}") from None
    phrases: list[Phrase] = []
    seen: set[str] = set()
    for raw in raw_phrases:
        pid = raw.get("id")
        if not pid or pid in seen:
            raise LexiconError(f"phrase id missing or repeated: {pid!r}")
        seen.add(pid)
        events = tuple(raw.get("events", ()))
        if not events or not all(isinstance(e, dict) and "type" in e for e in events):
            raise LexiconError(f"phrase {pid!r}: events must be a list of templates with a type")
        variants = frozenset(fold(v) for v in raw["variants"]) if raw.get("variants") else None
        phrases.append(Phrase(pid, _forms(raw.get("say", []), pid), events, variants))
    if "points" in data:
        phrases.extend(_points_phrases(data["points"]))
    if variant:
        key = fold(variant)
        phrases = [p for p in phrases if p.variants is None or key in p.variants]
    subs = {}
    for entry in data.get("subs", []):
        heard, expected, cost = entry
        subs[(fold(heard), fold(expected))] = float(cost)
    respell = {
        word: [tuple(seq) for seq in seqs] for word, seqs in data.get("respell", {}).items()
    }
    return Lexicon(
        lang=lang,
        description=data.get("description", ""),
        phrases=phrases,
        fillers=set(data.get("fillers", [])),
        near_misses=set(data.get("near_misses", [])),
        yes=set(data.get("yes", [])),
        no=set(data.get("no", [])),
        respell=respell,
        subs=subs,
        model=dict(data.get("model", {})),
        espeak_voice=data.get("espeak_voice"),
        variant=variant,
    )


def available_languages() -> list[str]:
    return sorted(
        Path(entry.name).stem
        for entry in resources.files(LEXICON_PACKAGE).iterdir()
        if entry.name.endswith(".json")
    )


def load_lexicon(lang: str, variant: str | None = None, path: Path | None = None) -> Lexicon:
    """Load the shipped lexicon for ``lang`` (or the file at ``path``).

    ``variant`` keeps only phrases meant for that variant (phrases without a
    variant list are kept for all); an unknown variant keeps the common ones.
    """
    if path is not None:
        text = Path(path).read_text(encoding="utf-8")
    else:
        resource = resources.files(LEXICON_PACKAGE) / f"{lang}.json"
        if not resource.is_file():
            raise LexiconError(
                f"no lexicon for language {lang!r}; available: {', '.join(available_languages())}"
            )
        text = resource.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LexiconError(f"lexicon {path or lang}: {exc}") from None
    return lexicon_from_dict(data, variant)

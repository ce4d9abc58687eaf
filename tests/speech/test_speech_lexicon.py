"""The lexicons: well-formed, complete for the rule texts, consistent with the table log."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.speech.lexicon import LexiconError, available_languages, lexicon_from_dict, load_lexicon
from companion.speech.text import fold, tokenize

EVENT_TYPES = {"raise", "envido", "flor", "accept", "refuse", "points", "good", "fold", "eleven"}


@pytest.mark.parametrize("lang", ["es", "pt", "ko"])
def test_lexicon_is_well_formed(lang: str) -> None:
    lexicon = load_lexicon(lang)
    assert lexicon.phrases and lexicon.yes and lexicon.no
    for phrase in lexicon.phrases:
        for template in phrase.events:
            assert template["type"] in EVENT_TYPES, (phrase.id, template)
            if "to" in template:
                assert all(isinstance(t, int) for t in template["to"])
    # A filler that is also a reserved word would make the word unreachable on its own.
    reserved_alone = {p.forms[0].words[0] for p in lexicon.phrases if len(p.forms[0].words) == 1}
    assert not (reserved_alone & lexicon.near_misses), reserved_alone & lexicon.near_misses


def test_available_languages() -> None:
    assert {"es", "pt", "ko"} <= set(available_languages())
    with pytest.raises(LexiconError, match="available"):
        load_lexicon("xx")


def _said(lang: str, variant: str | None = None) -> set[tuple[str, ...]]:
    return {f.folded for p in load_lexicon(lang, variant).phrases for f in p.forms}


def test_spanish_words_of_the_issue() -> None:
    said = _said("es", "argentino")
    for text in ["truco", "retruco", "vale cuatro", "quiero", "no quiero", "envido", "real envido",
                 "falta envido", "flor", "contraflor", "contraflor al resto", "con flor me achico",
                 "con flor quiero", "son buenas", "me voy al mazo"]:
        assert tuple(fold(w) for w in tokenize(text)) in said, text
    points = {p.events[0]["points"] for p in load_lexicon("es").phrases if p.events[0]["type"] == "points"}
    assert set(range(34)) <= points


def test_portuguese_words_of_the_issue() -> None:
    said = _said("pt", "paulista")
    for text in ["truco", "seis", "nove", "doze", "vale seis", "vale nove", "vale doze", "queda", "aceito",
                 "cai", "vem", "bate", "joga", "mata", "corro", "não quero"]:
        assert tuple(fold(w) for w in tokenize(text)) in said, text
    eleven = {p.id for p in load_lexicon("pt").phrases if any(t["type"] == "eleven" for t in p.events)}
    assert {"aceito", "corro", "onze_joga"} <= eleven


def test_points_only_for_variants_with_envido() -> None:
    assert not any(p.id.startswith("points_") for p in load_lexicon("pt", "paulista").phrases)
    assert any(p.id == "points_28" for p in load_lexicon("pt", "argentino").phrases)


def test_rule_texts_reserved_words_are_covered(shared: Path) -> None:
    """Every bet word the rule texts quote is in a lexicon (read from ../shared/rules)."""
    rules = shared / "rules"
    spanish = (rules / "argentine-truco.txt").read_text(encoding="utf-8")
    portuguese = (rules / "brazilian-truco-mineiro-paulista.txt").read_text(encoding="utf-8")
    quoted_es = {q.lower() for q in re.findall(r'"([^"]+)"', spanish)}
    quoted_pt = {q.lower() for q in re.findall(r'"([^"]+)"', portuguese)}
    es = _said("es", "argentino")
    pt = _said("pt", "mineiro")
    bets_es = {"truco", "quiero", "no quiero", "retruco", "vale cuatro", "envido", "real envido", "falta envido",
               "flor", "contraflor", "contraflor al resto", "con flor me achico", "son buenas"}
    bets_pt = {"truco", "corro", "aceito", "joga", "bate", "vem", "mata", "cai", "vale 6", "vale 9", "queda"}
    for text in bets_es:
        assert any(text in q for q in quoted_es), f"{text!r} is not quoted in the Argentine rules"
        assert tuple(tokenize(fold(text))) in es, text
    numbers = {"6": "seis", "9": "nove"}
    for text in bets_pt:
        assert any(text in q for q in quoted_pt), f"{text!r} is not quoted in the Brazilian rules"
        words = tuple(numbers.get(w, w) for w in tokenize(fold(text)))
        assert words in pt, text


def test_lexicon_from_dict_rejects_bad_data() -> None:
    with pytest.raises(LexiconError):
        lexicon_from_dict({"lang": "xx", "phrases": [{"id": "a", "say": ["x"], "events": []}]})
    with pytest.raises(LexiconError):
        lexicon_from_dict({"lang": "xx", "phrases": [{"id": "a", "say": ["x"], "events": [{"type": "accept"}]},
                                                     {"id": "a", "say": ["y"], "events": [{"type": "refuse"}]}]})
    with pytest.raises(LexiconError):
        lexicon_from_dict({"phrases": []})

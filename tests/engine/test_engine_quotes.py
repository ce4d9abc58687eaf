"""The sentences the engine tests cite still appear in the rule texts."""

from __future__ import annotations

import re

import pytest
from engine_quotes import QUOTES


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("key", sorted(QUOTES))
def test_quote_appears_in_text(shared, key):
    filename, sentence = QUOTES[key]
    text = _norm((shared / "rules" / filename).read_text(encoding="utf-8"))
    assert _norm(sentence) in text, f"{key}: not found in {filename}"

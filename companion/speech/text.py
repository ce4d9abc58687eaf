"""Word normalisation shared by the lexicon, the grammar and the matcher.

The recogniser must be given words in the model's own spelling ("não"),
but matching compares folded forms ("nao") so that typed input, model
spellings and lexicon entries meet without a table of every accent.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)


@lru_cache(maxsize=8192)
def fold(word: str) -> str:
    """Lower-case and strip combining accents; Hangul syllables survive (NFC)."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    stripped = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    return unicodedata.normalize("NFC", stripped)


def tokenize(text: str) -> list[str]:
    """Split free text into lower-case words in their original spelling."""
    return [m.group(0) for m in _WORD_RE.finditer(unicodedata.normalize("NFC", text.lower()))]


def char_distance(a: str, b: str) -> int:
    """Plain Levenshtein distance between two strings (used for typed words)."""
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]

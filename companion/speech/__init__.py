"""Speech: hear the reserved words of truco and turn them into table-log events.

Public entry points (see README part speech.md):

- ``load_lexicon(lang, variant)`` -- the reserved words as data.
- ``Matcher(lexicon).match(words_or_text, view) -> MatchResult`` -- pure matching.
- ``Matcher.confirmation(words) -> Confirmation | None`` -- spoken yes/no.
- ``GameView(game)`` / ``StaticView`` -- what the matcher may know of the game.
- ``Listener(lexicon, model, view).feed(pcm) -> list[Heard]`` -- the live loop.
"""

from companion.speech.lexicon import Lexicon, load_lexicon
from companion.speech.matcher import Confirmation, HeardEvent, Matcher, MatchResult, Word
from companion.speech.view import GameView, StaticView, TableView

__all__ = [
    "Confirmation",
    "GameView",
    "HeardEvent",
    "Lexicon",
    "MatchResult",
    "Matcher",
    "StaticView",
    "TableView",
    "Word",
    "load_lexicon",
]

"""Cards, suits, families and the decks the rule texts use.

Cards travel through the table log as short strings (``4C``, ``10D``, ``1E``,
``12B``; see TABLE-LOG.md).  The letter ``C`` means clubs in the French family
and copas in the Spanish one, so a card string only has a meaning together
with its family; every parser here therefore takes the family.

The engine works on the canonical strings themselves (they are hashable,
cheap and what the log carries); :class:`Card` is the structured view for code
that wants rank and suit separately.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

FRENCH = "french"
SPANISH = "spanish"
FAMILIES = (FRENCH, SPANISH)

#: Ranks in their printed order (not their truco strength).
FRENCH_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SPANISH_RANKS = tuple(str(n) for n in range(1, 13))
FRENCH_SUITS = ("C", "H", "S", "D")  # clubs, hearts, spades, diamonds
SPANISH_SUITS = ("O", "C", "E", "B")  # oros, copas, espadas, bastos

SUIT_NAMES = {
    FRENCH: {"C": "clubs", "H": "hearts", "S": "spades", "D": "diamonds"},
    SPANISH: {"O": "oros", "C": "copas", "E": "espadas", "B": "bastos"},
}
SUIT_SYMBOLS = {"C": "♣", "H": "♥", "S": "♠", "D": "♦"}

#: The joker of the Mineiro "três e meio" option.  It has no suit.
JOKER = "JK"

#: Deck names accepted by the ``deck`` option, with their family.
DECKS: dict[str, str] = {
    "dirty40": FRENCH,  # baralho sujo: 52 minus 8, 9, 10
    "clean27": FRENCH,  # baralho limpo (Mineiro): 3 2 A K J Q + 4C 7H 7D
    "clean24": FRENCH,  # clean deck with vira (minitruco manual): Q J K A 2 3
    "clean28": FRENCH,  # A K Q J 7 3 2 (28-card game with vira)
    "spanish40": SPANISH,  # 1-7, 10-12
    "spanish48": SPANISH,  # 1-12, for completeness
}


class CardError(ValueError):
    """A string that is not a card of the given family (or deck)."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card: ``rank`` and ``suit`` as in the table-log notation."""

    rank: str
    suit: str
    family: str = FRENCH

    def __str__(self) -> str:
        return self.rank + self.suit

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER

    @classmethod
    def parse(cls, text: str, family: str = FRENCH) -> Card:
        """Parse ``text`` (case-insensitive) as a card of ``family``."""
        code = canonical(text, family)
        if code == JOKER:
            return cls(JOKER, "", family)
        return cls(code[:-1], code[-1], family)

    def pretty(self) -> str:
        """Human-readable form, e.g. ``4♣`` or ``1 de espadas``."""
        if self.is_joker:
            return "joker"
        if self.family == FRENCH:
            return f"{self.rank}{SUIT_SYMBOLS[self.suit]}"
        return f"{self.rank} de {SUIT_NAMES[SPANISH][self.suit]}"


@lru_cache(maxsize=4096)
def canonical(text: Any, family: str = FRENCH) -> str:
    """Return the canonical card string for ``text`` or raise :class:`CardError`.

    Accepts lower case and surrounding spaces (speech and vision produce
    both) but nothing ambiguous: the rank must be one of the family's ranks
    and the suit one of its four letters.
    """
    if not isinstance(text, str):
        raise CardError(f"a card must be a string, got {text!r}")
    code = text.strip().upper()
    if family == FRENCH and code in (JOKER, "JOKER"):
        return JOKER
    if len(code) < 2:
        raise CardError(f"{text!r} is not a card")
    rank, suit = code[:-1], code[-1]
    if family == FRENCH:
        ranks, suits = FRENCH_RANKS, FRENCH_SUITS
    elif family == SPANISH:
        ranks, suits = SPANISH_RANKS, SPANISH_SUITS
        rank = rank.lstrip("0") or rank
    else:
        raise CardError(f"unknown card family {family!r}")
    if rank not in ranks or suit not in suits:
        raise CardError(f"{text!r} is not a {family} card (expected e.g. {_example(family)})")
    return rank + suit


def _example(family: str) -> str:
    return "4C, 7H, AS, 10D" if family == FRENCH else "1E, 7O, 12B"


def _build(ranks: tuple[str, ...], suits: tuple[str, ...]) -> list[str]:
    return [r + s for s in suits for r in ranks]


def deck_cards(deck: str, joker: bool = False) -> list[str]:
    """The cards (canonical strings) of a named deck, optionally with the joker."""
    if deck == "dirty40":
        cards = _build(("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"), FRENCH_SUITS)
    elif deck == "clean27":
        cards = _build(("A", "2", "3", "J", "Q", "K"), FRENCH_SUITS) + ["4C", "7H", "7D"]
    elif deck == "clean24":
        cards = _build(("A", "2", "3", "J", "Q", "K"), FRENCH_SUITS)
    elif deck == "clean28":
        cards = _build(("A", "2", "3", "7", "J", "Q", "K"), FRENCH_SUITS)
    elif deck == "spanish40":
        cards = _build(("1", "2", "3", "4", "5", "6", "7", "10", "11", "12"), SPANISH_SUITS)
    elif deck == "spanish48":
        cards = _build(SPANISH_RANKS, SPANISH_SUITS)
    else:
        raise CardError(f"unknown deck {deck!r}; known: {', '.join(DECKS)}")
    if joker:
        if DECKS[deck] != FRENCH:
            raise CardError("the joker option needs a French-suited deck")
        cards.append(JOKER)
    return cards


def deck_for(options: Any) -> list[Card]:
    """The deck of a variant (anything with ``deck`` and ``joker`` attributes)."""
    family = DECKS[options.deck]
    return [Card.parse(c, family) for c in deck_cards(options.deck, options.joker)]


def rank_of(card: str) -> str:
    return JOKER if card == JOKER else card[:-1]


def suit_of(card: str) -> str:
    return "" if card == JOKER else card[-1]


def envido_value(card: str) -> int:
    """Value of a Spanish card for envido and flor: 1-7 face value, pictures 0."""
    rank = int(rank_of(card))
    return rank if rank <= 7 else 0

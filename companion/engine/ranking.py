"""Card strength for one hand: fixed manilhas, vira manilhas, cartas bravas.

A hand's ranking is a plain ``dict`` from card string to an integer; equal
integers tie.  Building it once per deal keeps the trick loop to dictionary
look-ups, which is what the benchmark spends its time on.
"""

from __future__ import annotations

from functools import lru_cache

from companion.cards import JOKER, rank_of, suit_of
from companion.engine.variants import VariantOptions, _deck

#: Brazilian order of ranks, low to high (Queens below Jacks).
BRAZILIAN_RANKS = ("4", "5", "6", "7", "Q", "J", "K", "A", "2", "3")
#: Manilha suits, low to high: diamonds < spades < hearts < clubs.
MANILHA_SUITS = ("D", "S", "H", "C")
#: Mineiro's fixed manilhas, high to low: zap, copas, espadilha, pica-fumo.
FIXED_MANILHAS = ("4C", "7H", "AS", "7D")
#: Argentine cartas bravas, high to low.
BRAVAS = ("1E", "1B", "7E", "7O")
#: Argentine ordinary ranks, low to high (8 and 9 only exist in the 48-card deck).
ARGENTINE_RANKS = ("4", "5", "6", "7", "8", "9", "10", "11", "12", "1", "2", "3")

MANILHA_BASE = 100


@lru_cache(maxsize=1024)
def _ranking(deck_name: str, joker: bool, manilhas: str, vira: str | None) -> tuple[dict[str, int], tuple[str, ...]]:
    deck = _deck(deck_name, joker)
    strength: dict[str, int] = {}
    top: list[str] = []
    if manilhas == "bravas":
        for card in deck:
            strength[card] = ARGENTINE_RANKS.index(rank_of(card))
        for i, card in enumerate(reversed(BRAVAS)):
            if card in strength:
                strength[card] = MANILHA_BASE + i
        top = [c for c in BRAVAS if c in strength]
    elif manilhas == "fixed":
        for card in deck:
            if card != JOKER:
                strength[card] = BRAZILIAN_RANKS.index(rank_of(card))
        if JOKER in deck:
            strength[JOKER] = MANILHA_BASE  # três e meio: above the 3s, below 7D
        for i, card in enumerate(reversed(FIXED_MANILHAS)):
            if card in strength:
                strength[card] = MANILHA_BASE + 1 + i
        top = [c for c in FIXED_MANILHAS if c in strength]
    elif manilhas == "vira":
        if vira is None:
            raise ValueError("a vira is needed to rank the cards")
        present = {rank_of(c) for c in deck}
        cycle = [r for r in BRAZILIAN_RANKS if r in present]
        manilha_rank = cycle[(cycle.index(rank_of(vira)) + 1) % len(cycle)]
        for card in deck:
            rank = rank_of(card)
            if rank == manilha_rank:
                strength[card] = MANILHA_BASE + MANILHA_SUITS.index(suit_of(card))
            else:
                strength[card] = BRAZILIAN_RANKS.index(rank)
        top = [manilha_rank + s for s in reversed(MANILHA_SUITS) if manilha_rank + s in strength]
    else:
        raise ValueError(f"unknown manilha system {manilhas!r}")
    return strength, tuple(top)


def ranking(options: VariantOptions, vira: str | None = None) -> dict[str, int]:
    """Card -> strength for a hand (higher wins; equal values tie)."""
    return _ranking(options.deck, options.joker, options.manilhas, vira)[0]


def manilhas(options: VariantOptions, vira: str | None = None) -> list[str]:
    """The manilhas (or cartas bravas) of a hand, high to low."""
    return list(_ranking(options.deck, options.joker, options.manilhas, vira)[1])


def order_high_to_low(options: VariantOptions, vira: str | None = None) -> list[list[str]]:
    """All cards grouped by equal strength, strongest group first (for display and tests)."""
    strength = ranking(options, vira)
    groups: dict[int, list[str]] = {}
    for card, value in strength.items():
        groups.setdefault(value, []).append(card)
    return [sorted(groups[v]) for v in sorted(groups, reverse=True)]

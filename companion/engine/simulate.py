"""Random legal playouts: a dealer with hidden hands driving the engine.

The engine never knows the hidden cards; this module plays the part of the
table for tests, the benchmark and the demo: it deals, picks one of the
engine's legal events at random (weighted so that games look like games),
fills in the card or the declared points from the simulated hands, and
records the table log.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

from companion.cards import envido_value, suit_of
from companion.engine.game import Game
from companion.engine.outcomes import Outcome

_TYPE = itemgetter("type")

WEIGHTS = {
    "play": 12.0, "raise": 1.0, "accept": 2.0, "refuse": 1.0, "fold": 0.08, "envido": 0.4,
    "flor": 6.0, "points": 1.0, "good": 1.0, "eleven": 1.0, "hand": 1.0,
}


def _pool_sample(rng: random.Random, population: list[str], k: int) -> list[str]:
    """``rng.sample(population, k)`` for a deck-sized list, without a method call per card.

    The same draws as CPython's ``Random.sample`` for small populations (a pool
    with swap-remove and rejection-sampled ``getrandbits``), so a seed deals
    the same cards either way; ``_SAMPLE_MATCHES`` checks that at import and
    :meth:`Table._deal` falls back to ``rng.sample`` if another Python differs.
    """
    n = len(population)
    pool = list(population)
    getrandbits = rng.getrandbits
    result = []
    for i in range(k):
        m = n - i
        bits = m.bit_length()
        j = getrandbits(bits)
        while j >= m:
            j = getrandbits(bits)
        result.append(pool[j])
        pool[j] = pool[m - 1]
    return result


def _pool_path(n: int, k: int) -> bool:
    """Does ``Random.sample`` take its pool path for these sizes (CPython 3.11 rule)?"""
    setsize = 21
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    return n <= setsize


def _sample_matches() -> bool:
    deck = [f"c{i}" for i in range(48)]
    for seed in range(3):
        for n, k in ((40, 13), (27, 19), (48, 7)):
            a, b = random.Random(seed), random.Random(seed)
            if _pool_sample(a, deck[:n], k) != b.sample(deck[:n], k) or a.getstate() != b.getstate():
                return False
    return True


_SAMPLE_MATCHES = _sample_matches()


def envido_points(cards: list[str]) -> int:
    """Best envido of a Spanish hand: two of a suit count 20 + values, else the best card."""
    best = max(envido_value(c) for c in cards)
    for i, a in enumerate(cards):
        for b in cards[i + 1:]:
            if suit_of(a) == suit_of(b):
                best = max(best, 20 + envido_value(a) + envido_value(b))
    return best


def flor_points(cards: list[str]) -> int | None:
    """Flor value (20 + the three values) or None when the suits differ."""
    if len({suit_of(c) for c in cards}) != 1:
        return None
    return 20 + sum(envido_value(c) for c in cards)


class Table:
    """A simulated table: hidden hands plus a :class:`Game` fed with its log."""

    def __init__(self, variant: str = "paulista", players: int = 4, seed: int | None = None,
                 options: dict[str, Any] | None = None, weights: dict[str, float] | None = None) -> None:
        self.rng = random.Random(seed)
        self._random = self.rng.random
        self.match: dict[str, Any] = {"type": "match", "variant": variant, "players": players}
        if options:
            self.match["options"] = dict(options)
        self.game = Game(self.match)
        self.log: list[dict[str, Any]] = [self.match]
        self.hands: dict[int, list[str]] = {}
        self.weights = dict(WEIGHTS, **(weights or {}))
        for kind in ("undo", "note", "penalty"):
            self.weights.setdefault(kind, 0.0)
        self.deck = self.game.variant.deck_cards
        self.hands_played = 0
        self._dealt_cards: dict[int, list[str]] = {}
        self._flor_game = self.game.variant.flor
        self._flor_seats: set[int] = set()

    # -- choosing ---------------------------------------------------------
    def _allowed(self, ev: dict[str, Any]) -> bool:
        kind = ev["type"]
        if kind == "flor":  # only players who hold a flor announce or bet one
            return ev["seat"] in self._flor_seats
        return True

    def choose(self) -> dict[str, Any] | None:
        # The engine's listing without its defensive copies (Game.legal_events() copies
        # every event); only the event picked is copied, below, before it is filled in.
        legal = self.game._legal(False)
        if self._flor_game:
            legal = [ev for ev in legal if self._allowed(ev)]
        if not legal:
            return None
        ws = list(map(self.weights.__getitem__, map(_TYPE, legal)))
        r = self._random() * sum(ws)
        for ev, w in zip(legal, ws):
            r -= w
            if r < 0:
                break
        return self._complete(dict(ev))

    def _complete(self, ev: dict[str, Any]) -> dict[str, Any]:
        kind = ev["type"]
        rng = self.rng
        if kind == "play":
            hand = self.hands[ev["seat"]]
            ev["card"] = hand.pop(int(self._random() * len(hand)))
        elif kind == "hand":
            n = self.game.players
            cards = self._deal(3 * n + 1)
            self.hands = {s: cards[3 * s:3 * s + 3] for s in range(n)}
            if ev.get("vira", 0) is None:
                ev["vira"] = cards[3 * n]
        elif kind == "points":
            what = self.game.declaration_kind(ev["seat"])
            if what == "flor":
                pts = flor_points(self._dealt(ev["seat"]))
                ev["points"] = pts if pts is not None else rng.randint(20, 38)
            else:
                ev["points"] = envido_points(self._dealt(ev["seat"]))
        return ev

    def _deal(self, k: int) -> list[str]:
        """``k`` random cards of the deck, in dealing order (``rng.sample``)."""
        deck = self.deck
        if _SAMPLE_MATCHES and type(self.rng) is random.Random and _pool_path(len(deck), k):
            return _pool_sample(self.rng, deck, k)
        return self.rng.sample(deck, k)

    def _dealt(self, seat: int) -> list[str]:
        """The three cards dealt to ``seat`` (played ones included)."""
        return self._dealt_cards[seat]

    # -- running -----------------------------------------------------------
    def step(self) -> list[Outcome] | None:
        """Choose, fill in and apply one event; None when the match is over."""
        ev = self.choose()
        if ev is None:
            return None
        kind = ev["type"]
        if kind == "hand":
            self.hands_played += 1
        out = self.game.apply(ev)
        if kind == "hand":
            self._dealt_cards = {s: list(c) for s, c in self.hands.items()}
            if self._flor_game:
                self._flor_seats = {s for s, c in self._dealt_cards.items() if flor_points(c) is not None}
        self.log.append(ev)
        return out

    def play_game(self, max_events: int = 5000) -> list[dict[str, Any]]:
        """Play until the match is over (or ``max_events``); return the table log."""
        for _ in range(max_events):
            if self.step() is None:
                break
        return self.log

    def events(self, count: int) -> Iterator[dict[str, Any]]:
        for _ in range(count):
            if self.step() is None:
                return
            yield self.log[-1]


def random_log(variant: str, players: int, seed: int, options: dict[str, Any] | None = None,
               max_events: int = 5000) -> list[dict[str, Any]]:
    """A complete random legal table log (match line first)."""
    return Table(variant, players, seed, options).play_game(max_events)

"""Helpers for the speech tests: engine games at chosen moments."""

from __future__ import annotations

from typing import Any

from companion.engine import Game
from companion.speech.view import GameView, StaticView


def game_after(variant: str, events: list[dict[str, Any]], players: int = 4) -> Game:
    game = Game({"type": "match", "variant": variant, "players": players})
    for event in events:
        game.apply(event)
    return game


def view_after(variant: str, events: list[dict[str, Any]], players: int = 4) -> GameView:
    return GameView(game_after(variant, events, players))


def eleven_hand(variant: str = "paulista") -> list[dict[str, Any]]:
    """Events that bring team 0 to 11 (opponents fold eleven hands) and deal the mão de onze."""
    events: list[dict[str, Any]] = []
    dealer = 3
    for _ in range(11):
        events.append({"type": "hand", "dealer": dealer, "vira": "4D"})
        events.append({"type": "fold", "seat": 1})
        dealer = (dealer + 1) % 4
    events.append({"type": "hand", "dealer": dealer, "vira": "4D"})
    return events


def ladder_view(team: int = 0, to: int | None = 3, turn: int = 0) -> StaticView:
    """A hand-written truco ladder for the Korean test lexicon (no envido/flor rules).

    ``team`` may raise to ``to``; after the raise the other team answers; after
    an accept the answering team may raise to the next step.  Envido is open
    to seat 0 until a raise.
    """
    from companion.speech.view import StaticView

    nxt = {3: 6, 6: 9, 9: 12}
    quiet = StaticView([{"type": "play", "seat": turn}], {"players": 4, "turn": turn})

    def answering(raiser: int, to_: int) -> StaticView:
        other = 1 - raiser
        legal = [{"type": t, "seat": s} for s in (other, other + 2) for t in ("accept", "refuse")]
        return StaticView(legal, {"players": 4, "turn": turn},
                          lambda ev: opening(other, nxt.get(to_)) if ev["type"] == "accept" else quiet)

    def opening(team_: int, to_: int | None) -> StaticView:
        legal: list[dict[str, Any]] = [{"type": "play", "seat": turn}]
        if to_:
            legal += [{"type": "raise", "seat": s, "to": to_} for s in (team_, team_ + 2)]
        if to_ == 3:
            legal.append({"type": "envido", "seat": 0, "kind": "envido"})
        return StaticView(legal, {"players": 4, "turn": turn},
                          lambda ev: answering(team_, ev["to"]) if ev["type"] == "raise" else quiet)

    return opening(team, to)

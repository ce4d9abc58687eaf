"""Compact event notation for the engine tests.

``"hand 3 4D"`` deal by seat 3 with vira 4D; ``"p0 5C"`` seat 0 plays 5C;
``"p2 ?"`` seat 2 plays face down; ``"r1"`` raise; ``"a0"`` accept;
``"x0"`` refuse; ``"f3"`` fold; ``"e1 real_envido"``; ``"fl2 contraflor"``;
``"pt0 28"`` declares 28; ``"g1"`` son buenas; ``"eleven 0 play"``;
``"pen 1"`` penalty on team 1.
"""

from __future__ import annotations

from typing import Any

from companion.engine import Game


def ev(text: str) -> dict[str, Any]:
    parts = text.split()
    head = parts[0]
    if head == "hand":
        out: dict[str, Any] = {"type": "hand", "dealer": int(parts[1])}
        if len(parts) > 2:
            out["vira"] = parts[2]
        return out
    if head == "eleven":
        return {"type": "eleven", "team": int(parts[1]), "decision": parts[2]}
    if head == "pen":
        return {"type": "penalty", "team": int(parts[1]), "reason": "test"}
    if head == "undo":
        return {"type": "undo"}
    for prefix, kind in (("pt", "points"), ("fl", "flor"), ("p", "play"), ("r", "raise"), ("a", "accept"),
                         ("x", "refuse"), ("f", "fold"), ("e", "envido"), ("g", "good")):
        if head.startswith(prefix) and head[len(prefix):].isdigit():
            seat = int(head[len(prefix):])
            out = {"type": kind, "seat": seat}
            if kind == "play":
                if parts[1] == "?":
                    out["covered"] = True
                else:
                    out["card"] = parts[1]
            elif kind == "points":
                out["points"] = int(parts[1])
            elif kind in ("envido", "flor"):
                out["kind"] = parts[1] if len(parts) > 1 else kind
            elif kind == "raise" and len(parts) > 1:
                out["to"] = int(parts[1])
            return out
    raise ValueError(f"bad test event {text!r}")


def new(variant: str = "paulista", players: int = 4, target: int | None = None, **options: Any) -> Game:
    match: dict[str, Any] = {"type": "match", "variant": variant, "players": players}
    if options:
        match["options"] = options
    if target is not None:
        match["target"] = target
    return Game(match)


def run(game: Game, *events: str) -> list:
    """Apply events in compact notation; returns all outcomes."""
    out = []
    for text in events:
        out.extend(game.apply(ev(text)))
    return out


def kinds(outcomes: list) -> list[str]:
    return [o.kind for o in outcomes]


def set_score(game: Game, score: list[int]) -> None:
    """Reach a given score through explicit-points penalties (replay-safe, unlike poking the state)."""
    for team in (0, 1):
        if score[team]:
            game.apply({"type": "penalty", "team": 1 - team, "points": score[team], "reason": "setup"})
    assert game.score == list(score)

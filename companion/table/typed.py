"""Events typed at the table: a JSON object or a short form.

    play 2 4C        play 2 covered     raise 1          raise 1 6
    accept 0         refuse 3           fold 2           good 1
    points 0 28      envido 1 real_envido                flor 2 contraflor
    eleven 0 play    hand 3 7H          undo             note anything at all

The short form is what a player can type in the window in a few keys; the
engine still decides whether the event is legal.
"""

from __future__ import annotations

import json
from typing import Any

SEATED = {"play", "raise", "accept", "refuse", "fold", "good", "points", "envido", "flor"}


class TypedEventError(ValueError):
    pass


def parse_typed(text: str) -> dict[str, Any]:
    text = text.strip()
    if not text:
        raise TypedEventError("nothing typed")
    if text.startswith("{"):
        try:
            event = json.loads(text)
        except json.JSONDecodeError as err:
            raise TypedEventError(f"not JSON: {err}") from None
        if not isinstance(event, dict) or "type" not in event:
            raise TypedEventError("a typed JSON event needs a \"type\"")
        return event
    words = text.split()
    kind = words[0].lower()
    args = words[1:]
    if kind == "undo":
        return {"type": "undo"}
    if kind == "note":
        return {"type": "note", "text": " ".join(args)}
    if kind == "hand":
        event: dict[str, Any] = {"type": "hand", "dealer": _int(args, 0, "dealer")}
        if len(args) > 1:
            event["vira"] = args[1].upper()
        return event
    if kind == "eleven":
        if len(args) < 2 or args[1] not in ("play", "run"):
            raise TypedEventError("eleven TEAM play|run")
        return {"type": "eleven", "team": _int(args, 0, "team"), "decision": args[1]}
    if kind not in SEATED:
        raise TypedEventError(f"unknown event {kind!r}; one of: {', '.join(sorted(SEATED | {'hand', 'eleven', 'undo', 'note'}))}")
    event = {"type": kind, "seat": _int(args, 0, "seat")}
    rest = args[1:]
    if kind == "play":
        if not rest:
            raise TypedEventError("play SEAT CARD (or: play SEAT covered)")
        if rest[0].lower() in ("covered", "down", "x"):
            event["covered"] = True
        else:
            event["card"] = rest[0].upper()
    elif kind == "raise" and rest:
        event["to"] = _int(rest, 0, "stake")
    elif kind == "points":
        event["points"] = _int(rest, 0, "points")
    elif kind in ("envido", "flor"):
        event["kind"] = rest[0].lower() if rest else kind
    return event


def _int(args: list[str], index: int, what: str) -> int:
    try:
        return int(args[index])
    except (IndexError, ValueError):
        raise TypedEventError(f"expected a number for the {what}") from None

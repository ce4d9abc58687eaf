"""Reading table logs (JSON Lines, see shared/TABLE-LOG.md) and scoring them.

``parse_event`` checks one line's shape (types and required fields);
the rules are the engine's business.  ``score_log`` feeds every line to a
:class:`~companion.engine.Game` and builds the exact object that
``companion score --json`` prints: a bad line becomes an entry in ``errors``
naming the line, and the lines after it still apply.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from companion.engine import Game, IllegalEvent

#: Required fields (name -> allowed Python types) of every event type.
REQUIRED: dict[str, dict[str, tuple[type, ...]]] = {
    "match": {"players": (int,)},  # `variant` may come from --variant
    "hand": {"dealer": (int,)},
    "play": {"seat": (int,)},
    "raise": {"seat": (int,)},
    "envido": {"seat": (int,), "kind": (str,)},
    "flor": {"seat": (int,), "kind": (str,)},
    "accept": {"seat": (int,)},
    "refuse": {"seat": (int,)},
    "points": {"seat": (int,), "points": (int,)},
    "good": {"seat": (int,)},
    "fold": {"seat": (int,)},
    "eleven": {"team": (int,), "decision": (str,)},
    "penalty": {"team": (int,)},
    "undo": {},
    "note": {},
}
OPTIONAL: dict[str, dict[str, tuple[type, ...]]] = {
    "match": {"variant": (str,), "options": (dict,), "names": (list,), "target": (int,)},
    "hand": {"vira": (str,)},
    "play": {"card": (str,), "covered": (bool,)},
    "raise": {"to": (int,)},
    "penalty": {"reason": (str,), "points": (int,)},
    "note": {"text": (str,)},
}


class TableLogError(ValueError):
    """A line that is not a well-formed table-log event."""

    def __init__(self, lineno: int, message: str) -> None:
        super().__init__(f"line {lineno}: {message}")
        self.lineno = lineno
        self.message = message


def _type_ok(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


def parse_event(line: str, lineno: int) -> dict[str, Any]:
    """Parse one JSON line into an event dict or raise :class:`TableLogError`."""
    try:
        event = json.loads(line)
    except (json.JSONDecodeError, RecursionError, UnicodeDecodeError) as exc:
        raise TableLogError(lineno, f"not valid JSON ({exc.__class__.__name__}: {exc})") from None
    except ValueError as exc:  # e.g. integers too long to convert
        raise TableLogError(lineno, f"not valid JSON ({exc})") from None
    if not isinstance(event, dict):
        raise TableLogError(lineno, "an event must be a JSON object")
    kind = event.get("type")
    if not isinstance(kind, str) or kind not in REQUIRED:
        raise TableLogError(lineno, f"unknown event type {kind!r}")
    for name, types in REQUIRED[kind].items():
        if name not in event:
            raise TableLogError(lineno, f"`{kind}` needs `{name}`")
        if not _type_ok(event[name], types):
            raise TableLogError(lineno, f"`{name}` of `{kind}` has the wrong type: {event[name]!r}")
    for name, types in OPTIONAL.get(kind, {}).items():
        if name in event and event[name] is not None and not _type_ok(event[name], types):
            raise TableLogError(lineno, f"`{name}` of `{kind}` has the wrong type: {event[name]!r}")
    if kind == "play" and not event.get("covered") and "card" not in event:
        raise TableLogError(lineno, "`play` needs `card` (or `covered: true`)")
    return event


def score_log(lines: Iterable[str], variant: str | None = None) -> dict[str, Any]:
    """Apply a whole table log and return the ``companion score --json`` object.

    ``variant`` replaces the match line's variant (``--variant``).  Blank
    lines are skipped; every rejected line is reported with its number.
    """
    errors: list[dict[str, Any]] = []
    game: Game | None = None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = parse_event(line, lineno)
        except TableLogError as exc:
            errors.append({"line": lineno, "message": exc.message})
            continue
        if game is None:
            if event["type"] != "match":
                errors.append({"line": lineno, "message": "the first event must be a `match` line"})
                continue
            try:
                game = Game(event, variant=variant)
            except IllegalEvent as exc:
                errors.append({"line": lineno, "message": str(exc)})
            continue
        try:
            game.apply(event)
        except IllegalEvent as exc:
            errors.append({"line": lineno, "message": str(exc)})
    if game is None:
        return {"variant": variant, "score": [0, 0], "winner": None, "hands": [], "errors": errors}
    return {
        "variant": game.variant_name,
        "score": list(game.score),
        "winner": game.match_winner,
        "hands": list(game.records),
        "errors": errors,
        "players": game.players,
        "target": game.target,
        "games": list(game.games_won),
        "game_over": game.game_over,
        "penalties": list(game.penalties),
        "in_progress": game.deal is not None and not game.deal.over,
    }

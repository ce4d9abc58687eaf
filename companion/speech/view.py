"""What the speech side may know about the game: legal events and state.

The matcher never reaches into the engine's internals.  It reads the legal
next events, the public state, and asks what would be legal after an event
(for "quiero retruco": the raise is legal only once the truco is accepted).
``GameView`` provides that from the engine's ``Game`` by applying the event
to a copy; ``StaticView`` is a hand-written stand-in for tests and for
callers without an engine.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, Protocol


class TableView(Protocol):
    def legal_events(self) -> list[dict[str, Any]]: ...

    def state(self) -> dict[str, Any]: ...

    def after(self, event: dict[str, Any]) -> TableView | None:
        """The view once ``event`` is applied, or None if the engine rejects it."""
        ...

    def accepts(self, event: dict[str, Any]) -> bool:
        """Whether the engine would apply ``event`` (legal, or a penalised call)."""
        ...


class GameView:
    """A ``TableView`` over the engine's ``Game`` (see TEAM.md's Engine API).

    A snapshot: it caches the legal events, so make a new one after the game
    changes (``Listener.set_view(GameView(game))``).
    """

    def __init__(self, game: Any):
        self.game = game
        self._legal: list[dict[str, Any]] | None = None
        self._trials: dict[str, Any] = {}  # event -> the game after it (None: rejected)

    def legal_events(self) -> list[dict[str, Any]]:
        if self._legal is None:
            self._legal = [dict(e) for e in self.game.legal_events()]
        return self._legal

    def state(self) -> dict[str, Any]:
        state = self.game.state
        return state.to_dict() if hasattr(state, "to_dict") else dict(state)

    def _applied(self, event: dict[str, Any]) -> Any | None:
        key = json.dumps(event, sort_keys=True)
        if key not in self._trials:
            self._trials[key] = self._try(event)
        return self._trials[key]

    def _try(self, event: dict[str, Any]) -> Any | None:
        trial = copy.deepcopy(self.game)
        try:
            trial.apply(dict(event))
        except Exception as exc:  # IllegalEvent, or anything the engine raises on bad input
            if type(exc).__name__ == "IllegalEvent" or isinstance(exc, (ValueError, KeyError)):
                return None
            raise
        return trial

    def after(self, event: dict[str, Any]) -> GameView | None:
        trial = self._applied(event)
        return None if trial is None else GameView(trial)

    def accepts(self, event: dict[str, Any]) -> bool:
        return self._applied(event) is not None


class StaticView:
    """A fixed list of legal events; ``then`` maps an applied event to the next view.

    Events not in ``legal`` are rejected unless listed in ``penalised``
    (calls the engine would accept and punish).
    """

    def __init__(
        self,
        legal: list[dict[str, Any]],
        state: dict[str, Any] | None = None,
        then: Callable[[dict[str, Any]], StaticView | None] | None = None,
        penalised: list[dict[str, Any]] | None = None,
    ):
        self._legal = [dict(e) for e in legal]
        self._state = dict(state or {})
        self._then = then
        self._penalised = [dict(e) for e in penalised or []]

    def legal_events(self) -> list[dict[str, Any]]:
        return self._legal

    def state(self) -> dict[str, Any]:
        return self._state

    def after(self, event: dict[str, Any]) -> StaticView | None:
        if not self.accepts(event):
            return None
        if self._then is not None:
            return self._then(event)
        return StaticView([], self._state)

    def accepts(self, event: dict[str, Any]) -> bool:
        return any(fits(event, known) for known in (*self._legal, *self._penalised))


def fits(event: dict[str, Any], listed: dict[str, Any]) -> bool:
    """Whether ``event`` is an instance of the listed (possibly partial) event.

    The engine lists ``{"type": "points", "seat": 1}``; the event said adds
    ``points``.  Every field the listing gives must agree.
    """
    return all(event.get(key) == value for key, value in listed.items())

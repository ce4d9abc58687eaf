"""The meeting point of the live loop and the scoreboard web pages.

The live loop (``companion run``/``replay``, or the DB follower of
``companion board``) *publishes* snapshots of what the table should see; the
web server streams the newest one to every connected page.  Buttons on a page
become ``BoardCommand`` objects on a queue that the live loop consumes: the
board never touches the engine itself, so there is exactly one writer of the
game and of the history.
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

COMMAND_ACTIONS = ("confirm", "reject", "choose", "undo", "event")


@dataclass(frozen=True)
class BoardCommand:
    """A button press on the board.

    ``confirm``/``reject`` carry ``pending_id`` (the id of a pending
    confirmation as published); ``choose`` carries it and ``index``, which of
    that card's other readings it is (1 = the first shown; the id may also be
    an impossible card's, see ``Fusion.choose``); ``undo`` carries nothing;
    ``event`` carries a table-log event typed on the board (e.g. ``{"type":
    "raise", "seat": 1}``).
    """

    action: str
    pending_id: str | None = None
    event: dict[str, Any] | None = None
    index: int | None = None
    received_at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if self.action not in COMMAND_ACTIONS:
            raise ValueError(f"unknown board action {self.action!r}")
        if self.action in ("confirm", "reject", "choose") and not self.pending_id:
            raise ValueError(f"{self.action} needs the id of a pending confirmation")
        if self.action == "choose" and not (isinstance(self.index, int) and self.index >= 1):
            raise ValueError("choose needs the index (1, 2, ...) of one of the alternatives offered "
                             "(a card's other readings, or the seats that could have made a call)")
        if self.action == "event" and not (isinstance(self.event, dict) and self.event.get("type")):
            raise ValueError("an 'event' command needs a table-log event with a type")


class BoardHub:
    """Thread-safe: ``publish`` from any thread, commands read from any thread."""

    def __init__(self, *, heard_max: int = 8, history_store: Any = None) -> None:
        self._lock = threading.Lock()
        self._snapshot: dict[str, Any] = {"version": 0, "state": None}
        self._version = itertools.count(1)
        self._subscribers: list[tuple[asyncio.AbstractEventLoop, asyncio.Queue[dict[str, Any]]]] = []
        self.commands: queue.Queue[BoardCommand] = queue.Queue()
        self._heard: deque[str] = deque(maxlen=heard_max)
        self.history_store: Any = history_store  # a HistoryStore for the history pages, if any

    # ------------------------------------------------------------ live loop side
    def publish(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        """Replace what the board shows.  Keys the page understands:

        ``state`` (the engine's ``game.state.to_dict()``), ``names`` (seat
        names), ``match`` ({"id", "uuid", "variant"...}), ``heard`` (last
        words; when absent the hub's own ``hear()`` list is used), ``pending``
        ([{"id", "text", "event", "alternatives"}] waiting for confirm/reject/choose;
        ``"kind": "alert"`` for an impossible card that can only be named, ``"kind": "settling"`` for a
        card already in the log that the same buttons can still confirm, take out or rename), ``outcomes``
        ([{"kind", "text"}] of the last event), ``message`` (free text).
        """
        with self._lock:
            snap = dict(snapshot)
            snap.setdefault("heard", list(self._heard))
            snap["version"] = next(self._version)
            snap["published_at"] = time.time()
            self._snapshot = snap
            subscribers = list(self._subscribers)
        for loop, q in subscribers:
            try:
                loop.call_soon_threadsafe(_put_latest, q, snap)
            except RuntimeError:  # that page's loop is closed
                self._drop(loop, q)
        return snap

    def publish_game(self, game: Any, *, names: Iterable[str | None] | None = None,
                     match: dict[str, Any] | None = None, pending: list[dict[str, Any]] | None = None,
                     outcomes: Iterable[Any] | None = None, message: str | None = None) -> dict[str, Any]:
        """Convenience: build the snapshot from an engine ``Game`` and its last outcomes."""
        state = game.state.to_dict() if hasattr(game.state, "to_dict") else dict(game.state)
        return self.publish({
            "state": state,
            "names": list(names) if names is not None else None,
            "match": match or {},
            "pending": pending or [],
            "outcomes": [outcome_dict(o) for o in (outcomes or [])],
            "message": message,
        })

    def hear(self, words: str) -> None:
        """Remember words the speech layer heard (shown under the score)."""
        with self._lock:
            self._heard.append(words)

    def get_command(self, timeout: float | None = None) -> BoardCommand | None:
        """Next button press, waiting up to ``timeout`` seconds (None: wait forever)."""
        try:
            return self.commands.get(timeout=timeout)
        except queue.Empty:
            return None

    def poll_commands(self) -> list[BoardCommand]:
        """Every button press waiting now, without blocking (for a frame loop)."""
        out = []
        while True:
            try:
                out.append(self.commands.get_nowait())
            except queue.Empty:
                return out

    # ------------------------------------------------------------ server side
    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return self._snapshot

    def submit(self, command: BoardCommand) -> None:
        self.commands.put(command)

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]:
        """A queue (for the calling event loop) that always ends with the newest snapshot."""
        loop = asyncio.get_running_loop()
        q: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=1)
        with self._lock:
            self._subscribers.append((loop, q))
            q.put_nowait(self._snapshot)
        return q

    def unsubscribe(self, q: asyncio.Queue[dict[str, Any]]) -> None:
        with self._lock:
            self._subscribers = [(lp, x) for lp, x in self._subscribers if x is not q]

    def _drop(self, loop: asyncio.AbstractEventLoop, q: asyncio.Queue[dict[str, Any]]) -> None:
        with self._lock:
            self._subscribers = [(lp, x) for lp, x in self._subscribers if x is not q]


def _put_latest(q: asyncio.Queue[dict[str, Any]], snap: dict[str, Any]) -> None:
    """Keep only the newest snapshot: a slow phone skips states, never lags behind."""
    while not q.empty():
        q.get_nowait()
    q.put_nowait(snap)


def outcome_dict(outcome: Any) -> dict[str, Any]:
    if isinstance(outcome, dict):
        return outcome
    return {"kind": getattr(outcome, "kind", ""), "text": getattr(outcome, "text", str(outcome)),
            "data": getattr(outcome, "data", {}) or {}}

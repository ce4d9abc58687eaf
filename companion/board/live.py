"""Gluing a ``MatchRecorder`` to a ``BoardHub``: what a live loop needs.

``LiveBoard`` publishes the recorder's game after every change and turns the
board's ``undo``/``event`` buttons into recorded events (through the recorder,
so they are committed like anything else).  ``confirm``/``reject`` belong to
whoever asked for the confirmation, so ``handle`` hands them back (and ``choose``).

``follow_match`` is the loop of ``companion board``: it shows a match that
another process is recording, picking up new events by polling the store, and
records the board's own undo/typed events into the same match.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from companion.board.hub import BoardCommand, BoardHub, outcome_dict
from companion.history.recorder import MatchRecorder, state_dict
from companion.history.store import HistoryStore

log = logging.getLogger(__name__)


class LiveBoard:
    def __init__(self, hub: BoardHub, recorder: MatchRecorder, *, names: Iterable[str | None] | None = None,
                 on_outcomes: Callable[[dict[str, Any], list[Any], dict[str, Any]], None] | None = None) -> None:
        self.hub = hub
        self.recorder = recorder
        match = recorder.store.get_match(recorder.match_id)
        self.names = list(names) if names is not None else match.names
        self.match_info = {"id": match.id, "uuid": match.uuid, "variant": match.variant,
                           "venue": match.venue,
                           "deck": getattr(getattr(recorder.game, "variant", None), "family", None)}
        self.pending: list[dict[str, Any]] = []
        self.on_outcomes = on_outcomes  # e.g. the spoken feedback
        self.last_outcomes: list[dict[str, Any]] = []

    def publish(self, outcomes: Iterable[Any] = (), *, message: str | None = None) -> dict[str, Any]:
        outs = [outcome_dict(o) for o in outcomes]
        if outs:
            self.last_outcomes = outs
        state = state_dict(self.recorder.game)
        return self.hub.publish({"state": state, "names": self.names, "match": self.match_info,
                                 "pending": list(self.pending), "outcomes": self.last_outcomes,
                                 "message": message})

    def record(self, event: dict[str, Any], *, source: str) -> list[Any]:
        """Record an event and publish; an illegal event is published as a message and re-raised."""
        try:
            outcomes = self.recorder.record(event, source=source)
        except self.recorder._illegal as err:
            self.publish(message=f"{event.get('type')}: {err}")
            raise
        if self.on_outcomes:
            self.on_outcomes(event, outcomes, state_dict(self.recorder.game))
        self.publish(outcomes)
        return outcomes

    def handle(self, command: BoardCommand) -> BoardCommand | None:
        """Apply ``undo``/``event`` buttons; return ``confirm``/``reject``/``choose`` for the caller to decide."""
        if command.action in ("confirm", "reject", "choose"):
            return command
        event = {"type": "undo"} if command.action == "undo" else dict(command.event or {})
        try:
            self.record(event, source="board")
        except self.recorder._illegal:
            pass
        return None

    def sync(self) -> bool:
        """Pick up events another process wrote; True if any."""
        done = self.recorder.sync()
        if done:
            if self.on_outcomes:
                for event, outcomes in done:
                    self.on_outcomes(event, outcomes, state_dict(self.recorder.game))
            self.publish(done[-1][1])
        return bool(done)


def follow_match(store: HistoryStore, hub: BoardHub, *, match_id: int | None = None, poll: float = 0.5,
                 stop: threading.Event | None = None, read_only: bool = False,
                 on_outcomes: Callable[[dict[str, Any], list[Any], dict[str, Any]], None] | None = None) -> None:
    """Show ``match_id`` (or the newest live match, switching when a newer one starts) until ``stop``.

    Undo and typed events from the page are recorded into the match (source
    ``board``); a recorder in another process merges them before its next
    event.  ``read_only`` ignores the buttons (a TV that only shows).
    """
    stop = stop or threading.Event()
    board: LiveBoard | None = None
    while not stop.is_set():
        wanted = match_id if match_id is not None else _newest_match_id(store)
        if wanted is not None and (board is None or board.recorder.match_id != wanted):
            board = LiveBoard(hub, MatchRecorder.resume(store, wanted), on_outcomes=on_outcomes)
            board.publish(message=None)
        elif wanted is None and board is None:
            hub.publish({"state": None, "message": "waiting for a match to start…"})
        if board is not None:
            board.sync()
        deadline = time.monotonic() + poll
        while time.monotonic() < deadline and not stop.is_set():
            command = hub.get_command(timeout=max(0.0, min(0.05, deadline - time.monotonic())))
            if command is None:
                continue
            if board is None:
                continue
            if read_only:
                board.publish(message="this board only shows the match (started with --read-only)")
                continue
            leftover = board.handle(command)
            if leftover is not None:
                board.publish(message="nothing waits for confirmation on this board")


def _newest_match_id(store: HistoryStore) -> int | None:
    live = store.latest_live_match()
    if live is not None:
        return live.id
    recent = store.list_matches(limit=1)
    return recent[0].id if recent else None

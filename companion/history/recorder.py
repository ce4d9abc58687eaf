"""Recording a live match event by event, and resuming an interrupted one.

The rule that makes the history lose nothing: an event is committed to the
database (status ``pending``) *before* the engine applies it, and only then
marked ``applied`` or ``rejected``.  If the process is killed at any moment,
every event the companion ever treated as applied is in the store, and the
worst case is a ``pending`` row that resume simply applies again.

Typical live loop (``companion run``)::

    store = HistoryStore(args.db)
    rec = MatchRecorder.resume(store) if args.resume else MatchRecorder.start(store, match_event)
    for event, source in perception:
        try:
            outcomes = rec.record(event, source=source)
        except IllegalEvent as err:
            ...                      # stays in the store as ``rejected`` with the message
    rec.game.state                   # the engine state, rebuilt on resume
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from companion.history.models import (
    APPLIED,
    FINISHED,
    LIVE,
    PENDING,
    REJECTED,
    Event,
    Match,
    dump_event,
    utcnow,
)
from companion.history.store import HistoryStore, NoSuchMatch

log = logging.getLogger(__name__)

GameFactory = Callable[[dict[str, Any]], Any]


def _engine() -> tuple[GameFactory, type[Exception]]:
    from companion.engine import Game, IllegalEvent

    return Game, IllegalEvent


def illegal_event_class() -> type[Exception]:
    return _engine()[1]


def _resolve(game_factory: GameFactory | None,
             illegal: type[Exception] | None) -> tuple[GameFactory, type[Exception]]:
    """The real engine unless a test or tool injects another game factory."""
    if game_factory is None:
        return _engine()
    if illegal is None:
        try:
            illegal = _engine()[1]
        except ImportError:
            illegal = ValueError
    return game_factory, illegal


def state_dict(game: Any) -> dict[str, Any]:
    """The engine's state snapshot as a plain dict."""
    state = game.state
    return state.to_dict() if hasattr(state, "to_dict") else dict(state)


class NothingToResume(LookupError):
    pass


@dataclass
class ReplayReport:
    """What happened while replaying stored events into a fresh engine."""

    applied: int = 0
    rejected: list[tuple[int, str]] = field(default_factory=list)  # (seq, message)
    reapplied_pending: int = 0


class MatchRecorder:
    """Owns the engine ``Game`` of one match and writes every event through to the store."""

    def __init__(self, store: HistoryStore, match_id: int, game: Any, last_seq: int,
                 illegal: type[Exception]) -> None:
        self.store = store
        self.match_id = match_id
        self.game = game
        self.last_seq = last_seq
        self._illegal = illegal
        self.report = ReplayReport()
        self._cached_result: tuple[int, int, Any, bool] | None = None

    # ---------------------------------------------------------------- creation
    @classmethod
    def start(cls, store: HistoryStore, match_event: dict[str, Any], *,
              names: Sequence[str | None] | None = None, venue: str | None = None,
              table_name: str | None = None, source: str = "typed",
              game_factory: GameFactory | None = None,
              illegal: type[Exception] | None = None) -> MatchRecorder:
        """Create a match in the store (its ``match`` line committed) and a fresh engine."""
        factory, illegal = _resolve(game_factory, illegal)
        game = factory(match_event)  # validates the match line before anything is stored
        match_id = store.create_match(match_event, names=names, venue=venue,
                                      table_name=table_name, source=source)
        return cls(store, match_id, game, 0, illegal)

    @classmethod
    def resume(cls, store: HistoryStore, match_id: int | None = None, *,
               game_factory: GameFactory | None = None,
               illegal: type[Exception] | None = None) -> MatchRecorder:
        """Reload an unfinished match: the latest live one, or ``match_id``.

        Every stored event that is not ``rejected`` is applied again, in order,
        to a fresh engine; ``pending`` rows (the process died between commit and
        apply) are settled now.  ``rec.report`` says what happened.
        """
        if match_id is None:
            match = store.latest_live_match()
            if match is None:
                raise NothingToResume(f"no unfinished match in {store.url}")
        else:
            match = store.get_match(match_id)
        factory, illegal = _resolve(game_factory, illegal)
        events = store.events(match.id)
        game = factory(events[0].data)
        rec = cls(store, match.id, game, events[-1].seq, illegal)
        rec.report = rec._replay(events[1:])
        return rec

    # ---------------------------------------------------------------- replay
    def _replay(self, rows: Iterable[Event]) -> ReplayReport:
        report = ReplayReport()
        for row in rows:
            if row.status == REJECTED:
                continue
            try:
                self.game.apply(row.data)
            except self._illegal as err:
                report.rejected.append((row.seq, str(err)))
                if row.status == APPLIED:
                    log.warning("event %s of match %s was applied once and is now rejected: %s",
                                row.seq, self.match_id, err)
                self._set_status(row.seq, REJECTED, str(err))
                continue
            report.applied += 1
            if row.status == PENDING:
                report.reapplied_pending += 1
                self._set_status(row.seq, APPLIED, None)
        self._update_result()
        return report

    def sync(self) -> list[tuple[dict[str, Any], list[Any]]]:
        """Apply events another process (a board, a second device) added to this match."""
        done: list[tuple[dict[str, Any], list[Any]]] = []
        for row in self.store.events(self.match_id, after_seq=self.last_seq):
            self.last_seq = row.seq
            if row.status == REJECTED:
                continue
            try:
                outcomes = self.game.apply(row.data)
            except self._illegal as err:
                self._set_status(row.seq, REJECTED, str(err))
                continue
            if row.status == PENDING:
                self._set_status(row.seq, APPLIED, None)
            done.append((row.data, outcomes))
        if done:
            self._update_result()
        return done

    # ---------------------------------------------------------------- recording
    def record(self, event: dict[str, Any], *, source: str = "typed") -> list[Any]:
        """Commit ``event`` durably, then apply it; returns the engine's outcomes.

        Raises the engine's ``IllegalEvent`` when the engine rejects it; the row
        then stays in the store with status ``rejected`` and the message.
        """
        if event.get("type") == "match":
            raise ValueError("a match line starts a new match: use MatchRecorder.start")
        seq = self._append(event, source)
        try:
            outcomes = self.game.apply(event)
        except self._illegal as err:
            self._set_status(seq, REJECTED, str(err))
            raise
        self._set_status(seq, APPLIED, None, with_result=True)
        return outcomes

    def undo(self, *, source: str = "typed") -> list[Any]:
        """Retract the previous event; recorded as an ``undo`` line like any other."""
        return self.record({"type": "undo"}, source=source)

    def _append(self, event: dict[str, Any], source: str) -> int:
        payload = dump_event(event)
        for _attempt in range(20):
            seq = self.last_seq + 1
            try:
                with self.store.session() as s:
                    s.add(Event(match_id=self.match_id, seq=seq, type=str(event.get("type", "")),
                                payload=payload, source=source, status=PENDING))
                    s.commit()
            except IntegrityError:
                # Another process wrote this seq first: catch up with it, then retry.
                self.sync()
                continue
            self.last_seq = seq
            return seq
        raise RuntimeError(f"could not append to match {self.match_id}: too many concurrent writers")

    def _set_status(self, seq: int, status: str, error: str | None, *, with_result: bool = False) -> None:
        """Settle an event row; with ``with_result`` the match's cached result too, in the same commit."""
        result = self._result_change() if with_result else None
        with self.store.session() as s:
            s.execute(update(Event).where(Event.match_id == self.match_id, Event.seq == seq)
                      .values(status=status, error=error))
            if result is not None:
                score0, score1, winner, over = result
                match = s.get(Match, self.match_id)
                assert match is not None
                match.score0, match.score1, match.winner_team = score0, score1, winner
                if over and match.status == LIVE:
                    match.status = FINISHED
                    match.ended_at = utcnow()
            s.commit()
        if result is not None:
            self._cached_result = result

    def _result_change(self) -> tuple[int, int, Any, bool] | None:
        """(score0, score1, winner, over) when it differs from what the store has, else None."""
        state = state_dict(self.game)
        score = list(state.get("score") or [0, 0])
        # A match of several games (options.games > 1) is over only when the match is.
        over = bool(state.get("match_over", state.get("game_over")))
        winner = state.get("winner") if over else None
        key = (int(score[0]), int(score[1]), winner, over)
        return None if key == self._cached_result else key

    def _update_result(self) -> None:
        key = self._result_change()
        if key is None:
            return
        self._cached_result = key
        self.store.set_result(self.match_id, key[:2], key[2], finished=key[3])

    # ---------------------------------------------------------------- reading back
    @property
    def match_event(self) -> dict[str, Any]:
        """The ``match`` line this match started with (variant, players, names...)."""
        return self.store.events(self.match_id, after_seq=-1)[0].data

    def stored_events(self, *, include_rejected: bool = False) -> list[dict[str, Any]]:
        """The table log as stored, ``match`` line first (e.g. to rewrite a JSONL mirror on resume)."""
        return [row.data for row in self.store.events(self.match_id)
                if include_rejected or row.status != REJECTED]

    # ---------------------------------------------------------------- closing
    def abandon(self) -> None:
        """Close a match that will not be finished (it no longer offers itself to resume)."""
        self.store.abandon(self.match_id)

    @property
    def is_live(self) -> bool:
        with self.store.session() as s:
            return s.scalar(select(Match.status).where(Match.id == self.match_id)) == LIVE


def replay_rows(match_event: dict[str, Any], rows: Iterable[Event], *,
                game_factory: GameFactory | None = None,
                illegal: type[Exception] | None = None) -> Any:
    """A fresh engine with the non-rejected stored events applied (read-only use)."""
    factory, illegal = _resolve(game_factory, illegal)
    game = factory(match_event)
    for row in rows:
        if row.status == REJECTED:
            continue
        try:
            game.apply(row.data)
        except illegal:
            continue
    return game


__all__ = ["MatchRecorder", "NothingToResume", "NoSuchMatch", "ReplayReport", "replay_rows", "state_dict"]

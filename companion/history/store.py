"""Opening the history database and the queries every command shares.

SQLite is the default (one file in the user's data directory).  It is opened
in WAL mode with ``synchronous=FULL`` so that a committed event survives a
killed process *and* a power cut, and so that a board in another process can
read while the table writes.  Any SQLAlchemy URL works too, so a club can point
all its tables at one PostgreSQL server (``postgresql+psycopg://...``).
"""

from __future__ import annotations

import json
import uuid as uuidlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, selectinload, sessionmaker
from sqlalchemy.pool import StaticPool

from companion.history.models import (
    ABANDONED,
    APPLIED,
    FINISHED,
    LIVE,
    Base,
    Event,
    Match,
    MatchPlayer,
    Player,
    dump_event,
    utcnow,
)
from companion.paths import user_data_dir


def default_db_url() -> str:
    path = user_data_dir() / "history.sqlite"
    return f"sqlite:///{path}"


def normalize_url(url: str | None) -> str:
    """Accept a URL or a plain file path; ``postgresql://`` means psycopg 3."""
    if not url:
        return default_db_url()
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser().resolve()}"
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


class NoSuchMatch(LookupError):
    pass


class HistoryStore:
    """A handle on one history database (thread-safe: one session per call)."""

    def __init__(self, url: str | None = None, *, echo: bool = False) -> None:
        self.url = normalize_url(url)
        kwargs: dict[str, Any] = {"echo": echo, "future": True}
        if self.url.startswith("sqlite"):
            db_path = self.url.split("sqlite:///", 1)[1] if "sqlite:///" in self.url else ""
            if db_path and db_path != ":memory:":
                Path(db_path).parent.mkdir(parents=True, exist_ok=True)
            else:
                # One shared connection, or every thread (the board's) would see its own empty database.
                kwargs["poolclass"] = StaticPool
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 10}
        else:
            kwargs["pool_pre_ping"] = True
        self.engine: Engine = create_engine(self.url, **kwargs)
        if self.url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        Base.metadata.create_all(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._sessions() as session:
            yield session

    # ------------------------------------------------------------------ create
    def create_match(
        self,
        match_event: dict[str, Any],
        *,
        names: Sequence[str | None] | None = None,
        venue: str | None = None,
        table_name: str | None = None,
        note: str | None = None,
        uuid: str | None = None,
        started_at: datetime | None = None,
        source: str = "typed",
    ) -> int:
        """Create a match and commit its ``match`` line as event 0; returns the id."""
        if match_event.get("type") != "match":
            raise ValueError("the first event of a match must have type 'match'")
        players = int(match_event.get("players", 4))
        names = list(names if names is not None else match_event.get("names") or [])
        with self.session() as s:
            match = Match(
                uuid=uuid or str(uuidlib.uuid4()),
                variant=str(match_event.get("variant", "")),
                players_count=players,
                options_json=json.dumps(match_event.get("options") or {}, ensure_ascii=False),
                target=match_event.get("target"),
                venue=venue,
                table_name=table_name,
                note=note,
                status=LIVE,
                started_at=started_at or utcnow(),
            )
            s.add(match)
            for seat in range(players):
                name = names[seat] if seat < len(names) else None
                player = self._player(s, name) if name else None
                match.seats.append(MatchPlayer(seat=seat, team=seat % 2, name=name, player=player))
            match.events.append(
                Event(seq=0, type="match", payload=dump_event(match_event), source=source,
                      status=APPLIED, recorded_at=match.started_at)
            )
            s.commit()
            return match.id

    @staticmethod
    def _player(s: Session, name: str) -> Player:
        player = s.scalar(select(Player).where(Player.name == name))
        if player is None:
            player = Player(name=name)
            s.add(player)
            s.flush()
        return player

    # ------------------------------------------------------------------ read
    def get_match(self, match_id: int, *, include_deleted: bool = True) -> Match:
        with self.session() as s:
            match = s.scalar(
                select(Match)
                .where(Match.id == match_id)
                .options(selectinload(Match.seats), selectinload(Match.events))
            )
            if match is None or (match.deleted_at is not None and not include_deleted):
                raise NoSuchMatch(f"no match {match_id} in {self.url}")
            return match

    def find_match(self, ref: str | int) -> Match:
        """A match by numeric id or (a prefix of) its uuid.

        A uuid prefix can be all digits ("77563547"): a number that is no match
        id is then tried as a uuid prefix (an id wins when both exist).
        """
        text = str(ref)
        if text.isdigit():
            try:
                return self.get_match(int(text))
            except NoSuchMatch:
                if len(text) < 4:
                    raise
        with self.session() as s:
            ids = s.scalars(select(Match.id).where(Match.uuid.like(text + "%"))).all()
        if len(ids) != 1:
            raise NoSuchMatch(f"{'no' if not ids else 'several'} match(es) with uuid {text}")
        return self.get_match(ids[0])

    def list_matches(
        self,
        *,
        include_deleted: bool = False,
        player: str | None = None,
        variant: str | None = None,
        status: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        venue: str | None = None,
        limit: int | None = None,
    ) -> list[Match]:
        """Matches newest first, filtered (a player name matches case-insensitively)."""
        with self.session() as s:
            q = select(Match).options(selectinload(Match.seats)).order_by(Match.started_at.desc(), Match.id.desc())
            if not include_deleted:
                q = q.where(Match.deleted_at.is_(None))
            if variant:
                q = q.where(Match.variant == variant)
            if status:
                q = q.where(Match.status == status)
            if since:
                q = q.where(Match.started_at >= since)
            if until:
                q = q.where(Match.started_at < until)
            if venue:
                q = q.where(Match.venue.ilike(f"%{venue}%"))
            if player:
                q = q.where(Match.id.in_(
                    select(MatchPlayer.match_id).where(MatchPlayer.name.ilike(f"%{player}%"))))
            if limit:
                q = q.limit(limit)
            return list(s.scalars(q).all())

    def latest_live_match(self) -> Match | None:
        with self.session() as s:
            mid = s.scalar(
                select(Match.id)
                .where(Match.status == LIVE, Match.deleted_at.is_(None))
                .order_by(Match.started_at.desc(), Match.id.desc())
                .limit(1)
            )
        return None if mid is None else self.get_match(mid)

    def events(self, match_id: int, *, after_seq: int = -1) -> list[Event]:
        with self.session() as s:
            return list(s.scalars(
                select(Event).where(Event.match_id == match_id, Event.seq > after_seq).order_by(Event.seq)
            ).all())

    # ------------------------------------------------------------------ update
    def set_result(self, match_id: int, score: Sequence[int], winner: int | None, *,
                   finished: bool, ended_at: datetime | None = None) -> None:
        with self.session() as s:
            match = s.get(Match, match_id)
            if match is None:
                raise NoSuchMatch(str(match_id))
            match.score0, match.score1 = int(score[0]), int(score[1])
            match.winner_team = winner
            if finished and match.status == LIVE:
                match.status = FINISHED
                match.ended_at = ended_at or utcnow()
            s.commit()

    def abandon(self, match_id: int) -> None:
        with self.session() as s:
            match = s.get(Match, match_id)
            if match is None:
                raise NoSuchMatch(str(match_id))
            if match.status == LIVE:
                match.status = ABANDONED
                match.ended_at = utcnow()
            s.commit()

    def soft_delete(self, match_id: int, reason: str | None = None) -> None:
        """Hide a match from lists and stats; its rows stay for audit."""
        with self.session() as s:
            match = s.get(Match, match_id)
            if match is None:
                raise NoSuchMatch(str(match_id))
            match.deleted_at = utcnow()
            match.deleted_reason = reason
            s.commit()

    def restore(self, match_id: int) -> None:
        with self.session() as s:
            match = s.get(Match, match_id)
            if match is None:
                raise NoSuchMatch(str(match_id))
            match.deleted_at = None
            match.deleted_reason = None
            s.commit()

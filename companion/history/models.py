"""SQLAlchemy models of the match history.

The unit of storage is the table-log event: a match is its ``match`` line plus
every later event in order, each in its own row with a per-match sequence
number.  Everything else (score, winner, players) is derived or cached from
those events, so a match can always be rebuilt and re-scored by the engine.
Rows are never deleted: a deleted match only gets ``deleted_at`` so that a
club keeps an audit trail.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Event row states.  An event is first committed as PENDING, *then* given to the
# engine; the engine's answer turns it into APPLIED or REJECTED.  A crash in
# between leaves PENDING, and resume re-applies it: nothing the table saw is lost.
PENDING = "pending"
APPLIED = "applied"
REJECTED = "rejected"

# Match states.
LIVE = "live"
FINISHED = "finished"
ABANDONED = "abandoned"

SOURCES = ("vision", "voice", "typed", "board", "import", "replay")


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def dump_event(event: dict[str, Any]) -> str:
    """Canonical text of an event: key order kept, so export gives back the same line."""
    return json.dumps(event, ensure_ascii=False, separators=(", ", ": "))


class Base(DeclarativeBase):
    pass


class Player(Base):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Match(Base):
    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Stable identity across databases: export/import keeps it.
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    variant: Mapped[str] = mapped_column(String(60))
    players_count: Mapped[int] = mapped_column(Integer)
    options_json: Mapped[str] = mapped_column(Text, default="{}")
    target: Mapped[int | None] = mapped_column(Integer, nullable=True)
    venue: Mapped[str | None] = mapped_column(String(200), nullable=True)
    table_name: Mapped[str | None] = mapped_column(String(120), nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    status: Mapped[str] = mapped_column(String(16), default=LIVE, index=True)
    score0: Mapped[int] = mapped_column(Integer, default=0)
    score1: Mapped[int] = mapped_column(Integer, default=0)
    winner_team: Mapped[int | None] = mapped_column(Integer, nullable=True)
    note: Mapped[str | None] = mapped_column(Text, nullable=True)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    deleted_reason: Mapped[str | None] = mapped_column(Text, nullable=True)

    seats: Mapped[list[MatchPlayer]] = relationship(
        back_populates="match", order_by="MatchPlayer.seat", cascade="all, delete-orphan"
    )
    events: Mapped[list[Event]] = relationship(
        back_populates="match", order_by="Event.seq", cascade="all, delete-orphan"
    )

    @property
    def options(self) -> dict[str, Any]:
        return json.loads(self.options_json or "{}")

    @property
    def names(self) -> list[str | None]:
        by_seat = {s.seat: s.name for s in self.seats}
        return [by_seat.get(i) for i in range(self.players_count)]


class MatchPlayer(Base):
    """A seat of a match; team is ``seat % 2`` as in the table-log contract."""

    __tablename__ = "match_players"
    __table_args__ = (UniqueConstraint("match_id", "seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    team: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    name: Mapped[str | None] = mapped_column(String(120), nullable=True)

    match: Mapped[Match] = relationship(back_populates="seats")
    player: Mapped[Player | None] = relationship()


class Event(Base):
    """One table-log line.  ``seq`` 0 is the ``match`` line."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("match_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(20))
    payload: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(16), default="typed")
    status: Mapped[str] = mapped_column(String(10), default=PENDING)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    match: Mapped[Match] = relationship(back_populates="events")

    @property
    def data(self) -> dict[str, Any]:
        return json.loads(self.payload)

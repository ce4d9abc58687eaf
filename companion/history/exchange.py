"""Export and import of matches: JSON Lines (a table log) and CSV.

A JSONL export *is* a table log: line 1 is the ``match`` event and every later
line is a stored event, byte-for-byte as recorded, so ``companion score`` reads
it unchanged.  Line 2 is a ``note`` (ignored by the engine) whose extra field
``history`` carries what the log itself does not: the match's uuid, players,
venue, dates, result, and for each event its source, time and status.  Import
reads that header back, so ``import(export(match))`` is the same match; a
plain table log without the header imports too (sources become ``import``).

The CSV export has one row per event (the event's fields spread into columns
plus the full JSON) and the match metadata in the ``meta`` column of row 0.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any, TextIO

from companion.history.models import APPLIED, FINISHED, LIVE, PENDING, REJECTED, Event, Match, dump_event
from companion.history.store import HistoryStore

FORMAT = "companion-history/1"
HEADER_TEXT = "companion history export"
CSV_FIELDS = ("match_uuid", "seq", "type", "seat", "team", "card", "covered", "to", "kind",
              "points", "decision", "reason", "text", "source", "status", "error",
              "recorded_at", "event", "meta")


class ImportError_(ValueError):
    """A file that is not a match export or a table log."""


def _iso(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.isoformat()


def _parse_dt(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def match_meta(match: Match, *, with_events: bool = True) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "format": FORMAT,
        "uuid": match.uuid,
        "variant": match.variant,
        "players": match.players_count,
        "names": match.names,
        "venue": match.venue,
        "table": match.table_name,
        "started_at": _iso(match.started_at),
        "ended_at": _iso(match.ended_at),
        "status": match.status,
        "score": [match.score0, match.score1],
        "winner": match.winner_team,
        "note": match.note,
        "deleted_at": _iso(match.deleted_at),
        "deleted_reason": match.deleted_reason,
    }
    if with_events:
        meta["events"] = [
            {"seq": e.seq, "source": e.source, "status": e.status, "at": _iso(e.recorded_at),
             **({"error": e.error} if e.error else {})}
            for e in match.events
        ]
    return meta


# ---------------------------------------------------------------------- export
def export_jsonl(match: Match, out: TextIO, *, applied_only: bool = False) -> int:
    """Write the match as a table log with a history header; returns lines written."""
    events = [e for e in match.events if not (applied_only and e.status == REJECTED)]
    meta = match_meta(match)
    if applied_only:
        meta["events"] = [m for m in meta["events"] if m["status"] != REJECTED]
    out.write(events[0].payload + "\n")
    out.write(dump_event({"type": "note", "text": HEADER_TEXT, "history": meta}) + "\n")
    for e in events[1:]:
        out.write(e.payload + "\n")
    return len(events) + 1


def export_csv(matches: Sequence[Match], out: TextIO, *, applied_only: bool = False) -> int:
    """One row per event of every match; row 0 of each match holds its metadata."""
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    rows = 0
    for match in matches:
        meta = json.dumps(match_meta(match, with_events=False), ensure_ascii=False)
        for e in match.events:
            if applied_only and e.status == REJECTED:
                continue
            data = e.data
            seat = data.get("seat")
            team = data.get("team", seat % 2 if isinstance(seat, int) else None)
            writer.writerow({
                "match_uuid": match.uuid, "seq": e.seq, "type": e.type,
                "seat": seat, "team": team, "card": data.get("card"),
                "covered": data.get("covered"), "to": data.get("to"), "kind": data.get("kind"),
                "points": data.get("points"), "decision": data.get("decision"),
                "reason": data.get("reason"), "text": data.get("text"),
                "source": e.source, "status": e.status, "error": e.error,
                "recorded_at": _iso(e.recorded_at), "event": e.payload,
                "meta": meta if e.seq == 0 else "",
            })
            rows += 1
    return rows


# ---------------------------------------------------------------------- import
def _read_json_lines(text: str) -> list[dict[str, Any]]:
    events = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as err:
            raise ImportError_(f"line {lineno}: not JSON ({err.msg})") from None
        if not isinstance(event, dict) or "type" not in event:
            raise ImportError_(f"line {lineno}: not a table-log event")
        events.append(event)
    return events


def parse_jsonl(text: str) -> list[tuple[dict[str, Any] | None, list[dict[str, Any]]]]:
    """[(history metadata or None, events including the match line)], one per match in the file.

    Several exports may be concatenated: every ``match`` line starts a new match.
    """
    events = _read_json_lines(text)
    if not events or events[0].get("type") != "match":
        raise ImportError_("line 1 must be the 'match' event")
    matches: list[tuple[dict[str, Any] | None, list[dict[str, Any]]]] = []
    for event in events:
        if event.get("type") == "match":
            matches.append((None, [event]))
            continue
        meta, current = matches[-1]
        if (len(current) == 1 and meta is None and event.get("type") == "note"
                and isinstance(event.get("history"), dict)):
            matches[-1] = (event["history"], current)
            continue
        current.append(event)
    return matches


def parse_csv(text: str) -> list[tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]]:
    """[(meta, events, per-event info)] for each match in a CSV export."""
    matches: dict[str, tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]] = {}
    reader = csv.DictReader(io.StringIO(text))
    missing = {"match_uuid", "seq", "event"} - set(reader.fieldnames or ())
    if missing:
        raise ImportError_(f"CSV lacks the columns {sorted(missing)}")
    for row in reader:
        key = row["match_uuid"]
        meta = json.loads(row["meta"]) if row.get("meta") else None
        if key not in matches:
            matches[key] = (meta, [], [])
        elif meta:
            matches[key] = (meta, matches[key][1], matches[key][2])
        matches[key][1].append(json.loads(row["event"]))
        matches[key][2].append({"seq": int(row["seq"]), "source": row.get("source") or "import",
                                "status": row.get("status") or APPLIED, "at": row.get("recorded_at") or None,
                                **({"error": row["error"]} if row.get("error") else {})})
    return list(matches.values())


def import_events(store: HistoryStore, events: list[dict[str, Any]], meta: dict[str, Any] | None = None,
                  *, new_uuid: bool = False, event_info: list[dict[str, Any]] | None = None,
                  venue: str | None = None) -> int:
    """Store one match from its events (and export metadata if any); returns the new id."""
    from companion.history.recorder import _resolve  # engine needed only for plain logs

    meta = dict(meta or {})
    info = event_info or meta.get("events")
    if info is not None and len(info) != len(events):
        raise ImportError_(f"header lists {len(info)} events but the file has {len(events)}")
    uuid = None if new_uuid else meta.get("uuid")
    if uuid:
        from sqlalchemy import select

        with store.session() as s:
            if s.scalar(select(Match.id).where(Match.uuid == uuid)) is not None:
                raise ImportError_(f"match {uuid} is already in the store (use --new-uuid to import a copy)")
    started = _parse_dt(meta.get("started_at"))
    match_id = store.create_match(events[0], names=meta.get("names"), venue=venue or meta.get("venue"),
                                  table_name=meta.get("table"), note=meta.get("note"), uuid=uuid,
                                  started_at=started, source=(info[0]["source"] if info else "import"))
    statuses: list[str]
    errors: list[str | None]
    if info is not None:
        statuses = [i.get("status", APPLIED) for i in info]
        errors = [i.get("error") for i in info]
    else:
        factory, illegal = _resolve(None, None)
        game = factory(events[0])
        statuses, errors = [APPLIED], [None]
        for event in events[1:]:
            try:
                game.apply(event)
                statuses.append(APPLIED)
                errors.append(None)
            except illegal as err:
                statuses.append(REJECTED)
                errors.append(str(err))
    with store.session() as s:
        match = s.get(Match, match_id)
        assert match is not None
        for seq, event in enumerate(events[1:], 1):
            at = _parse_dt(info[seq].get("at")) if info else None
            s.add(Event(match_id=match_id, seq=seq, type=str(event["type"]), payload=dump_event(event),
                        source=info[seq].get("source", "import") if info else "import",
                        status=statuses[seq], error=errors[seq], **({"recorded_at": at} if at else {})))
        if meta:
            match.status = meta.get("status") or match.status
            match.ended_at = _parse_dt(meta.get("ended_at"))
            score = meta.get("score") or [0, 0]
            match.score0, match.score1 = int(score[0]), int(score[1])
            match.winner_team = meta.get("winner")
            match.deleted_at = _parse_dt(meta.get("deleted_at"))
            match.deleted_reason = meta.get("deleted_reason")
        s.commit()
    if not meta:
        _settle_result(store, match_id)
    return match_id


def _settle_result(store: HistoryStore, match_id: int) -> None:
    """Score a match imported from a plain log with the engine."""
    from companion.history.recorder import replay_rows, state_dict

    match = store.get_match(match_id)
    game = replay_rows(match.events[0].data, match.events[1:])
    state = state_dict(game)
    over = bool(state.get("match_over", state.get("game_over")))
    store.set_result(match_id, state.get("score") or [0, 0], state.get("winner") if over else None,
                     finished=over, ended_at=match.events[-1].recorded_at)


def import_text(store: HistoryStore, text: str, *, fmt: str | None = None, new_uuid: bool = False,
                venue: str | None = None) -> list[int]:
    """Import a JSONL or CSV export (format guessed from the content when not given)."""
    fmt = fmt or ("jsonl" if text.lstrip().startswith("{") else "csv")
    ids = []
    if fmt == "jsonl":
        for meta, events in parse_jsonl(text):
            ids.append(import_events(store, events, meta, new_uuid=new_uuid, venue=venue))
        return ids
    for meta, events, info in parse_csv(text):
        ids.append(import_events(store, events, meta, new_uuid=new_uuid, event_info=info, venue=venue))
    return ids


__all__ = ["export_jsonl", "export_csv", "import_text", "import_events", "parse_jsonl", "parse_csv",
           "match_meta", "ImportError_", "LIVE", "FINISHED", "PENDING"]

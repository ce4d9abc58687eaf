"""``companion history``: list, show, export, import, stats, chart, delete."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any


def _db_parent(*, suppress: bool = False) -> argparse.ArgumentParser:
    """``--db`` before or after the action; the action's copy must not reset the other to None."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--db", metavar="URL", **({"default": argparse.SUPPRESS} if suppress else {}),
                        help="SQLAlchemy URL or SQLite file (default: history.sqlite in the user's data "
                             "directory; e.g. postgresql://user@server/truco for a club)")
    return parent


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("history", parents=[_db_parent()], help="the match history: list, show, export, stats",
                                   description="Every match the companion kept, event by event.")
    sub = parser.add_subparsers(dest="history_command", metavar="ACTION")
    db = _db_parent(suppress=True)

    p = sub.add_parser("list", parents=[db], help="matches, newest first")
    p.add_argument("--player", help="only matches where a player's name contains this")
    p.add_argument("--variant")
    p.add_argument("--status", choices=("live", "finished", "abandoned"))
    p.add_argument("--since", type=datetime.fromisoformat, help="ISO date, e.g. 2026-01-31")
    p.add_argument("--until", type=datetime.fromisoformat)
    p.add_argument("--venue")
    p.add_argument("--limit", type=int)
    p.add_argument("--deleted", action="store_true", help="include soft-deleted matches")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", parents=[db], help="one match: players, hands, events")
    p.add_argument("match", help="match id or uuid prefix")
    p.add_argument("--events", action="store_true", help="list every stored event")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("export", parents=[db], help="write matches as table logs (jsonl) or csv")
    p.add_argument("matches", nargs="*", help="match ids (default: every non-deleted match)")
    p.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    p.add_argument("-o", "--output", type=Path, help="file (default: stdout)")
    p.add_argument("--applied-only", action="store_true", help="leave out events the engine rejected")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", parents=[db], help="read matches exported earlier, or a plain table log")
    p.add_argument("files", nargs="+", type=Path)
    p.add_argument("--format", choices=("jsonl", "csv"))
    p.add_argument("--new-uuid", action="store_true", help="import as a new copy when the match exists")
    p.add_argument("--venue")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("stats", parents=[db], help="per player, per pair, head to head")
    p.add_argument("--player")
    p.add_argument("--variant")
    p.add_argument("--since", type=datetime.fromisoformat)
    p.add_argument("--chart", type=Path, help="also write results over time to FILE.png or FILE.svg")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("chart", parents=[db], help="the score through one match as PNG or SVG")
    p.add_argument("match")
    p.add_argument("-o", "--output", type=Path, required=True, help="FILE.png or FILE.svg")
    p.set_defaults(func=cmd_chart)

    p = sub.add_parser("delete", parents=[db], help="hide a match (soft delete: kept for audit)")
    p.add_argument("match")
    p.add_argument("--reason")
    p.add_argument("--restore", action="store_true", help="undo an earlier delete")
    p.set_defaults(func=cmd_delete)

    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


def _friendly(func: Any) -> Any:
    """Turn the store's lookup errors into one line on stderr and exit status 1."""
    import functools

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        from companion.history.store import NoSuchMatch

        try:
            return func(args)
        except NoSuchMatch as err:
            print(f"companion history: {err}", file=sys.stderr)
            return 1

    return wrapper


def _store(args: argparse.Namespace) -> Any:
    from companion.history.store import HistoryStore

    return HistoryStore(args.db)


def _fmt_dt(dt: datetime | None) -> str:
    return dt.strftime("%Y-%m-%d %H:%M") if dt else ""


@_friendly
def cmd_list(args: argparse.Namespace) -> int:
    from companion.history.exchange import match_meta
    from companion.history.stats import team_names

    store = _store(args)
    matches = store.list_matches(include_deleted=args.deleted, player=args.player, variant=args.variant,
                                 status=args.status, since=args.since, until=args.until, venue=args.venue,
                                 limit=args.limit)
    if args.json:
        print(json.dumps([{"id": m.id, **match_meta(m, with_events=False)} for m in matches],
                         ensure_ascii=False, indent=1))
        return 0
    if not matches:
        print(f"no matches in {store.url}")
        return 0
    for m in matches:
        teams = team_names(m.names)
        flag = " (deleted)" if m.deleted_at else ""
        print(f"#{m.id:<4} {_fmt_dt(m.started_at)}  {m.variant:<10} {teams[0]} {m.score0} × {m.score1} "
              f"{teams[1]}  [{m.status}]{' @ ' + m.venue if m.venue else ''}{flag}")
    return 0


@_friendly
def cmd_show(args: argparse.Namespace) -> int:
    from companion.history.stats import match_summary

    store = _store(args)
    match = store.find_match(args.match)
    summary = match_summary(store, match.id)
    if args.json:
        if args.events:
            summary["events_list"] = [{"seq": e.seq, "event": e.data, "source": e.source, "status": e.status,
                                       "error": e.error, "at": e.recorded_at} for e in match.events]
        print(json.dumps(summary, ensure_ascii=False, indent=1, default=str))
        return 0
    meta = summary["meta"]
    print(f"match #{match.id} {meta['uuid']}")
    print(f"  {meta['variant']}, {meta['players']} players, to {summary['target']}; {meta['status']}"
          f"{', deleted' if meta['deleted_at'] else ''}")
    print(f"  started {meta['started_at']}" + (f", ended {meta['ended_at']}" if meta["ended_at"] else ""))
    if meta["venue"]:
        print(f"  venue: {meta['venue']}")
    for seat, name in enumerate(meta["names"]):
        print(f"  seat {seat} (team {seat % 2}): {name or '-'}")
    print(f"  score: {summary['teams'][0]} {meta['score'][0]} × {meta['score'][1]} {summary['teams'][1]}"
          + (f" — winner: {summary['teams'][meta['winner']]}" if meta["winner"] is not None else ""))
    total = [0, 0]
    for i, hand in enumerate(summary["hands"], 1):
        pts = hand.get("points") or [0, 0]
        total = [total[0] + pts[0], total[1] + pts[1]]
        print(f"  hand {i:>2}: stake {hand.get('stake')}, {hand.get('end')}, +{pts[0]}/+{pts[1]} "
              f"→ {total[0]}×{total[1]}")
    for err in summary["errors"]:
        print(f"  line {err.get('line')}: {err.get('message')}")
    if args.events:
        for e in match.events:
            print(f"  {e.seq:>4} {e.status:<8} {e.source:<7} {e.payload}" + (f"  ! {e.error}" if e.error else ""))
    return 0


@_friendly
def cmd_export(args: argparse.Namespace) -> int:
    from companion.history.exchange import export_csv, export_jsonl

    store = _store(args)
    ids = [store.find_match(m).id for m in args.matches] or [m.id for m in reversed(store.list_matches())]
    matches = [store.get_match(i) for i in ids]
    out = args.output.open("w", encoding="utf-8", newline="") if args.output else sys.stdout
    try:
        if args.format == "csv":
            rows = export_csv(matches, out, applied_only=args.applied_only)
        else:
            rows = sum(export_jsonl(m, out, applied_only=args.applied_only) for m in matches)
    finally:
        if args.output:
            out.close()
    if args.output:
        print(f"{len(matches)} match(es), {rows} lines → {args.output}", file=sys.stderr)
    return 0


@_friendly
def cmd_import(args: argparse.Namespace) -> int:
    from companion.history.exchange import ImportError_, import_text

    store = _store(args)
    status = 0
    for path in args.files:
        try:
            ids = import_text(store, path.read_text(encoding="utf-8"), fmt=args.format,
                              new_uuid=args.new_uuid, venue=args.venue)
        except ImportError_ as err:
            print(f"{path}: {err}", file=sys.stderr)
            status = 1
            continue
        print(f"{path}: imported match(es) {', '.join('#' + str(i) for i in ids)}")
    return status


@_friendly
def cmd_stats(args: argparse.Namespace) -> int:
    from companion.history.stats import compute_stats

    store = _store(args)
    stats = compute_stats(store, player=args.player, since=args.since, variant=args.variant)
    if args.chart:
        from companion.history.charts import stats_over_time_chart

        args.chart.write_bytes(stats_over_time_chart(store, args.chart.suffix.lstrip(".").lower() or "png",
                                                     args.player))
        print(f"chart → {args.chart}", file=sys.stderr)
    data = stats.to_dict()
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    print(f"{data['matches']} match(es)")

    def pct(x: float | None) -> str:
        return "  -" if x is None else f"{100 * x:3.0f}%"

    def table(title: str, rows: dict[str, dict[str, Any]]) -> None:
        if not rows:
            return
        print(f"\n{title:<22} games won  hands won  truco call/acc/ref  answered acc/ref  bluffs  "
              f"envido avg/succ")
        for name, c in rows.items():
            avg = "  -" if c["envido_average"] is None else f"{c['envido_average']:4.1f}"
            print(f"{name[:22]:<22} {c['games']:>5} {c['games_won']:>3}  {c['hands']:>5} {c['hands_won']:>3}"
                  f"  {c['trucos_called']:>8}/{c['trucos_accepted']}/{c['trucos_refused']:<4}"
                  f"  {c['answered_accept']:>10}/{c['answered_refuse']:<4}"
                  f"  {c['bluffs_lost']}/{c['hands_with_truco']:<3}  {avg}/{pct(c['envido_success'])}")

    table("player", data["players"])
    table("pair", data["pairs"])
    if data["head_to_head"]:
        print("\nhead to head")
        for key, h in data["head_to_head"].items():
            a, b = key.split(" vs ")
            print(f"  {a} {h[a]} × {h[b]} {b}  ({h['games']} games)")
    return 0


@_friendly
def cmd_chart(args: argparse.Namespace) -> int:
    from companion.history.charts import match_score_chart

    store = _store(args)
    match = store.find_match(args.match)
    fmt = args.output.suffix.lstrip(".").lower()
    args.output.write_bytes(match_score_chart(store, match.id, fmt))
    print(f"chart of match #{match.id} → {args.output}")
    return 0


@_friendly
def cmd_delete(args: argparse.Namespace) -> int:
    store = _store(args)
    match = store.find_match(args.match)
    if args.restore:
        store.restore(match.id)
        print(f"match #{match.id} restored")
    else:
        store.soft_delete(match.id, args.reason)
        print(f"match #{match.id} deleted (kept for audit; --restore brings it back)")
    return 0

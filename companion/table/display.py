"""What the table sees: the camera image annotated, and a text summary.

:func:`annotate` draws on a copy of a frame: the seat zones, every detected
card (green once played, yellow while the tracker waits, red when flagged),
and a side panel with the score, the stake and any open bet, the current
trick, the last words heard, the pending confirmations and the keys.  The
same panel is printed by :func:`status_lines` where there is no screen.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from companion.table.observations import describe_event
from companion.table.zones import CENTRE

KEYS_HELP = "y confirm  n reject  1-9 other reading or seat  u undo  t type event  q quit"
PANEL_WIDTH = 330

GREEN = (60, 200, 60)
YELLOW = (0, 210, 230)
RED = (40, 40, 230)
WHITE = (240, 240, 240)
GREY = (150, 150, 150)


def _state(session: Any) -> dict[str, Any]:
    return session.state()


def status_lines(session: Any, names: list[str] | None = None) -> list[str]:
    """The panel as plain text lines."""
    st = _state(session)
    fusion = session.fusion
    names = names or st.get("names") or [f"seat {i}" for i in range(st.get("players", 4))]
    lines = []
    score = st.get("score_text") or [str(x) for x in st.get("score", [0, 0])]
    lines.append(f"score  team 0: {score[0]}   team 1: {score[1]}   (to {st.get('target')})")
    if st.get("game_over") or st.get("match_over"):
        lines.append(f"game over: team {st.get('winner')} wins")
    hand = st.get("hand_number", 0)
    if hand:
        vira = f"  vira {st['vira']}" if st.get("vira") else ""
        lines.append(f"hand {hand}  dealer {names[st['dealer']] if st.get('dealer') is not None else '-'}{vira}"
                     f"  stake {st.get('stake')}" + ("  (over)" if st.get("hand_over") else ""))
    for bet in st.get("open_bets") or []:
        word = bet.get("word") or bet.get("kind")
        lines.append(f"open bet: {word} by team {bet.get('team')}" + (f" -> {bet['to']}" if bet.get("to") else ""))
    if st.get("turn") is not None and not st.get("hand_over"):
        lines.append(f"to play: {names[st['turn']]}")
    trick = st.get("trick") or []
    if trick:
        lines.append("trick: " + "  ".join(f"{names[s]}:{c or 'covered'}" for s, c in trick))
    for t in (st.get("tricks") or [])[-3:]:
        won = "tie" if t.get("winner") is None else f"team {t['winner']}"
        lines.append("  done: " + " ".join(c or "covered" for _, c in t.get("cards", [])) + f"  ({won})")
    if fusion.heard:
        lines.append("heard: " + " | ".join(f"'{w}'" for _, w in list(fusion.heard)[-3:]))
    for p in fusion.pending[:3]:  # "~": read weakly but with no rival reading, applied unless rejected
        lines.append(f"{'~' if fusion.settles(p) else '?'} {p.describe()}")
    if not fusion.pending:  # in the log, still open: y / n / a digit answer the latest (Fusion.settling)
        for p in fusion.settling[:2]:
            left = max(0.0, (p.open_until or fusion.now) - fusion.now)
            lines.append(f"~ {p.describe()} -- in; n takes it out ({left:.0f} s)")
    nameable = fusion.nameable_alert() if not fusion.pending and not fusion.settling else None
    for a in list(fusion.alerts)[-2:]:  # an impossible card: never applied; a digit names it (Fusion.choose)
        if a.settled:
            continue
        lines.append(f"! {a.describe()}" + (" -- a digit names it" if a is nameable else ""))
    if fusion.messages:
        lines.append("> " + fusion.messages[-1])
    return lines


def annotate(image: np.ndarray, session: Any, typing: str | None = None,
             names: list[str] | None = None) -> np.ndarray:
    """A copy of ``image`` with zones, cards and the side panel drawn."""
    canvas = image.copy()
    h, w = canvas.shape[:2]
    zones = session.tracker.zones
    if zones is not None:
        overlay = canvas.copy()
        for seat, poly in zones.polygons((w, h)).items():
            colour = GREY if seat == CENTRE else (200, 120, 40)
            cv2.polylines(overlay, [poly.reshape(-1, 1, 2)], True, colour, 1, cv2.LINE_AA)
            if seat != CENTRE:
                x, y = zones.seat_point(seat, zones.reach * 1.35)
                cv2.putText(overlay, str(seat), (int(x) - 6, int(y) + 6), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                            (200, 120, 40), 2, cv2.LINE_AA)
        canvas = cv2.addWeighted(overlay, 0.6, canvas, 0.4, 0)
    for track in session.tracker.tracks:
        if track.missed > 0:
            continue
        x1, y1, x2, y2 = (int(v) for v in track.box)
        kind = track.anchor.kind if track.anchor is not None else None
        colour = YELLOW if not track.decided else (RED if kind == "flagged" else GREEN)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour, 2)
        label = f"{track.label} {track.confidence:.2f}"
        cv2.putText(canvas, label, (x1, max(12, y1 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
    panel = np.full((h, PANEL_WIDTH, 3), 30, np.uint8)
    y = 20
    lines = status_lines(session, names)
    if typing is not None:
        lines.append(f"type: {typing}_")
    lines.append(KEYS_HELP)
    for line in lines:
        colour = YELLOW if line.startswith("?") else RED if line.startswith("!") else WHITE
        for chunk in _wrap(line, 44):
            cv2.putText(panel, chunk, (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.42, colour, 1, cv2.LINE_AA)
            y += 17
            if y > h - 8:
                break
    return np.hstack([canvas, panel])


def _wrap(text: str, width: int) -> list[str]:
    out = []
    while len(text) > width:
        cut = text.rfind(" ", 0, width)
        cut = cut if cut > 0 else width
        out.append(text[:cut])
        text = "  " + text[cut:].lstrip()
    out.append(text)
    return out


def event_line(entry: Any) -> str:
    """One printed line per applied event: stream time, event, outcomes."""
    p = entry.proposal
    source = "typed" if p is None else p.source
    texts = [getattr(o, "text", "") for o in entry.outcomes if getattr(o, "text", "")]
    suffix = f"  -> {'; '.join(texts)}" if texts else ""
    how = "" if entry.resolved_by == "auto" else f" [{entry.resolved_by}]"
    return f"{entry.stream_t:7.2f}s  {source:<10} {describe_event(entry.event)}{how}{suffix}"


def notice_line(t: float, text: str) -> str | None:
    """A printed line for what the companion says that no applied event shows: a question ("?"), an
    impossible card shown ("!"), an answer's effect ("rejected: ..."); None for the rest (the applied
    events have their own lines).  Why: with no window a question waited unseen, and the table with it."""
    if not text or not (text[0] in "?!" or text.startswith("rejected:")):
        return None
    return f"{t:7.2f}s  {'':<10} {text}"

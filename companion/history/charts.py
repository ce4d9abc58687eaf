"""Charts of the history (matplotlib, Agg backend: no display needed).

Two kinds: the score of one match hand by hand, and players' results over
time.  Both return the image bytes (PNG or SVG) so the board can serve them
and the command line can write them to a file.
"""

from __future__ import annotations

import io
from typing import Any

import matplotlib

matplotlib.use("Agg")

from matplotlib import pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from companion.history.store import HistoryStore  # noqa: E402

MEDIA_TYPES = {"png": "image/png", "svg": "image/svg+xml"}
TEAM_COLORS = ("#1f6f50", "#c0392b")


def _render(fig: Figure, fmt: str) -> bytes:
    if fmt not in MEDIA_TYPES:
        raise ValueError(f"chart format must be png or svg, not {fmt!r}")
    buf = io.BytesIO()
    # A fixed date makes SVG output reproducible (no timestamp in the metadata).
    metadata = {"Date": None} if fmt == "svg" else {"Software": "companion"}
    fig.savefig(buf, format=fmt, dpi=110, bbox_inches="tight", metadata=metadata)
    plt.close(fig)
    return buf.getvalue()


def score_series(hands: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Cumulative score after each hand, starting at (0, 0)."""
    series = [(0, 0)]
    for hand in hands:
        pts = hand.get("points") or [0, 0]
        a, b = series[-1]
        series.append((a + int(pts[0]), b + int(pts[1])))
    return series


def match_score_chart(store: HistoryStore, match_id: int, fmt: str = "png") -> bytes:
    """The score of both teams through a match, one step per hand."""
    from companion.history.stats import match_summary

    summary = match_summary(store, match_id)
    meta, hands = summary["meta"], summary["hands"]
    series = score_series(hands)
    fig, ax = plt.subplots(figsize=(8, 4.2))
    xs = list(range(len(series)))
    for team in (0, 1):
        ys = [s[team] for s in series]
        ax.step(xs, ys, where="post", color=TEAM_COLORS[team], linewidth=2.4,
                label=f"{summary['teams'][team]} ({ys[-1]})")
        ax.plot(xs, ys, "o", color=TEAM_COLORS[team], markersize=4)
    target = summary.get("target")
    if target:
        ax.axhline(target, color="#888", linestyle="--", linewidth=1)
        ax.text(max(1, len(series) - 1), target, f"{target} ", va="bottom", ha="right", color="#666", fontsize=9)
        ax.set_ylim(0, max(target, *(max(s) for s in series)) + 1)
    ax.set_xlabel("hand")
    ax.set_ylabel("points")
    ax.set_title(f"Match #{match_id} · {meta['variant']} · {(meta['started_at'] or '')[:10]}")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    ax.set_xlim(-0.2, max(1, len(series) - 1) + 0.2)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return _render(fig, fmt)


def stats_over_time_chart(store: HistoryStore, fmt: str = "png", player: str | None = None,
                          top: int = 6) -> bytes:
    """Each player's share of games won, match after match, over the calendar."""
    from companion.history.stats import results_over_time

    timeline = results_over_time(store)
    if player:
        timeline = {k: v for k, v in timeline.items() if player.lower() in k.lower()}
    busiest = sorted(timeline, key=lambda k: -len(timeline[k]))[:top]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    for name in busiest:
        points = timeline[name]
        wins = 0
        xs, ys = [], []
        for i, (when, won) in enumerate(points, 1):
            wins += int(won)
            xs.append(when)
            ys.append(100.0 * wins / i)
        ax.plot(xs, ys, marker="o", linewidth=2, label=f"{name} ({wins}/{len(points)})")
    if not busiest:
        ax.text(0.5, 0.5, "no finished matches with named players yet", ha="center", va="center",
                transform=ax.transAxes, color="#666")
    ax.set_ylim(-5, 105)
    ax.set_ylabel("games won (%)")
    ax.set_title("Results over time")
    ax.grid(alpha=0.3)
    if busiest:
        ax.legend(loc="best", fontsize=9)
    fig.autofmt_xdate()
    return _render(fig, fmt)

"""Helpers for the table tests: run a recorded detection stream through the
tracker, fusion and the real engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any


from companion.table.engine_view import MemoryTableLog
from companion.table.fusion import FusionConfig
from companion.table.observations import read_stream
from companion.table.session import SessionConfig, TableSession
from companion.table.zones import Calibration, Zones

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run_stream(name: str, variant: str = "paulista", first_dealer: int = 3,
               fusion: FusionConfig | None = None) -> TableSession:
    header, frames = read_stream(FIXTURES / f"{name}.jsonl")
    log = MemoryTableLog({"type": "match", "variant": variant, "players": 4})
    config = SessionConfig(fusion=fusion or FusionConfig())
    zones = Zones(Calibration.from_dict(header["calibration"])) if "calibration" in header else None
    session = TableSession(log, zones=zones, config=config, first_dealer=first_dealer)
    for frame in frames:
        session.feed_detections(frame)
    session.finish()
    return session


def events(session: TableSession) -> list[dict[str, Any]]:
    return list(session.log.events)  # type: ignore[attr-defined]

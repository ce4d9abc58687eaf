"""Helpers for the table tests: run a recorded detection stream through the
tracker, fusion and the real engine."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from companion.table.engine_view import MemoryTableLog
from companion.table.fusion import Fusion, FusionConfig
from companion.table.observations import FrameDetections, read_stream
from companion.table.replay import UNATTENDED
from companion.table.session import SessionConfig, TableSession
from companion.table.tracker import TrackerConfig
from companion.table.zones import Calibration, Zones

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run_stream(name: str, variant: str = "paulista", first_dealer: int = 3,
               fusion: FusionConfig | None = None, tracker: TrackerConfig | None = None) -> TableSession:
    header, frames = read_stream(FIXTURES / f"{name}.jsonl")
    log = MemoryTableLog({"type": "match", "variant": variant, "players": 4})
    config = SessionConfig(fusion=fusion or FusionConfig())
    if tracker is not None:
        config.tracker = tracker
    zones = Zones(Calibration.from_dict(header["calibration"])) if "calibration" in header else None
    session = TableSession(log, zones=zones, config=config, first_dealer=first_dealer)
    for frame in frames:
        session.feed_detections(frame)
    session.finish()
    return session


def run_frames(frames: Iterable[FrameDetections], variant: str = "paulista", first_dealer: int = 3,
               calibration: Calibration | None = None, fusion: FusionConfig | None = None,
               tracker: TrackerConfig | None = None) -> TableSession:
    """Frames built in a test, through the tracker, fusion (unattended unless told) and the real engine;
    seat 0 at the bottom of a 640x480 frame unless ``calibration`` says otherwise."""
    log = MemoryTableLog({"type": "match", "variant": variant, "players": 4})
    zones = Zones(calibration or Calibration((320, 240), (320, 400), 4, (640, 480)))
    session = TableSession(log, zones=zones, config=SessionConfig(tracker=tracker or TrackerConfig(),
                                                       fusion=fusion or FusionConfig(**UNATTENDED.__dict__)),
                           first_dealer=first_dealer)
    for frame in frames:
        session.feed_detections(frame)
    session.finish()
    return session


def events(session: TableSession) -> list[dict[str, Any]]:
    return list(session.log.events)  # type: ignore[attr-defined]


def pica_pica() -> Fusion:
    """Fusion (with the Spanish call interpreter) over a six-player Argentine match at its second deal, a
    pica-pica (three duels): "truco" may come from any seat whose duel has no bet yet, of either team."""
    from companion.table.voice import VoiceInterpreter

    fusion = Fusion(MemoryTableLog({"type": "match", "variant": "argentino", "players": 6}),
                    FusionConfig(hold=0.5, voice_hold=0.5, pending_timeout=None), first_dealer=2)
    for event in ({"type": "hand", "dealer": 2}, {"type": "raise", "seat": 3, "to": 2}, {"type": "refuse", "seat": 4},
                  {"type": "hand", "dealer": 3}):
        assert fusion.enter(event)
    fusion.interpreter = VoiceInterpreter("es", "argentino").interpret
    return fusion

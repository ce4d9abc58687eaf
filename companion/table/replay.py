"""Run a recorded session through the pipeline, as fast as the machine allows.

Used by ``companion replay``, ``companion demo`` and the evaluation.  Inputs
are merged by time: video frames (through the detector) or a recorded
detection stream, and words from a WAV file (recognised with vosk, when a
model is installed) or a timed transcript (through the speech matcher).
Nobody sits at the table during a replay, so a pending proposal is resolved
by the unattended policy (``FusionConfig.pending_timeout``/``auto_action``):
by default it is applied after 2 s of stream time if the engine accepts it,
and every such decision is counted in the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.table.engine_view import JsonlTableLog, MemoryTableLog, TableLog
from companion.table.fusion import FusionConfig
from companion.table.observations import FrameDetections, VoiceObservation
from companion.table.session import SessionConfig, TableSession, describe_gaps, open_video, read_frames
from companion.table.voice import VoiceInterpreter
from companion.table.zones import Zones

UNATTENDED = FusionConfig(pending_timeout=2.0, auto_action="accept", seat_timeout=4.0)
ANALYSIS_FPS = 10.0


@dataclass
class ReplayResult:
    session: TableSession
    log: TableLog
    wall_seconds: float
    stream_seconds: float
    voice_source: str  # "audio", "transcript", "transcript-events" or "none"
    frames_read: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def speed(self) -> float:
        """Stream seconds processed per wall second (x real time)."""
        return self.stream_seconds / self.wall_seconds if self.wall_seconds > 0 else float("inf")

    @property
    def events(self) -> list[dict[str, Any]]:
        return list(getattr(self.log, "events", []))


def make_log(match_event: dict[str, Any], path: str | Path | None) -> TableLog:
    return JsonlTableLog(path, match_event) if path else MemoryTableLog(match_event)


def transcript_items(items: Iterable[dict[str, Any]]) -> list[tuple[float, str, dict[str, Any]]]:
    return sorted(((float(i["t"]), str(i["words"]), i) for i in items), key=lambda x: x[0])


def replay(
    match_event: dict[str, Any],
    *,
    video: str | Path | None = None,
    detections: Iterable[FrameDetections] | None = None,
    detector: Any = None,
    transcript: list[dict[str, Any]] | None = None,
    audio: str | Path | None = None,
    lang: str = "pt",
    zones: Zones | None = None,
    log_path: str | Path | None = None,
    config: SessionConfig | None = None,
    first_dealer: int | None = None,
    every: int = 1,
    use_matcher: bool = True,
    on_frame: Callable[[TableSession, Any, FrameDetections], None] | None = None,
) -> ReplayResult:
    """Process one recording; see the module docstring.  ``every`` > 1
    analyses only every n-th video frame (the others are skipped undecoded);
    0 picks it from the video's rate so that about 10 frames a second are
    analysed, enough for the tracker and what keeps a 30 fps video fast."""
    if config is None:
        config = SessionConfig(fusion=FusionConfig(**UNATTENDED.__dict__))
    log = make_log(match_event, log_path)
    voice_source = "none"
    interpreter = None
    words: list[tuple[float, Any, str]] = []
    notes: list[str] = []
    if audio is not None:
        from companion.table.voice import audio_words

        interpreter = VoiceInterpreter(lang, match_event.get("variant"))
        words = [(t, w, "audio") for t, w in audio_words(audio, lang, match_event.get("variant"))]
        voice_source = "audio"
    elif transcript is not None:
        items = transcript_items(transcript)
        if use_matcher:
            try:
                interpreter = VoiceInterpreter(lang, match_event.get("variant"))
                words = [(t, w, "transcript") for t, w, _ in items]
                voice_source = "transcript"
            except ImportError as err:
                notes.append(f"speech matcher unavailable ({err}); using the transcript's events")
        if interpreter is None:
            words = [(t, item, "transcript-events") for t, _, item in items]
            voice_source = "transcript-events"
    session = TableSession(log, detector=detector, zones=zones, config=config, voice=interpreter,
                           first_dealer=first_dealer)
    wi = 0

    def hear_until(t: float) -> None:
        nonlocal wi
        while wi < len(words) and words[wi][0] <= t:
            when, said, source = words[wi]
            wi += 1
            if source == "transcript-events":
                truth = said.get("truth") or said.get("event")
                events = ({"event": truth, "confidence": 1.0, "decision": "apply"},) if truth else ()
                session.feed_voice(VoiceObservation(when, said.get("words", ""), events, None, None, "transcript"))
            else:
                session.feed_words(when, said, source)

    start = time.perf_counter()
    frames_read = 0
    last_t = 0.0
    if video is not None:
        if detector is None:
            raise ValueError("replaying a video needs a detector")
        cap, fps, count = open_video(video)
        if every <= 0:
            every = max(1, round(fps / ANALYSIS_FPS))
        gaps: list[tuple[int, int]] = []
        try:
            for index, t, image in read_frames(cap, fps, every, count, gaps):
                hear_until(t)
                frame = session.feed_frame(t, image, index)
                if on_frame is not None:
                    on_frame(session, image, frame)
                frames_read += 1
                last_t = t
        finally:
            cap.release()
        notes.extend(describe_gaps(gaps, fps))
        last_t = max(last_t, gaps[-1][1] / fps if gaps else 0.0) + 1.0 / fps
    elif detections is not None:
        for frame in detections:
            hear_until(frame.t)
            session.feed_detections(frame)
            if on_frame is not None:
                on_frame(session, None, frame)
            frames_read += 1
            last_t = frame.t
    hear_until(float("inf"))
    session.finish()
    wall = time.perf_counter() - start
    log.close()
    stream = max(last_t, words[-1][0] if words else 0.0)
    return ReplayResult(session, log, wall, stream, voice_source, frames_read, notes)

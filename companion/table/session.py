"""The loop shared by ``companion run``, ``replay`` and ``demo``.

    frames -> detector -> tracker -> fusion -> engine -> sinks (log, screen, scoreboard)
    words  -> speech matcher ----------^

:class:`TableSession` is fed in time order: :meth:`~TableSession.feed_frame`
(an image; the detector runs on it), :meth:`~TableSession.feed_detections`
(a recorded or simulated detection frame) and :meth:`~TableSession.feed_words`
(what was heard).  It owns no clock and no window; the commands drive it.

The detector is the expensive stage, so a frame that looks like the last one
the detector saw (a still table: nothing moved by more than
``change_threshold`` grey levels on a 1/8 thumbnail) reuses its detections,
at most ``max_reuse`` times in a row.  Frame sources here turn a camera or a
video file into ``(t, image)`` with clear errors for what cannot be opened.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.table.engine_view import TableLog
from companion.table.fusion import Fusion, FusionConfig
from companion.table.observations import DETECTOR, Detection, FrameDetections, VoiceObservation
from companion.table.tracker import WEAK_CONFIDENCE, TableTracker, TrackerConfig
from companion.table.zones import Zones


class CameraError(RuntimeError):
    """The camera cannot be opened or gives no frames."""


class VideoError(RuntimeError):
    """A video file is missing, unreadable or corrupt."""


@dataclass
class SessionConfig:
    tracker: TrackerConfig = field(default_factory=TrackerConfig)
    fusion: FusionConfig = field(default_factory=FusionConfig)
    change_threshold: float = 10.0  # grey levels on the thumbnail; <= 0: run the detector on every frame
    max_reuse: int = 9  # consecutive frames that may reuse the previous detections (a still table: once a second)


@dataclass
class SessionStats:
    frames: int = 0
    detected: int = 0  # frames the detector ran on
    detect_seconds: float = 0.0
    process_seconds: float = 0.0  # everything per frame (detector, tracker, fusion)
    stream_seconds: float = 0.0  # video time covered

    def summary(self) -> dict[str, Any]:
        return {
            "frames": self.frames, "detected": self.detected,
            "detect_ms": round(1000 * self.detect_seconds / max(1, self.detected), 1),
            "process_ms": round(1000 * self.process_seconds / max(1, self.frames), 1),
            "stream_seconds": round(self.stream_seconds, 2),
        }


def table_detector(family: str, deck: Any = None, conf: float | None = None, outline_model: bool | None = None,
                   **options: Any) -> Any:
    """The card detector as the table uses it: boxes down to the tracker's weak
    threshold (:data:`~companion.table.tracker.WEAK_CONFIDENCE`), since a card
    the detector barely sees for seconds must still be tracked (``companion
    detect`` keeps the stricter threshold of a single photo), and the bright
    card-shaped outlines it missed (a dark pip on a dark cloth) named at a
    lower bar than in a photo, each index corner read from one window (a photo
    averages several: ``TABLE_CORNER_SHIFTS``), each card turned upright by the
    outline model's outline where it gives one (``outline_model``, None:
    ``TABLE_OUTLINE_MODEL``), and the model's outlines no box covers named too
    where ``TABLE_OUTLINE_MODEL_BOXES`` asks (off: session 59).  Raises the
    vision layer's ``ModelError`` when the weights are missing or broken."""
    from companion.vision.detector import CardDetector

    return CardDetector(family, deck=deck, **table_detector_options(conf, outline_model, **options))


def table_detector_options(conf: float | None = None, outline_model: bool | None = None,
                           **options: Any) -> dict[str, Any]:
    """The ``CardDetector`` options of :func:`table_detector` (all but family and deck), in one place so that
    the detector and the identity a recorded detection stream is checked by
    (:func:`companion.table.evaluate.detector_identity`) cannot drift apart."""
    from companion.vision.settings import (TABLE_CORNER_SHIFTS, TABLE_OUTLINE_MIN_PROB, TABLE_OUTLINE_MODEL,
                                           TABLE_OUTLINE_MODEL_BOXES)

    return {"conf": WEAK_CONFIDENCE if conf is None else conf, "outlines": True,
            "outline_min_prob": TABLE_OUTLINE_MIN_PROB, "corner_shifts": TABLE_CORNER_SHIFTS,
            "outline_model": TABLE_OUTLINE_MODEL if outline_model is None else outline_model,
            "outline_model_boxes": TABLE_OUTLINE_MODEL_BOXES, **options}


def adapt_detections(raw: Any) -> tuple[Detection, ...]:
    """The vision layer's detections (objects with ``card``/``label``,
    ``confidence``, ``box``, and optionally ``detector_confidence``/``presence``,
    ``alternatives``, ``outline`` and ``found_by``, or dicts) as tracker detections."""
    out = []
    for d in raw or ():
        get = d.get if isinstance(d, dict) else (lambda k, default=None, _d=d: getattr(_d, k, default))
        label = get("card") or get("label")
        conf = get("confidence", get("score", 0.0))
        box = get("box") or get("xyxy")
        if label is None or box is None:
            continue
        presence = get("presence", get("detector_confidence"))
        alternatives = tuple((str(k), float(c)) for k, c in (get("alternatives") or ()))
        outline = get("outline")
        out.append(Detection(str(label), float(conf), tuple(float(v) for v in box),  # type: ignore[arg-type]
                             None if presence is None else float(presence), alternatives,
                             None if outline is None else float(outline), str(get("found_by") or DETECTOR)))
    return tuple(out)


class TableSession:
    def __init__(self, log: TableLog, *, detector: Any = None, zones: Zones | None = None,
                 config: SessionConfig | None = None, voice: Any = None, first_dealer: int | None = None) -> None:
        self.config = config or SessionConfig()
        self.log = log
        self.fusion = Fusion(log, self.config.fusion, first_dealer)
        players = int(getattr(log.game.state, "players", 0) or _players(log))
        self.tracker = TableTracker(zones, self.config.tracker, players)
        self.fusion.vision_busy = self.tracker.undecided_before
        self.fusion.swept = self.tracker.swept_since
        self.detector = detector
        self.voice = voice  # a VoiceInterpreter, or None (voice events must then come pre-matched)
        if voice is not None:
            self.fusion.interpreter = voice.interpret
        self.stats = SessionStats()
        self.last_frame: FrameDetections | None = None
        self._thumb: np.ndarray | None = None
        self._reused = 0
        self._last_raw: tuple[Detection, ...] = ()

    # --- inputs ------------------------------------------------------------------------------
    def _changed(self, image: np.ndarray) -> bool:
        if self.config.change_threshold <= 0 or self._thumb is None:
            return True
        if self._reused >= self.config.max_reuse:
            return True
        thumb = _thumbnail(image)
        if thumb.shape != self._thumb.shape:
            return True
        diff = cv2.absdiff(thumb, self._thumb)
        return float(diff.max()) > self.config.change_threshold

    def detect(self, image: np.ndarray) -> tuple[Detection, ...]:
        if self.detector is None:
            raise RuntimeError("this session has no detector: feed detections instead of images")
        if self._changed(image):
            start = time.perf_counter()
            dets = adapt_detections(self.detector.detect(image))
            self.stats.detect_seconds += time.perf_counter() - start
            self.stats.detected += 1
            self._thumb = _thumbnail(image)
            self._last_raw = dets
            self._reused = 0
        else:
            self._reused += 1
        return self._last_raw

    def feed_frame(self, t: float, image: np.ndarray, index: int | None = None) -> FrameDetections:
        start = time.perf_counter()
        dets = self.detect(image)
        h, w = image.shape[:2]
        frame = FrameDetections(t, dets, index, (w, h))
        self._process(frame)
        self.stats.process_seconds += time.perf_counter() - start
        return frame

    def feed_detections(self, frame: FrameDetections) -> None:
        start = time.perf_counter()
        self._process(frame)
        self.stats.process_seconds += time.perf_counter() - start

    def _process(self, frame: FrameDetections) -> None:
        self.stats.frames += 1
        self.stats.stream_seconds = max(self.stats.stream_seconds, frame.t)
        self.last_frame = frame
        self.fusion.now = max(self.fusion.now, frame.t)
        if self.tracker.update(frame, self.fusion.view, self.fusion.submit):
            self.fusion.revised()
        self.fusion.tick(frame.t)

    def feed_words(self, t: float, words: Any, source: str = "transcript") -> None:
        """Words heard at ``t``; fusion has the speech matcher interpret them
        once everything seen before them is in the game."""
        if self.voice is None:
            raise RuntimeError("this session has no speech matcher: feed VoiceObservation objects")
        self.fusion.now = max(self.fusion.now, t)
        self.fusion.hear_words(t, words, source)
        self.fusion.tick(t)

    def feed_voice(self, obs: VoiceObservation) -> None:
        self.fusion.now = max(self.fusion.now, obs.t)
        self.fusion.hear(obs)
        self.fusion.tick(obs.t)

    def finish(self) -> None:
        self.fusion.flush()

    # --- outputs -----------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        state = self.log.game.state
        return state.to_dict() if hasattr(state, "to_dict") else dict(state)


def _players(log: TableLog) -> int:
    state = log.game.state
    data = state.to_dict() if hasattr(state, "to_dict") else dict(state)
    return int(data.get("players", 4))


def _thumbnail(image: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = grey.shape[:2]
    return cv2.resize(grey, (max(8, w // 8), max(8, h // 8)), interpolation=cv2.INTER_AREA)


# --- frame sources ---------------------------------------------------------------------------

def open_video(path: str | Path) -> tuple[cv2.VideoCapture, float, int]:
    """Open a video file; (capture, fps, frame count).  A missing, empty or
    undecodable file raises :class:`VideoError` naming the file."""
    p = Path(path)
    if not p.is_file():
        raise VideoError(f"video file not found: {p}")
    if p.stat().st_size == 0:
        raise VideoError(f"video file is empty: {p}")
    cap = cv2.VideoCapture(str(p))
    if not cap.isOpened():
        raise VideoError(f"cannot open video {p}: not a video OpenCV can decode (corrupt or unknown format)")
    ok, frame = cap.read()
    if not ok or frame is None:
        cap.release()
        raise VideoError(f"cannot read any frame from {p}: the file is corrupt or not a video")
    cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
    fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
    if not (0 < fps < 1000):
        fps = 30.0
    count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    return cap, float(fps), count


# seconds of frames failing in a row that end a video whose frame count the container does not give
MAX_VIDEO_GAP = 5.0


def read_frames(cap: cv2.VideoCapture, fps: float, every: int = 1, count: int = 0,
                gaps: list[tuple[int, int]] | None = None) -> Iterator[tuple[int, float, np.ndarray]]:
    """(index, t, image) of an opened video; ``every`` > 1 skips frames (grabbed, not decoded).

    A frame that does not decode is skipped, not taken for the end: reading goes on up to the
    container's frame ``count`` (none given: until ``MAX_VIDEO_GAP`` seconds of frames failed in a
    row), and each stretch skipped is appended to ``gaps`` as (its first index, the index after it).
    Why: a recording with a corrupt stretch stopped there, silently: the bundled demo video with
    150 kB zeroed 40 % of the way in was replayed to 20.5 s of its 53.8 and scored 0-0.  OpenCV
    decodes again after such a stretch (there from 27.7 s on), and each frame it fails on is one
    frame of the video, so the indices and times stay right.

    The caller opens (``open_video``) and releases the capture, since it also
    needs the frame rate before reading.
    """
    index = 0
    failed_from: int | None = None
    while True:
        analysed = every <= 1 or index % every == 0
        if analysed:
            ok, image = cap.read()
            ok = bool(ok) and image is not None
        else:
            ok, image = bool(cap.grab()), None
        if not ok:
            failed_from = index if failed_from is None else failed_from
            index += 1
            if (index < count) if count > 0 else (index - failed_from < MAX_VIDEO_GAP * fps):
                continue
            if gaps is not None and count > 0 and count - failed_from >= fps:
                gaps.append((failed_from, count))  # a corrupt end: a second or more short of the count
            return
        if failed_from is not None:
            if gaps is not None:
                gaps.append((failed_from, index))
            failed_from = None
        if analysed:
            yield index, index / fps, image
        index += 1


def describe_gaps(gaps: list[tuple[int, int]], fps: float) -> list[str]:
    """One line for each stretch of a video that could not be decoded."""
    return [f"frames {a}-{b - 1} ({a / fps:.1f}-{b / fps:.1f} s) could not be decoded (a corrupt stretch of "
            f"the video): skipped; a card put down then is read once the video decodes again"
            for a, b in gaps]


class SteadyCamera:
    """A live camera a glitch does not end: :meth:`read` waits out frames that do not come,
    opening the camera again every ``retry`` seconds, and gives up -- ``(False, None)``, as
    OpenCV's end of stream -- only after ``give_up`` seconds without a frame.

    Why: the live loop stopped at the first frame the camera failed to give ("camera stream
    ended"): a USB hiccup, or a cable touched, ended the evening's session.  The match was kept
    (``--resume`` goes on with it), but nobody at a loud table watches for that."""

    def __init__(self, cap: Any, reopen: Any = None, retry: float = 1.0, give_up: float = 10.0,
                 say: Any = None, clock: Any = time.monotonic, sleep: Any = time.sleep) -> None:
        self.cap, self.reopen, self.retry, self.give_up = cap, reopen, retry, give_up
        self.say = say or (lambda text: None)
        self.clock, self.sleep = clock, sleep

    def read(self) -> tuple[bool, np.ndarray | None]:
        ok, image = self.cap.read()
        if ok and image is not None:
            return True, image
        start = last_open = self.clock()
        self.say("camera: no frame; waiting for it")
        while self.clock() - start < self.give_up:
            self.sleep(0.05)
            if self.reopen is not None and self.clock() - last_open >= self.retry:
                last_open = self.clock()
                try:
                    fresh = self.reopen()
                except CameraError:
                    fresh = None
                if fresh is not None:
                    self.cap.release()
                    self.cap = fresh
            ok, image = self.cap.read()
            if ok and image is not None:
                self.say(f"camera: frames again after {self.clock() - start:.1f} s")
                return True, image
        return False, None

    def release(self) -> None:
        self.cap.release()


def frame_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` -> (1280, 720); a ValueError that says what is wanted otherwise."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        width = height = 0
    if width <= 0 or height <= 0:
        raise ValueError(f"--size wants WIDTHxHEIGHT, e.g. 1280x720 (got {text!r})")
    return width, height


def open_camera(index: int, width: int | None = None, height: int | None = None) -> cv2.VideoCapture:
    """Open camera ``index``; a clear :class:`CameraError` if there is none."""
    if not Path(f"/dev/video{index}").exists() and Path("/dev").is_dir() and not _has_video_api():
        raise CameraError(f"no camera {index}: /dev/video{index} does not exist")
    cap = cv2.VideoCapture(index)
    if not cap or not cap.isOpened():
        raise CameraError(f"cannot open camera {index} (is it connected, and not used by another program?)")
    cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not one queued while the detector ran
    if width:
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
    if height:
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
    ok, frame = cap.read()
    if not ok or frame is None:
        cap.release()
        raise CameraError(f"camera {index} opened but gives no image")
    return cap


def _has_video_api() -> bool:
    """Whether a platform camera API other than V4L2 device files may exist
    (macOS, Windows): there the /dev check says nothing."""
    import sys

    return sys.platform in ("darwin", "win32")

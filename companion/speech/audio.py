"""Audio in: the microphone and sound files through one callback path.

Both sources call the same ``on_block(pcm: bytes, t0: float)`` with 16 kHz
mono 16-bit blocks, so a test or a replay of a recording runs exactly the
code that runs live.  The microphone uses sounddevice (PortAudio); files
are read with soundfile (WAV, FLAC, OGG) and mixed down / resampled.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

SAMPLE_RATE = 16000
BLOCK_SECONDS = 0.05

BlockCallback = Callable[[bytes, float], None]


class AudioError(RuntimeError):
    """No audio: PortAudio or the device is missing, or a file cannot be read."""


def to_pcm16(samples: np.ndarray, rate: int, target: int = SAMPLE_RATE) -> np.ndarray:
    """Mono int16 at ``target`` Hz from any float/int array (frames x channels)."""
    data = np.asarray(samples)
    if data.dtype.kind == "i":
        data = data.astype(np.float64) / (np.iinfo(data.dtype).max + 1)
    else:
        data = data.astype(np.float64)
    if data.ndim == 2:
        data = data.mean(axis=1)
    if rate != target and len(data):
        # Linear interpolation is enough for speech recognition at 16 kHz;
        # the models' own front end low-passes at 7.6 kHz.
        duration = len(data) / rate
        n_out = int(round(duration * target))
        data = np.interp(np.arange(n_out) / target, np.arange(len(data)) / rate, data)
    # soundfile reads int16 as value / 32768: scale back the same way and round,
    # so a 16-bit file comes through bit for bit.
    return np.clip(np.round(data * 32768.0), -32768, 32767).astype(np.int16)


def read_audio(path: str | Path, target: int = SAMPLE_RATE) -> np.ndarray:
    """A whole sound file as mono int16 at ``target`` Hz."""
    import soundfile

    try:
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (RuntimeError, OSError, soundfile.LibsndfileError) as exc:
        raise AudioError(f"cannot read {path}: {exc}") from None
    return to_pcm16(data, rate, target)


def blocks(pcm: np.ndarray, block_seconds: float = BLOCK_SECONDS, rate: int = SAMPLE_RATE) -> Iterator[tuple[bytes, float]]:
    step = max(1, int(rate * block_seconds))
    for start in range(0, len(pcm), step):
        yield pcm[start : start + step].tobytes(), start / rate


class FileSource:
    """Plays a sound file into the callback, as fast as it is consumed or in real time."""

    def __init__(self, path: str | Path, block_seconds: float = BLOCK_SECONDS, realtime: bool = False):
        self.path = Path(path)
        self.block_seconds = block_seconds
        self.realtime = realtime
        self.pcm = read_audio(self.path)

    @property
    def duration(self) -> float:
        return len(self.pcm) / SAMPLE_RATE

    def run(self, on_block: BlockCallback, stop: Callable[[], bool] = lambda: False) -> None:
        started = time.monotonic()
        for pcm, t0 in blocks(self.pcm, self.block_seconds):
            if stop():
                return
            if self.realtime:
                delay = started + t0 - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            on_block(pcm, t0)


def _sounddevice() -> Any:
    try:
        import sounddevice
    except OSError as exc:  # the Python package is there, PortAudio is not
        raise AudioError(
            f"PortAudio is not available ({exc}). Install it: Debian/Ubuntu "
            "`sudo apt-get install libportaudio2`, macOS `brew install portaudio`."
        ) from None
    return sounddevice


def list_input_devices() -> list[tuple[int, str]]:
    sd = _sounddevice()
    return [
        (i, d["name"]) for i, d in enumerate(sd.query_devices()) if d.get("max_input_channels", 0) > 0
    ]


class MicSource:
    """The microphone through sounddevice; ``device`` is an index or a name part."""

    def __init__(self, device: int | str | None = None, block_seconds: float = BLOCK_SECONDS):
        self.sd = _sounddevice()
        self.block_seconds = block_seconds
        if isinstance(device, str) and device.isdigit():
            device = int(device)
        try:
            info = self.sd.query_devices(device, "input")
        except (ValueError, self.sd.PortAudioError) as exc:
            names = ", ".join(f"{i}: {n}" for i, n in list_input_devices()) or "none"
            raise AudioError(f"no input device {device if device is not None else '(default)'}: {exc}. "
                             f"Input devices: {names}. Choose one with --mic.") from None
        self.device = device
        self.name = info["name"]

    def run(self, on_block: BlockCallback, stop: Callable[[], bool] = lambda: False,
            silence: float | None = None) -> None:
        """Record until ``stop()`` is true, calling ``on_block`` from this thread.  ``silence``: raise
        :class:`AudioError` when no block at all came for that many seconds (a microphone unplugged
        mid-stream can leave the stream open and simply stop calling back)."""
        blocks_q: queue.Queue[bytes] = queue.Queue()
        frames = int(SAMPLE_RATE * self.block_seconds)

        def callback(indata: Any, _frames: int, _time: Any, status: Any) -> None:
            blocks_q.put(bytes(indata))

        t = 0.0
        try:
            with self.sd.RawInputStream(
                samplerate=SAMPLE_RATE, blocksize=frames, device=self.device,
                dtype="int16", channels=1, callback=callback,
            ):
                waited = 0.0
                while not stop():
                    try:
                        pcm = blocks_q.get(timeout=0.5)
                    except queue.Empty:
                        waited += 0.5
                        if silence is not None and waited >= silence:
                            raise AudioError(f"microphone {self.name}: no sound for {waited:g} s") from None
                        continue
                    waited = 0.0
                    on_block(pcm, t)
                    t += len(pcm) / 2 / SAMPLE_RATE
        except self.sd.PortAudioError as exc:
            raise AudioError(f"microphone {self.name}: {exc}") from None

"""Spoken test material from espeak-ng, with the time each phrase ends.

Tests and the latency benchmark need audio whose word ends are known.
Each phrase is synthesised alone, its leading and trailing silence trimmed
by energy, and the phrases are joined with chosen pauses, so the end of
every phrase in the joined audio is exact to 10 ms.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.speech.audio import SAMPLE_RATE, read_audio

FRAME = SAMPLE_RATE // 100  # 10 ms


class TTSUnavailable(RuntimeError):
    pass


@dataclass(frozen=True)
class Segment:
    text: str  # what was synthesised
    start: float  # seconds, first voiced frame
    end: float  # seconds, end of the last voiced frame
    label: str | None = None  # what the test expects (a phrase id), if anything


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


def speak(text: str, voice: str, rate: int = 150, pitch: int = 50) -> np.ndarray:
    """``text`` said by espeak-ng as 16 kHz mono int16, silence trimmed."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise TTSUnavailable("espeak-ng is not installed (Debian: apt-get install espeak-ng)")
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "say.wav"
        subprocess.run([exe, "-v", voice, "-s", str(rate), "-p", str(pitch), "-w", str(wav), text],
                       check=True, capture_output=True)
        pcm = read_audio(wav)
    return trim(pcm)


def voiced_frames(pcm: np.ndarray, rel: float = 0.03) -> np.ndarray:
    n = len(pcm) // FRAME
    if n == 0:
        return np.zeros(0, dtype=int)
    frames = pcm[: n * FRAME].astype(np.float64).reshape(n, FRAME)
    energy = np.sqrt((frames**2).mean(axis=1))
    return np.nonzero(energy > rel * energy.max())[0] if energy.max() > 0 else np.zeros(0, dtype=int)


def trim(pcm: np.ndarray) -> np.ndarray:
    voiced = voiced_frames(pcm)
    if len(voiced) == 0:
        return pcm[:0]
    return pcm[voiced[0] * FRAME : (voiced[-1] + 1) * FRAME]


def compose(
    parts: list[tuple[str, str | None]],
    voice: str,
    rate: int = 150,
    gap: float = 0.8,
    lead: float = 0.5,
    tail: float = 1.2,
    noise: float = 0.0,
    seed: int = 0,
) -> tuple[np.ndarray, list[Segment]]:
    """Join phrases ``(text, label)`` with ``gap`` seconds of silence between them.

    ``noise`` adds white noise at that RMS (int16 units) so silence is not
    digital zero, as with a real microphone.
    """
    chunks = [np.zeros(int(lead * SAMPLE_RATE), dtype=np.int16)]
    segments = []
    at = len(chunks[0])
    for i, (text, label) in enumerate(parts):
        pcm = speak(text, voice, rate)
        segments.append(Segment(text, at / SAMPLE_RATE, (at + len(pcm)) / SAMPLE_RATE, label))
        chunks.append(pcm)
        at += len(pcm)
        pause = np.zeros(int((tail if i == len(parts) - 1 else gap) * SAMPLE_RATE), dtype=np.int16)
        chunks.append(pause)
        at += len(pause)
    audio = np.concatenate(chunks)
    if noise > 0:
        rng = np.random.default_rng(seed)
        audio = np.clip(audio + rng.normal(0, noise, len(audio)), -32768, 32767).astype(np.int16)
    return audio, segments


def write_wav(path: str | Path, pcm: np.ndarray) -> Path:
    import soundfile

    soundfile.write(str(path), pcm, SAMPLE_RATE, subtype="PCM_16")
    return Path(path)

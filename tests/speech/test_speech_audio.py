"""Audio in: one callback path for files and the microphone; clear errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile

from companion.speech import audio
from companion.speech.audio import AudioError, FileSource, to_pcm16


def test_to_pcm16_mixes_down_and_resamples() -> None:
    t = np.arange(44100) / 44100
    stereo = np.stack([np.sin(2 * np.pi * 440 * t), np.sin(2 * np.pi * 440 * t)], axis=1) * 0.5
    pcm = to_pcm16(stereo, 44100)
    assert pcm.dtype == np.int16 and len(pcm) == 16000
    assert 15000 < np.abs(pcm).max() < 17000
    ints = to_pcm16((stereo * 32767).astype(np.int16), 44100)
    assert np.abs(ints.astype(int) - pcm.astype(int)).max() <= 2


def test_file_source_feeds_blocks_in_order(tmp_path: Path) -> None:
    samples = (np.arange(16000 * 2) % 1000).astype(np.int16)
    path = tmp_path / "a.flac"
    soundfile.write(str(path), samples, 16000)
    got: list[tuple[bytes, float]] = []
    FileSource(path, block_seconds=0.1).run(lambda pcm, t0: got.append((pcm, t0)))
    assert [t for _, t in got][:3] == [0.0, 0.1, 0.2]
    assert np.array_equal(np.frombuffer(b"".join(p for p, _ in got), np.int16), samples)


def test_unreadable_file(tmp_path: Path) -> None:
    bad = tmp_path / "x.wav"
    bad.write_text("not audio")
    with pytest.raises(AudioError, match="cannot read"):
        FileSource(bad)


def test_missing_portaudio_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *args, **kwargs):
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(AudioError, match="libportaudio2"):
        audio.MicSource()


def test_missing_device_is_explained() -> None:
    try:
        import sounddevice  # noqa: F401
    except OSError:
        pytest.skip("PortAudio missing here; covered by test_missing_portaudio_is_explained")
    with pytest.raises(AudioError, match="--mic"):
        audio.MicSource("no such microphone 12345")


def test_a_microphone_that_goes_quiet_mid_stream_is_an_error_not_a_hang() -> None:
    """Unplugged mid-stream, a microphone's stream can stay open and stop calling back: with
    ``silence`` the source says so instead of waiting for good (``companion run`` opens it again)."""
    import contextlib

    class FakeSd:
        class PortAudioError(Exception):
            pass

        @staticmethod
        @contextlib.contextmanager
        def RawInputStream(callback, **kwargs):  # type: ignore[no-untyped-def]  # noqa: N802
            callback(b"\x00\x00" * 1600, 1600, None, None)  # one block, then nothing
            yield

    mic = audio.MicSource.__new__(audio.MicSource)
    mic.sd, mic.block_seconds, mic.device, mic.name = FakeSd, 0.1, None, "usb mic"
    got: list[float] = []
    with pytest.raises(AudioError, match="usb mic: no sound for 1 s"):
        mic.run(lambda pcm, t0: got.append(t0), silence=1.0)
    assert got == [0.0]

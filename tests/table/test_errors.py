"""Clear errors, not tracebacks: no camera, no microphone, a corrupt video,
no display."""

from __future__ import annotations

import sys

import pytest

from companion.cli import main
from companion.paths import DATA_DIR
from companion.table.session import CameraError, VideoError, open_camera, open_video

DEMO_VIDEO = DATA_DIR / "demo" / "video.mp4"


def test_missing_camera_is_a_clear_error(capsys):
    with pytest.raises(CameraError, match="camera 97"):
        open_camera(97)
    assert main(["run", "--variant", "paulista", "--camera", "97", "--no-window", "--no-mic"]) == 2
    assert "camera 97" in capsys.readouterr().err
    assert main(["run", "--variant", "paulista", "--camera", "0", "--size", "big", "--no-window", "--no-mic"]) == 2
    err = capsys.readouterr().err
    assert "--size wants WIDTHxHEIGHT" in err and "Traceback" not in err


def test_corrupt_video_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "table.mp4"
    bad.write_bytes(b"\x00garbage, not a video\xff" * 500)
    with pytest.raises(VideoError, match="table.mp4"):
        open_video(bad)
    assert main(["replay", str(bad), "--variant", "paulista"]) == 2
    err = capsys.readouterr().err
    assert "table.mp4" in err and ("corrupt" in err or "cannot" in err)


def test_missing_and_empty_video(tmp_path):
    with pytest.raises(VideoError, match="not found"):
        open_video(tmp_path / "nothing.mp4")
    (tmp_path / "empty.mp4").write_bytes(b"")
    with pytest.raises(VideoError, match="empty"):
        open_video(tmp_path / "empty.mp4")


def test_missing_microphone_is_a_clear_error(monkeypatch, capsys):
    sd = pytest.importorskip("sounddevice")
    monkeypatch.setattr(sd, "query_devices", lambda *a, **k: [{"name": "speaker", "max_input_channels": 0}])
    from companion.table.voice import MicrophoneError, check_microphone

    with pytest.raises(MicrophoneError, match="no microphone"):
        check_microphone()
    # the camera is stood in for by a video file; the microphone check comes next
    assert main(["run", "--variant", "paulista", "--camera", str(DEMO_VIDEO), "--no-window"]) == 2
    assert "no microphone" in capsys.readouterr().err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY only decides on Linux")
def test_no_display_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["run", "--variant", "paulista", "--camera", "0"]) == 2
    err = capsys.readouterr().err
    assert "display" in err or "window" in err


class _Capture:
    """A capture whose frames ``bad`` do not decode (and every one from ``count`` on: the end)."""

    def __init__(self, count: int, bad: set[int]) -> None:
        self.count, self.bad, self.pos, self.released = count, bad, 0, False

    def _next(self) -> bool:
        ok = self.pos < self.count and self.pos not in self.bad
        self.pos += 1
        return ok

    def read(self):  # type: ignore[no-untyped-def]
        import numpy as np

        return (True, np.zeros((4, 4, 3), np.uint8)) if self._next() else (False, None)

    def grab(self) -> bool:
        return self._next()

    def get(self, prop: int) -> float:
        return 10.0

    def release(self) -> None:
        self.released = True


def test_a_corrupt_stretch_of_a_video_is_skipped_not_taken_for_its_end():
    from companion.table.session import describe_gaps, read_frames

    gaps: list[tuple[int, int]] = []
    got = [(i, t) for i, t, _ in read_frames(_Capture(20, {5, 6, 7}), 10.0, 1, 20, gaps)]
    assert [i for i, _ in got] == [0, 1, 2, 3, 4] + list(range(8, 20))
    assert got[5][1] == pytest.approx(0.8)  # times stay those of the video
    assert gaps == [(5, 8)] and "0.5-0.8 s" in describe_gaps(gaps, 10.0)[0]
    # every other frame analysed (the rest grabbed); a corrupt end a second or more short of the count
    gaps = []
    got = [i for i, _, _ in read_frames(_Capture(40, set(range(25, 40))), 10.0, 2, 40, gaps)]
    assert got == list(range(0, 25, 2)) and gaps == [(25, 40)]
    # no frame count from the container: MAX_VIDEO_GAP seconds of failures end it
    assert [i for i, _, _ in read_frames(_Capture(12, {3}), 10.0, 1, 0)] == [0, 1, 2] + list(range(4, 12))


def test_replay_goes_past_a_corrupt_stretch_and_says_so(tmp_path, capsys):
    """The demo video with 150 kB zeroed 40 % of the way in: it used to stop there (20.5 s of 53.8,
    nothing said); now every decodable frame is read, and the stretch skipped is named."""
    data = bytearray(DEMO_VIDEO.read_bytes())
    data[400_000:550_000] = bytes(150_000)
    video = tmp_path / "table.mp4"
    video.write_bytes(bytes(data))
    assert main(["replay", str(video), "--variant", "paulista"]) == 0
    err = capsys.readouterr().err
    assert "could not be decoded" in err and "53.8 s of video" in err


def test_a_camera_that_misses_frames_is_waited_for_and_opened_again():
    from companion.table.session import SteadyCamera

    clock = [0.0]
    said: list[str] = []

    def sleep(s: float) -> None:
        clock[0] += s

    opened: list[_Capture] = []

    def reopen() -> _Capture:
        opened.append(_Capture(100, set()))
        return opened[-1]

    first = _Capture(100, {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24})
    cam = SteadyCamera(first, reopen, retry=1.0, give_up=10.0, say=said.append, clock=lambda: clock[0], sleep=sleep)
    assert all(cam.read()[0] for _ in range(4))  # two frames, a glitch waited out, then frames again
    assert opened and first.released and cam.cap is opened[0]
    assert said[0].startswith("camera: no frame") and "frames again" in said[1]
    # a camera gone for good: given up after give_up seconds, as an end of stream
    gone = SteadyCamera(_Capture(0, set()), lambda: _Capture(0, set()), give_up=3.0, say=said.append,
                        clock=lambda: clock[0], sleep=sleep)
    start = clock[0]
    assert gone.read() == (False, None) and 3.0 <= clock[0] - start < 3.2

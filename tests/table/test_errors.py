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

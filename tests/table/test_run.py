"""``companion run``'s live loop, with a rendered video standing in for the
camera (time not slept away), the reference detector standing in for the
weights, no window and no microphone: events go to the history database and
the JSONL log as they happen."""

from __future__ import annotations

import json

import pytest

from companion.cli import main


def _rendered_camera(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """A one-hand rendered session standing in for the camera, read by the reference detector."""
    from companion.synth.art import list_designs

    if not list_designs("french"):
        pytest.skip("no French card art on this machine")
    import companion.commands.run as run_cmd
    import companion.vision.detector as vision
    from companion.table.render_session import RenderOptions, SessionRenderer, render_session
    from companion.table.script import make_script
    from companion.table.simulate import ReferenceDetector
    from companion.table.zones import Calibration, save_calibration

    script = make_script("paulista", hands=1, seed=3, first_dealer=0)
    opts = RenderOptions(seed=3)
    meta = render_session(tmp_path / "s", script, opts, video=True)
    ref = ReferenceDetector(SessionRenderer(script, opts), meta["states"])
    monkeypatch.setattr(vision, "CardDetector", lambda family, **kw: ref)
    monkeypatch.setattr(run_cmd.time, "sleep", lambda s: None)
    save_calibration(Calibration.from_dict(meta["calibration"]), tmp_path / "cal.json")
    return script


def test_live_loop_records_into_history_and_log(tmp_path, monkeypatch, capsys):
    script = _rendered_camera(tmp_path, monkeypatch)
    log = tmp_path / "live.jsonl"
    db = tmp_path / "history.sqlite"
    code = main(["run", "--variant", "paulista", "--camera", str(tmp_path / "s" / "video.mp4"), "--no-window",
                 "--no-mic", "--calibration", str(tmp_path / "cal.json"), "--log", str(log), "--db", str(db),
                 "--names", "Ana", "Bia", "Caio", "Duda"])
    assert code == 0
    out = capsys.readouterr().out
    assert "plays" in out
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0]["type"] == "match" and lines[0]["names"] == ["Ana", "Bia", "Caio", "Duda"]
    truth_cards = [e for e in script.log if e["type"] in ("hand", "play")]
    assert [e for e in lines if e["type"] in ("hand", "play")] == truth_cards  # no voice: calls missing

    from companion.history.store import HistoryStore

    store = HistoryStore(str(db))
    (match,) = store.list_matches()
    stored = [row.data for row in store.events(match.id)]
    assert stored[1:] == lines[1:]


def test_resume_goes_on_with_the_unfinished_match(tmp_path, monkeypatch, capsys):
    """After a crash, `run --resume` rebuilds the game from the history and
    mirrors what is already there into the new JSONL log."""
    from companion.history.recorder import MatchRecorder
    from companion.history.store import HistoryStore

    db = tmp_path / "history.sqlite"
    store = HistoryStore(str(db))
    rec = MatchRecorder.start(store, {"type": "match", "variant": "paulista", "players": 4}, source="camera")
    rec.record({"type": "hand", "dealer": 0, "vira": "5H"}, source="vision")
    rec.record({"type": "play", "seat": 1, "card": "4C"}, source="vision")
    store.close()
    import companion.commands.run as run_cmd
    import companion.vision.detector as vision

    monkeypatch.setattr(vision, "CardDetector", lambda family, **kw: type("Blind", (), {"detect": lambda s, i: []})())
    monkeypatch.setattr(run_cmd.time, "sleep", lambda s: None)
    from companion.paths import DATA_DIR

    log = tmp_path / "resumed.jsonl"
    code = main(["run", "--variant", "paulista", "--camera", str(DATA_DIR / "demo" / "video.mp4"), "--no-window",
                 "--no-mic", "--db", str(db), "--resume", "--log", str(log)])
    assert code == 0
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[1:] == [{"type": "hand", "dealer": 0, "vira": "5H"}, {"type": "play", "seat": 1, "card": "4C"}]
    assert "resumed" in capsys.readouterr().err


def test_speak_announces_what_was_applied(tmp_path, monkeypatch, capsys):
    """`run --speak pt` says each applied event's outcome (the hand result, the score)."""
    import companion.feedback as feedback

    _rendered_camera(tmp_path, monkeypatch)
    said: list[str] = []

    class QuietSpeaker(feedback.Speaker):
        def say(self, text: str) -> None:  # no sound card here: keep what would be said
            said.append(text)

    monkeypatch.setattr(feedback, "Speaker", QuietSpeaker)
    code = main(["run", "--variant", "paulista", "--camera", str(tmp_path / "s" / "video.mp4"), "--no-window",
                 "--no-mic", "--no-history", "--calibration", str(tmp_path / "cal.json"),
                 "--log", str(tmp_path / "live.jsonl"), "--speak", "pt"])
    assert code == 0
    assert said, "nothing was announced"
    assert any(any(ch.isdigit() for ch in text) for text in said)  # the score at the end of the hand


def test_board_flag_serves_the_live_match_with_its_history(tmp_path, monkeypatch, capsys, board_hubs):
    """`run --board` publishes the live game and gives the board the history store."""
    script = _rendered_camera(tmp_path, monkeypatch)
    code = main(["run", "--variant", "paulista", "--camera", str(tmp_path / "s" / "video.mp4"), "--no-window",
                 "--no-mic", "--calibration", str(tmp_path / "cal.json"), "--log", str(tmp_path / "live.jsonl"),
                 "--db", str(tmp_path / "history.sqlite"), "--board"])
    assert code == 0
    (hub,) = board_hubs
    assert hub.history_store is not None
    from companion.tablelog import score_log

    scored = score_log((tmp_path / "live.jsonl").read_text().splitlines())
    assert hub.snapshot()["state"]["score"] == scored["score"]
    assert len(script.log) > 1


@pytest.mark.parametrize("gui,display,expect", [
    ("NONE", ":0", "no window support"),
    ("QT5", None, "no display"),
    ("QT5", ":0", None),
])
def test_window_problem_names_what_is_missing(monkeypatch, gui, display, expect):
    import sys

    import cv2

    from companion.commands.run import window_problem

    monkeypatch.setattr(cv2, "getBuildInformation", lambda: f"  Video I/O:\n  GUI:                           {gui}\n")
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if display:
        monkeypatch.setenv("DISPLAY", display)
    else:
        monkeypatch.delenv("DISPLAY", raising=False)
    problem = window_problem()
    assert (problem is None) if expect is None else (expect in problem)


def test_installed_opencv_can_open_windows():
    """The package depends on the GUI build of OpenCV so `companion run` shows the table."""
    import cv2

    info = cv2.getBuildInformation()
    gui = next(line.split(":", 1)[1].strip() for line in info.splitlines() if line.strip().startswith("GUI:"))
    assert gui.upper() != "NONE", "opencv-python-headless is installed: `companion run` could not open its window"


def test_run_without_display_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["run", "--variant", "paulista", "--camera", str(tmp_path / "none.mp4"), "--db", f"sqlite:///{tmp_path}/h.db"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and ("display" in err[0] or "window" in err[0])


def test_with_nobody_to_answer_a_doubtful_card_is_printed_and_goes_in_after_a_timeout(tmp_path, monkeypatch, capsys):
    """No window, no scoreboard, no microphone: nobody can answer.  A question waited for good, unseen, and
    every card after it waited too (the bundled demo's video stopped being logged 28 s into 54)."""
    script = _rendered_camera(tmp_path, monkeypatch)
    import companion.vision.detector as vision
    from companion.table.observations import Detection

    reference = vision.CardDetector("french")  # the rendered session's true boxes (see _rendered_camera)
    first = next(e for e in script.log if e["type"] == "play" and e.get("card"))
    rival = next(c for c in ("QC", "KD", "7H") if c != first["card"])

    class Doubtful:  # the first play read weakly, with a rival reading nearly as strong: asked about
        def detect(self, image):
            return [Detection(d.label, 0.3, d.box, 0.9, ((rival, 0.25),)) if d.label == first["card"] else d
                    for d in reference.detect(image)]

    monkeypatch.setattr(vision, "CardDetector", lambda family, **kw: Doubtful())
    log = tmp_path / "live.jsonl"
    code = main(["run", "--variant", "paulista", "--camera", str(tmp_path / "s" / "video.mp4"), "--no-window",
                 "--no-mic", "--no-history", "--calibration", str(tmp_path / "cal.json"), "--log", str(log)])
    assert code == 0
    captured = capsys.readouterr()
    assert "nobody can answer here" in captured.err
    question = [ln for ln in captured.out.splitlines() if "?" in ln and first["card"] in ln and "confirm or reject" in ln]
    assert question, captured.out  # the question is printed, not only kept for a window
    assert f"plays {first['card']} [timeout]" in captured.out
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    truth_cards = [e for e in script.log if e["type"] in ("hand", "play")]
    assert [e for e in lines if e["type"] in ("hand", "play")] == truth_cards  # nothing after it was lost


def test_notice_lines_are_questions_and_shown_cards_only():
    from companion.table.display import notice_line

    assert notice_line(3.5, "? seat 1 plays QC (confidence 0.30) [or 1: KC] -- confirm or reject").startswith("   3.50s")
    assert notice_line(4.0, "! seat 2 plays 8C (8C is not in this variant's deck)") is not None
    assert notice_line(4.0, "rejected: seat 0 fold (table cleared before the hand ended) [timeout]") is not None
    assert notice_line(4.0, "seat 1 plays QC [timeout]") is None  # applied: printed as an event line
    assert notice_line(4.0, "  team 0 wins trick 1") is None


def test_a_live_camera_lost_mid_match_is_waited_for_then_the_match_is_kept(tmp_path, monkeypatch, capsys):
    """A camera that stops giving frames: the run waits (and opens it again) before it stops, then
    says so and how to go on; what was recorded stays in the log and the history."""
    import functools

    import numpy as np

    import companion.table.session as session_mod
    import companion.vision.detector as vision

    class Camera:
        def __init__(self, frames: int) -> None:
            self.left = frames

        def read(self):  # type: ignore[no-untyped-def]
            self.left -= 1
            return (True, np.zeros((48, 64, 3), np.uint8)) if self.left >= 0 else (False, None)

        def get(self, prop: int) -> float:
            return 30.0

        def release(self) -> None:
            pass

    opened: list[Camera] = []

    def open_camera(index, width=None, height=None):  # type: ignore[no-untyped-def]
        opened.append(Camera(5 if not opened else 0))  # five frames, then nothing, reopened or not
        return opened[-1]

    monkeypatch.setattr(session_mod, "open_camera", open_camera)
    monkeypatch.setattr(session_mod, "SteadyCamera",
                        functools.partial(session_mod.SteadyCamera, retry=0.05, give_up=0.3))
    monkeypatch.setattr(vision, "CardDetector", lambda family, **kw: type("Blind", (), {"detect": lambda s, i: []})())
    log = tmp_path / "live.jsonl"
    code = main(["run", "--variant", "paulista", "--camera", "0", "--no-window", "--no-mic", "--log", str(log),
                 "--db", str(tmp_path / "history.sqlite")])
    assert code == 0
    err = capsys.readouterr().err
    assert "camera: no frame" in err and "no frame from the camera for 0.3 s" in err and "--resume" in err
    assert len(opened) >= 3  # opened again while it waited
    assert json.loads(log.read_text().splitlines()[0])["type"] == "match"


def test_an_internal_error_on_one_frame_skips_the_frame_and_the_match_goes_on(tmp_path, monkeypatch, capsys):
    """A tracker error raised by one frame (a ValueError on a rendered Argentine session of seed 336) ended
    the whole run.  Now the frame is skipped and said so once; every card still goes in.  Failing frame
    after frame, the run stops, says how to go on, and keeps the match."""
    import companion.commands.run as run_cmd
    import companion.table.session as session_mod

    script = _rendered_camera(tmp_path, monkeypatch)
    feed = session_mod.TableSession.feed_frame
    calls = []

    def flaky(self, t, image, index=None):  # type: ignore[no-untyped-def]
        calls.append(t)
        if len(calls) in (3, 4):
            raise ValueError("list.remove(x): x not in list")
        return feed(self, t, image, index)

    monkeypatch.setattr(session_mod.TableSession, "feed_frame", flaky)
    log = tmp_path / "live.jsonl"
    args = ["run", "--variant", "paulista", "--camera", str(tmp_path / "s" / "video.mp4"), "--no-window",
            "--no-mic", "--calibration", str(tmp_path / "cal.json"), "--db", str(tmp_path / "history.sqlite")]
    assert main([*args, "--log", str(log)]) == 0
    err = capsys.readouterr().err
    assert err.count("internal error on the frame at") == 1 and "frame skipped, the match goes on" in err
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [e for e in lines if e["type"] in ("hand", "play")] == [e for e in script.log if e["type"] in ("hand", "play")]

    def broken(self, t, image, index=None):  # type: ignore[no-untyped-def]
        raise ValueError("always")

    monkeypatch.setattr(session_mod.TableSession, "feed_frame", broken)
    monkeypatch.setattr(run_cmd, "MAX_FAILED_FRAMES", 5)
    log2 = tmp_path / "live2.jsonl"
    assert main([*args, "--log", str(log2)]) == 1
    err = capsys.readouterr().err
    assert "internal error on 5 frames in a row" in err and "--resume" in err
    assert json.loads(log2.read_text().splitlines()[0])["type"] == "match"


def test_a_microphone_lost_is_said_once_and_opened_again_and_its_words_keep_the_clock():
    """The listening thread used to die on the first microphone error (a traceback, then no calls,
    nothing on screen).  Now the loss is said once, the microphone opened again, and the words heard
    after it are dated on the session's clock across the gap."""
    import queue

    from companion.commands.run import _listen
    from companion.speech.audio import SAMPLE_RATE, AudioError

    second = SAMPLE_RATE * 2 * b"\x00"  # one second of 16-bit silence
    runs: list[str] = []

    now = [0.0]  # the session's clock: a second a block of sound, and the waits

    class Mic:
        def __init__(self, name: str, blocks: int, fail: bool) -> None:
            self.name, self.blocks, self.fail = name, blocks, fail

        def run(self, on_block, stop, silence=None):  # type: ignore[no-untyped-def]
            runs.append(self.name)
            for k in range(self.blocks):
                now[0] += 1.0
                on_block(second, float(k))
            if self.fail:
                raise AudioError(f"microphone {self.name}: unplugged")

    class Spotter:  # hears "truco" at the end of every block, dated on its own audio clock
        def feed(self, pcm, at):  # type: ignore[no-untyped-def]
            return [(at, "truco")]

    opens = iter(["no input device (default)", Mic("b", 2, False)])
    words: queue.Queue = queue.Queue()
    notices: queue.Queue = queue.Queue()

    def sleep(s: float) -> None:
        now[0] += s

    _listen(Mic("a", 3, True), lambda: next(opens), Spotter(), words, notices, lambda: runs[-1:] == ["b"], 0.0,
            retry=2.0, silence=3.0, sleep=sleep, clock=lambda: now[0])
    said = [notices.get_nowait() for _ in range(notices.qsize())]
    assert len(said) == 2 and said[0].startswith("microphone lost") and "calls are not heard" in said[0]
    assert said[1].startswith("microphone: back")
    assert runs == ["a", "b"]
    times = [words.get_nowait()[0] for _ in range(words.qsize())]
    # the first microphone's words at 1, 2, 3 s; the second's after two 2 s waits (no microphone the
    # first time): at 8 and 9 s, not at 4 and 5 where the spotter's own clock would put them
    assert times == pytest.approx([1.0, 2.0, 3.0, 8.0, 9.0])

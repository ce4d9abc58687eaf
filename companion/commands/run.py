"""``companion run``: the companion at a real table, live.

    companion run --variant paulista --camera 0 --lang pt --names Ana Bia Caio Duda
    companion run --variant argentino --camera 1 --lang es --players 6 --board

A window shows the camera image with the card boxes and seat zones, the
current trick, the stake and any open bet, the score, the last words heard
and what waits for confirmation.  Keys: ``y`` confirm, ``n`` reject, ``1``-``9``
confirm a doubtful card under another of its readings (or name the seat that
made a call), ``u`` undo, ``t`` type an event (Enter applies it, Esc cancels),
``q`` quit.  A card read weakly with no rival reading goes in at once, shown
``~`` for 2 s: ``n`` takes it out, ``y`` or a digit settles it.  A
pending event is also confirmed or rejected by saying yes/no (sim/não,
sí/no) or with the buttons of the web scoreboard (``--board``).  Every event
goes into the history database (resumable) and a JSONL table log.

Zones come from ``companion calibrate`` (or are guessed: the deck marks the
centre and seat 0 sits nearest the camera).  ``--camera`` also takes a video
file, played at its own speed, to try the live loop without a camera.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("run", help="live: camera and microphone at the table, score on screen",
                                   description=__doc__.split("\n\n")[0].split(": ", 1)[-1])
    parser.add_argument("--variant", required=True, help="variant preset (see `companion variants`)")
    parser.add_argument("--camera", default="0", help="camera index (default 0), or a video file")
    parser.add_argument("--size", default="1280x720", metavar="WxH",
                        help="frame size asked of the camera (default 1280x720; it may give another): "
                             "the classifier reads the cards' corners better the more pixels they have")
    parser.add_argument("--lang", choices=["pt", "es"], help="language of the calls (default: by variant)")
    parser.add_argument("--players", type=int, default=4, choices=[2, 4, 6])
    parser.add_argument("--names", nargs="+", metavar="NAME", help="seat names in the order of play")
    parser.add_argument("--dealer", type=int, default=0, help="who deals the first hand (default seat 0)")
    parser.add_argument("--calibration", metavar="FILE", help="seat zones (default: the saved calibration)")
    parser.add_argument("--log", metavar="PATH", help="table log file (default: in the user data folder)")
    parser.add_argument("--db", metavar="URL", help="history database (default: the user's SQLite file)")
    parser.add_argument("--no-history", action="store_true", help="write only the JSONL table log")
    parser.add_argument("--resume", action="store_true",
                        help="go on with the last unfinished match in the history (after a crash)")
    parser.add_argument("--no-mic", action="store_true", help="no microphone: cards, keys and board only")
    parser.add_argument("--mic", metavar="DEVICE", help="input device index or name part")
    parser.add_argument("--model", metavar="PATH", help="vosk model folder (default: the installed one)")
    from companion.commands.board import add_board_options

    add_board_options(parser, flag=True)  # --board, --host (LAN needs the token), --port, --token
    parser.add_argument("--no-window", action="store_true", help="no window: print events (keys via --board)")
    parser.add_argument("--speak", choices=("pt", "es"),
                        help="say what was applied through espeak-ng (off by default)")
    parser.set_defaults(func=run)


def window_problem() -> str | None:
    """Why no OpenCV window can be opened here, or None.  Checked before
    creating one: a Qt build aborts the process when there is no display."""
    import cv2

    info = cv2.getBuildInformation()
    gui = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.strip().startswith("GUI:")), "")
    if gui.upper() in ("", "NONE"):
        return ("this OpenCV build has no window support (opencv-python-headless); "
                "`pip install opencv-python` for the live window")
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "no display (DISPLAY is not set): run it on a desktop, or use --no-window with --board"
    return None


def _match_event(args: argparse.Namespace) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "match", "variant": args.variant, "players": args.players}
    if args.names:
        if len(args.names) != args.players:
            raise SystemExit(f"error: --names needs {args.players} names, got {len(args.names)}")
        event["names"] = list(args.names)
    return event


def _table_log(args: argparse.Namespace, match_event: dict[str, Any], log_path: Path) -> tuple[Any, str]:
    from companion.table.engine_view import JsonlTableLog, RecorderTableLog

    if args.no_history:
        return JsonlTableLog(log_path, match_event), f"table log {log_path}"
    try:
        from companion.history.recorder import MatchRecorder
        from companion.history.store import HistoryStore
    except ImportError as err:
        print(f"history unavailable ({err}); writing only {log_path}", file=sys.stderr)
        return JsonlTableLog(log_path, match_event), f"table log {log_path}"
    store = HistoryStore(args.db)
    if args.resume:
        recorder = MatchRecorder.resume(store)
        resumed = dict(recorder.game.match_event)
        log = RecorderTableLog(recorder, log_path, resumed)
        if log.mirror is not None:  # the mirror starts with what the history already holds
            for event in recorder.game.events:
                log.mirror.events.append(dict(event))
                log.mirror._written(event)
        return log, f"history match {recorder.match_id} (resumed, {len(recorder.game.events)} events) + {log_path}"
    recorder = MatchRecorder.start(store, match_event, names=args.names, source="camera")
    return RecorderTableLog(recorder, log_path, match_event), f"history match {recorder.match_id} + {log_path}"


def run(args: argparse.Namespace) -> int:
    from companion.engine import IllegalEvent
    from companion.engine.variants import VariantError, resolve
    from companion.paths import user_data_dir
    from companion.table.session import (CameraError, SteadyCamera, TableSession, VideoError, frame_size,
                                         open_camera, open_video)
    from companion.table.voice import MicrophoneError, call_language, check_microphone
    from companion.table.zones import Zones, load_calibration

    try:
        options = resolve(args.variant)
    except VariantError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    lang = args.lang or call_language(options)
    if not args.no_window:
        problem = window_problem()
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    # camera (or a video file standing in for it)
    try:
        if str(args.camera).isdigit():
            try:
                width, height = frame_size(args.size)
            except ValueError as err:
                print(f"error: {err}", file=sys.stderr)
                return 2
            index = int(args.camera)
            cap = SteadyCamera(open_camera(index, width, height), lambda: open_camera(index, width, height),
                               say=lambda text: print(text, file=sys.stderr, flush=True))
            video = None
        else:
            cap, fps, count = open_video(args.camera)
            video = (fps, count)
    except (CameraError, VideoError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    # microphone and speech model
    spotter = None
    if not args.no_mic:
        try:
            check_microphone()
            from companion.table.voice import WordSpotter

            spotter = WordSpotter(lang, args.variant, args.model)
        except MicrophoneError as err:
            cap.release()
            print(f"error: {err}", file=sys.stderr)
            return 2
        except Exception as err:  # noqa: BLE001 - the speech layer's ModelError and friends
            cap.release()
            print(f"error: speech: {err}\n(use --no-mic to play without voice)", file=sys.stderr)
            return 2
    try:
        from companion.table.session import table_detector

        detector = table_detector(options.family, options.deck_cards)
    except Exception as err:  # noqa: BLE001 - ModelError, or the module missing from this build
        cap.release()
        print(f"error: card detector: {err}", file=sys.stderr)
        return 2
    try:
        calibration = load_calibration(args.calibration)
    except (FileNotFoundError, ValueError) as err:
        cap.release()
        print(f"error: {err}", file=sys.stderr)
        return 2
    zones = Zones(calibration.with_players(args.players)) if calibration else None

    match_event = _match_event(args)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    log_path = Path(args.log) if args.log else user_data_dir() / "logs" / f"{stamp}-{args.variant}.jsonl"
    try:
        log, where = _table_log(args, match_event, log_path)
    except LookupError as err:  # --resume with nothing to resume
        cap.release()
        print(f"error: {err}", file=sys.stderr)
        return 2
    # Nobody can answer a question with no window, no scoreboard and no microphone: a doubtful card would
    # wait for good, and every card after it.  Then doubts go in after the timeouts `companion replay` uses.
    nobody_answers = args.no_window and not args.board and args.no_mic
    config = None
    if nobody_answers:
        from companion.table.fusion import FusionConfig
        from companion.table.replay import UNATTENDED
        from companion.table.session import SessionConfig

        config = SessionConfig(fusion=FusionConfig(**UNATTENDED.__dict__))
    session = TableSession(log, detector=detector, zones=zones, voice=None, first_dealer=args.dealer, config=config)
    if spotter is not None:
        from companion.table.voice import VoiceInterpreter

        interpreter = VoiceInterpreter(lang, args.variant)
        session.voice = interpreter
        session.fusion.interpreter = interpreter.interpret
    print(f"companion run: {args.variant}, {args.players} players, calls in {lang}; recording to {where}",
          file=sys.stderr)
    if zones is None:
        print("no calibration: seat zones are guessed (run `companion calibrate` once)", file=sys.stderr)
    if nobody_answers:
        timeouts = session.fusion.config
        print(f"nobody can answer here (no window, no --board, no microphone): a doubtful card goes in as read "
              f"after {timeouts.pending_timeout:g} s ({timeouts.seat_timeout:g} s in another seat's zone); "
              "`u` is not available, the log can be corrected afterwards", file=sys.stderr)
    if args.no_window:
        from companion.table.display import notice_line

        def notice(kind: str, payload: dict[str, Any]) -> None:
            line = notice_line(session.fusion.now, payload.get("text", "")) if kind == "message" else None
            if line is not None:
                print(line, flush=True)

        session.fusion.listeners.append(notice)

    speaker = None
    if args.speak:
        from companion.feedback import Speaker, SpeechUnavailable

        try:
            speaker = Speaker(args.speak, names=args.names)
        except SpeechUnavailable as err:
            cap.release()
            print(f"error: {err}", file=sys.stderr)
            return 2
    hub = None
    if args.board:
        from companion.board import BoardHub, start_board

        # the history pages need the store; the recorder (when there is one) has it
        hub = BoardHub(history_store=getattr(getattr(log, "recorder", None), "store", None))
        print(f"scoreboard: {start_board(hub, args.host, args.port, args.token)}", file=sys.stderr)

    words_q: queue.Queue[tuple[float, str]] = queue.Queue()
    notices: queue.Queue[str] = queue.Queue()  # from the listening thread: the microphone lost, back
    stop = threading.Event()
    start = time.monotonic()
    if spotter is not None:
        mic = _microphone(args.mic)
        if isinstance(mic, str):
            cap.release()
            print(f"error: {mic}", file=sys.stderr)
            return 2

        threading.Thread(target=_listen, args=(mic, lambda: _microphone(args.mic), spotter, words_q, notices,
                                               stop.is_set, start), daemon=True).start()

    return _loop(args, session, cap, video, words_q, hub, stop, start, IllegalEvent, speaker, notices)


MIC_RETRY_SECONDS = 2.0  # a lost microphone is opened again this often
MIC_SILENCE_SECONDS = 3.0  # no sound block at all for this long: the microphone is taken for lost


def _listen(mic: Any, open_mic: Any, spotter: Any, words_q: queue.Queue, notices: queue.Queue,
            stop: Any, start: float, retry: float = MIC_RETRY_SECONDS, silence: float = MIC_SILENCE_SECONDS,
            sleep: Any = time.sleep, clock: Any = time.monotonic) -> None:
    """Feed the microphone to the word spotter until ``stop()``, and outlive losing it.

    A microphone lost (a PortAudio error, or no sound block at all for ``silence`` seconds: unplugged)
    is said once in ``notices`` ("calls are not heard") and opened again every ``retry`` seconds;
    ``open_mic`` gives a new source or the reason there is none.  Why: the listening thread died on
    the first error with a traceback, and the table went on without its calls, nothing on screen.
    The words keep the session's clock across a gap: the spotter's audio time runs on from where it
    stopped, so the gap is added to the offset when the microphone comes back."""
    from companion.speech.audio import SAMPLE_RATE, AudioError

    fed = 0.0  # seconds of sound given to the spotter so far (its clock)
    lost = False
    while not stop():
        if isinstance(mic, str):
            mic = None
        if mic is not None:
            offset = (clock() - start) - fed  # the spotter's time on the session's clock
            if lost:
                notices.put("microphone: back, calls are heard again")
                lost = False

            def on_block(pcm: bytes, t0: float, offset: float = offset) -> None:
                nonlocal fed
                fed += len(pcm) / 2 / SAMPLE_RATE
                now = clock() - start
                for t, words in spotter.feed(pcm, fed):
                    words_q.put((min(offset + t, now), words))

            try:
                mic.run(on_block, stop, silence=silence)
            except AudioError as err:
                if not lost:
                    notices.put(f"microphone lost ({err}): calls are not heard; trying it again every {retry:g} s")
                    lost = True
        if stop():
            return
        sleep(retry)
        mic = open_mic()


def _microphone(device: str | None) -> Any:
    """The speech layer's microphone source, or the reason there is none."""
    try:
        from companion.speech.audio import MicSource

        return MicSource(device)
    except Exception as err:  # noqa: BLE001 - AudioError, PortAudio errors: one clear line
        return f"microphone: {err} (use --no-mic to play without voice)"


def board_commands(hub: Any, fusion: Any) -> int:
    """Apply the scoreboard's button presses waiting now; how many there were."""
    commands = hub.poll_commands()
    for cmd in commands:
        pid = int(cmd.pending_id) if cmd.pending_id and str(cmd.pending_id).isdigit() else None
        if cmd.action == "confirm":
            fusion.confirm("board", pid)
        elif cmd.action == "reject":
            fusion.reject("board", pid)
        elif cmd.action == "choose" and cmd.index:
            fusion.choose(cmd.index, "board", pid)
        elif cmd.action == "undo":
            fusion.undo("board")
        elif cmd.action == "event" and cmd.event:
            fusion.enter(dict(cmd.event), "board")
    return len(commands)


def publish(hub: Any, session: Any, message: str | None = None) -> None:
    """Show the session on the scoreboard: state, pending confirmations (with
    the ids its buttons send back, and the other readings a button can pick),
    the last impossible card shown while nothing waits, words heard."""
    fusion = session.fusion

    def shown(p: Any, kind: str | None = None) -> dict[str, Any]:
        item = {"id": str(p.id), "text": p.describe(), "event": p.event, "alternatives": list(p.alternatives)}
        return {**item, "kind": kind} if kind else item

    pending = [shown(p) for p in fusion.pending]
    # cards in the log that still settle: their buttons confirm, take out or rename them (Fusion.settling)
    pending += [shown(p, "settling") for p in fusion.settling]
    # named from its readings while nothing waits
    alert = fusion.nameable_alert() if not fusion.pending and not fusion.settling else None
    if alert is not None:
        pending.append(shown(alert, "alert"))
    hub.publish({"state": session.state(), "names": session.state().get("names"),
                 "match": {"variant": session.state().get("variant")}, "pending": pending,
                 "heard": [w for _, w in session.fusion.heard], "outcomes": [], "message": message})


def _camera_frames(cap: Any) -> Iterator[tuple[int, None, Any]]:
    """(index, None, image) from a live camera (a :class:`SteadyCamera`) until it gives up."""
    index = 0
    while True:
        ok, image = cap.read()
        if not ok or image is None:
            return
        yield index, None, image
        index += 1


#: frames in a row that may raise an internal error before the run stops (about ten seconds of camera)
MAX_FAILED_FRAMES = 300


def _fed(session: Any, now: float, image: Any, failures: list[float]) -> bool:
    """Feed one camera frame; an internal error in it is shown (once, with its traceback on stderr) and
    the frame skipped, so the match goes on.  Returns False once ``MAX_FAILED_FRAMES`` frames in a row
    failed: the run stops then, the match kept.

    Why: a tracker error raised by one frame (a ValueError, on a rendered Argentine session of seed 336)
    ended the whole run; the table lost its companion mid-match for a fault in one frame."""
    try:
        session.feed_frame(now, image)
    except Exception as err:  # noqa: BLE001 - one frame's internal error must not end the match
        failures.append(now)
        if len(failures) == 1:
            traceback.print_exc(file=sys.stderr)
            text = (f"internal error on the frame at {now:.1f} s ({type(err).__name__}: {err}): frame skipped, "
                    "the match goes on")
            print(text, file=sys.stderr, flush=True)
            session.fusion.say(text)
        if len(failures) >= MAX_FAILED_FRAMES:
            print(f"internal error on {len(failures)} frames in a row since {failures[0]:.1f} s: stopped. The match "
                  "is saved: `companion run --resume` goes on with it", file=sys.stderr, flush=True)
            return False
        return True
    failures.clear()
    return True


def _loop(args: argparse.Namespace, session: Any, cap: Any, video: tuple[float, int] | None, words_q: queue.Queue,
          hub: Any, stop: threading.Event, start: float, illegal: type[Exception],
          speaker: Any = None, notices: queue.Queue | None = None) -> int:
    import cv2

    from companion.table.display import annotate, event_line
    from companion.table.session import describe_gaps, read_frames
    from companion.table.typed import TypedEventError, parse_typed

    typing: str | None = None
    printed = 0
    version = -1
    failures: list[float] = []  # times of the frames in a row that raised an internal error
    # a video file standing in for the camera: its frame rate and count as open_video read them
    fps, count = video if video is not None else (0.0, 0)
    gaps: list[tuple[int, int]] = []
    frames = read_frames(cap, fps, 1, count, gaps) if video is not None else _camera_frames(cap)
    try:
        for _, t_video, image in frames:
            now = time.monotonic() - start
            if video is not None:  # a video file stands in for the camera: at its own pace
                if t_video > now:
                    time.sleep(t_video - now)
                now = max(now, t_video)
            while not words_q.empty():
                t, words = words_q.get_nowait()
                session.feed_words(t, words, "audio")
            while notices is not None and not notices.empty():
                notice = notices.get_nowait()
                print(notice, file=sys.stderr, flush=True)
                session.fusion.say(notice)  # on the window's panel and the scoreboard too
            if not _fed(session, now, image, failures):
                return 1
            fusion = session.fusion
            if hub is not None:
                board_commands(hub, fusion)
                if fusion._version != version:
                    version = fusion._version
                    publish(hub, session)
            while printed < len(fusion.applied):
                entry = fusion.applied[printed]
                print(event_line(entry), flush=True)
                if speaker is not None:
                    speaker.announce(entry.event, entry.outcomes, fusion.game.state.to_dict())
                printed += 1
            if args.no_window:
                continue
            cv2.imshow("companion", annotate(image, session, typing))
            key = cv2.waitKey(1) & 0xFF
            if key == 255:
                continue
            if typing is not None:
                if key in (13, 10):
                    try:
                        fusion.enter(parse_typed(typing), "typed")
                    except TypedEventError as err:
                        fusion.say(f"typed: {err}")
                    typing = None
                elif key == 27:
                    typing = None
                elif key in (8, 127):
                    typing = typing[:-1]
                elif 32 <= key < 127:
                    typing += chr(key)
                continue
            if key in (ord("q"), 27):
                break
            if key == ord("y"):
                fusion.confirm("key")
            elif key == ord("n"):
                fusion.reject("key")
            elif key == ord("u"):
                fusion.undo("key")
            elif key == ord("t"):
                typing = ""
            elif ord("1") <= key <= ord("9"):  # a card's other readings, or the seats that could have made a call
                fusion.choose(key - ord("0"), "key")
        else:  # the frames ran out (not q)
            for note in describe_gaps(gaps, fps):
                print(f"note: {note}", file=sys.stderr)
            print("video ended" if video is not None else
                  f"no frame from the camera for {cap.give_up:g} s: stopped. The match is saved: "
                  f"`companion run --resume` goes on with it", file=sys.stderr)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        cap.release()
        session.log.close()
        if not args.no_window:
            cv2.destroyAllWindows()
        if hub is not None and getattr(hub, "server", None) is not None:
            hub.server.stop()
    state = session.state()
    print(f"score: team 0 {state['score'][0]}, team 1 {state['score'][1]}", file=sys.stderr)
    return 0

"""``companion demo``: a short recorded session processed end to end, offline.

    companion demo                      # print the events and the final score
    companion demo --show               # also watch it in a window
    companion demo --save-video out.mp4 # write the annotated video

The bundled session (``companion/data/demo``: three hands of Truco Paulista
rendered with a deck design the card detector never trained on, 54 s of
640x480 video, its calls, its ground-truth table log) goes through the real
pipeline: the ONNX card detector, the table tracker, fusion and the engine.
The calls come from its audio track when a Portuguese speech model is
installed (``companion models``), otherwise from its timed transcript through
the same speech matcher; the demo says which.  Without the detector's weights
in ``models/`` it says so and scores the bundled example table log instead.
No camera, microphone or network is used.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from companion.paths import DATA_DIR

DEMO_DIR = DATA_DIR / "demo"
EXAMPLE_LOG = DATA_DIR / "logs" / "paulista-example.jsonl"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="process the bundled recorded session end to end (offline)",
                                   description=__doc__.split("\n\n")[0].split(": ", 1)[-1])
    parser.add_argument("--show", action="store_true", help="show the annotated video in a window (at its own pace)")
    parser.add_argument("--fast", action="store_true", help="with --show: as fast as the machine goes")
    parser.add_argument("--save-video", metavar="PATH", help="write the annotated video (MP4)")
    parser.add_argument("--log", metavar="PATH", help="write the reconstructed table log here")
    parser.add_argument("--audio", choices=["auto", "yes", "no"], default="auto",
                        help="use the audio track (needs the pt speech model); default: when installed")
    parser.add_argument("--session", metavar="DIR", default=str(DEMO_DIR),
                        help="another rendered session folder (see companion.table.render_session)")
    parser.add_argument("--quiet", action="store_true", help="only the summary")
    parser.set_defaults(func=run)


def _detector(family: str, deck: list[str]) -> tuple[Any, str | None]:
    try:
        from companion.table.session import table_detector
        from companion.vision.detector import ModelError
    except ImportError as err:
        return None, f"the card detector is not part of this build ({err})"
    try:
        return table_detector(family, deck), None
    except ModelError as err:
        return None, str(err)


def _score_table(state: dict[str, Any], title: str) -> Any:
    from rich.table import Table

    table = Table(title=title)
    table.add_column("team")
    table.add_column("seats")
    table.add_column("points", justify="right")
    players = state.get("players", 4)
    names = state.get("names") or [f"seat {i}" for i in range(players)]
    text = state.get("score_text") or [str(x) for x in state["score"]]
    for team in (0, 1):
        seats = ", ".join(names[s] for s in range(players) if s % 2 == team)
        mark = " (winner)" if state.get("winner") == team else ""
        table.add_row(f"{team}{mark}", seats, text[team])
    return table


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console(soft_wrap=True)
    folder = Path(args.session)
    meta_path = folder / "session.json"
    if not meta_path.is_file():
        console.print(f"[red]demo session not found: {meta_path}[/red]")
        return 2
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    from companion.engine.variants import resolve

    detector, why = _detector(meta["family"], resolve(meta["variant"]).deck_cards)
    if detector is None:
        return _example_log(console, why or "no detector")
    return _full_pipeline(console, args, folder, meta, detector)


def _example_log(console: Any, why: str) -> int:
    from companion.tablelog import score_log

    console.print(f"[yellow]The card detector cannot run here: {why}[/yellow]")
    if not EXAMPLE_LOG.is_file():
        console.print(f"[red]and the example table log {EXAMPLE_LOG} is missing too.[/red]")
        return 2
    console.print(f"Scoring the bundled example table log instead ({EXAMPLE_LOG.name}), "
                  "with the engine only: no camera pipeline ran.")
    lines = EXAMPLE_LOG.read_text(encoding="utf-8").splitlines()
    result = score_log(lines)
    for i, hand in enumerate(result.get("hands", []), 1):
        console.print(f"hand {i}: dealer {hand.get('dealer')}, end {hand.get('end')}, points {hand.get('points')}")
    state = {"players": json.loads(lines[0]).get("players", 4), "score": result["score"],
             "winner": result.get("winner")}
    console.print(_score_table(state, f"{result['variant']}: final score (example log)"))
    return 0 if not result.get("errors") else 1


def _full_pipeline(console: Any, args: argparse.Namespace, folder: Path, meta: dict[str, Any],
                   detector: Any) -> int:
    from companion.table.display import annotate, event_line
    from companion.table.evaluate import compare
    from companion.table.replay import replay
    from companion.table.script import SessionScript
    from companion.table.voice import speech_model_available
    from companion.table.zones import Calibration, Zones

    script = SessionScript.from_dict(meta["script"])
    audio_file = folder / meta["audio"] if meta.get("audio") else None
    model = speech_model_available(script.lang)
    use_audio = args.audio == "yes" or (args.audio == "auto" and model is not None and audio_file is not None)
    if args.audio == "yes" and (model is None or audio_file is None):
        console.print(f"[red]--audio yes: no {script.lang} speech model installed "
                      f"(run `companion models download --lang {script.lang}`) or no audio track[/red]")
        return 2
    if use_audio:
        console.print(f"Calls: from the audio track ({audio_file.name}), recognised by the {script.lang} "
                      f"speech model at {model}.")
    else:
        why = "no Portuguese speech model is installed" if model is None else "--audio no"
        console.print(f"Calls: from the session's timed transcript ({why}); the words still go through "
                      "the speech matcher, only the recogniser is skipped.")
    console.print(f"Video: {folder / meta['video']} ({meta['duration']:.0f} s, {meta['hands']} hands of "
                  f"{meta['variant']}, deck design '{meta['design']}' held out of the detector's training).")
    console.print("Cards: ONNX card detector -> table tracker -> engine.\n")

    writer = None
    window = None
    if args.show:
        from companion.commands.run import window_problem

        problem = window_problem()
        if problem:
            console.print(f"[yellow]--show: {problem}; printing only[/yellow]")
        else:
            window = "companion demo"
    printed = 0
    import time

    started = time.monotonic()

    def on_frame(session: Any, image: Any, frame: Any) -> None:
        nonlocal printed, writer
        applied = session.fusion.applied
        if not args.quiet:
            while printed < len(applied):
                console.print(event_line(applied[printed]), highlight=False)
                printed += 1
        if image is not None and (window or args.save_video):
            import cv2

            view = annotate(image, session)
            if args.save_video:
                if writer is None:
                    h, w = view.shape[:2]
                    writer = cv2.VideoWriter(args.save_video, cv2.VideoWriter_fourcc(*"mp4v"), meta["fps"], (w, h))
                writer.write(view)
            if window:
                if not args.fast:  # a person is watching: keep to the video's own pace
                    ahead = frame.t - (time.monotonic() - started)
                    if ahead > 0:
                        time.sleep(ahead)
                cv2.imshow(window, view)
                cv2.waitKey(1)

    transcript = None if use_audio else json.loads((folder / "transcript.json").read_text(encoding="utf-8"))
    result = replay(
        script.match, video=folder / meta["video"], detector=detector, transcript=transcript,
        audio=audio_file if use_audio else None, lang=script.lang,
        zones=Zones(Calibration.from_dict(meta["calibration"])), log_path=args.log,
        first_dealer=script.timed_log[0][1]["dealer"], on_frame=on_frame)
    if not args.quiet:
        for entry in result.session.fusion.applied[printed:]:
            console.print(event_line(entry), highlight=False)
    if writer is not None:
        writer.release()
    if window:
        import cv2

        cv2.destroyAllWindows()
    state = result.session.state()
    console.print()
    console.print(_score_table(state, f"{meta['variant']}: score after {state.get('hand_number')} hands"))
    cmp = compare(script.match, script.log, [script.match] + result.events)
    truth_score = script.score
    fusion = result.session.fusion
    console.print(f"Ground truth: score {truth_score[0]}-{truth_score[1]}; reconstructed "
                  f"{state['score'][0]}-{state['score'][1]}: "
                  + ("[green]right[/green]" if list(state["score"]) == list(truth_score) else "[red]wrong[/red]"))
    console.print(f"Hands whose table log is exact: {cmp['exact']}/{cmp['hands']}; scored right: "
                  f"{cmp['scored']}/{cmp['hands']}.")
    held = sum(1 for a in fusion.applied if a.resolved_by in ("timeout", "confirm"))
    settled = sum(1 for a in fusion.applied if a.resolved_by == "settle")
    console.print(f"Held for confirmation: {held} applied unattended after 2 s, {len(fusion.rejected)} dropped; "
                  f"{settled} read weakly went in at once, open 2 s to a reject (~); "
                  f"{len(fusion.alerts)} impossible cards flagged.")
    stats = result.session.stats.summary()
    console.print(f"Processed {meta['duration']:.1f} s of video in {result.wall_seconds:.1f} s "
                  f"({result.speed:.1f}x real time; detector ran on {stats['detected']} of {stats['frames']} "
                  f"frames, {stats['detect_ms']} ms each).")
    if args.log:
        console.print(f"Table log written to {args.log}")
    if args.save_video:
        console.print(f"Annotated video written to {args.save_video}")
    return 0

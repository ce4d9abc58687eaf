"""``companion replay``: process a recording of a table, faster than real time.

    companion replay table.mp4 --variant paulista --audio table.wav --log out.jsonl
    companion replay table.mp4 --variant argentino --transcript calls.json --players 6

Frames go through the card detector as fast as the machine allows (a frame
that shows nothing new reuses the last detections; ``--every N`` analyses
only every N-th frame), the words through the speech layer, and the table log
is written as it goes; at the end the score is printed.  Nobody is at the
table to confirm, so a doubtful event is applied after 2 s of video time if
the engine accepts it, and dropped otherwise (``--pending reject`` drops all).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("replay", help="process a recorded video (and audio) into a table log",
                                   description=__doc__.split("\n\n")[0].split(": ", 1)[-1])
    parser.add_argument("video", help="video file of the table")
    parser.add_argument("--variant", required=True)
    parser.add_argument("--audio", metavar="FILE", help="sound track of the calls (needs the speech model)")
    parser.add_argument("--transcript", metavar="FILE", help="timed transcript JSON [{\"t\", \"words\"}] instead")
    parser.add_argument("--lang", choices=["pt", "es"], help="language of the calls (default: by variant)")
    parser.add_argument("--players", type=int, default=4, choices=[2, 4, 6])
    parser.add_argument("--names", nargs="+", metavar="NAME")
    parser.add_argument("--dealer", type=int, default=0, help="who dealt the first hand")
    parser.add_argument("--calibration", metavar="FILE", help="seat zones (default: saved, else guessed)")
    parser.add_argument("--log", metavar="PATH", help="write the table log here")
    parser.add_argument("--every", type=int, default=0,
                        help="analyse every N-th frame only (default 0: about 10 frames a second)")
    parser.add_argument("--pending", choices=["accept", "reject"], default="accept",
                        help="what to do with doubtful events nobody confirmed (default: accept if legal)")
    parser.add_argument("--json", action="store_true", help="print the `companion score --json` object")
    parser.add_argument("--quiet", action="store_true")
    from companion.commands.board import add_board_options

    add_board_options(parser, flag=True)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.engine.variants import VariantError, resolve
    from companion.table.display import event_line
    from companion.table.fusion import FusionConfig
    from companion.table.replay import replay
    from companion.table.session import SessionConfig, VideoError, open_video
    from companion.table.voice import call_language, load_transcript, speech_model_available
    from companion.table.zones import Zones, load_calibration

    try:
        options = resolve(args.variant)
    except VariantError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    lang = args.lang or call_language(options)
    try:
        cap, _, _ = open_video(args.video)
        cap.release()
    except VideoError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    transcript = None
    if args.transcript:
        try:
            transcript = load_transcript(args.transcript)
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    if args.audio:
        if not Path(args.audio).is_file():
            print(f"error: audio file not found: {args.audio}", file=sys.stderr)
            return 2
        if speech_model_available(lang) is None:
            print(f"error: no {lang} speech model installed to hear {args.audio} "
                  f"(run `companion models download --lang {lang}`, or pass --transcript)", file=sys.stderr)
            return 2
    try:
        from companion.table.session import table_detector

        detector = table_detector(options.family, options.deck_cards)
    except Exception as err:  # noqa: BLE001 - ModelError, or the module missing from this build
        print(f"error: card detector: {err}", file=sys.stderr)
        return 2
    try:
        calibration = load_calibration(args.calibration)
    except (FileNotFoundError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    zones = Zones(calibration.with_players(args.players)) if calibration else None
    match_event = {"type": "match", "variant": args.variant, "players": args.players}
    if args.names:
        match_event["names"] = list(args.names)
    config = SessionConfig(fusion=FusionConfig(pending_timeout=2.0, auto_action=args.pending))
    printed = 0
    hub = None
    if args.board:
        # The board only shows the replay (nobody confirms during a replay):
        # the hub gets a snapshot whenever an event was applied.
        from companion.board import BoardHub, start_board

        hub = BoardHub()
        print(f"scoreboard: {start_board(hub, args.host, args.port, args.token)}", file=sys.stderr)

    def on_frame(session, image, frame) -> None:  # type: ignore[no-untyped-def]
        nonlocal printed
        if hub is not None and printed < len(session.fusion.applied):
            hub.publish_game(session.fusion.game, match=match_event)
        if args.quiet or args.json:
            printed = len(session.fusion.applied)
            return
        while printed < len(session.fusion.applied):
            print(event_line(session.fusion.applied[printed]), flush=True)
            printed += 1

    try:
        result = replay(match_event, video=args.video, detector=detector, transcript=transcript,
                        audio=args.audio, lang=lang, zones=zones, log_path=args.log, config=config,
                        first_dealer=args.dealer, every=max(0, args.every), on_frame=on_frame)
    except VideoError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    on_frame(result.session, None, None)
    for note in result.notes:  # a corrupt stretch skipped, the speech matcher missing
        print(f"note: {note}", file=sys.stderr)
    from companion.tablelog import score_log

    lines = [json.dumps(match_event)] + [json.dumps(e) for e in result.events]
    scored = score_log(lines)
    if args.json:
        print(json.dumps(scored))
    else:
        score = scored["score"]
        print(f"score: team 0 {score[0]}, team 1 {score[1]}"
              + (f"; winner team {scored['winner']}" if scored.get("winner") is not None else ""))
        print(f"{result.stream_seconds:.1f} s of video in {result.wall_seconds:.1f} s "
              f"({result.speed:.1f}x real time); calls from: {result.voice_source}", file=sys.stderr)
        if args.log:
            print(f"table log: {args.log}", file=sys.stderr)
    return 0

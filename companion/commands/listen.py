"""``companion listen``: hear the reserved words and print table-log events.

    companion listen --lang es --variant argentino            # microphone
    companion listen --wav table.wav --lang pt --variant paulista --after LOG.jsonl
    companion listen --text "quiero retruco" --after LOG.jsonl --json

With ``--after`` the game is replayed from the table log and only what is
legal next is listened for; events that may be applied without asking are
applied to that game as they are heard, so the grammar follows the game.
Without it every phrase is listened for and every event asks who said it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from companion.speech.lexicon import LexiconError, available_languages, load_lexicon
from companion.speech.matcher import Matcher
from companion.speech.view import GameView, TableView


class LogError(RuntimeError):
    pass


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "listen", help="hear truco's reserved words (microphone, file or typed text)",
        description=__doc__.splitlines()[0],
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--wav", metavar="FILE", help="a recording (WAV, FLAC, OGG) instead of the microphone")
    source.add_argument("--text", help="typed words: print what the matcher makes of them")
    parser.add_argument("--lang", default="es", help=f"language ({', '.join(available_languages())})")
    parser.add_argument("--variant", help="variant preset (paulista, mineiro, argentino, ...)")
    parser.add_argument("--after", metavar="LOG", help="table log (JSON Lines) the words come after")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--model", metavar="PATH", help="vosk model folder (default: cache or $COMPANION_VOSK_MODEL)")
    parser.add_argument("--mic", metavar="DEVICE", help="input device index or name part")
    parser.add_argument("--list-mics", action="store_true", help="list input devices and exit")
    parser.add_argument("--players", type=int, default=4, help="players when there is no --after log")
    parser.add_argument("--realtime", action="store_true", help="play --wav at real speed")
    parser.add_argument("--no-early", action="store_true", help="wait for final results (no partials)")
    parser.add_argument("--endpoint", choices=["fast", "model"], default="fast",
                        help="fast (default): close utterances after 0.25-0.5 s of silence, evaluate the network every 60 ms; model: the model's own settings")
    parser.set_defaults(func=run)


def load_game(path: str, variant: str | None = None) -> Any:
    """Replay a table log into an engine ``Game``."""
    from companion.engine import Game, IllegalEvent
    from companion.tablelog import TableLogError, parse_event

    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror}") from None
    game = None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = parse_event(line, lineno)
            if game is None:
                if event["type"] != "match":
                    raise LogError(f"{path}: line {lineno}: the first event must be a `match` line")
                game = Game(event, variant=variant)
            else:
                game.apply(event)
        except (TableLogError, IllegalEvent) as exc:
            raise LogError(f"{path}: line {lineno}: {exc}") from None
    if game is None:
        raise LogError(f"{path}: empty table log")
    return game


def _print(obj: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(obj, ensure_ascii=False), flush=True)
        return
    if "confirmation" in obj:
        c = obj["confirmation"]
        print(f"[{obj['detected_at']:7.2f}s] answer: {'yes' if c['answer'] else 'no'}", flush=True)
        return
    when = "    -   " if obj.get("time") is None else f"{obj['time']:7.2f}s"
    lag = ""
    if obj.get("detected_at") is not None and obj.get("time") is not None:
        lag = f" (+{(obj['detected_at'] - obj['time']) * 1000:.0f} ms, {obj['source']})"
    team = "team ?" if obj["team"] is None else f"team {obj['team']}"
    print(
        f"[{when}]{lag} {obj['decision'].upper():7} {json.dumps(obj['event'], ensure_ascii=False)} "
        f"<- \"{obj['said']}\" cost {obj['cost']:.2f} conf {obj['confidence']:.2f} {team}"
        + (f"  ({'; '.join(obj['reasons'])})" if obj["reasons"] else ""),
        flush=True,
    )


def _text(args: argparse.Namespace, lexicon: Any, game: Any) -> int:
    from companion.speech.listener import OpenView

    view: TableView = GameView(game) if game is not None else OpenView(lexicon, args.players)
    result = Matcher(lexicon).match(args.text, view)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        if not result.events:
            print(f"nothing to do: {result.decision}")
        for event in result.events:
            _print({**event.to_dict(), "detected_at": None, "source": "text"}, False)
    return 0


def _audio(args: argparse.Namespace, lexicon: Any, game: Any) -> int:
    from companion.speech.audio import AudioError, FileSource, MicSource
    from companion.speech.listener import Listener, OpenView
    from companion.speech.models import ModelError, listening_model_path, load_vosk_model

    try:
        source = FileSource(args.wav, realtime=args.realtime) if args.wav else MicSource(args.mic)
        model_path = listening_model_path(args.lang, args.model, args.endpoint)
    except (AudioError, ModelError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        model = load_vosk_model(model_path)
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from companion.speech.recognizer import RecognizerError

    view: TableView = GameView(game) if game is not None else OpenView(lexicon, args.players)
    try:
        listener = Listener(lexicon, model, view, early=not args.no_early)
    except RecognizerError as exc:
        print(f"error: {model_path}: {exc}", file=sys.stderr)
        return 2
    for line in listener.report.lines(lexicon):
        print(f"note: {line}", file=sys.stderr)
    print(f"model {model_path} loaded in {time.perf_counter() - started:.1f}s; listening"
          + (f" to {args.wav}" if args.wav else f" on {getattr(source, 'name', 'microphone')} (Ctrl-C stops)"),
          file=sys.stderr)

    def handle(heard: list[Any]) -> None:
        for item in heard:
            _print(item.to_dict(), args.json)
            event = item.event
            if game is not None and event is not None and event.decision == "apply":
                try:
                    game.apply(dict(event.event))
                except Exception as exc:  # the engine said no after all: report, keep listening
                    print(f"note: engine rejected {event.event}: {exc}", file=sys.stderr)
                    continue
                listener.set_view(GameView(game))

    try:
        source.run(lambda pcm, _t0: handle(listener.feed(pcm)))
    except AudioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    handle(listener.finish())
    return 0


def run(args: argparse.Namespace) -> int:
    if args.list_mics:
        from companion.speech.audio import AudioError, list_input_devices

        try:
            devices = list_input_devices()
            for index, name in devices:
                print(f"{index}: {name}")
            if not devices:
                print("no input devices (is a microphone connected and allowed?)")
        except AudioError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    try:
        game = load_game(args.after, args.variant) if args.after else None
        variant = args.variant or (game.variant_name if game is not None else None)
        lexicon = load_lexicon(args.lang, variant)
    except (LogError, LexiconError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.text is not None:
        return _text(args, lexicon, game)
    return _audio(args, lexicon, game)

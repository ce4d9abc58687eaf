"""Speech latency: from the end of a word in the audio to its table-log event.

    python bench/speech_latency.py --lang ko [--rounds 10] [--rates 130,140,150] [--json]
        [--endpoint fast|model] [--frames-per-chunk N] [--stable-blocks N] [--no-early] [--chunk 0.05]
    python bench/speech_latency.py --lang pt --model PATH     # when a pt/es model is at hand

A session of table talk is synthesised with espeak-ng (fillers, then the
bets and answers of a hand, several hands) at each speaking rate, so the
end of every word is known to 10 ms (energy, -30 dB).  Recall counts the
calls heard as their phrase; a false event is one heard that matches no
call said shortly before.  It is fed to the live ``Listener`` block by block and the
benchmark plays the table: events the listener applies go to a real
engine game, events it puts to the table are confirmed (as the players
would), and a new hand is dealt after each.  Time is simulated as if the
audio arrived live: block k is available when its last sample was spoken,
and is ready when the previous block is done and this one was processed
(measured wall time).  Latency = ready time of the block that emitted the
event - end of the word.  Real-time factor = processing time / audio time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.engine import Game  # noqa: E402
from companion.speech.audio import SAMPLE_RATE, blocks  # noqa: E402
from companion.speech.lexicon import load_lexicon  # noqa: E402
from companion.speech.listener import Listener  # noqa: E402
from companion.speech.models import FAST_ENDPOINT, load_vosk_model, resolve_model, tuned_model_dir  # noqa: E402
from companion.speech.tts import compose  # noqa: E402
from companion.speech.view import GameView  # noqa: E402

# Per language: the engine variant, the talk of one hand as (text to synthesise,
# the lexicon phrase it should be heard as, or None for filler), and espeak speaking rates.
SCENARIOS: dict[str, dict[str, Any]] = {
    "ko": {"variant": "paulista", "rates": [130, 140, 150], "voice": "ko",
           "hand": [("좋아 게임", None), ("투루코", "truco"), ("여섯", "seis"), ("수락", "accept"), ("이거 뭐", None)]},
    "pt": {"variant": "paulista", "rates": [140, 160, 180], "voice": "pt-br",
           "hand": [("vamos lá então", None), ("truco", "truco"), ("seis", "seis"), ("nove", "nove"),
                    ("aceito", "aceito"), ("olha a manilha", None)]},
    "es": {"variant": "argentino", "rates": [140, 160, 180], "voice": "es-419",
           "hand": [("bueno che", None), ("truco", "truco"), ("quiero", "quiero"), ("retruco", "retruco"),
                    ("no quiero", "no_quiero"), ("pasame el mate", None)]},
}


STABLE_BLOCKS = 2


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def session(lang: str, model: Any, rate: int, rounds: int, chunk: float, early: bool,
            verbose: bool = False) -> dict[str, Any]:
    """One synthesised session at one speaking rate; raw latencies and counts."""
    scenario = SCENARIOS[lang]
    parts = [part for _ in range(rounds) for part in scenario["hand"]]
    audio, segments = compose(parts, scenario["voice"], rate=rate, gap=0.7, noise=30)
    expected = [s for s in segments if s.label]

    game = Game({"type": "match", "variant": scenario["variant"], "players": 4})
    dealer = 3

    def deal() -> None:
        nonlocal dealer
        event: dict[str, Any] = {"type": "hand", "dealer": dealer}
        if game.variant.uses_vira:
            event["vira"] = "4D"
        game.apply(event)
        dealer = (dealer + 1) % 4

    deal()
    listener = Listener(load_lexicon(lang, scenario["variant"]), model, GameView(game), early=early,
                        stable_blocks=STABLE_BLOCKS)
    if verbose:
        listener.trace = []
    # The table (cards, scoring) ends each hand when its closing talk starts.
    closing = [s.start for i, s in enumerate(segments)
               if s.label is None and i > 0 and segments[i - 1].label is not None]

    hands = 0

    def end_hand() -> None:
        # Folds alternate between the teams and a new match starts before anyone
        # nears the mão de onze, so every hand of talk meets the same kind of game.
        nonlocal game, hands
        hands += 1
        state = game.state
        if not state.hand_over:
            if state.open_bets:
                game.apply({"type": "refuse", "seat": 1 - state.open_bets[0]["team"]})
            else:
                game.apply({"type": "fold", "seat": hands % 2})
        if max(game.state.score) >= game.state.target - 4 or game.state.game_over:
            game = Game({"type": "match", "variant": scenario["variant"], "players": 4})
        deal()

    heard: list[dict[str, Any]] = []
    ready = 0.0
    busy = 0.0
    for pcm, t0 in blocks(audio, chunk):
        available = t0 + len(pcm) / 2 / SAMPLE_RATE
        tick = time.perf_counter()
        changed = False
        while closing and available >= closing[0]:
            closing.pop(0)
            end_hand()
            changed = True
        items = listener.feed(pcm)
        emitted = []
        for item in items:
            if item.event is None:
                continue
            event = item.event
            record = {"event": event.event, "phrase": event.phrase, "said": event.said, "time": event.time,
                      "decision": event.decision, "source": item.source}
            try:
                game.apply(dict(event.event))  # the table confirms what it is asked
                changed = True
            except Exception as exc:  # noqa: BLE001 - a wrong event is counted, not fatal
                record["rejected"] = str(exc)
            heard.append(record)
            emitted.append(record)
        if changed:
            listener.set_view(GameView(game))
        spent = time.perf_counter() - tick
        busy += spent
        ready = max(ready, available) + spent
        for record in emitted:
            record["ready"] = ready
    tick = time.perf_counter()
    for item in listener.finish():
        if item.event is not None:
            heard.append({"event": item.event.event, "phrase": item.event.phrase, "said": item.event.said,
                          "time": item.event.time,
                          "decision": item.event.decision, "source": item.source,
                          "ready": ready + time.perf_counter() - tick})
    busy += time.perf_counter() - tick

    # Pair each heard event with the closest unpaired word of its type said
    # shortly before it (or just before it ended: the grammar can leave one choice).
    latencies: list[float] = []
    by_source: dict[str, list[float]] = {"partial": [], "final": []}
    taken: set[int] = set()
    time_errors: list[float] = []
    false_events = 0
    for h in heard:
        options = [
            (abs(h["ready"] - s.end), i) for i, s in enumerate(expected)
            if i not in taken and s.label == h["phrase"] and -0.5 <= h["ready"] - s.end <= 2.5
        ]
        if not options or "rejected" in h:
            false_events += 1
            continue
        _, i = min(options)
        taken.add(i)
        latencies.append(h["ready"] - expected[i].end)
        if h.get("time") is not None:
            time_errors.append(abs(h["time"] - expected[i].end))
        by_source[h["source"]].append(h["ready"] - expected[i].end)
    matched = len(taken)
    duration = len(audio) / SAMPLE_RATE
    if verbose:
        for seg in expected:
            print(f"said  {seg.end:7.2f}  {seg.label:8} {seg.text}", file=sys.stderr)
        for at, source, text in listener.trace or []:
            print(f"rec   {at:7.2f}  {source:7} {text}", file=sys.stderr)
        for h in heard:
            print(f"heard {h.get('ready', float('nan')):7.2f}  {h['event']}  {h.get('said')} {h.get('source')} "
                  f"{h.get('decision')} {h.get('rejected', '')}", file=sys.stderr)
    return {"latencies": latencies, "by_source": by_source, "time_errors": time_errors, "expected": len(expected),
            "matched": matched, "heard": len(heard), "false_events": false_events, "audio_s": duration, "busy_s": busy}


def ms(values: list[float], q: float | None = None) -> float | None:
    if not values:
        return None
    return round(1000 * (statistics.median(values) if q is None else percentile(values, q)), 1)


def run(lang: str, model_path: Path, rounds: int, chunk: float, endpoint: str, early: bool,
        rates: list[int] | None = None, frames_per_chunk: int | None = None, verbose: bool = False) -> dict[str, Any]:
    """Sessions at several speaking rates (espeak's rendering, hence the recogniser's
    timing, changes with the rate), pooled."""
    overrides: dict[str, float] = dict(FAST_ENDPOINT) if endpoint == "fast" else {}
    if frames_per_chunk == 0:
        overrides.pop("frames-per-chunk", None)  # the model's own
    elif frames_per_chunk:
        overrides["frames-per-chunk"] = frames_per_chunk
    model_path = tuned_model_dir(model_path, overrides)
    started = time.perf_counter()
    model = load_vosk_model(model_path)
    load_seconds = time.perf_counter() - started
    rates = rates or SCENARIOS[lang]["rates"]
    runs = {rate: session(lang, model, rate, rounds, chunk, early, verbose) for rate in rates}
    pool = [x for r in runs.values() for x in r["latencies"]]
    partial = [x for r in runs.values() for x in r["by_source"]["partial"]]
    final = [x for r in runs.values() for x in r["by_source"]["final"]]
    errors = [x for r in runs.values() for x in r["time_errors"]]
    expected = sum(r["expected"] for r in runs.values())
    audio_s = sum(r["audio_s"] for r in runs.values())
    return {
        "lang": lang,
        "model": str(model_path),
        "endpoint": endpoint,
        "model_conf": overrides,
        "early": early,
        "chunk_s": chunk,
        "rates": rates,
        "audio_s": round(audio_s, 2),
        "model_load_s": round(load_seconds, 2),
        "words_expected": expected,
        "events_heard": sum(r["heard"] for r in runs.values()),
        "events_matched": len(pool),
        "recall": round(len(pool) / expected, 3) if expected else None,
        "false_events": sum(r["false_events"] for r in runs.values()),
        "latency_median_ms": ms(pool),
        "latency_p95_ms": ms(pool, 0.95),
        "latency_partial_median_ms": ms(partial),
        "latency_final_median_ms": ms(final),
        "from_partials": len(partial),
        "event_time_error_median_ms": ms(errors),
        "rtf": round(sum(r["busy_s"] for r in runs.values()) / audio_s, 4),
        "per_rate": {rate: {"recall": round(r["matched"] / r["expected"], 3), "median_ms": ms(r["latencies"]),
                            "p95_ms": ms(r["latencies"], 0.95)} for rate, r in runs.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="ko", choices=sorted(SCENARIOS))
    parser.add_argument("--model", help="model folder (default: as companion listen finds it)")
    parser.add_argument("--rounds", type=int, default=8, help="hands of talk per speaking rate")
    parser.add_argument("--rates", help="espeak speaking rates, comma separated (default per language)")
    parser.add_argument("--frames-per-chunk", type=int, help="nnet frames per chunk (model.conf; smaller: "
                        "earlier partials, more CPU; 0: the model's own; default: 6 with --endpoint fast)")
    parser.add_argument("--chunk", type=float, default=0.05, help="audio block, seconds")
    parser.add_argument("--endpoint", choices=["fast", "model"], default="fast",
                        help="fast: shorter trailing silence before a final result; model: the model's own")
    parser.add_argument("--no-early", action="store_true", help="emit from final results only")
    parser.add_argument("--stable-blocks", type=int, default=2,
                        help="partials that must agree before an event is emitted early")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="list every word said and every event heard")
    args = parser.parse_args(argv)
    model_path = resolve_model(args.lang, args.model)
    global STABLE_BLOCKS
    STABLE_BLOCKS = args.stable_blocks
    rates = [int(r) for r in args.rates.split(",")] if args.rates else None
    result = run(args.lang, model_path, args.rounds, args.chunk, args.endpoint, not args.no_early, rates,
                 args.frames_per_chunk, args.verbose)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:28} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

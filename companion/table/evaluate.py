"""Measure the table pipeline on rendered sessions with ground truth.

    python -m companion.table.evaluate --hands 50                                   # both modes
    python -m companion.table.evaluate --hands 50 --mode noise --out /tmp/eval      # tracker + engine only

Sessions are rendered with :mod:`companion.table.render_session` across the
variants and 2, 4 and 6 players, with deck designs the detector never trained on (French holdout
designs; the two Spanish designs are both training designs, said in the
report), camera tilts and rolls, and light levels.  Two figures, kept apart:

* ``video``: the real thing.  The rendered video goes through the ONNX
  detector, the tracker, fusion and the engine (``companion replay``).
* ``classifier`` (extra): the renderer's true boxes named by the real card
  classifier on the real frames: the classifier's confusions without the box
  detector's.
* ``noise``: the tracker and the engine alone.  The detections are the
  renderer's ground-truth boxes with a detector's faults added
  (:class:`~companion.table.simulate.NoiseModel`: misses, flicker bursts,
  confused labels, wandering confidence, false positives).

Calls come from each session's timed transcript through the speech matcher
in both modes (no recogniser).  Reported per mode: share of hands whose
table log is reconstructed exactly (calls compared by team: a microphone
hears which team answered, not which partner), share of hands scored right
(same points for each team), latency from a card appearing to the engine
applying it (stream time, plus the mean processing time of a frame), and
replay speed as a multiple of real time (video mode; the machine's cores).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.engine.variants import resolve
from companion.paths import models_dir
from companion.table.answers import TableAnswers
from companion.table.fusion import FusionConfig
from companion.table.observations import FrameDetections, read_stream, write_stream
from companion.table.render_session import RenderOptions, random_look, render_session
from companion.table.replay import UNATTENDED, ReplayResult, replay
from companion.table.session import SessionConfig, frame_size
from companion.table.script import SessionScript, make_script
from companion.table.simulate import NoiseModel, noisy_stream
from companion.table.zones import Calibration, Zones

VARIANTS = ("paulista", "mineiro", "mineiro-2pt", "clean-28", "argentino")
CALL_TYPES = {"raise", "accept", "refuse", "fold", "envido", "flor", "points", "good"}


@dataclass
class SessionSpec:
    name: str
    variant: str
    hands: int
    seed: int
    opts: RenderOptions
    players: int = 4


def plan(total_hands: int, seed: int = 0, hands_per_session: int = 4,
         variants: tuple[str, ...] = VARIANTS, size: tuple[int, int] = (640, 480)) -> list[SessionSpec]:
    """Sessions covering ``total_hands`` hands, cycling variants, cameras and light.

    ``size``: the frame size.  The same table depth fills the frame height
    whatever the aspect (a 16:9 frame sees more of the table's width), so at
    1280x720 a card is about 1.45 times as many pixels tall as at 640x480 -- a
    720p webcam over a small table.  Same sessions, scripts and cameras otherwise.
    """
    rng = random.Random(seed)
    specs = []
    k = 0
    planned = 0
    while planned < total_hands:
        variant = variants[k % len(variants)]
        hands = min(hands_per_session, total_hands - planned)
        opts, players = random_look(rng, size, seed * 1000 + k)
        spec = SessionSpec(f"s{k:02d}-{variant}-{players}p", variant, hands, seed * 1000 + k, opts, players)
        specs.append(spec)
        # a game may end before the planned hands: count the hands really played
        planned += make_script(variant, hands, players, spec.seed).hands
        k += 1
    return specs


# --- comparing logs -----------------------------------------------------------------------------

def normalise(event: dict[str, Any]) -> dict[str, Any]:
    """Calls compared by team; everything else as is."""
    e = {k: v for k, v in event.items() if k not in ("to",) or event.get("type") != "raise"}
    if e.get("type") in CALL_TYPES and "seat" in e:
        e["team"] = e.pop("seat") % 2
    if e.get("type") == "play" and e.get("covered"):
        e.pop("card", None)
    return e


def split_hands(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Events grouped by hand (undo resolved first)."""
    resolved: list[dict[str, Any]] = []
    for e in events:
        if e.get("type") == "undo":
            if resolved:
                resolved.pop()
            continue
        if e.get("type") in ("match", "note"):
            continue
        resolved.append(e)
    hands: list[list[dict[str, Any]]] = []
    for e in resolved:
        if e.get("type") == "hand" or not hands:
            hands.append([])
        hands[-1].append(e)
    return hands


def hand_points(match: dict[str, Any], events: list[dict[str, Any]]) -> list[tuple[int, int] | None]:
    from companion.tablelog import score_log

    lines = [json.dumps(match)] + [json.dumps(e) for e in events]
    result = score_log(lines)
    return [tuple(h.get("points") or (0, 0)) for h in result.get("hands", [])]  # type: ignore[misc]


def hand_cards(events: list[dict[str, Any]]) -> Counter[str]:
    """A hand's vira and face-up plays, as a multiset ("vira:KC", "play:QH")."""
    cards: Counter[str] = Counter()
    for e in events:
        if e.get("type") == "hand" and e.get("vira"):
            cards[f"vira:{e['vira']}"] += 1
        elif e.get("type") == "play" and e.get("card") and not e.get("covered"):
            cards[f"play:{e['card']}"] += 1
    return cards


LOSS_CAUSES = ("no hand", "vira", "play missed", "play extra", "card misread", "seat", "calls")


def loss_cause(truth: list[dict[str, Any]], got: list[dict[str, Any]]) -> str:
    """Why a hand of the log differs from the truth's, the first of ``LOSS_CAUSES`` that holds: no such hand
    in the log; its vira read wrong; fewer plays (a card the camera missed, or the hand closed early); more
    plays (a card seen twice, a phantom, or the next hand's cards taken into this one); a card named wrong
    (a covered play read face up counts here too); the right cards at the wrong seats or in the wrong order;
    else the calls (a bet or answer heard wrong, missed, or put to the wrong team).

    Why: the figures say how many hands are scored right, and the next thing anyone asks is what the others
    lost to, which decides where work goes (the detector, the classifier, the tracker, the speech layer).
    One hand gone wrong often takes the next with it (its cards spill over), which shows here as a missed
    play in one hand and an extra one in the next.
    """
    if not got:
        return "no hand"

    def vira(hand: list[dict[str, Any]]) -> str | None:
        return next((e.get("vira") for e in hand if e.get("type") == "hand"), None)

    if vira(truth) != vira(got):
        return "vira"
    want = [e for e in truth if e.get("type") == "play"]
    have = [e for e in got if e.get("type") == "play"]
    if len(have) != len(want):
        return "play missed" if len(have) < len(want) else "play extra"
    if hand_cards(truth) != hand_cards(got):
        return "card misread"
    if [normalise(e) for e in want] != [normalise(e) for e in have]:
        return "seat"
    return "calls"


def compare(match: dict[str, Any], truth: list[dict[str, Any]], got: list[dict[str, Any]]) -> dict[str, Any]:
    """Hands logged exactly and scored right, and cards logged right.

    Cards right: the truth's vira and face-up plays found in the same hand of
    the log (by card, whatever the seat or order).  Why a third figure: a hand
    is exact or not, scored right or not, so 60 hands move in steps of 1.7 %
    and a model that reads a few more cards right often shows no change; the
    cards (about 460 per 60 hands) show it.
    """
    th, gh = split_hands(truth), split_hands(got)
    tp, gp = hand_points(match, [e for h in th for e in h]), hand_points(match, [e for h in gh for e in h])
    exact = scored = cards = cards_right = 0
    per_hand = []
    for i, hand in enumerate(th):
        other = gh[i] if i < len(gh) else []
        same = [normalise(e) for e in hand] == [normalise(e) for e in other]
        right = i < len(tp) and i < len(gp) and tp[i] == gp[i]
        exact += same
        scored += right
        want, have = hand_cards(hand), hand_cards(other)
        cards += sum(want.values())
        cards_right += sum((want & have).values())
        per_hand.append({"exact": same, "scored": right, "truth_points": tp[i] if i < len(tp) else None,
                         "got_points": gp[i] if i < len(gp) else None,
                         **({} if right else {"cause": loss_cause(hand, other)})})
    return {"hands": len(th), "exact": exact, "scored": scored, "extra_hands": max(0, len(gh) - len(th)),
            "cards": cards, "cards_right": cards_right, "per_hand": per_hand}


def latencies(result: ReplayResult, script: SessionScript) -> list[tuple[float, str]]:
    """(stream seconds from a card appearing to the engine applying it, how
    it was applied: ``auto`` straight away, ``settle`` straight away but open
    a while (Fusion.settling), ``timeout``/``confirm`` after it was held for
    confirmation) for every card event reconstructed.

    A new hand counts only where a card is turned for it (the vira).  Without a vira, the truth dates the
    hand from the deal, and the camera opens it with the first card played, whose own play is counted
    already.  Timed from the deal, such hands were 27 of the 29 events applied at once over 0.6 s after
    their time on seed 0, and put the p90 of the cards nobody was asked about near 1.3 s."""
    placed = {}
    for t, e in script.timed_log:
        if e.get("type") == "play" or (e.get("type") == "hand" and e.get("vira")):
            placed.setdefault(json.dumps(normalise(e), sort_keys=True), t)
    out = []
    for entry in result.session.fusion.applied:
        key = json.dumps(normalise(entry.event), sort_keys=True)
        if key in placed and entry.proposal is not None and entry.proposal.source == "vision":
            out.append((round(entry.stream_t - placed.pop(key), 3), entry.resolved_by))
    return out


def doubts(result: ReplayResult, truth: list[dict[str, Any]]) -> dict[str, int]:
    """How each card the camera put in the log got there, right or wrong: applied at once (``auto``),
    held and applied without a question (``quiet``: read weakly with no possible rival, see
    ``TableTracker._rivalled``), or held for the table's answer (``asked``).  Keys
    ``<how>_right`` / ``<how>_wrong``; a card is right when the truth's same hand has it.

    Why: unattended, every held card is applied after a timeout, so the log does not
    show what a live table would have been asked.  These counts do: how often the
    companion interrupts the players for a card it read right, and how many of
    its wrong cards it asked about (the ones the table could have put right).
    """
    fusion = result.session.fusion
    hands = split_hands(truth)
    counts = Counter({f"{how}_{ok}": 0 for how in ("auto", "quiet", "asked") for ok in ("right", "wrong")})
    hand = -1
    for entry in fusion.applied:
        event, prop = entry.event, entry.proposal
        if event.get("type") == "hand":
            hand += 1
        card = event.get("vira") if event.get("type") == "hand" else event.get("card")
        if event.get("type") not in ("hand", "play") or card is None or prop is None or prop.source != "vision":
            continue
        cards = {e.get("vira") if e.get("type") == "hand" else e.get("card")
                 for e in (hands[hand] if 0 <= hand < len(hands) else [])}
        how = "auto" if entry.resolved_by == "auto" else ("quiet" if fusion.settles(prop) else "asked")
        counts[f"{how}_{'right' if card in cards else 'wrong'}"] += 1
    return dict(counts)


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


# --- running ------------------------------------------------------------------------------------

def detector_identity(det_conf: float | None, off_deck_prior: float, quad: str | None = None,
                      outline_model: bool | None = None) -> dict[str, Any]:
    """What a recorded detection stream depends on besides the video (checked before reusing one): ``quad`` the
    outline finders read with (None: ``crops.QUAD_METHODS``), ``outline_model`` whether the outline model's
    outlines came first (None: ``TABLE_OUTLINE_MODEL``; False when the models folder has none to read)."""
    from companion.table.session import table_detector_options
    from companion.vision.crops import QUAD_METHODS, quad_methods
    from companion.vision.outline_model import OUTLINE_MODEL_FILE
    from companion.vision.settings import RECTIFY, SUIT_CORNER_WEIGHT, WHOLE_RANK_SURE

    options = table_detector_options(det_conf, outline_model)
    read = bool(options["outline_model"]) and (models_dir() / OUTLINE_MODEL_FILE).is_file()
    return {"models": str(models_dir().resolve()), "conf": options["conf"], "off_deck_prior": off_deck_prior,
            "outlines": options["outlines"], "outline_min_prob": options["outline_min_prob"], "rectify": RECTIFY,
            "quad": list(quad_methods(quad) if quad else QUAD_METHODS), "outline_model": read,
            "outline_model_boxes": options["outline_model_boxes"] if read else None,
            "corner_shifts": [list(o) for o in options["corner_shifts"]],
            "suit_corner_weight": SUIT_CORNER_WEIGHT, "whole_rank_sure": WHOLE_RANK_SURE}


def recorded_identity(header: dict[str, Any]) -> dict[str, Any] | None:
    """The detector identity a stream's header records; settings added since it was written count at
    the value that reproduces what was then done (``whole_rank_sure`` 0: the whole card's rank always
    mixed in; no outline model, and none of its outlines named alone)."""
    identity = header.get("detector")
    return None if identity is None else {"whole_rank_sure": 0.0, "outline_model": False, "outline_model_boxes": None,
                                          **identity}


def run_session(spec: SessionSpec, out: Path, mode: str, detector_cache: dict[Any, Any],
                noise: NoiseModel, config: SessionConfig | None = None, calibrated: bool = True,
                off_deck_prior: float = 0.05, det_conf: float | None = None,
                recorded: Path | None = None, answer: float | None = None, quad: str | None = None,
                outline_model: bool | None = None) -> dict[str, Any]:
    """Replay one rendered session in ``mode`` and compare its table log with the truth.

    ``quad``, ``outline_model`` (video mode): how the detector finds each card's outline (the finders in
    order, None: ``crops.QUAD_METHODS``; the outline model's outline first, None: ``TABLE_OUTLINE_MODEL``).

    ``recorded`` (video mode): a folder of detection streams, one JSONL per
    session.  A session with a stream there replays it instead of its video;
    one without has the stream written while its video is read.  Tracker and
    fusion changes are then measured in seconds, on exactly the detections of
    the recorded run (its latency and speed figures no longer include the
    detector: take those from a run on the video).
    """
    folder = out / "sessions" / spec.name
    script_path = folder / "session.json"
    if script_path.exists():
        meta = json.loads(script_path.read_text())
        if meta.get("render", {}).get("seed", spec.opts.seed) != spec.opts.seed:
            raise ValueError(f"{folder} was rendered for another --seed: use another --out")
        script = SessionScript.from_dict(meta["script"])
    else:
        script = make_script(spec.variant, spec.hands, spec.players, spec.seed)
        meta = render_session(folder, script, spec.opts, video=(mode in ("video", "classifier")))
    if mode in ("video", "classifier") and not (folder / "video.mp4").exists():
        meta = render_session(folder, script, spec.opts, video=True)
    cal = Zones(Calibration.from_dict(meta["calibration"])) if calibrated else None
    first_dealer = script.timed_log[0][1]["dealer"]
    transcript = script.transcript()
    lang = script.lang
    deck = tuple(resolve(spec.variant).deck_cards)  # what `companion replay` tells the classifier
    answers = (TableAnswers(meta["states"], answer, calls=[(c["t"], c["truth"]) for c in transcript])
               if answer is not None else None)
    if mode == "classifier":
        from companion.table.render_session import SessionRenderer
        from companion.table.simulate import TrueBoxesClassifier

        renderer = SessionRenderer(script, RenderOptions(**meta["render"]))
        detector = TrueBoxesClassifier(renderer, meta["states"], meta["family"], deck=deck,
                                       off_deck_prior=off_deck_prior)
        result = replay(script.match, video=folder / "video.mp4", detector=detector, transcript=transcript,
                        lang=lang, zones=cal, first_dealer=first_dealer, config=copy.deepcopy(config),
                        on_frame=answers)
    elif mode == "video" and recorded is not None and (recorded / f"{spec.name}.jsonl").exists():
        header, frames = read_stream(recorded / f"{spec.name}.jsonl")
        identity = detector_identity(det_conf, off_deck_prior, quad, outline_model)
        if recorded_identity(header) != identity:
            raise ValueError(f"{recorded / spec.name}.jsonl was recorded with {header.get('detector')}, not "
                             f"{identity}: use another --detections folder")
        result = replay(script.match, detections=frames, transcript=transcript, lang=lang, zones=cal,
                        first_dealer=first_dealer, config=copy.deepcopy(config), on_frame=answers)
    elif mode == "video":
        from companion.table.session import table_detector

        family = meta["family"]
        if (family, deck) not in detector_cache:  # what `companion replay` builds for this variant
            detector_cache[(family, deck)] = table_detector(family, deck, det_conf, off_deck_prior=off_deck_prior,
                                                            quad_methods=quad, outline_model=outline_model)
        seen: list[FrameDetections] = []

        def on_frame(session: Any, image: Any, frame: FrameDetections) -> None:
            seen.append(frame)
            if answers is not None:
                answers(session, image, frame)

        result = replay(script.match, video=folder / "video.mp4", detector=detector_cache[(family, deck)],
                        transcript=transcript, lang=lang, zones=cal, first_dealer=first_dealer,
                        config=copy.deepcopy(config), on_frame=on_frame)
        if recorded is not None:
            write_stream(recorded / f"{spec.name}.jsonl", seen, session=spec.name,
                         detector=detector_identity(det_conf, off_deck_prior, quad, outline_model))
    else:
        fps = float(meta["fps"])
        times = [i / fps for i in range(int(script.duration * fps))]
        size = tuple(meta["calibration"]["image_size"])
        model = NoiseModel(**{**noise.__dict__, "seed": spec.seed})
        frames: list[FrameDetections] = list(noisy_stream(meta["states"], times, model, size, meta["family"]))
        result = replay(script.match, detections=frames, transcript=transcript, lang=lang, zones=cal,
                        first_dealer=first_dealer, config=copy.deepcopy(config), on_frame=answers)
    cmp = compare(script.match, script.log, [script.match] + result.events)
    lat = latencies(result, script)
    stats = result.session.stats.summary()
    fusion = result.session.fusion
    return {
        "name": spec.name, "variant": spec.variant, "players": spec.players, "design": meta["design"],
        "family": meta["family"],
        "tilt": spec.opts.tilt, "roll": round(spec.opts.roll, 1), "light": spec.opts.light,
        "duration": script.duration, "wall": round(result.wall_seconds, 3), "speed": round(result.speed, 2),
        "voice": result.voice_source, **cmp, "latency": lat, "stats": stats,
        "pending_resolved": sum(1 for a in fusion.applied if a.resolved_by in ("timeout", "confirm")),
        "doubts": doubts(result, script.log),
        "rejected": len(fusion.rejected), "alerts": len(fusion.alerts),
        **({"answers": dict(answers.counts)} if answers is not None else {}),
        "log": result.events,
    }


def _groups(rows: list[dict[str, Any]], key: Callable[[dict[str, Any]], Any]) -> dict[Any, list[dict[str, Any]]]:
    """The rows by ``key``, keys in sorted order (the report's breakdowns)."""
    return {k: [r for r in rows if key(r) == k] for k in sorted({key(r) for r in rows})}


def _share(rows: list[dict[str, Any]], part: str, whole: str) -> float | None:
    total = sum(r.get(whole, 0) for r in rows)
    return round(sum(r.get(part, 0) for r in rows) / total, 4) if total else None


def _asked(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What a live table would have been asked (see :func:`doubts`): the share of right cards asked
    about, and how many of the wrong cards were."""
    total = Counter()
    for r in rows:
        total.update(r.get("doubts", {}))
    right = sum(total[f"{how}_right"] for how in ("auto", "quiet", "asked"))
    wrong = sum(total[f"{how}_wrong"] for how in ("auto", "quiet", "asked"))
    return {"right_cards_asked_share": round(total["asked_right"] / right, 4) if right else None,
            "wrong_cards_asked": f"{total['asked_wrong']}/{wrong}"}


def summarise(rows: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    hands = sum(r["hands"] for r in rows)
    lat = [x for r in rows for x in r["latency"]]
    # applied without waiting for anyone: sure cards, and the ones that settle unasked (Fusion.settling)
    unasked = [x for x, how in lat if how in ("auto", "settle")]
    proc = statistics.mean(r["stats"]["process_ms"] for r in rows) / 1000.0 if rows else 0.0
    wall = sum(r["wall"] for r in rows)
    duration = sum(r["duration"] for r in rows)

    def plus(x: float | None) -> float | None:
        return None if x is None else round(x + proc, 3)

    out = {
        "mode": mode, "sessions": len(rows), "hands": hands,
        "exact_share": _share(rows, "exact", "hands"),
        "scored_share": _share(rows, "scored", "hands"),
        "cards_right_share": _share(rows, "cards_right", "cards"),
        "cards_applied": len(lat),
        "cards_held_share": round(1 - len(unasked) / len(lat), 4) if lat else None,
        **_asked(rows),
        # every card the camera put in; the held ones (asked about) after the unattended timeout
        "latency_median_s": plus(_pct([x for x, _ in lat], 0.5)),
        "latency_p90_s": plus(_pct([x for x, _ in lat], 0.9)),
        "latency_unasked_median_s": plus(_pct(unasked, 0.5)),
        "latency_unasked_p90_s": plus(_pct(unasked, 0.9)),
        "frame_process_ms": round(1000 * proc, 1),
        "speed_x_realtime": round(duration / wall, 2) if wall else None,
        "cores": os.cpu_count(),
        "by_variant": {},
    }
    def tally(sub: list[dict[str, Any]]) -> dict[str, int]:
        return {k: sum(r[k] for r in sub) for k in ("hands", "exact", "scored")}

    if any("answers" in r for r in rows):
        said = Counter()
        for r in rows:
            said.update(r.get("answers", {}))
        out["answers"] = dict(sorted(said.items()))
        # ("left": asked, and nobody could tell, so nobody answered)
        answered = sum(n for k, n in said.items() if not k.endswith("left"))
        out["answers_per_hand"] = round(answered / hands, 2) if hands else None
    out["by_variant"] = {v: tally(sub) for v, sub in _groups(rows, lambda r: r["variant"]).items()}
    # what the hands scored wrong lost to (loss_cause; runs older than it have no cause: left out)
    causes = Counter(h["cause"] for r in rows for h in r.get("per_hand", []) if not h["scored"] and "cause" in h)
    out["lost_by_cause"] = {c: causes[c] for c in LOSS_CAUSES if causes[c]}
    out["cards_right_by_design"] = {
        d: f"{sum(r.get('cards_right', 0) for r in sub)}/{sum(r.get('cards', 0) for r in sub)}"
        for d, sub in _groups(rows, lambda r: r.get("design", "?")).items()}
    out["by_design"] = {d: tally(sub) for d, sub in _groups(rows, lambda r: r.get("design", "?")).items()}
    out["by_players"] = {str(n): tally(sub) for n, sub in _groups(rows, lambda r: r.get("players", 4)).items()}
    out["by_camera"] = {f"tilt {t}": tally(sub) for t, sub in _groups(rows, lambda r: r["tilt"]).items()}
    return out


# options that set a TrackerConfig field as given (None: the field's default)
TRACKER_ARGS = {"presence": "min_detection_confidence", "doubt_margin": "doubt_margin",
                "apply_confidence": "apply_confidence", "weak_frames": "weak_frames",
                "settle_confidence": "settle_confidence"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=50)
    parser.add_argument("--hands-per-session", type=int, default=4)
    parser.add_argument("--mode", choices=["noise", "video", "classifier", "both"], default="both",
                        help="both = noise + video; classifier = true boxes named by the real classifier")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "companion-table-eval"),
                        help="where rendered sessions and the report go (rendered sessions are reused)")
    parser.add_argument("--no-calibration", action="store_true",
                        help="no seat calibration: zones guessed, then learned from the first trick")
    parser.add_argument("--render-only", action="store_true", help="render the sessions (with video) and stop")
    parser.add_argument("--min-frames", type=int, help="tracker: detections before a card counts")
    parser.add_argument("--hold", type=float, help="fusion: seconds a card waits for earlier ones")
    parser.add_argument("--noise", choices=["clean", "default", "hard"], default="default",
                        help="noise mode: perfect detections, a typical detector's faults, or a poor detector's")
    parser.add_argument("--off-deck-prior", type=float, default=0.05,
                        help="video mode: weight of classifier readings outside the variant's deck "
                             "(1 = no deck knowledge, as `companion detect`)")
    parser.add_argument("--size", default="640x480", metavar="WxH",
                        help="frame size of the rendered sessions (1280x720: a 720p webcam)")
    parser.add_argument("--conf", type=float, default=None,
                        help="video mode: the detector's threshold (default: what `companion replay` uses)")
    parser.add_argument("--quad", metavar="NAMES", default=None,
                        help="video: how a card's outline is found, in order (default: "
                             "companion.vision.crops.QUAD_METHODS), e.g. paper,table to leave out the sides")
    parser.add_argument("--outline-model", action=argparse.BooleanOptionalAction, default=None,
                        help="video: turn each card upright by the outline model's outline (card-outlines.onnx) "
                             "before the finders' (default: as the table reads, TABLE_OUTLINE_MODEL)")
    parser.add_argument("--detections", metavar="DIR", default=None,
                        help="video mode: record each session's detection stream here, or replay the one "
                             "recorded before instead of the video (same models and --conf assumed: tracker "
                             "changes measured in seconds; latency and speed then exclude the detector)")
    parser.add_argument("--weak", type=float, default=None,
                        help="tracker: weaker detections down to this keep a card's track (0: ignored)")
    parser.add_argument("--weak-frames", type=int, default=None,
                        help="tracker: weak detections before a card seen only weakly counts")
    parser.add_argument("--answer", type=float, default=None, metavar="SECONDS",
                        help="a table that answers: each card the companion asks about is confirmed, "
                             "chosen among its readings or typed, from the ground truth, this long after "
                             "it is asked (default: nobody answers, every doubt times out)")
    parser.add_argument("--apply-confidence", type=float, default=None,
                        help="tracker: cards read less surely are held (asked about, or settled unasked)")
    parser.add_argument("--doubt-margin", type=float, default=None,
                        help="tracker: a weak card is asked about when another possible reading has over "
                             "1/margin of its support (else settled unasked)")
    parser.add_argument("--presence", type=float, default=None,
                        help="tracker: detections whose detector score is weaker are ignored")
    parser.add_argument("--settle-confidence", type=float, default=None,
                        help="tracker: a card read below this waits twice the frames before it is decided")
    parser.add_argument("--change-threshold", type=float, default=None,
                        help="video: the thumbnail change (grey levels) that reruns the detector; <= 0: every frame")
    args = parser.parse_args(argv)
    if args.quad:
        from companion.vision.crops import quad_methods

        try:
            quad_methods(args.quad)
        except ValueError as err:
            parser.error(str(err))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        size = frame_size(args.size)
    except ValueError as err:
        parser.error(str(err))
    specs = plan(args.hands, args.seed, args.hands_per_session, tuple(args.variants.split(",")), size)
    modes = ["noise", "video"] if args.mode == "both" else [args.mode]
    noise = NoiseModel.named(args.noise)
    config = SessionConfig(fusion=FusionConfig(**UNATTENDED.__dict__))
    if args.min_frames:
        config.tracker.min_frames = args.min_frames
    if args.hold is not None:
        config.fusion.hold = args.hold
    for arg, name in TRACKER_ARGS.items():
        if getattr(args, arg) is not None:
            setattr(config.tracker, name, getattr(args, arg))
    if args.weak is not None:
        config.tracker.weak_confidence = args.weak if args.weak > 0 else None
    if args.change_threshold is not None:
        config.change_threshold = args.change_threshold
    if args.answer is not None:  # the table answers before the unattended timeout would
        for name in ("pending_timeout", "seat_timeout"):
            setattr(config.fusion, name, max(getattr(config.fusion, name), args.answer + 1.0))
    report: dict[str, Any] = {"command": " ".join(["python -m companion.table.evaluate"] + (argv or sys.argv[1:])),
                              "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    cache: dict[Any, Any] = {}
    recorded = Path(args.detections) if args.detections else None
    if recorded is not None:
        recorded.mkdir(parents=True, exist_ok=True)
        report["detections"] = str(recorded)
    if args.render_only:
        for spec in specs:
            folder = out / "sessions" / spec.name
            if not (folder / "video.mp4").exists():
                script = make_script(spec.variant, spec.hands, spec.players, spec.seed)
                render_session(folder, script, spec.opts, video=True)
            print(f"rendered {folder}", file=sys.stderr)
        return 0
    for mode in modes:
        rows = []
        for spec in specs:
            try:
                row = run_session(spec, out, mode, cache, noise, config, not args.no_calibration,
                                  args.off_deck_prior, args.conf, recorded, args.answer, args.quad,
                                  args.outline_model)
            except Exception as err:  # noqa: BLE001 - one broken session must not hide the others
                if mode in ("video", "classifier") and type(err).__name__ in ("ModelError", "FileNotFoundError"):
                    print(f"video mode skipped: {err}", file=sys.stderr)
                    rows = []
                    break
                raise
            rows.append(row)
            print(f"[{mode}] {row['name']:<22} hands {row['hands']} exact {row['exact']} scored {row['scored']} "
                  f"speed {row['speed']}x voice={row['voice']}", file=sys.stderr)
        if rows:
            report[mode] = summarise(rows, mode)
            tag = mode
            if mode == "noise":
                report[mode]["noise"] = args.noise
                tag = f"noise-{args.noise}"
            if args.no_calibration:
                report[mode]["calibration"] = "learned"
                tag += "-learned"
            if args.answer is not None:
                report[mode]["answer_after_s"] = args.answer
                tag += "-answered"
            (out / f"sessions-{tag}.json").write_text(json.dumps(rows, indent=1) + "\n")
            (out / f"report-{tag}.json").write_text(json.dumps({**report, mode: report[mode]}, indent=2) + "\n")
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    for mode in modes:
        if mode in report:
            print(json.dumps(report[mode], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

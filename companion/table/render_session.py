"""Render a session script to a video with ground truth.

    python -m companion.table.render_session --variant paulista --hands 3 --out datasets/sessions/demo

writes into ``--out``:

* ``video.mp4``: the table seen by a fixed camera (``--fps`` frames a second),
  a hand reaching over the table while each card is put down;
* ``session.json``: the script (cards with their times, calls, ground-truth
  timed log), the camera, the design, the seat-zone calibration a user would
  have marked with ``companion calibrate``, and per scene state the boxes of
  every card as drawn (``states``: what a perfect detector would report);
* ``truth.jsonl``: the ground-truth table log;
* ``transcript.json``: the timed transcript of the calls;
* ``calls.flac`` (with ``--audio``): the calls spoken by espeak-ng at their times
  (16 kHz mono; FLAC because a track of calls is mostly silence).

Designs come from :func:`companion.synth.art.split_designs`: ``--split
holdout`` (default) uses only deck designs the detector never trained on.
Each distinct scene (which cards lie where, a hand over the table or not) is
composed once with a fixed texture and shadow direction; frames of a state
differ only by sensor noise, as from a still camera.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.table.script import SessionScript, lateral_spacing, make_script, play_radius, seat_axis

PLACING_SECONDS = 0.35  # a hand hovers over the table this long when a card is put down


@dataclass
class RenderOptions:
    width: int = 640
    height: int = 480
    fps: float = 10.0
    view_mm: float = 660.0
    tilt: float = 0.0
    roll: float = 0.0
    light: float = 1.0  # overall gain
    noise: float = 2.0  # per-frame sensor noise sigma
    fingers: bool = True
    design: str | None = None
    split: str = "holdout"
    seed: int = 0


def random_look(rng: random.Random, size: tuple[int, int], seed: int,
                split: str = "holdout") -> tuple[RenderOptions, int]:
    """A table as the rendered sessions draw one: the camera's tilt and roll, the light, the view and
    the number of players, from ``rng`` (in this order: the evaluation's seeds render the same
    sessions).  The same table depth fills the frame height whatever the aspect (a 16:9 frame sees more
    of the table's width).  ``split``: the designs it is drawn with (held out, or training ones)."""
    tilt = rng.choice([0.0, 0.15, 0.3])
    roll = rng.uniform(-25, 25)
    light = rng.choice([0.6, 0.8, 1.0, 1.2])
    players = rng.choice([2, 4, 4, 4, 6])
    view = rng.uniform(640, 720) * (size[0] / size[1]) / (4 / 3)
    return RenderOptions(size[0], size[1], tilt=tilt, roll=roll, light=light, seed=seed, view_mm=view,
                         split=split), players


def pick_design(family: str, split: str, seed: int, name: str | None = None) -> Any:
    from companion.synth.art import get_design, split_designs

    if name:
        return get_design(family, name)
    from companion.synth.art import ArtError, back_image, card_image

    train, hold = split_designs(family)
    pool = hold if split == "holdout" and hold else train
    if not pool:
        raise RuntimeError(f"no {family} card designs on this machine (install the card art packages)")
    errors = []
    for k in range(len(pool)):
        design = pool[(seed + k) % len(pool)]
        try:  # a design whose art does not render on this machine is skipped, not fatal
            card_image(design, design.cards[0] if design.cards else ("AS" if family == "french" else "1E"))
            back_image(design)
        except (ArtError, OSError) as err:
            errors.append(f"{design.name}: {err}")
            continue
        return design
    raise RuntimeError(f"no {family} design renders here: {'; '.join(errors)}")


def camera_for(opts: RenderOptions) -> Any:
    from companion.synth.scene import Camera

    return Camera(opts.width, opts.height, opts.view_mm, opts.tilt, opts.roll, (0.0, 0.0), ())


def _project(hom: np.ndarray, pt: tuple[float, float]) -> tuple[float, float]:
    v = hom @ np.array([pt[0], pt[1], 1.0])
    return (float(v[0] / v[2]), float(v[1] / v[2]))


def fit_view(script_players: int, opts: RenderOptions, margin: float = 8.0) -> RenderOptions:
    """Widen the camera's view until every place a card can lie (the deck,
    the vira, each seat's three cards) is inside the image: a real camera is
    set up to see the whole table, and a card cut by the frame edge is no
    test of the tracker."""
    from dataclasses import replace

    card = 62.0  # half the diagonal of a card, mm, rounded up
    spots = [(0.0, 0.0)]
    for seat in range(script_players):
        ux, uy = seat_axis(seat, script_players)
        px, py = -uy, ux
        for lateral in (-1.0, 0.0, 1.0):
            radius = play_radius(script_players) + 12.0
            side = lateral * (lateral_spacing(script_players) + 8.0)
            spots.append((ux * radius + px * side, uy * radius + py * side))
    for _ in range(40):
        hom = camera_for(opts).homography()
        inside = True
        for x, y in spots:
            for dx, dy in ((card, card), (card, -card), (-card, card), (-card, -card)):
                u, v = _project(hom, (x + dx, y + dy))
                if not (margin <= u <= opts.width - margin and margin <= v <= opts.height - margin):
                    inside = False
        if inside:
            return opts
        opts = replace(opts, view_mm=opts.view_mm * 1.05)
    return opts


def calibration_for(script: SessionScript, hom: np.ndarray, opts: RenderOptions) -> dict[str, Any]:
    """The calibration a user would mark: table centre and seat 0, as seen."""
    centre = _project(hom, (0.0, 0.0))
    ux, uy = seat_axis(0, script.players)
    reach = play_radius(script.players)
    seat0 = _project(hom, (ux * reach, uy * reach))
    reaches = []
    for s in range(script.players):
        ax, ay = seat_axis(s, script.players)
        reaches.append(math.dist(centre, _project(hom, (ax * reach, ay * reach))))
    # Is the order of play anticlockwise in the image (y down)?  Check with seat 1.
    s1 = _project(hom, tuple(v * reach for v in seat_axis(1, script.players)))
    a0 = math.atan2(centre[1] - seat0[1], seat0[0] - centre[0])
    a1 = math.atan2(centre[1] - s1[1], s1[0] - centre[0])
    clockwise = ((a1 - a0) % (2 * math.pi)) > math.pi
    return {"centre": list(centre), "seat0": list(seat0), "players": script.players,
            "image_size": [opts.width, opts.height], "centre_radius": 0.5 * min(reaches),
            "clockwise": clockwise, "source": "render"}


class SessionRenderer:
    """Draws a script frame by frame, composing each scene state once."""

    def __init__(self, script: SessionScript, opts: RenderOptions) -> None:
        from companion.engine.variants import resolve
        from companion.synth.backgrounds import table_texture
        from companion.synth.scene import Lighting

        self.script = script
        self.opts = opts = fit_view(script.players, opts)
        family = resolve(script.variant).family
        self.design = pick_design(family, opts.split, opts.seed, opts.design)
        self.camera = camera_for(opts)
        self.hom = self.camera.homography()
        rng = np.random.default_rng(opts.seed)
        self.background = table_texture(rng, 700, 900)
        self.lighting = Lighting(gain=opts.light, shadow=0.3, noise=0.0)
        self.hand_lighting = Lighting(gain=opts.light, shadow=0.3, noise=0.0, fingers=1)
        self._cache: dict[tuple[Any, ...], tuple[np.ndarray, list[dict[str, Any]]]] = {}
        noise_rng = np.random.default_rng(opts.seed + 1)
        # a few sensor-noise patterns cycled over frames: cheap, and still no two neighbours alike
        self._noise = [noise_rng.normal(0, opts.noise, (opts.height, opts.width, 3)).astype(np.int16)
                       for _ in range(5)] if opts.noise > 0 else []
        self._frames = 0

    def state_key(self, t: float) -> tuple[Any, ...]:
        visible = tuple(i for i, c in enumerate(self.script.cards) if c.t_on <= t < c.t_off)
        placing = self.opts.fingers and any(
            c.t_on <= t < c.t_on + PLACING_SECONDS and c.role in ("play", "covered", "vira")
            for c in self.script.cards if c.t_on <= t < c.t_off)
        return (visible, bool(placing))

    def render_state(self, key: tuple[Any, ...]) -> tuple[np.ndarray, list[dict[str, Any]]]:
        if key in self._cache:
            return self._cache[key]
        from companion.synth.scene import Placement, compose_scene

        visible, placing = key
        placements = []
        for i in visible:
            c = self.script.cards[i]
            placements.append(Placement(c.card, tuple(c.center), c.angle, 1.0, c.z))
        rng = np.random.default_rng(self.opts.seed * 1000 + (len(visible) if placing else 0))
        scene = compose_scene(placements, self.camera, design=self.design, lighting=(
            self.hand_lighting if placing else self.lighting), background=self.background, rng=rng)
        truth = []
        for lc in scene.cards:
            c = self.script.cards[visible[lc.placement_index]]
            truth.append({"card": lc.card, "box": [round(v, 1) for v in lc.box], "visible": round(lc.visible, 3),
                          "labelled": bool(lc.labelled()), "role": c.role, "seat": c.seat, "t_on": c.t_on})
        if len(self._cache) > 256:
            self._cache.clear()
        self._cache[key] = (scene.image, truth)
        return scene.image, truth

    def frame(self, t: float) -> tuple[np.ndarray, list[dict[str, Any]]]:
        image, truth = self.render_state(self.state_key(t))
        if self._noise:
            self._frames += 1
            noise = self._noise[self._frames % len(self._noise)]
            image = np.clip(image.astype(np.int16) + noise, 0, 255).astype(np.uint8)
        return image, truth

    def frame_times(self) -> list[float]:
        n = int(self.script.duration * self.opts.fps)
        return [i / self.opts.fps for i in range(n)]


def states_of(renderer: SessionRenderer) -> list[dict[str, Any]]:
    """Scene states over time with their ground-truth boxes."""
    out: list[dict[str, Any]] = []
    last = None
    for t in renderer.frame_times():
        key = renderer.state_key(t)
        if key != last:
            _, truth = renderer.render_state(key)
            out.append({"t": round(t, 3), "placing": key[1], "cards": truth})
            last = key
    return out


def speak_calls(script: SessionScript, path: Path) -> bool:
    """Mix the calls, spoken by espeak-ng, into one audio file at their times.
    Returns False (and writes nothing) when espeak-ng is not installed."""
    espeak = shutil.which("espeak-ng") or shutil.which("espeak")
    if espeak is None:
        return False
    import soundfile as sf

    rate = 16000
    total = np.zeros(int((script.duration + 2.0) * rate), np.float32)
    voice = {"pt": "pt-br", "es": "es-419", "ko": "ko"}.get(script.lang, script.lang)
    with tempfile.TemporaryDirectory() as tmp:
        for k, call in enumerate(script.calls):
            wav = Path(tmp) / f"{k}.wav"
            subprocess.run([espeak, "-v", voice, "-s", "150", "-w", str(wav), call.words], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            data, sr = sf.read(wav, dtype="float32")
            if data.ndim > 1:
                data = data.mean(axis=1)
            if sr != rate:
                idx = np.linspace(0, len(data) - 1, int(len(data) * rate / sr))
                data = np.interp(idx, np.arange(len(data)), data).astype(np.float32)
            start = int(call.t * rate)
            end = min(len(total), start + len(data))
            total[start:end] += data[: end - start]
    sf.write(str(path), np.clip(total, -1, 1), rate, subtype="PCM_16")
    return True


def render_session(out: str | Path, script: SessionScript, opts: RenderOptions, video: bool = True,
                   audio: bool = False, codec: str = "mp4v") -> dict[str, Any]:
    """Write a session folder (see the module docstring); returns its metadata.

    Each file is written under a name of this process's own and put in place whole
    (``os.replace``), the video first and ``session.json`` last: a render that was
    interrupted, or a second one of the same folder running at the same time (two
    evaluation workers), never leaves a half-written video that a later run, finding
    ``session.json``, would take for the session's (seen: "cannot read any frame")."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    renderer = SessionRenderer(script, opts)
    meta: dict[str, Any] = {
        "format": "companion-session/1",
        "variant": script.variant, "players": script.players, "lang": script.lang,
        "fps": opts.fps, "duration": script.duration, "hands": script.hands,
        "design": renderer.design.name, "family": renderer.design.family,
        "render": asdict(renderer.opts),
        "calibration": calibration_for(script, renderer.hom, renderer.opts),
        "score": script.score,
        "script": script.to_dict(),
    }
    if video:
        path = out / "video.mp4"
        part = _partial(path, ".mp4")  # OpenCV picks the container by the file's ending
        writer = cv2.VideoWriter(str(part), cv2.VideoWriter_fourcc(*codec), renderer.opts.fps,
                                 (renderer.opts.width, renderer.opts.height))
        try:
            if not writer.isOpened():
                raise RuntimeError(f"cannot write {path} with codec {codec!r}")
            for t in renderer.frame_times():
                image, _ = renderer.frame(t)
                writer.write(image)
            writer.release()
            os.replace(part, path)
        finally:
            writer.release()
            part.unlink(missing_ok=True)
        meta["video"] = path.name
    meta["states"] = states_of(renderer)
    if audio and speak_calls(script, out / "calls.flac"):
        meta["audio"] = "calls.flac"
    _write_whole(out / "truth.jsonl", "".join(json.dumps(e) + "\n" for e in script.log))
    _write_whole(out / "transcript.json", json.dumps(script.transcript(), indent=1) + "\n")
    _write_whole(out / "session.json", json.dumps(meta) + "\n")
    return meta


def _partial(path: Path, suffix: str = "") -> Path:
    """A name beside ``path`` that only this process writes (``suffix``: the ending a writer needs)."""
    return path.with_name(f".{path.stem}.{os.getpid()}.part{suffix}")


def _write_whole(path: Path, text: str) -> None:
    """``text`` into ``path``, which readers see either as it was or whole."""
    part = _partial(path)
    try:
        part.write_text(text, encoding="utf-8")
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="paulista")
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lang", choices=["pt", "es", "ko"], help="language of the calls (ko: test stand-in)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--tilt", type=float, default=0.0)
    parser.add_argument("--roll", type=float, default=0.0)
    parser.add_argument("--light", type=float, default=1.0)
    parser.add_argument("--design")
    parser.add_argument("--split", choices=["holdout", "train"], default="holdout")
    parser.add_argument("--audio", action="store_true", help="also speak the calls into calls.flac (espeak-ng)")
    parser.add_argument("--no-video", action="store_true")
    args = parser.parse_args(argv)
    script = make_script(args.variant, args.hands, args.players, args.seed, args.lang)
    opts = RenderOptions(args.width, args.height, args.fps, tilt=args.tilt, roll=args.roll, light=args.light,
                         design=args.design, split=args.split, seed=args.seed)
    meta = render_session(args.out, script, opts, video=not args.no_video, audio=args.audio)
    print(f"{args.out}: {meta['hands']} hands, {meta['duration']:.1f} s, design {meta['design']}, "
          f"score {meta['score']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Detection streams from a session's ground truth, with a detector's faults.

The renderer knows every card's box in every scene state.  A perfect
detector would report exactly that; a real one misses cards (now and then,
and in bursts while a hand is over the table), confuses a card with a
neighbour (another rank of the same suit, the same rank of a suit of the
same colour), reports confidences that wander, jitters its boxes and sees
the odd card that is not there.  :class:`NoiseModel` does all of that with
a seed, so the tracker and the engine can be measured on their own, apart
from the detector, and tests get realistic recorded streams.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from companion.table.observations import BACK, Detection, FrameDetections

FRENCH_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SPANISH_RANKS = tuple(str(n) for n in range(1, 13))


@dataclass
class NoiseModel:
    drop: float = 0.08  # chance a visible card is missed in a frame
    burst: float = 0.02  # chance a card starts a run of misses (flicker)
    burst_frames: tuple[int, int] = (2, 6)
    placing_drop: float = 0.4  # miss chance while a hand hovers over the table
    swap: float = 0.04  # chance of a confused label in a frame
    conf_mean: float = 0.86
    conf_sd: float = 0.07
    jitter: float = 2.0  # box jitter, pixels
    false_positive: float = 0.01  # chance per frame of a card that is not there
    seed: int = 0

    @classmethod
    def clean(cls) -> NoiseModel:
        return cls(0.0, 0.0, (0, 0), 0.0, 0.0, 0.95, 0.0, 0.0, 0.0)

    @classmethod
    def hard(cls) -> NoiseModel:
        """A poor detector: a card in five missed, long flickers, one label in
        ten confused, low and wandering confidence, a false card now and then."""
        return cls(drop=0.2, burst=0.05, burst_frames=(2, 8), placing_drop=0.6, swap=0.1, conf_mean=0.75,
                   conf_sd=0.12, jitter=4.0, false_positive=0.05)

    @classmethod
    def named(cls, name: str) -> NoiseModel:
        presets = {"clean": cls.clean, "default": cls, "hard": cls.hard}
        if name not in presets:
            raise ValueError(f"unknown noise level {name!r}; one of {', '.join(presets)}")
        return presets[name]()


def confusable(label: str, rng: random.Random, family: str = "french") -> str:
    """A label a detector could plausibly give instead of ``label``: the next
    rank of the same suit, or the same rank in the suit of the same colour."""
    if label == BACK:
        return label
    rank, suit = label[:-1], label[-1]
    ranks = SPANISH_RANKS if family == "spanish" else FRENCH_RANKS
    if rng.random() < 0.5 and rank in ranks:
        i = ranks.index(rank)
        j = max(0, min(len(ranks) - 1, i + rng.choice((-1, 1))))
        return ranks[j] + suit
    twins = ({"O": "C", "C": "O", "E": "B", "B": "E"} if family == "spanish"
             else {"C": "S", "S": "C", "H": "D", "D": "H"})
    return rank + twins.get(suit, suit)


def noisy_stream(states: Sequence[dict[str, Any]], times: Sequence[float], noise: NoiseModel,
                 image_size: tuple[int, int], family: str = "french") -> Iterator[FrameDetections]:
    """Frames of detections at ``times`` from scene ``states`` (as written by
    the renderer: ``{"t", "placing", "cards": [{"card", "box", "labelled"}]}``)."""
    rng = random.Random(noise.seed)
    burst_left: dict[tuple[str, float], int] = {}
    w, h = image_size
    si = 0
    for index, t in enumerate(times):
        while si + 1 < len(states) and states[si + 1]["t"] <= t + 1e-9:
            si += 1
        state = states[si]
        dets: list[Detection] = []
        for card in state["cards"]:
            if not card.get("labelled", True):
                continue
            key = (card["card"], float(card.get("t_on", 0.0)))
            if burst_left.get(key, 0) > 0:
                burst_left[key] -= 1
                continue
            if noise.burst and rng.random() < noise.burst:
                burst_left[key] = rng.randint(*noise.burst_frames)
                continue
            miss = noise.placing_drop if state.get("placing") else noise.drop
            if rng.random() < miss:
                continue
            label = card["card"]
            conf = min(0.99, max(0.05, rng.gauss(noise.conf_mean, noise.conf_sd)))
            if noise.swap and rng.random() < noise.swap:
                label = confusable(label, rng, family)
                conf *= 0.75
            box = tuple(v + rng.gauss(0, noise.jitter) if noise.jitter else v for v in card["box"])
            dets.append(Detection(label, conf, box))  # type: ignore[arg-type]
        if noise.false_positive and rng.random() < noise.false_positive:
            bw, bh = 0.09 * w, 0.15 * h
            x, y = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
            label = rng.choice(["AS", "7H", "4C", "3D", "1E", "7O", BACK])
            dets.append(Detection(label, rng.uniform(0.3, 0.6), (x, y, x + bw, y + bh)))
        yield FrameDetections(round(t, 4), tuple(dets), index, image_size)


class ReferenceDetector:
    """A perfect detector for a rendered session, for testing the video path
    without trained weights: each frame is matched to the scene state whose
    rendering it resembles most, and that state's ground-truth boxes are
    returned.  It answers what the renderer drew, nothing more."""

    def __init__(self, renderer: Any, states: Sequence[dict[str, Any]]) -> None:
        import cv2

        self._cv2 = cv2
        self.refs = []
        for state in states:
            key = renderer.state_key(float(state["t"]) + 1e-6)
            image, _ = renderer.render_state(key)
            self.refs.append((self._thumb(image), state["cards"]))

    def _thumb(self, image: Any) -> Any:
        grey = self._cv2.cvtColor(image, self._cv2.COLOR_BGR2GRAY)
        return self._cv2.resize(grey, (80, 60), interpolation=self._cv2.INTER_AREA).astype("float32")

    def detect(self, image: Any) -> list[Detection]:
        thumb = self._thumb(image)
        best = min(self.refs, key=lambda ref: float(abs(ref[0] - thumb).mean()))
        return [Detection(c["card"], 0.95, tuple(c["box"])) for c in best[1] if c.get("labelled", True)]


class TrueBoxesClassifier(ReferenceDetector):
    """The renderer's true boxes, named by the *real* card classifier
    (``models/card-classifier-<family>.onnx``) on the real video frame.

    Measures the tracker with the classifier's real confusions on unseen
    designs while the box detector's weights are not there yet; the boxes
    (where a card is, whether it is face down) are the renderer's.  The
    classifier is ``companion.vision.detector.CardDetector``'s own (same crops,
    both-ways-up reading, deck prior, runner-up readings)."""

    def __init__(self, renderer: Any, states: Sequence[dict[str, Any]], family: str,
                 models: Any = None, deck: Sequence[str] | None = None, off_deck_prior: float = 0.05) -> None:
        super().__init__(renderer, states)
        from companion.vision.detector import CardDetector
        from companion.vision.settings import TABLE_CORNER_SHIFTS

        # ModelError (missing or corrupt weights) propagates: the caller reports it.
        self.classifier = CardDetector(family, models_dir=models, deck=deck, off_deck_prior=off_deck_prior,
                                       corner_shifts=TABLE_CORNER_SHIFTS)

    def detect(self, image: Any) -> list[Detection]:
        import numpy as np

        truth = super().detect(image)
        faces = [d for d in truth if d.label != BACK]
        out = [d for d in truth if d.label == BACK]
        if not faces:
            return out
        boxes = np.array([d.box for d in faces], dtype=np.float64)
        for d in self.classifier.name_boxes(image, boxes, np.full(len(faces), 0.95), np.zeros(len(faces), int)):
            out.append(Detection(d.card, d.confidence, d.box, d.detector_confidence, d.alternatives))
        return out

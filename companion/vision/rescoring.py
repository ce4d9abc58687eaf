"""Rescoring a photo's detections: each confidence replaced by a fitted probability that the box is right.

Why a module of its own: a photo detection's confidence is the detector's score times the classifier's probability,
and the photo pipeline's wrong boxes (a covered card given its neighbour's name, a second box on one card, a loose
box round two) come at the same confidences as its right ones (session 113, rules 179-181).  What tells them apart is
spread over several things the pipeline already knows of a detection: how surely the next name was read, whether an
outline fits its box, whether another box holds it, whether a surer box carries the same name.  A small logistic
model weighs them (rule 182, session 114).  It re-ranks: no box is added, and none is dropped but those the detector
is told to drop under a probability (``CardDetector(rescored_min=...)``, rule 184); the table's frames, whose
confidences feed its confirm-when-unsure logic, are never rescored.

The features are generic (no card's or design's identity), so the model learns how the pipeline errs, not which
cards the validation designs hold.  :func:`fit` (numpy and scipy only) is what ``python -m
companion.training.rescorer`` calls; :class:`Rescorer` is what the detector loads (a JSON file of a few numbers).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from companion.vision.onnx_runtime import ModelError

if TYPE_CHECKING:
    from companion.vision.detector import Detection

# The features, in the order of a feature row; each is documented in :func:`detection_features`
FEATURES = ("log_detector", "log_name", "outline", "no_outline", "by_outline", "faint", "covered", "back",
            "next_name", "log_area", "max_iou", "overlapping", "surer_namesake", "held_in", "tilt")
FORMAT = "companion-rescorer/1"


def rescorer_file(family: str) -> str:
    """The rescorer a family's photo settings read from the models folder, where it is shipped."""
    return f"card-rescorer-{family}-photo.json"


def _overlaps(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """IoU of every pair of ``boxes`` (N x 4), and the share of each row's box inside the column's; the diagonal 0."""
    x1 = np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    y1 = np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    x2 = np.minimum(boxes[:, None, 2], boxes[None, :, 2])
    y2 = np.minimum(boxes[:, None, 3], boxes[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-9)
    iou = inter / np.maximum(area[:, None] + area[None, :] - inter, 1e-9)
    inside = inter / area[:, None]
    np.fill_diagonal(iou, 0.0)
    np.fill_diagonal(inside, 0.0)
    return iou, inside


def with_confidences(found: Sequence["Detection"], confidences: Sequence[float],
                     gains: Sequence[float]) -> list["Detection"]:
    """``found`` with new ``confidences``, each one's alternatives scaled by its ``gains`` (at most 1), best first:
    the boxes, names and the models' own figures unchanged.  What both re-rankings of a photo's detections do
    (:meth:`Rescorer.rescored`, ``CardDetector.reranked``)."""
    out = [replace(d, confidence=float(c), alternatives=tuple((name, min(1.0, a * g)) for name, a in d.alternatives))
           for d, c, g in zip(found, confidences, gains)]
    out.sort(key=lambda d: -d.confidence)
    return out


def detection_features(found: Sequence["Detection"], covered: Sequence[bool], faint: Sequence[bool]) -> np.ndarray:
    """One row of :data:`FEATURES` per detection of one image (``covered``, ``faint``: the detector's own flags).

    - log_detector, log_name: the detector's score and the classifier's probability, as logs (floored at 1e-4);
    - outline, no_outline: the outline model's score of the surest outline fitting the box, and whether none fits
      (or the model was not read);
    - by_outline: the box came from an outline no detector box covered; faint: the detector scored it under its
      threshold; covered: another box covers part of it; back: it is named a back;
    - next_name: the next name's probability over this one's (a close second is a name in doubt);
    - log_area: its box's area over the median of the image's boxes (a box round two is large, a strip small);
    - max_iou, overlapping: its highest IoU with another box, how many others overlap it by IoU over 0.1;
    - surer_namesake: a surer box in the image has the same name (one deck holds each card once);
    - held_in: the largest share of its box inside another box (a second box inside a card's);
    - tilt: |log| of its box's width over height (a box round a fan or a row is far from a card's shape).
    """
    n = len(found)
    if n == 0:
        return np.zeros((0, len(FEATURES)))
    boxes = np.array([d.box for d in found], dtype=np.float64).reshape(-1, 4)
    width = np.maximum(boxes[:, 2] - boxes[:, 0], 1.0)
    height = np.maximum(boxes[:, 3] - boxes[:, 1], 1.0)
    area = width * height
    iou, inside = _overlaps(boxes)
    median = float(np.median(area))
    rows = []
    for i, d in enumerate(found):
        next_p = d.alternatives[0][1] / max(d.confidence, 1e-6) if d.alternatives else 0.0
        namesake = any(j != i and e.card == d.card and e.confidence > d.confidence for j, e in enumerate(found))
        outline = d.outline or 0.0
        rows.append([math.log(max(d.detector_confidence, 1e-4)), math.log(max(d.rank_confidence, 1e-4)),
                     outline, float(not outline), float(d.found_by != "detector"), float(faint[i]),
                     float(covered[i]), float(d.card == "back"), min(next_p, 1.0), math.log(area[i] / median),
                     float(iou[i].max()) if n > 1 else 0.0, float((iou[i] > 0.1).sum()), float(namesake),
                     float(inside[i].max()) if n > 1 else 0.0, abs(math.log(width[i] / height[i]))])
    return np.array(rows, dtype=np.float64)


@dataclass(frozen=True)
class Rescorer:
    """A fitted logistic model over :data:`FEATURES`: ``mean`` and ``scale`` standardise a row, ``weights`` and
    ``bias`` give its log-odds of being right.  ``meta``: how it was fitted (data, counts, command)."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    meta: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        k = len(FEATURES)
        if not len(self.mean) == len(self.scale) == len(self.weights) == k:
            raise ValueError(f"a rescorer needs {k} means, scales and weights (one per feature of {FEATURES})")
        if not all(math.isfinite(v) for v in (*self.mean, *self.scale, *self.weights, self.bias)):
            raise ValueError("a rescorer's numbers must be finite")
        if min(self.scale) <= 0:
            raise ValueError("a rescorer's scales must be positive")

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """The probability that each feature row's detection is right."""
        z = (np.asarray(rows, dtype=np.float64) - np.array(self.mean)) / np.array(self.scale)
        return 1.0 / (1.0 + np.exp(-(z @ np.array(self.weights) + self.bias)))

    def rescored(self, found: Sequence["Detection"], covered: Sequence[bool],
                 faint: Sequence[bool]) -> list["Detection"]:
        """``found`` with each confidence replaced by its probability (its alternatives' scaled alike, at most 1),
        best first: the boxes and names are unchanged."""
        if not found:
            return []
        p = self.probabilities(detection_features(found, covered, faint))
        return with_confidences(found, p, [float(q) / max(d.confidence, 1e-6) for d, q in zip(found, p)])

    def to_dict(self) -> dict:
        return {"format": FORMAT, "features": list(FEATURES), "mean": list(self.mean), "scale": list(self.scale),
                "weights": list(self.weights), "bias": self.bias, "meta": self.meta}

    def save(self, path: Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> "Rescorer":
        """The rescorer in ``path``; :class:`ModelError` naming the file where it is missing, not JSON, of another
        format or fitted on other features."""
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise ModelError(f"rescorer file not found: {path}") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelError(f"rescorer file {path} is not readable JSON: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ModelError(f"{path} is not a rescorer ({FORMAT})")
        if data.get("features") != list(FEATURES):
            raise ModelError(f"{path} was fitted on other features ({data.get('features')}); fit it again with "
                             "`python -m companion.training.rescorer`")
        try:
            return cls(tuple(map(float, data["mean"])), tuple(map(float, data["scale"])),
                       tuple(map(float, data["weights"])), float(data["bias"]), dict(data.get("meta") or {}))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{path} is not a valid rescorer: {exc}") from None


def fit(rows: np.ndarray, right: np.ndarray, c: float = 1.0, meta: dict | None = None) -> Rescorer:
    """An L2-regularised logistic model (inverse strength ``c``) of ``right`` (0 or 1 per row) from feature rows,
    standardised first so that one ``c`` weighs every feature alike."""
    from scipy.optimize import minimize

    rows = np.asarray(rows, dtype=np.float64)
    y = np.asarray(right, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[1] != len(FEATURES) or len(rows) != len(y):
        raise ValueError(f"expected N x {len(FEATURES)} rows and N labels, got {rows.shape} and {y.shape}")
    if len(set(y.tolist())) < 2:
        raise ValueError("a rescorer needs right and wrong detections to learn from")
    mean = rows.mean(axis=0)
    scale = rows.std(axis=0)
    scale[scale < 1e-9] = 1.0  # a feature that never varies weighs nothing
    z = np.c_[(rows - mean) / scale, np.ones(len(rows))]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        t = z @ w
        p = 1.0 / (1.0 + np.exp(-t))
        value = float(np.sum(np.logaddexp(0.0, t) - y * t) + 0.5 / c * np.sum(w[:-1] ** 2))
        return value, z.T @ (p - y) + np.r_[w[:-1] / c, 0.0]

    w = minimize(loss, np.zeros(z.shape[1]), jac=True, method="L-BFGS-B").x
    return Rescorer(tuple(mean), tuple(scale), tuple(w[:-1]), float(w[-1]), dict(meta or {}))

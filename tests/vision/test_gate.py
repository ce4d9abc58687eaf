"""Rule 196: the photo gate (a two-class classifier of the whole-card crop: card or other) and faint backs kept."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.vision.detector import CardDetector, Detection, gate_file
from companion.vision.onnx_runtime import ModelError
from companion.vision.settings import FAINT_CLASS, photo_settings


def _models(tmp_path: Path) -> Path:
    """A models folder holding the shipped ONNX files but no gate (links, so nothing is copied)."""
    from companion.paths import models_dir

    for f in models_dir().glob("*.onnx"):
        if f.name != gate_file("french"):
            (tmp_path / f.name).symlink_to(f)
    return tmp_path


class _BrightIsOther:
    """A stand-in gate session: a crop's p(other) is 0.9 times its mean brightness (0-1): a white box is not a card."""

    def __init__(self) -> None:
        self.seen = 0

    def run(self, _outputs, feeds: dict) -> list[np.ndarray]:
        blob = next(iter(feeds.values()))
        self.seen += len(blob)
        other = 0.9 * blob.mean(axis=(1, 2, 3))
        return [np.stack([1.0 - other, other], axis=1)]


def test_gated_drops_only_what_the_gate_reads_as_not_a_card(tmp_path: Path) -> None:
    """Each detection's whole-card crop is read once; those read ``other`` at ``gate_max`` or more go, the rest stay
    in order with their boxes and names."""
    detector = CardDetector("french", models_dir=_models(tmp_path))
    image = np.zeros((200, 300, 3), np.uint8)
    image[:, 150:] = 255  # the right half white: "other" to the stand-in
    detector.gate, detector.gate_input, detector.gate_batch, detector.gate_max = _BrightIsOther(), "x", None, 0.5
    found = [Detection("QH", 0.9, (10, 10, 80, 120)), Detection("back", 0.8, (170, 10, 240, 120)),
             Detection("2C", 0.3, (20, 100, 100, 190)), Detection("AS", 0.2, (-50, -50, -10, -10))]
    kept = detector.gated(image, found)
    assert kept == [found[0], found[2], found[3]]  # a box no crop can be cut from is not the gate's to drop
    assert detector.gate.seen == 3
    assert detector.gated(image, []) == []
    detector.gate_max = 1.0
    assert detector.gated(image, found) == found


def test_the_gate_is_read_only_where_asked_and_shipped(tmp_path: Path) -> None:
    """No gate asked: none read, no warning.  Asked without its file: the reading goes on ungated and says so.  A file
    naming other classes than card and other is a clear error; a bad ``gate_max`` too."""
    import shutil

    models = _models(tmp_path)
    assert CardDetector("french", models_dir=models).gate is None
    asked = CardDetector("french", models_dir=models, gate_max=0.5)
    assert asked.gate is None and "no gate read" in asked.missing_models_warning()
    shutil.copy(models / "card-classifier-french.onnx", models / gate_file("french"))
    with pytest.raises(ModelError, match="not card and other"):
        CardDetector("french", models_dir=models, gate_max=0.5)
    for bad in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="gate_max"):
            CardDetector("french", models_dir=models, gate_max=bad)


def test_faint_backs_keep_faint_boxes_named_back_only_from_their_floor(tmp_path: Path) -> None:
    """Without ``faint_backs`` a faint box named back is dropped; with it, kept as a back where the classifier names
    it so at the floor or more.  A bad floor is a clear error."""
    models = _models(tmp_path)
    detector = CardDetector("french", models_dir=models, faint_conf=0.01)
    image = np.zeros((240, 320, 3), np.uint8)
    boxes = np.array([[10.0, 10.0, 90.0, 130.0], [150.0, 10.0, 230.0, 130.0]])
    scores = np.array([0.05, 0.05])
    classes = np.array([FAINT_CLASS, FAINT_CLASS])  # boxes scored under the detector's threshold
    # named back at 0.9 and at 0.7 (both past the classifier's overrule of the detector's face call, 0.6)
    detector.readings = lambda image, b, k, overlapped, sure: [[("back", 0.9), ("QH", 0.05)],
                                                                [("back", 0.7), ("2C", 0.1)]]
    assert [d.card for d in detector.name_boxes(image, boxes, scores, classes)] == []
    detector.faint_backs = 0.8
    named = detector.name_boxes(image, boxes, scores, classes)
    assert [(d.card, d.box) for d in named] == [("back", tuple(boxes[0]))]
    with pytest.raises(ValueError, match="faint_backs"):
        CardDetector("french", models_dir=models, faint_backs=0.0)


def test_photo_settings_pass_the_gate_and_faint_backs_on() -> None:
    """Off unless a family's settings or the caller ask; one view (the table's frames) reads no gate; 0 turns off."""
    assert photo_settings(family="spanish")["gate_max"] is None
    assert photo_settings(family="spanish")["faint_backs"] is None
    assert photo_settings(family="french", gate_max=0.7)["gate_max"] == 0.7
    assert photo_settings(family="french", gate_max=0)["gate_max"] is None
    assert photo_settings(family="french", faint_backs=0.6)["faint_backs"] == 0.6
    assert photo_settings(family="french", scales=[1.0])["gate_max"] is None


def test_gate_crops_are_sorted_by_their_overlap_with_the_drawn_cards() -> None:
    """A box on a card is ``card``; one on none (under IoU 0.1, at most 30 % on cards) ``other``; one between, or
    mostly on cards without matching one (a card's pip, two cards taken for one), left out."""
    from companion.training.gate import CARD, OTHER, kind_of, share_on_cards

    cards = np.array([[0.0, 0.0, 100.0, 140.0], [300.0, 0.0, 400.0, 140.0]])
    assert kind_of(np.array([5.0, 5.0, 100.0, 140.0]), cards) == CARD
    assert kind_of(np.array([150.0, 0.0, 250.0, 140.0]), cards) == OTHER
    assert kind_of(np.array([150.0, 0.0, 250.0, 140.0]), np.zeros((0, 4))) == OTHER
    assert kind_of(np.array([20.0, 20.0, 60.0, 60.0]), cards) is None  # inside a card: a pip or an index
    assert kind_of(np.array([50.0, 0.0, 150.0, 140.0]), cards) is None  # half on a card
    assert share_on_cards(np.array([50.0, 0.0, 150.0, 140.0]), cards) == pytest.approx(0.5)
    # two overlapping cards count once
    assert share_on_cards(np.array([0.0, 0.0, 100.0, 100.0]), np.array([[0.0, 0.0, 100.0, 100.0]] * 2)) == 1.0

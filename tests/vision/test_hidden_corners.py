"""A corner model with a "hidden" class (a window whose own index lies under another card): how its readings
are used, and which models the detector takes for one."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision import detector as detector_module
from companion.vision.detector import (HIDDEN, CardDetector, ModelError, classifier_file, corner_file, corners_for_faces,
                                       overlapped_boxes, without_hidden)
from companion.vision.settings import HIDDEN_MODE, photo_settings

# classes of the small examples: 7H, AH, back (index 2), then hidden (index 3) where a model has it


def test_without_hidden_drops_the_last_class_and_says_how_far_each_window_is_seen():
    p = np.array([[0.3, 0.1, 0.1, 0.5], [0.6, 0.2, 0.2, 0.0]])
    rest, seen = without_hidden(p, 3)
    np.testing.assert_allclose(rest, [[0.6, 0.2, 0.2], [0.6, 0.2, 0.2]])
    np.testing.assert_allclose(seen, [0.5, 1.0])
    weak, _ = without_hidden(p, 3, renormalise=False)
    np.testing.assert_allclose(weak, [[0.3, 0.1, 0.1], [0.6, 0.2, 0.2]])
    same, ones = without_hidden(p[:, :3], None)
    assert same is not None and np.array_equal(same, p[:, :3]) and np.array_equal(ones, [1.0, 1.0])


def test_a_window_seen_in_full_is_read_as_before():
    index = np.array([[0.6, 0.3, 0.1], [0.1, 0.1, 0.8]])
    bare = np.array([[0.0, 0.05, 0.95], [0.05, 0.05, 0.9]])
    ones = (np.ones(2), np.ones(2))
    np.testing.assert_allclose(corners_for_faces(index, bare, 2, ones), corners_for_faces(index, bare, 2))
    # a model without a back class: the two corners averaged, each as far as it is seen
    assert np.array_equal(corners_for_faces(index, bare, None), (index + bare) / 2.0)
    half = (np.array([1.0, 1.0]), np.array([0.25, 0.25]))
    np.testing.assert_allclose(corners_for_faces(index, bare, None, half), (index + 0.25 * bare) / 1.25)


def test_a_hidden_window_neither_names_the_card_nor_says_whether_it_is_a_back():
    # the top-left window shows the card above's index (AH), read surely; the model also reads it as hidden
    above = np.array([[0.02, 0.96, 0.02], [0.02, 0.96, 0.02]])
    own = np.array([[0.7, 0.2, 0.1], [0.02, 0.03, 0.95]])  # a 7H's other index; a back's other corner
    seen = (np.array([0.05, 0.05]), np.array([1.0, 1.0]))
    plain = corners_for_faces(above, own, 2)
    weighed = corners_for_faces(above, own, 2, seen)
    assert plain[0].argmax() == 1  # without the class the neighbour's name wins ...
    assert weighed[0].argmax() == 0 and weighed[0, 0] > 0.6  # ... with it the card's own corner names it
    assert plain[1, 2] < 0.05 and weighed[1, 2] > 0.9  # a back half under a face is still a back
    assert np.allclose(weighed.sum(axis=1), 1.0)
    # both windows hidden: neither counts more than the other, and the sum is still one
    both = corners_for_faces(above, own, 2, (np.array([0.0, 0.0]), np.array([0.0, 0.0])))
    assert np.all(np.isfinite(both)) and np.allclose(both.sum(axis=1), 1.0)


class _FixedCorners:
    """Stands in for an ONNX corner session: every view read as ``row`` (the card classes then hidden)."""

    def __init__(self, row: np.ndarray) -> None:
        self.row = row

    def run(self, _outputs, feeds):
        (blob,) = feeds.values()
        return [np.tile(self.row, (len(blob), 1)).astype(np.float32)]


def _with_hidden_names(monkeypatch, photo_path) -> None:
    """The photo corner model read as naming the classifier's classes and then ``hidden``."""
    names = detector_module._names

    def named(session):
        found = names(session)
        if str(photo_path) == str(getattr(session, "_model_path", "")):
            return {**found, len(found): HIDDEN} if HIDDEN not in found.values() else found
        return found

    monkeypatch.setattr(detector_module, "_names", named)


def test_the_detector_takes_a_corner_model_with_the_hidden_class_last_and_no_other(corner_models, monkeypatch):
    photo = corner_models / corner_file("french", photo=True)
    _with_hidden_names(monkeypatch, photo)
    det = CardDetector("french", models_dir=corner_models, **photo_settings())
    n = len(det.cls_names)
    assert det.corner_hidden == n and det.hidden_mode == HIDDEN_MODE == "overlap"
    assert CardDetector("french", models_dir=corner_models).corner_hidden is None  # the table's own model
    with pytest.raises(ValueError, match="hidden must be one of"):
        CardDetector("french", models_dir=corner_models, hidden="ignore")
    # a model naming "hidden" somewhere else is another model
    names = detector_module._names
    monkeypatch.setattr(detector_module, "_names", lambda s: {**names(s), 0: HIDDEN}
                        if str(photo) == str(getattr(s, "_model_path", "")) else names(s))
    with pytest.raises(ModelError, match="names other classes"):
        CardDetector("french", models_dir=corner_models, **photo_settings())
    assert (corner_models / classifier_file("french")).is_file()


def test_a_window_read_as_hidden_counts_for_less_in_the_readings(corner_models, monkeypatch):
    photo = corner_models / corner_file("french", photo=True)
    _with_hidden_names(monkeypatch, photo)
    weigh = CardDetector("french", models_dir=corner_models, hidden="weigh", **photo_settings())
    drop = CardDetector("french", models_dir=corner_models, hidden="drop", **photo_settings())
    n = len(weigh.cls_names)
    seven = next(i for i, name in weigh.cls_names.items() if name == "7H")
    row = np.zeros(n + 1)
    row[seven], row[n] = 0.2, 0.8  # mostly "hidden", a little 7H
    for det in (weigh, drop):
        det.corners = _FixedCorners(row)
        det.corner_batch = None
    crops = np.zeros((2, 96, 96, 3), np.uint8)
    # both corners alike: the hidden share is dropped either way, and the card reads 7H
    for det in (weigh, drop):
        read = det.corner_readings(crops)
        assert read.shape == (2, n) and np.allclose(read.sum(axis=1), 1.0) and read[0].argmax() == seven
    # one window at a time (a strip beside a card): "weigh" leaves it weak, "drop" makes it sure
    box = [(0.0, 0.0, 60.0, 90.0)]
    image = np.zeros((100, 100, 3), np.uint8)
    assert weigh.index_readings(image, box, 0)[0].max() == pytest.approx(0.2, abs=1e-6)
    assert drop.index_readings(image, box, 0)[0].max() == pytest.approx(1.0, abs=1e-6)


def test_a_checkpoint_gets_one_class_more_and_reads_as_before(tmp_path):
    """``python -m companion.training.train add-class``: the old classes' rows kept, the new one last, unlikely
    at first; a class it already has is refused.  (Training needs torch: skipped where the companion is
    installed to play.)"""
    torch = pytest.importorskip("torch", reason="training needs torch (pip install .[train])")
    pytest.importorskip("ultralytics", reason="training needs ultralytics (pip install .[train])")
    from ultralytics.nn.tasks import ClassificationModel

    from companion.training.train import add_class

    model = ClassificationModel("yolo26n-cls.yaml", nc=3, verbose=False)
    model.names = {0: "7H", 1: "AH", 2: "back"}
    src, dst = tmp_path / "three.pt", tmp_path / "four.pt"
    torch.save({"model": model, "optimizer": {"state": 1}, "epoch": 7}, str(src))
    add_class(src, dst, "hidden", tmp_path / "runs")
    grown = torch.load(str(dst), map_location="cpu", weights_only=False)
    new = grown["model"]
    assert new.names == {0: "7H", 1: "AH", 2: "back", 3: "hidden"} and grown["optimizer"] is None
    old_linear, new_linear = model.model[-1].linear, new.model[-1].linear
    assert new_linear.out_features == 4
    assert torch.equal(new_linear.weight[:3], old_linear.weight) and torch.equal(new_linear.bias[:3], old_linear.bias)
    new.eval()
    model.eval()
    x = torch.rand(2, 3, 64, 64)
    with torch.no_grad():
        before, after = model(x), new(x)
    before = before[0] if isinstance(before, tuple) else before
    after = after[0] if isinstance(after, tuple) else after
    assert after.shape == (2, 4) and float(after[:, 3].max()) < 0.2
    assert torch.allclose(after[:, :3] / after[:, :3].sum(1, keepdim=True), before, atol=1e-5)
    with pytest.raises(ValueError, match="already has a class"):
        add_class(dst, tmp_path / "five.pt", "hidden", tmp_path / "runs")


def test_a_box_is_overlapped_when_another_covers_enough_of_it():
    boxes = np.array([[0, 0, 100, 100], [70, 0, 170, 100], [300, 0, 400, 100], [397, 0, 497, 100]], float)
    # 0 and 1 share 30 % of each; 2 and 3 touch along a 3 % strip; nothing else meets
    assert overlapped_boxes(boxes, np.arange(4)).tolist() == [True, True, False, False]
    assert overlapped_boxes(boxes, np.arange(4), share=0.02).tolist() == [True, True, True, True]
    assert overlapped_boxes(boxes, np.array([2, 0])).tolist() == [False, True]  # only the boxes asked about
    assert overlapped_boxes(boxes[:1], np.arange(1)).tolist() == [False]


class _CornersByPlace:
    """Stands in for an ONNX corner session over ``n`` crops: every top-left window read as ``first``, every
    bottom-right one as ``second`` (the views come as the top-left windows of all crops, then the bottom-right
    ones, once per shift)."""

    def __init__(self, n: int, first: np.ndarray, second: np.ndarray) -> None:
        self.n, self.first, self.second = n, first, second

    def run(self, _outputs, feeds):
        (blob,) = feeds.values()
        rows = [self.first if (v % (2 * self.n)) < self.n else self.second for v in range(len(blob))]
        return [np.stack(rows).astype(np.float32)]


def test_overlap_weighs_the_hidden_windows_of_overlapped_cards_alone(corner_models, monkeypatch):
    photo = corner_models / corner_file("french", photo=True)
    _with_hidden_names(monkeypatch, photo)
    dets = {mode: CardDetector("french", models_dir=corner_models, hidden=mode, **photo_settings())
            for mode in ("drop", "weigh", "overlap")}
    n = len(dets["drop"].cls_names)
    seven = next(i for i, name in dets["drop"].cls_names.items() if name == "7H")
    ace = next(i for i, name in dets["drop"].cls_names.items() if name == "AH")
    # the top-left window shows the card above's index (AH) and is read as mostly hidden; the bottom-right
    # window shows the card's own index (7H)
    first, second = np.zeros(n + 1), np.zeros(n + 1)
    first[ace], first[n] = 0.2, 0.8
    second[seven] = 1.0
    for det in dets.values():
        det.corners = _CornersByPlace(2, first, second)
        det.corner_batch = None
    crops = np.zeros((2, 96, 96, 3), np.uint8)
    drop = dets["drop"].corner_readings(crops)
    weigh = dets["weigh"].corner_readings(crops)
    assert drop[0, ace] == pytest.approx(drop[0, seven], abs=1e-6)  # "drop": both windows count alike
    assert weigh[0, seven] > 0.7 > weigh[0, ace]  # "weigh": the hidden window counts for less
    # "overlap": the overlapped card (0) read as "weigh" reads it, the lone one (1) as "drop" does
    mixed = dets["overlap"].corner_readings(crops, overlapped=np.array([True, False]))
    assert np.allclose(mixed[0], weigh[0]) and np.allclose(mixed[1], drop[1])
    # without overlap flags (the table's calls) "overlap" reads as "drop"
    assert np.allclose(dets["overlap"].corner_readings(crops), drop)
    with pytest.raises(ValueError, match="overlap_min"):
        CardDetector("french", models_dir=corner_models, hidden="overlap", overlap_min=0.0)


def test_naming_boxes_says_which_cards_another_box_overlaps(corner_models, monkeypatch):
    det = CardDetector("french", models_dir=corner_models, **photo_settings())
    seen = []

    def record(crops, corner_crops=None, upright=None, overlapped=None):
        seen.append(None if overlapped is None else overlapped.tolist())
        out = np.zeros((len(crops), len(det.cls_names)))
        out[:, next(i for i, name in det.cls_names.items() if name == "7H")] = 1.0
        return out

    monkeypatch.setattr(det, "classify_crops", record)
    image = np.full((300, 600, 3), 90, np.uint8)
    boxes = np.array([[10, 10, 110, 150], [60, 10, 160, 150], [400, 10, 500, 150]], float)
    found = det.name_boxes(image, boxes, np.array([0.9, 0.8, 0.7]), np.zeros(3, int))
    assert len(found) == 3 and seen == [[True, True, False]]

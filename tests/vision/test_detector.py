"""The shipped weights load, name the cards of held-back designs, and fail clearly."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.paths import models_dir
from companion.vision.crops import box_iou
from companion.vision.detector import CardDetector, Detection, ImageError, ModelError, read_image
from companion.vision.settings import photo_settings

FIXTURES = Path(__file__).resolve().parents[2] / "datasets" / "fixtures"


def _iou(a, b) -> float:
    x1, y1, x2, y2 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


@pytest.fixture(scope="module")
def french() -> CardDetector:
    return CardDetector("french")


def _given_boxes(det: CardDetector, boxes: dict, calls: list | None = None):
    """A stand-in for ``det._boxes_at``: the boxes of ``boxes`` (box -> score, or box -> (score, ...)) scored at least
    the threshold asked (``det.conf`` when none is), alike in every view, class 0; each threshold asked is appended to
    ``calls``."""

    def boxes_at(img, factor, conf=None, session=None, size=None):
        if calls is not None:
            calls.append(conf)
        scored = [(b, v[0] if isinstance(v, tuple) else v) for b, v in boxes.items()]
        kept = [(b, s) for b, s in scored if s >= (det.conf if conf is None else conf)]
        return (np.array([b for b, _ in kept], dtype=np.float64).reshape(-1, 4), np.array([s for _, s in kept]),
                np.zeros(len(kept), dtype=int))

    return boxes_at


def test_shipped_weights_are_present_and_small():
    for name in ("card-detector.onnx", "card-classifier-french.onnx", "card-classifier-french-photo.onnx"):
        path = models_dir() / name
        assert path.is_file(), f"{path} missing"
        assert path.stat().st_size < 20_000_000


def _fixture_scores(detector: CardDetector) -> tuple[int, int, int, int]:
    """(cards, boxed, named right, false detections) of ``detector`` over the committed fixture images."""
    records = json.loads((FIXTURES / "fixtures.json").read_text())
    assert records
    boxed = named = total = false = 0
    for rec in records:
        dets = detector.detect(read_image(FIXTURES / rec["image"]))
        assert all(isinstance(d, Detection) for d in dets)
        for truth in rec["cards"]:
            total += 1
            hits = [d for d in dets if _iou(d.box, truth["box"]) >= 0.5]
            boxed += bool(hits)
            named += any(d.card == truth["card"] for d in hits)
        false += sum(not any(_iou(d.box, t["box"]) >= 0.5 for t in rec["cards"]) for d in dets)
    return total, boxed, named, false


def test_fixtures_cards_are_found(french):
    total, boxed, named, false = _fixture_scores(french)
    # Regression floors of the shipped weights on held-back designs (models/README.md):
    # v5 and v6 (with the index-corner classifier) box and name all 12 fixture cards with no false
    # detection; v3 and v4 named 10 (second: 12 / 9 / 0, first: 5 boxed, 1 named).
    # Raise these as the models improve.  A broken pre- or post-processing (wrong channel
    # order, letterbox, crop turn or box mapping) gives far less.
    assert total == 12
    assert boxed >= 11, f"boxed {boxed} of {total}"
    assert named >= 11, f"named {named} of {total}"
    assert false <= 1


def test_photo_settings_name_every_fixture_card():
    """``companion detect``'s settings (its own corner model and, since session 47, its own whole-card
    classifier) name all 12 fixture cards of the held-back designs as their likeliest reading; with the table's
    classifier the oxygen-white jack of clubs, a third under the nine, is not named (11 of 12).

    That jack is the least sure of the twelve: v7 (session 47) named it at p 0.26, v9 (session 49) at p 0.15,
    under the photos' face floor (``PHOTO_FACE_MIN_PROB`` 0.2, chosen on the real photos to drop faint false
    faces), so with the floor ``companion detect`` reported 11 of the 12 in session 49; with the index bands
    (session 50: its rank is printed top right, which the bands read) at p 0.25, and all 12 are reported."""
    photo = CardDetector("french", **photo_settings(face_min_prob=0.0))
    assert photo.cls_path.name == "card-classifier-french-photo.onnx"
    total, _, named, false = _fixture_scores(photo)
    assert total == 12
    assert named == 12, f"named {named} of 12"
    assert false <= 1
    floored = CardDetector("french", **photo_settings())
    total, _, named, false = _fixture_scores(floored)
    assert named == 12, f"named {named} of 12 with the face floor"
    assert false <= 1


def test_detect_rejects_non_images(french):
    with pytest.raises(ImageError):
        french.detect(np.zeros((10, 10), np.uint8))


def test_missing_and_corrupt_weights_raise_model_error(tmp_path):
    with pytest.raises(ModelError, match="not found"):
        CardDetector("french", models_dir=tmp_path)
    (tmp_path / "card-detector.onnx").write_bytes(b"not an onnx model")
    with pytest.raises(ModelError, match="cannot load"):
        CardDetector("french", models_dir=tmp_path)


def test_cli_json_output(capsys):
    images = sorted(FIXTURES.glob("*.jpg"))[:2]
    assert main(["detect", "--json", *map(str, images)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    for line, path in zip(lines, images):
        obj = json.loads(line)
        assert set(obj) == {"image", "width", "height", "detections"}
        assert obj["image"] == str(path) and (obj["width"], obj["height"]) == (640, 360)
        for d in obj["detections"]:
            assert set(d) == {"card", "confidence", "box"}
            assert 0 <= d["confidence"] <= 1 and len(d["box"]) == 4
            assert d["card"] == "back" or d["card"][-1] in "CHSD"


def test_cli_save_writes_annotated_images(tmp_path, capsys):
    image = sorted(FIXTURES.glob("*.jpg"))[0]
    assert main(["detect", str(image), "--save", str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("*.jpg"))) == 1


def test_cli_keeps_outlined_faces_and_checks_sizes_unless_told_not_to(monkeypatch, capsys):
    """`companion detect` reads the family's outline check and size check (PHOTO_FAMILY's ``outlined_min_prob``
    and ``size_check``) by default; ``--no-outlined`` leaves --min-prob alone to decide, ``--no-size-check`` keeps
    faces of any size."""
    import companion.vision.detector as vd

    asked = []

    class Recorder(vd.CardDetector):
        def __init__(self, family, **kwargs):
            asked.append((kwargs.get("outlined_min_prob"), kwargs.get("size_check")))
            super().__init__(family, **kwargs)

    monkeypatch.setattr(vd, "CardDetector", Recorder)
    import companion.vision.settings as vs

    monkeypatch.setitem(vs.PHOTO_FAMILY, "french", {**vs.PHOTO_FAMILY["french"], "size_check": 0.5})
    image = str(sorted(FIXTURES.glob("*.jpg"))[0])
    assert main(["detect", image]) == 0 and main(["detect", image, "--no-outlined"]) == 0
    assert main(["detect", image, "--no-size-check"]) == 0
    outlined = vs.PHOTO_FAMILY["french"]["outlined_min_prob"]
    assert asked == [(outlined, 0.5), (None, 0.5), (outlined, None)]


def test_cli_draws_boxes_in_where_the_family_asks_unless_told_not_to(monkeypatch):
    """`companion detect` reads a family's box calibration (PHOTO_FAMILY's ``box_shrink`` and ``covered_box_shrink``:
    session 95; no family asks for one since D5, so one is given here); ``--no-box-calibration`` reports the boxes as
    the detector drew them; a family without one has none."""
    import companion.vision.detector as vd
    import companion.vision.settings as vs

    monkeypatch.setitem(vs.PHOTO_FAMILY, "spanish",
                        {**vs.PHOTO_FAMILY["spanish"], "box_shrink": 0.95, "covered_box_shrink": 0.97})

    asked = []

    class Recorder(vd.CardDetector):
        def __init__(self, family, **kwargs):
            super().__init__(family, **kwargs)
            asked.append((family, self.box_shrink, self.covered_box_shrink))

    monkeypatch.setattr(vd, "CardDetector", Recorder)
    image = str(sorted(FIXTURES.glob("*.jpg"))[0])
    assert main(["detect", image, "--family", "spanish"]) == 0
    assert main(["detect", image, "--family", "spanish", "--no-box-calibration"]) == 0
    assert main(["detect", image]) == 0
    assert asked[0] == ("spanish", 0.95, 0.97)
    assert asked[1][1] is None and asked[2] == ("french", None, None)


def test_cli_missing_or_corrupt_image(tmp_path, capsys):
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"\xff\xd8 this is not a jpeg")
    assert main(["detect", "--json", str(tmp_path / "missing.jpg"), str(bad)]) == 1
    err = capsys.readouterr().err
    assert "image not found" in err and "cannot decode image" in err
    assert "Traceback" not in err


def test_cli_missing_weights(tmp_path, capsys):
    image = sorted(FIXTURES.glob("*.jpg"))[0]
    assert main(["detect", str(image), "--models", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "model file not found" in err and "Traceback" not in err


def test_tta_averages_the_card_read_both_ways_up(french):
    from companion.vision.crops import crop_card

    rec = json.loads((FIXTURES / "fixtures.json").read_text())[0]
    image = read_image(FIXTURES / rec["image"])
    crops = np.stack([crop_card(image, tuple(t["box"]), french.crop) for t in rec["cards"]])
    # the whole-card classifier alone (the index corners are mixed in after: tests/vision/test_corners.py)
    plain = CardDetector("french", tta=False, corners=False)
    both = CardDetector("french", corners=False).classify_crops(crops)
    want = (plain.classify_crops(crops) + plain.classify_crops(crops[:, ::-1, ::-1])) / 2
    assert both.shape == (len(crops), len(french.cls_names))
    np.testing.assert_allclose(both, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(both.sum(axis=1), 1.0, atol=1e-3)


def test_deck_prior_weighs_readings_outside_the_variant_deck(french):
    """The table tells the classifier its deck: a card outside it must be read
    1/off_deck_prior times surer to be named; the deck's own cards keep their order."""
    from companion.vision.crops import crop_card

    rec = json.loads((FIXTURES / "fixtures.json").read_text())[0]
    image = read_image(FIXTURES / rec["image"])
    boxes = np.array([t["box"] for t in rec["cards"]], dtype=np.float64)
    # box crops only, so classify_crops below reads what classify reads (no card turned upright)
    french = CardDetector("french", rectify="none")
    free_names, free_probs = french.classify(image, boxes)
    probs = french.classify_crops(np.stack([crop_card(image, tuple(b), french.crop) for b in boxes]))
    index = {v: k for k, v in french.cls_names.items()}
    # a deck without the first card's free reading: the reading moves to the best card left
    deck = [c for c in french.cls_names.values() if c != free_names[0]]
    prior = 0.05
    told = CardDetector("french", deck=deck, off_deck_prior=prior, rectify="none")
    names, told_probs = told.classify(image, boxes)
    p = probs[0].copy()
    p[index[free_names[0]]] *= prior
    assert names[0] == french.cls_names[int(p.argmax())]
    assert told_probs[0] == pytest.approx(p.max() / p.sum(), rel=1e-4)
    # cards inside the deck are unaffected when the outside card was not their reading
    for k in range(1, len(boxes)):
        if free_names[k] != free_names[0] and probs[k][index[free_names[0]]] < 0.5:
            assert names[k] == free_names[k]
    # a full deck changes nothing
    full = CardDetector("french", deck=list(french.cls_names.values()), rectify="none")
    assert full.classify(image, boxes)[0] == free_names
    np.testing.assert_allclose(full.classify(image, boxes)[1], free_probs, rtol=1e-5)


def test_classifier_evaluation_counts_every_crop(french, tmp_path):
    from companion.vision.crops import crop_card
    from companion.vision.evaluate import evaluate_classifier

    with pytest.raises(FileNotFoundError):
        evaluate_classifier(french, tmp_path)
    n = 0
    for rec in json.loads((FIXTURES / "fixtures.json").read_text()):
        image = read_image(FIXTURES / rec["image"])
        for k, t in enumerate(rec["cards"]):
            if t["card"] == "back":
                continue
            (tmp_path / t["card"]).mkdir(exist_ok=True)
            import cv2

            cv2.imwrite(str(tmp_path / t["card"] / f"{rec['image']}_{k}.jpg"), crop_card(image, tuple(t["box"])))
            n += 1
    result = evaluate_classifier(french, tmp_path)
    assert result["crops"] == n
    assert 0 <= result["top1"] <= result["top5"] <= 1
    assert result["top1"] <= min(result["rank"], result["suit"])


def test_real_photo_scores_sweep_thresholds_from_one_pass(french, tmp_path):
    """The real-photo measure on a folder laid out like shared/real-photos (labels.csv, rank names)."""
    import csv
    import shutil

    from companion.vision.evaluate import RANK_WORDS, evaluate_real

    words = {v: k for k, v in RANK_WORDS.items()}
    rows = []
    for rec in json.loads((FIXTURES / "fixtures.json").read_text()):
        shutil.copy(FIXTURES / rec["image"], tmp_path / rec["image"])
        for t in rec["cards"]:
            if t["card"] != "back" and t["card"][:-1] in words:
                rows.append([rec["image"], 0, 0, words[t["card"][:-1]], *t["box"]])
    with open(tmp_path / "labels.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["filename", "width", "height", "class", "xmin", "ymin", "xmax", "ymax"])
        w.writerows(rows)
    low = CardDetector("french", conf=0.1)
    result = evaluate_real(low, tmp_path, sweep=(0.05, 0.3, 0.6, 0.9))
    assert result["labelled_cards"] == len(rows) > 0
    assert set(result["sweep"]) == {"0.3", "0.6", "0.9"}  # thresholds below the detector's are not measurable
    steps = [result] + [result["sweep"][k] for k in ("0.3", "0.6", "0.9")]
    for a, b in zip(steps, steps[1:]):  # a higher threshold keeps a subset of the detections
        assert b["found_right_rank"] <= a["found_right_rank"]
        assert b["false_detections_per_image"] <= a["false_detections_per_image"]
    # The sweep at the detector's own threshold equals a run at that threshold.
    direct = evaluate_real(CardDetector("french", conf=0.3), tmp_path)
    assert direct["found_right_rank"] == result["sweep"]["0.3"]["found_right_rank"]


def test_a_classifier_with_a_back_class_reads_every_box(french, monkeypatch):
    """The detector boxed the deck of an unseen design as a face and a face as a back:
    a classifier that knows backs, when sure (p >= 0.6), names both boxes (the shipped
    French one has the class from v3 on; here its answers are given so the rule is
    tested whatever the weights).  When unsure, the detector's call stands."""
    import copy

    det = copy.copy(french)
    names = dict(french.cls_names)
    if "back" not in names.values():
        names[len(names)] = "back"
    det.cls_names, det.reads_backs, det.prior = names, True, None
    index = {v: k for k, v in names.items()}
    boxes = np.array([[10, 10, 70, 100], [100, 10, 160, 100]], dtype=np.float64)
    monkeypatch.setattr(det, "find_boxes", lambda image: (boxes, np.array([0.8, 0.7]), np.array([0, 1])))

    def fake(crops, corner_crops=None, upright=None, overlapped=None):
        out = np.full((len(crops), len(names)), 0.001)
        out[0, index["back"]], out[0, index["QH"]] = 0.9, 0.05  # the "face" box is the deck
        out[1, index["7S"]], out[1, index["back"]], out[1, index["7C"]] = 0.6, 0.2, 0.1  # the "back" is 7S
        return out

    monkeypatch.setattr(det, "classify_crops", fake)
    got = {d.card: d for d in det.detect(np.zeros((120, 200, 3), np.uint8))}
    assert set(got) == {"back", "7S"}
    assert got["back"].box == tuple(boxes[0]) and got["back"].confidence == pytest.approx(0.8)
    # a back keeps its likeliest faces: where the rules forbid a face-down card the tracker asks about them
    assert got["back"].alternatives[0] == ("QH", pytest.approx(0.8 * 0.05))
    assert got["7S"].confidence == pytest.approx(0.7 * 0.6) and got["7S"].detector_confidence == pytest.approx(0.7)
    alternatives = [n for n, _ in got["7S"].alternatives]
    assert alternatives[0] == "7C" and "back" not in alternatives  # a back is not a runner-up card

    def unsure(crops, corner_crops=None, upright=None, overlapped=None):  # the classifier leans to "back" for the face box, but not surely: the detector's call stays
        out = np.full((len(crops), len(names)), 0.001)
        out[0, index["back"]], out[0, index["QH"]] = 0.5, 0.3
        out[1, index["7S"]], out[1, index["back"]] = 0.4, 0.35
        return out

    monkeypatch.setattr(det, "classify_crops", unsure)
    got = {d.card: d for d in det.detect(np.zeros((120, 200, 3), np.uint8))}
    assert set(got) == {"QH", "back"} and got["back"].box == tuple(boxes[1])
    assert got["back"].alternatives[0][0] == "7S"
    assert got["QH"].confidence == pytest.approx(0.8 * 0.3)


def test_a_card_filling_the_photo_is_found_on_the_shrunk_view():
    """Each fixture card cut out with a thin margin and blown up to 600 px: a photo
    of one card.  The detector, which learned cards at table sizes, boxes none of
    them on the full view (measured: 0 of 12); on the view shrunk by half (what
    `companion detect` adds) it must box nearly all, mapped back to this image."""
    import cv2

    two = CardDetector("french", scales=(1.0, 0.5))
    boxed = named = 0
    for rec in json.loads((FIXTURES / "fixtures.json").read_text()):
        image = read_image(FIXTURES / rec["image"])
        for truth in rec["cards"]:
            x1, y1, x2, y2 = (int(v) for v in truth["box"])
            crop = image[max(0, y1 - 12):y2 + 12, max(0, x1 - 12):x2 + 12]
            s = 600 / crop.shape[0]
            photo = cv2.resize(crop, None, fx=s, fy=s)
            card = (12 * s, 12 * s, photo.shape[1] - 12 * s, photo.shape[0] - 12 * s)
            hits = [d for d in two.detect(photo) if _iou(d.box, card) >= 0.5]
            boxed += bool(hits)
            named += any(d.card == truth["card"] for d in hits)
    assert boxed >= 10 and named >= 8, (boxed, named)  # measured with the v3 and v4 weights: 11 boxed, 9 named


def test_letterbox_pads_a_dynamic_input_only_to_the_stride():
    """A 1280x720 frame at 320: the square letterbox adds 70 grey rows above and below; with the stride the
    picture is padded to 320x192 and its pixels are the square's middle rows, byte for byte."""
    from companion.vision.detector import letterbox

    frame = np.random.default_rng(3).integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    square, r, (left, top) = letterbox(frame, 320)
    rect, r2, (left2, top2) = letterbox(frame, 320, 32)
    assert square.shape == (320, 320, 3) and rect.shape == (192, 320, 3)
    assert r == r2 == 0.25 and (left, top) == (0, 70) and (left2, top2) == (0, 6)
    assert np.array_equal(rect[6:186], square[70:250])
    assert (rect[:6] == 114).all() and (rect[186:] == 114).all()
    portrait, _, (left3, top3) = letterbox(frame.transpose(1, 0, 2), 320, 32)
    assert portrait.shape == (320, 192, 3) and (left3, top3) == (6, 0)
    assert letterbox(np.zeros((64, 64, 3), np.uint8), 320, 32)[0].shape == (320, 320, 3)
    sliver, r, _ = letterbox(np.zeros((1, 2000, 3), np.uint8), 320, 32, 64)  # 0.16 rows: one row kept
    assert sliver.shape == (64, 320, 3) and r == 0.16


def test_a_sliver_of_an_image_has_no_cards_and_raises_nothing(tmp_path, capsys):
    """A 1x2000 image: its letterbox rounds to no rows, its outline search would resize it to nothing, and the
    dynamic detector's head cannot keep its 300 best of 210 cells (``DETECTOR_MIN_SIDE``).  Each now gives no
    card instead of an OpenCV or onnxruntime error, at the table and in ``companion detect``."""
    import cv2

    from companion.table.session import table_detector

    for shape in ((1, 2000, 3), (2000, 1, 3), (40, 2000, 3), (3, 3, 3)):
        assert table_detector("french").detect(np.full(shape, 200, np.uint8)) == []
    path = tmp_path / "sliver.png"
    cv2.imwrite(str(path), np.full((1, 2000, 3), 200, np.uint8))
    assert main(["detect", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip())
    assert out["detections"] == [] and (out["width"], out["height"]) == (2000, 1)


def test_a_dynamic_detector_finds_the_same_cards_on_the_frame_padded_to_its_stride(french):
    """The shipped detector takes any input shape: it reads each view padded only to a multiple of 32, and its
    boxes are mapped back through that padding.  Read again in the square it was trained at, the fixtures'
    cards are the same cards in the same places (a wrong offset would move every box)."""
    assert french.det_stride == 32
    square = CardDetector("french", square=True)
    assert square.det_stride is None
    matched = 0
    for rec in json.loads((FIXTURES / "fixtures.json").read_text()):
        image = read_image(FIXTURES / rec["image"])
        a, b = french.detect(image), square.detect(image)
        for d in a:
            best = max(b, key=lambda e: _iou(d.box, e.box), default=None)
            if best is not None and _iou(d.box, best.box) >= 0.9 and best.card == d.card:
                matched += 1
        assert abs(len(a) - len(b)) <= 1
    assert matched >= 11  # 12 fixture cards, each found by both (measured: all 12)


def test_small_cards_are_found_on_the_zoomed_view():
    """Each fixture photo shrunk to 0.4 on a 1280x720 cloth: twelve cards about 45x64 pixels, a crowded
    table's size.  Read at 320x320 the photo settings box a third of them (measured: 4 of 12, its faint boxes
    and outlines among them); the zoomed view (PHOTO_ZOOM) reads the image through an input 1.7 times larger
    and must box and name nearly all."""
    import cv2

    plain = CardDetector("french", **photo_settings(zoom=0))
    zoomed = CardDetector("french", **photo_settings(zoom=1.7))
    found = {"plain": [0, 0], "zoomed": [0, 0]}
    for rec in json.loads((FIXTURES / "fixtures.json").read_text()):
        small = cv2.resize(read_image(FIXTURES / rec["image"]), None, fx=0.4, fy=0.4, interpolation=cv2.INTER_AREA)
        frame = np.full((720, 1280, 3), (40, 90, 40), np.uint8)
        frame[200:200 + small.shape[0], 300:300 + small.shape[1]] = small
        for name, det in (("plain", plain), ("zoomed", zoomed)):
            dets = det.detect(frame)
            for truth in rec["cards"]:
                box = [v * 0.4 + off for v, off in zip(truth["box"], (300, 200, 300, 200))]
                hits = [d for d in dets if _iou(d.box, box) >= 0.5]
                found[name][0] += bool(hits)
                found[name][1] += any(d.card == truth["card"] for d in hits)
    assert found["plain"][0] <= 6, found  # measured: 4 boxed
    assert found["zoomed"][0] >= 10 and found["zoomed"][1] >= 10, found  # measured: 12 boxed, 12 named


def test_the_zoomed_view_is_for_photos_and_checked(capsys):
    from companion.table.session import table_detector
    from companion.vision.settings import PHOTO_ZOOM

    assert PHOTO_ZOOM and photo_settings()["zoom"] == PHOTO_ZOOM
    assert photo_settings(scales=[1.0])["zoom"] is None and photo_settings(zoom=0)["zoom"] is None
    assert table_detector("french").zoom is None
    with pytest.raises(ValueError, match="zoom"):
        CardDetector("french", zoom=1.0)
    assert CardDetector("french", zoom=0).zoom is None  # as `--zoom 0`: no zoomed view
    image = sorted(FIXTURES.glob("*.jpg"))[0]
    assert main(["detect", str(image), "--zoom", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "zoom" in err and "Traceback" not in err


def test_photos_keep_the_square_and_the_table_pads_to_the_stride():
    """The real photos lost cards read padded to the stride (PHOTO_SQUARE): `companion detect` and the
    synthetic and real evaluations keep the square; the table's detector pads only to the stride."""
    from companion.table.session import table_detector
    from companion.vision.settings import PHOTO_SQUARE

    assert PHOTO_SQUARE and photo_settings()["square"] and photo_settings(scales=[1.0])["square"]
    assert CardDetector("french", **photo_settings()).det_stride is None
    assert table_detector("french").det_stride == 32


def test_detector_scales_are_checked(capsys):
    with pytest.raises(ValueError, match="scales"):
        CardDetector("french", scales=(1.0, 0.0))
    image = sorted(FIXTURES.glob("*.jpg"))[0]
    assert main(["detect", str(image), "--scales", "1", "2"]) == 2
    err = capsys.readouterr().err
    assert "scales" in err and "Traceback" not in err


def test_corners_are_read_from_the_card_turned_upright_where_its_outline_is_found(french):
    """``rectify="corners"``: the corner views come from :func:`rectified_crop` where it finds the card,
    from the box crop elsewhere; the whole card is still read from the box crop."""
    from companion.vision.crops import crop_card, rectified_crop

    rec = json.loads((FIXTURES / "fixtures.json").read_text())[0]
    image = read_image(FIXTURES / rec["image"])
    boxes = [tuple(t["box"]) for t in rec["cards"]]
    upright = CardDetector("french", rectify="corners")
    crops = np.stack([crop_card(image, b, upright.crop) for b in boxes])
    turned = [rectified_crop(image, b, upright.crop) for b in boxes]
    assert any(t is not None for t in turned)
    corner_crops = np.stack([t if t is not None else c for t, c in zip(turned, crops)])
    expected = upright.classify_crops(crops, corner_crops)
    _, probs = upright.classify(image, np.array(boxes))
    np.testing.assert_allclose(probs, expected.max(axis=1), rtol=1e-5)
    with pytest.raises(ValueError, match="rectify"):
        CardDetector("french", rectify="sideways")


def test_blend_averages_the_corners_of_the_box_crop_and_of_the_card_turned_upright(french):
    """``rectify="blend"`` (the default): where the card's outline is found its corners are read twice,
    from the box crop and from the card turned upright, and the two readings averaged before they are
    mixed with the whole card's; elsewhere the box crop's corners alone."""
    from companion.vision.crops import crop_card, rectified_crop

    rec = json.loads((FIXTURES / "fixtures.json").read_text())[0]
    image = read_image(FIXTURES / rec["image"])
    boxes = [tuple(t["box"]) for t in rec["cards"]]
    blend = CardDetector("french", suit_corner_weight=0.0)  # (the other corners' suit: test_corners)
    assert blend.rectify == "blend"
    crops = np.stack([crop_card(image, b, blend.crop) for b in boxes])
    turned = [rectified_crop(image, b, blend.crop) for b in boxes]
    assert any(t is not None for t in turned)
    corners = blend.corner_readings(crops)
    for j, t in enumerate(turned):
        if t is not None:
            corners[j] = (corners[j] + blend.corner_readings(t[None])[0]) / 2.0
    expected = blend.mix(blend.whole_readings(crops), corners)
    _, probs = blend.classify(image, np.array(boxes))
    np.testing.assert_allclose(probs, expected.max(axis=1), rtol=1e-5)
    # not the same as reading either view alone
    _, upright_only = CardDetector("french", rectify="corners", suit_corner_weight=0.0).classify(image, np.array(boxes))
    _, box_only = CardDetector("french", rectify="none", suit_corner_weight=0.0).classify(image, np.array(boxes))
    assert not np.allclose(probs, upright_only) and not np.allclose(probs, box_only)


def test_the_real_photos_split_into_two_halves_that_make_the_whole(french, tmp_path):
    """``half``: a setting is chosen on the photos at even places and reported on the others."""
    import csv
    import shutil

    from companion.vision.evaluate import RANK_WORDS, evaluate_real

    words = {v: k for k, v in RANK_WORDS.items()}
    rows = []
    for rec in json.loads((FIXTURES / "fixtures.json").read_text()):
        shutil.copy(FIXTURES / rec["image"], tmp_path / rec["image"])
        rows += [[rec["image"], 0, 0, words[t["card"][:-1]], *t["box"]]
                 for t in rec["cards"] if t["card"] != "back" and t["card"][:-1] in words]
    with open(tmp_path / "labels.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["filename", "width", "height", "class", "xmin", "ymin", "xmax", "ymax"])
        w.writerows(rows)
    whole = evaluate_real(french, tmp_path)
    tune, test = (evaluate_real(french, tmp_path, half=h) for h in ("tune", "test"))
    assert tune["images"] + test["images"] == whole["images"] and tune["images"] >= test["images"] > 0
    for key in ("labelled_cards", "found_right_rank"):
        assert tune[key] + test[key] == whole[key]
    with pytest.raises(ValueError):
        evaluate_real(french, tmp_path, half="all")


def test_faint_boxes_count_where_the_classifier_names_a_face_surely_and_nothing_surer_lies(french, monkeypatch):
    """Photos: boxes scored under the threshold (from ``faint_conf``) are kept when the classifier names them a
    face at ``faint_min_prob`` and no surer box overlaps them; the classifier's answers and the detector's boxes
    are given, so the rule is tested whatever the weights."""
    import copy

    det = copy.copy(french)
    det.prior, det.conf, det.scales, det.outlines = None, 0.35, (1.0,), False
    det.faint_conf, det.faint_min_prob = 0.05, 0.5
    index = {v: k for k, v in det.cls_names.items()}
    image = np.zeros((120, 400, 3), np.uint8)
    boxes = {  # box: (score, the colour painted there, which the fake classifier reads)
        (10, 10, 70, 100): (0.8, (0, 0, 255)),  # a sure card
        (12, 12, 72, 102): (0.2, (0, 0, 255)),  # the same card boxed again, faintly: covered by the sure box
        (100, 10, 160, 100): (0.2, (255, 0, 0)),  # a faint box named 7S surely: a card
        (200, 10, 260, 100): (0.1, (0, 255, 0)),  # a faint box named weakly: no card
        (300, 10, 360, 100): (0.04, (255, 255, 255)),  # under faint_conf: never looked at
    }
    for (x1, y1, x2, y2), (_, colour) in boxes.items():
        image[y1 + 2:y2 - 2, x1 + 2:x2 - 2] = colour
    calls = []

    def fake(crops, corner_crops=None, upright=None, overlapped=None):
        out = np.full((len(crops), len(det.cls_names)), 0.001)
        for k, crop in enumerate(crops):
            b, g, r = crop.reshape(-1, 3).mean(axis=0)
            name, p = ("QH", 0.9) if r > 100 and b < 100 else ("7S", 0.6) if b > 100 and g < 100 else ("KD", 0.3)
            out[k, index[name]] = p
        return out

    monkeypatch.setattr(det, "_boxes_at", _given_boxes(det, boxes, calls))
    monkeypatch.setattr(det, "classify_crops", fake)
    got = {d.card: d for d in det.detect(image)}
    assert calls == [0.05]  # one detector pass down to faint_conf
    assert set(got) == {"QH", "7S"}
    assert got["7S"].box == (100.0, 10.0, 160.0, 100.0) and got["7S"].detector_confidence == pytest.approx(0.2)
    assert got["7S"].confidence == pytest.approx(0.2 * 0.6, rel=0.05)
    det.faint_conf = None  # without: the sure box alone
    assert {d.card for d in det.detect(image)} == {"QH"}


def test_faces_named_under_their_floor_are_kept_where_an_outline_backs_them(french, monkeypatch):
    """``outlined_min_prob``: a faint face named under ``faint_min_prob``, or a sure box's face named under
    ``face_min_prob``, is kept when named at least ``outlined_min_prob`` and an outline the outline model scored
    ``outlined_score`` or more fits its box; not without such an outline, nor under that floor, nor with the option
    off.  The outline model is read only when such a face is there.  Boxes, readings and outlines are given."""
    import copy

    det = copy.copy(french)
    det.prior, det.conf, det.scales, det.outlines = None, 0.35, (1.0,), False
    det.faint_conf, det.faint_min_prob, det.face_min_prob = 0.02, 0.3, 0.2
    index = {v: k for k, v in det.cls_names.items()}
    image = np.zeros((120, 520, 3), np.uint8)
    boxes = {  # box: (score, colour, the fake classifier's (name, p) for that colour)
        (10, 10, 70, 100): (0.8, (0, 0, 255), ("QH", 0.9)),  # a sure card
        (100, 10, 160, 100): (0.2, (255, 0, 0), ("7S", 0.15)),  # faint, named weakly, outlined surely: kept
        (200, 10, 260, 100): (0.2, (0, 255, 0), ("KD", 0.15)),  # faint, named weakly, outlined weakly: dropped
        (300, 10, 360, 100): (0.2, (255, 255, 0), ("5H", 0.05)),  # faint, outlined surely, named under 0.1
        (400, 10, 460, 100): (0.6, (255, 0, 255), ("9C", 0.15)),  # sure box named under face_min_prob, outlined
    }
    for (x1, y1, x2, y2), (_, colour, _) in boxes.items():
        image[y1 + 2:y2 - 2, x1 + 2:x2 - 2] = colour
    by_colour = {colour: read for _, colour, read in boxes.values()}

    def fake(crops, corner_crops=None, upright=None, overlapped=None):
        out = np.full((len(crops), len(det.cls_names)), 0.001)
        for k, crop in enumerate(crops):
            mean = crop[crop.shape[0] // 3:2 * crop.shape[0] // 3, crop.shape[1] // 3:2 * crop.shape[1] // 3]
            colour = min(by_colour, key=lambda c: np.abs(mean.reshape(-1, 3).mean(axis=0) - c).sum())
            name, p = by_colour[colour]
            out[k, index[name]] = p
        return out

    class Outlines:
        """The outline model: a sure outline around 7S, 5H and 9C, a weak one around KD."""
        reads = 0

        def scored_rects(self, img):
            Outlines.reads += 1
            return [(((130.0, 55.0), (58.0, 88.0), 0.0), 0.8), (((230.0, 55.0), (58.0, 88.0), 0.0), 0.2),
                    (((330.0, 55.0), (58.0, 88.0), 0.0), 0.8), (((430.0, 55.0), (58.0, 88.0), 0.0), 0.9)]

    monkeypatch.setattr(det, "_boxes_at", _given_boxes(det, boxes))
    monkeypatch.setattr(det, "classify_crops", fake)
    monkeypatch.setattr(det, "rows", False)
    assert {d.card for d in det.detect(image)} == {"QH"}  # the option off (CardDetector's default)
    det.outline_gate, det.outlined_min_prob, det.outlined_score = Outlines(), 0.1, 0.5
    got = {d.card: d for d in det.detect(image)}
    assert set(got) == {"QH", "7S", "9C"}
    assert got["7S"].detector_confidence == pytest.approx(0.2) and got["7S"].rank_confidence == pytest.approx(0.15, 0.1)
    assert Outlines.reads == 1
    det.outlined_faint_from = 0.25  # 7S's faint box is scored 0.2: too faint for its outline to keep it
    assert {d.card for d in det.detect(image)} == {"QH", "9C"}  # a sure box's weak face is not faint: kept
    det.outlined_faint_from = 0.15
    assert {d.card for d in det.detect(image)} == {"QH", "7S", "9C"}
    det.outlined_faint_from = None
    del boxes[(100, 10, 160, 100)], boxes[(200, 10, 260, 100)], boxes[(300, 10, 360, 100)], boxes[(400, 10, 460, 100)]
    assert {d.card for d in det.detect(image)} == {"QH"} and Outlines.reads == 3  # no weak face: no outline read


def test_a_faint_twin_of_a_sure_card_is_dropped_when_asked(french, monkeypatch):
    """``faint_twin_iou``: a faint box over the top half of a sure card (IoU 0.5 with it; merging is set to 0.9 here
    so that it does not take the twin first) named as that card is the card again, and dropped; the sure box keeps
    its place.  Off (None), the twin stays a second detection."""
    import copy

    det = copy.copy(french)
    det.prior, det.conf, det.scales, det.outlines, det.rows = None, 0.35, (1.0,), False, False
    det.faint_conf, det.faint_min_prob, det.faint_overlap, det.merge_iou = 0.02, 0.3, 0.7, 0.9
    index = {v: k for k, v in det.cls_names.items()}
    image = np.zeros((120, 200, 3), np.uint8)
    image[12:98, 12:68] = (0, 0, 255)
    boxes = {(10, 10, 70, 100): 0.8, (10, 10, 70, 55): 0.1}  # the card, and its top half boxed faintly

    def fake(crops, corner_crops=None, upright=None, overlapped=None):
        out = np.full((len(crops), len(det.cls_names)), 0.001)
        out[:, index["QH"]] = 0.9
        return out

    monkeypatch.setattr(det, "_boxes_at", _given_boxes(det, boxes))
    monkeypatch.setattr(det, "classify_crops", fake)
    assert [d.box for d in det.detect(image)] == [(10.0, 10.0, 70.0, 100.0), (10.0, 10.0, 70.0, 55.0)]
    det.faint_twin_iou = 0.3
    assert [d.box for d in det.detect(image)] == [(10.0, 10.0, 70.0, 100.0)]


def test_outlined_faces_and_faint_twins_are_asked_for_by_photo_settings_and_checked(monkeypatch):
    """The family's ``outlined_min_prob`` and ``faint_twin_iou`` (PHOTO_FAMILY) reach the detector through
    photo_settings, which loads the shipped outline model for the first; one passed there wins (negative, or 0 for
    the twins: not); a value out of range is a clear error."""
    import companion.vision.settings as vs

    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"french": {"outlined_min_prob": 0.1, "faint_twin_iou": 0.3}})
    own = vs.photo_settings(family="french")
    assert (own["outlined_min_prob"], own["faint_twin_iou"]) == (0.1, 0.3)
    off = vs.photo_settings(family="french", outlined_min_prob=-1, faint_twin_iou=0)
    assert (off["outlined_min_prob"], off["faint_twin_iou"]) == (None, None)
    assert vs.photo_settings(family="spanish", outlined_min_prob=0.2)["outlined_min_prob"] == 0.2
    det = CardDetector("french", **own)
    assert det.outline_gate is not None and det.outline_model is None  # asked about, not used to turn cards upright
    assert det.faint_twin_iou == 0.3
    assert CardDetector("french").outline_gate is None and CardDetector("french").faint_twin_iou is None
    with pytest.raises(ValueError, match="outlined_min_prob must be in"):
        CardDetector("french", outlined_min_prob=1.5)
    with pytest.raises(ValueError, match="faint_twin_iou must be in"):
        CardDetector("french", faint_twin_iou=1.5)


def test_the_size_check_is_asked_for_by_photo_settings_and_runs_after_the_twins(monkeypatch):
    """The family's ``size_check`` (PHOTO_FAMILY) reaches the detector through photo_settings (0 passed there: not);
    the detector drops a weakly named pip's box beside a surer card and keeps it without the check; a value out of
    range is a clear error."""
    import companion.vision.settings as vs

    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"french": {"size_check": 0.5}})
    assert vs.photo_settings(family="french")["size_check"] == 0.5
    assert vs.photo_settings(family="french", size_check=0)["size_check"] is None
    assert vs.photo_settings(family="spanish")["size_check"] is None
    # how large is too large: the family's (rule 129: French 1.6), else SIZE_LARGE; one passed wins
    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"french": {"size_check": 0.5, "size_large": 1.6}})
    assert vs.photo_settings(family="french")["size_large"] == 1.6
    assert vs.photo_settings(family="french", size_large=3.0)["size_large"] == 3.0
    assert vs.photo_settings(family="spanish")["size_large"] == vs.SIZE_LARGE
    assert CardDetector("french", **vs.photo_settings(family="french")).size_large == 1.6
    det = CardDetector("french", size_check=0.5)
    card = Detection("QH", 0.81, (10.0, 10.0, 70.0, 100.0), 0.9, 0.9)
    pip = Detection("AH", 0.08, (20.0, 20.0, 30.0, 30.0), 0.2, 0.4)
    monkeypatch.setattr(det, "name_boxes", lambda *a, **k: [card, pip])
    image = np.zeros((120, 120, 3), np.uint8)
    assert det.read_boxes(image, np.zeros((0, 4)), np.zeros(0), np.zeros(0)) == [card]
    det.size_check = None
    assert det.read_boxes(image, np.zeros((0, 4)), np.zeros(0), np.zeros(0)) == [card, pip]
    with pytest.raises(ValueError, match="size_check must be in"):
        CardDetector("french", size_check=1.5)
    with pytest.raises(ValueError, match="size_small"):
        CardDetector("french", size_small=2.0)


def test_the_size_check_can_spare_a_face_another_box_covers(monkeypatch):
    """With ``size_spares_covered`` a weakly named small box half under a surer card is kept (a covered card's box
    holds the part in view), while a small weak box nothing covers is still dropped; photo_settings passes the
    family's value (off unless PHOTO_FAMILY says) and one given wins."""
    import companion.vision.settings as vs

    card = Detection("QH", 0.81, (10.0, 10.0, 70.0, 100.0), 0.9, 0.9)
    under = Detection("5C", 0.1, (60.0, 20.0, 80.0, 40.0), 0.25, 0.4)   # half inside the QH's box
    stray = Detection("AH", 0.08, (100.0, 100.0, 110.0, 110.0), 0.2, 0.4)
    image = np.zeros((120, 120, 3), np.uint8)
    det = CardDetector("french", size_check=0.5, size_spares_covered=True)
    monkeypatch.setattr(det, "name_boxes", lambda *a, **k: [card, under, stray])
    assert det.read_boxes(image, np.zeros((0, 4)), np.zeros(0), np.zeros(0)) == [card, under]
    det.size_spares_covered = False
    assert det.read_boxes(image, np.zeros((0, 4)), np.zeros(0), np.zeros(0)) == [card]
    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"french": {"size_check": 0.5, "size_spares_covered": True}})
    assert vs.photo_settings(family="french")["size_spares_covered"] is True
    assert vs.photo_settings(family="french", size_spares_covered=False)["size_spares_covered"] is False
    assert vs.photo_settings(family="spanish")["size_spares_covered"] is False

def test_french_photo_settings_read_covered_boxes_by_the_outline_model_and_spare_them_the_size_check():
    """Rules 134-135 (session 101): the French photo settings spare covered faces the size check and turn the boxes
    another box covers upright by the outline model (``outline_model_for`` "overlapped", from PHOTO_FAMILY), Spanish
    ones every box; a value passed wins."""
    from companion.vision.settings import photo_settings

    french, spanish = photo_settings(family="french"), photo_settings(family="spanish")
    assert french["outline_model"] and french["outline_model_for"] == "overlapped"
    assert french["size_spares_covered"] is True
    assert spanish["outline_model"] and spanish["outline_model_for"] == "all"
    assert photo_settings(family="french", outline_model_for="all")["outline_model_for"] == "all"

def test_read_stages_lists_each_step_in_order_and_read_boxes_is_the_last(monkeypatch):
    """read_stages names the detections after each step that is on (a bench tells which step dropped a card); the
    pip's weak box is still there after the floors and gone after the size check; read_boxes gives the last list."""
    det = CardDetector("french", size_check=0.5, merge_iou=0.3)
    card = Detection("QH", 0.81, (10.0, 10.0, 70.0, 100.0), 0.9, 0.9)
    pip = Detection("AH", 0.08, (20.0, 20.0, 30.0, 30.0), 0.2, 0.4)
    monkeypatch.setattr(det, "name_boxes", lambda *a, **k: [card, pip])
    image = np.zeros((120, 120, 3), np.uint8)
    stages = det.read_stages(image, np.zeros((0, 4)), np.zeros(0), np.zeros(0))
    assert [name for name, _ in stages] == ["named", "floors", "merged", "sizes"]
    assert dict(stages)["merged"] == [card, pip] and dict(stages)["sizes"] == [card]
    assert det.read_boxes(image, np.zeros((0, 4)), np.zeros(0), np.zeros(0)) == stages[-1][1]


def test_the_faintest_boxes_need_a_sure_name_outlined_or_not(monkeypatch):
    """``faintest_below``: a faint face the detector scored under it is kept only where named FAINTEST_MIN_PROB or
    more, even where an outline backs it; a faint face scored over it, a sure one, a back, or a face found by the
    outline search are left to the other floors.  The family's value reaches the detector through photo_settings."""
    import companion.vision.settings as vs
    from companion.vision.settings import FAINTEST_MIN_PROB, FOUND_BY_OUTLINE

    det = CardDetector("french", conf=0.35, faint_conf=0.02, faintest_below=0.04)
    weak = Detection("QH", 0.012, (10.0, 10.0, 70.0, 100.0), 0.4, 0.03)
    sure_named = Detection("7S", 0.018, (100.0, 10.0, 160.0, 100.0), 0.6, 0.03)
    fainter = Detection("2D", 0.02, (200.0, 10.0, 260.0, 100.0), 0.4, 0.05)
    outline_found = Detection("3C", 0.012, (300.0, 10.0, 360.0, 100.0), 0.4, 0.03, found_by=FOUND_BY_OUTLINE)
    back = Detection("back", 0.03, (400.0, 10.0, 460.0, 100.0), 1.0, 0.03)
    found = [weak, sure_named, fainter, outline_found, back]
    assert 0.4 < FAINTEST_MIN_PROB <= 0.6
    assert [det.faintest(d) for d in found] == [True, False, False, False, False]
    det.faintest_min_prob = 0.7  # a family may ask for a surer name: 7S (0.6) goes too
    assert [det.faintest(d) for d in found] == [True, True, False, False, False]
    det.faintest_min_prob = FAINTEST_MIN_PROB
    image = np.zeros((120, 480, 3), np.uint8)
    assert det.outlined(image, found) == found[1:]

    class AllOutlined:  # an outline fits every box: the faintest weak face still goes
        def scored_rects(self, image):
            return [(((x + 30.0, 55.0), (60.0, 90.0), 0.0), 0.9) for x in (10.0, 100.0, 200.0, 300.0, 400.0)]

    det.outline_gate, det.outlined_min_prob, det.face_min_prob, det.faint_min_prob = AllOutlined(), 0.1, 0.5, 0.5
    assert det.outlined(image, found) == found[1:]
    det.faintest_below = None
    assert det.outlined(image, found) == found
    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"french": {"faintest_below": 0.04, "faintest_min_prob": 0.8}})
    assert vs.photo_settings(family="french")["faintest_below"] == 0.04
    assert vs.photo_settings(family="french")["faintest_min_prob"] == 0.8
    assert vs.photo_settings(family="spanish")["faintest_min_prob"] == FAINTEST_MIN_PROB
    assert vs.photo_settings(family="french", faintest_below=0)["faintest_below"] is None
    with pytest.raises(ValueError, match="faintest_below must be in"):
        CardDetector("french", faintest_below=1.5)
    with pytest.raises(ValueError, match="faintest_min_prob must be in"):
        CardDetector("french", faintest_min_prob=1.5)


def test_too_faint_to_outline_is_asked_for_by_photo_settings_and_checked(monkeypatch):
    """``outlined_faint_from``: the family's value (PHOTO_FAMILY) reaches the detector through photo_settings (0
    passed there: any score); only a faint face under it is too faint for an outline to keep (a sure box's face, a
    face the outline search found, and a back are not); a value out of range is a clear error."""
    import companion.vision.settings as vs
    from companion.vision.settings import FOUND_BY_OUTLINE

    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"french": {"outlined_faint_from": 0.065}})
    assert vs.photo_settings(family="french")["outlined_faint_from"] == 0.065
    assert vs.photo_settings(family="french", outlined_faint_from=0)["outlined_faint_from"] is None
    assert vs.photo_settings(family="spanish")["outlined_faint_from"] is None
    det = CardDetector("french", conf=0.35, faint_conf=0.02, outlined_faint_from=0.065)
    box = (10.0, 10.0, 70.0, 100.0)
    faint = [Detection("QH", 0.01, box, 0.2, 0.05), Detection("QH", 0.01, box, 0.2, 0.07)]
    others = [Detection("QH", 0.05, box, 0.2, 0.5), Detection("QH", 0.01, box, 0.2, 0.05, found_by=FOUND_BY_OUTLINE)]
    assert [det.too_faint_to_outline(d) for d in faint + others] == [True, False, False, False]
    det.outlined_faint_from = None
    assert not any(det.too_faint_to_outline(d) for d in faint + others)
    with pytest.raises(ValueError, match="outlined_faint_from must be in"):
        CardDetector("french", outlined_faint_from=1.5)


def test_photo_settings_keep_faint_boxes_and_the_table_does_not():
    from companion.vision.settings import FAINT_CONF

    assert FAINT_CONF is not None and photo_settings()["faint_conf"] == FAINT_CONF
    assert photo_settings(scales=[1.0])["faint_conf"] is None  # one view: the table's settings
    assert photo_settings(faint_conf=0)["faint_conf"] is None


def test_a_box_around_two_cards_does_not_hide_a_faint_box_of_one_of_them():
    """A pair held up side by side was boxed as one loose box (2-4 times a card, holding it whole): a faint
    box of one of the cards inside it is not the same card boxed again, and is looked at."""
    from companion.vision.detector import _hides

    card = np.array([100.0, 100.0, 160.0, 190.0])
    sure = np.array([[95.0, 95.0, 225.0, 195.0],  # around this card and the one beside it: 2.4 times its area
                     [102.0, 98.0, 164.0, 192.0],  # the same card boxed surely
                     [130.0, 100.0, 190.0, 190.0]])  # a card half over it, its own size
    assert _hides(sure, card).tolist() == [False, True, True]


def test_a_faint_floor_at_or_above_the_threshold_is_one_clear_error(capsys):
    from companion.vision.evaluate import main as evaluate_main

    with pytest.raises(ValueError, match="faint_conf must be in"):
        CardDetector("french", conf=0.35, faint_conf=0.5)
    with pytest.raises(SystemExit):
        evaluate_main(["latency", "--frames", "1", "--faint-conf", "0.6"])
    assert "faint_conf must be in" in capsys.readouterr().err


def test_a_card_found_by_two_shrunk_views_counts_once(french, monkeypatch):
    """A shrunk view only adds cards the larger views missed.  A big card the full view misses and two
    shrunk views both find is one card, not two (it was checked against the full view's boxes only, and
    not at all when the full view found none: with a third view, the real photos' tune half had 0.230 false
    detections per photo, 0.196 checked against every larger view)."""
    import copy

    det = copy.copy(french)
    det.conf, det.scales, det.outlines, det.faint_conf = 0.35, (1.0, 0.65, 0.45), False, None
    # the card again from the smaller view, boxed a little to the side (IoU 0.6: too unlike for the final
    # overlap check at 0.7, too like for a second card at the views' 0.2)
    big, small, again, other = (50.0, 40.0, 250.0, 330.0), (5.0, 350.0, 45.0, 395.0), (100.0, 40.0, 300.0, 330.0), \
        (320.0, 40.0, 395.0, 330.0)
    found_at = {1.0: [small], 0.65: [big], 0.45: [again, other]}  # the full view finds only a small card

    def boxes_at(img, factor, conf=None, session=None, size=None):
        b = found_at[factor]
        return np.array(b, dtype=np.float64).reshape(-1, 4), np.full(len(b), 0.5), np.zeros(len(b), dtype=int)

    monkeypatch.setattr(det, "_boxes_at", boxes_at)
    boxes, _, _ = det.find_boxes(np.zeros((400, 400, 3), np.uint8))
    assert sorted(map(tuple, boxes.tolist())) == sorted([small, big, other])


def test_the_zoomed_view_adds_only_sure_boxes_no_other_view_holds(french, monkeypatch):
    """The zoomed view adds a small card the other views missed, not a card they found again, and none of its
    faint boxes: on the real photos those were a big card's pips and indices, scored above the faint box of a
    whole card, and they took its place among the FAINT_MAX faint boxes read (session 69, rule 45)."""
    import copy

    from companion.vision.settings import FAINT_CLASS, FAINT_MAX

    det = copy.copy(french)
    det.conf, det.scales, det.outlines, det.faint_conf, det.zoom = 0.35, (1.0, 0.65), False, 0.02, 1.7
    card, faint_card, small, again = (50.0, 40.0, 150.0, 180.0), (200.0, 40.0, 300.0, 180.0), \
        (320.0, 300.0, 345.0, 335.0), (52.0, 42.0, 150.0, 178.0)
    pieces = [(10.0 + 30 * k, 350.0, 30.0 + 30 * k, 370.0) for k in range(FAINT_MAX + 2)]
    found_at = {1.0: [(card, 0.6), (faint_card, 0.1)], 0.65: [],
                1.7: [(small, 0.5), (again, 0.7)] + [(p, 0.25) for p in pieces]}

    def boxes_at(img, factor, conf=None, session=None, size=None):
        b = [(box, s) for box, s in found_at[factor] if s >= (det.conf if conf is None else conf)]
        return (np.array([x for x, _ in b], dtype=np.float64).reshape(-1, 4), np.array([s for _, s in b]),
                np.zeros(len(b), dtype=int))

    monkeypatch.setattr(det, "_boxes_at", boxes_at)
    boxes, _, classes = det.find_boxes(np.zeros((400, 400, 3), np.uint8))
    assert sorted(map(tuple, boxes.tolist())) == sorted([card, faint_card, small])
    assert classes[[tuple(b) == faint_card for b in boxes.tolist()]].tolist() == [FAINT_CLASS]


def test_a_covered_card_beside_a_found_one_is_kept_under_larger_overlaps(french, monkeypatch):
    """A card half under another has a box overlapping the covering card's by 0.2-0.5 (IoU): under the shared
    VIEW_OVERLAP the zoomed view's box of it counts as the covering card again and is dropped; with a larger
    ``zoom_overlap`` (Spanish photos, rule 71, session 78) it is kept, and a box of the same card found again
    (IoU above it) still is not."""
    import copy

    top, under, again = (100.0, 100.0, 140.0, 160.0), (120.0, 100.0, 160.0, 160.0), (101.0, 101.0, 140.0, 159.0)
    assert 0.2 < float(box_iou(np.array(under), np.array([top]))[0]) < 0.5
    found_at = {1.0: [top], 0.65: [], 1.7: [under, again]}

    def boxes_at(img, factor, conf=None, session=None, size=None):
        b = found_at[factor]
        return np.array(b, dtype=np.float64).reshape(-1, 4), np.full(len(b), 0.6), np.zeros(len(b), dtype=int)

    kept = {}
    for limit in (0.2, 0.6):
        det = copy.copy(french)
        det.conf, det.scales, det.outlines, det.faint_conf, det.zoom = 0.35, (1.0, 0.65), False, None, 1.7
        det.zoom_overlap = limit
        monkeypatch.setattr(det, "_boxes_at", boxes_at)
        kept[limit] = sorted(map(tuple, det.find_boxes(np.zeros((400, 400, 3), np.uint8))[0].tolist()))
    assert kept[0.2] == [top] and kept[0.6] == sorted([top, under])
    # ... and a faint box of that covered card, under a larger ``faint_overlap``
    found_at = {1.0: [top, under], 0.65: [], 1.7: []}

    def faint_at(img, factor, conf=None, session=None, size=None):
        b = found_at[factor]
        scores = np.array([0.6, 0.1][: len(b)])
        keep = scores >= (det.conf if conf is None else conf)
        return np.array(b, dtype=np.float64).reshape(-1, 4)[keep], scores[keep], np.zeros(int(keep.sum()), dtype=int)

    for limit, want in ((0.2, [top]), (0.6, sorted([top, under]))):
        det = copy.copy(french)
        det.conf, det.scales, det.outlines, det.faint_conf, det.zoom = 0.35, (1.0, 0.65), False, 0.02, None
        det.faint_overlap = limit
        monkeypatch.setattr(det, "_boxes_at", faint_at)
        assert sorted(map(tuple, det.find_boxes(np.zeros((400, 400, 3), np.uint8))[0].tolist())) == want


def test_a_faint_box_overlapping_more_must_be_scored_enough_and_hold_no_surer_card(french, monkeypatch):
    """With a larger ``faint_overlap``, a faint box overlapping a surer one by 0.2-0.5 is a covered card only
    when the detector scored it at least ``faint_overlap_from`` (session 79: most such boxes on the real photos
    that lay on no card scored under 0.1), and with ``faint_holds`` not when it holds most of a smaller, surer box:
    a box around that card and its neighbour."""
    import copy

    top, under = (100.0, 100.0, 140.0, 160.0), (120.0, 100.0, 160.0, 160.0)
    around = (95.0, 98.0, 158.0, 163.0)  # holds all of ``top``, which is 0.59 of its area
    assert 0.2 < float(box_iou(np.array(around), np.array([top]))[0]) < 0.7

    def run(faint: list[tuple[tuple, float]], **options) -> list[tuple]:
        def boxes_at(img, factor, conf=None, session=None, size=None):
            b = [(top, 0.6)] + faint if factor == 1.0 else []
            b = [(x, s) for x, s in b if s >= (det.conf if conf is None else conf)]
            return (np.array([x for x, _ in b], dtype=np.float64).reshape(-1, 4), np.array([s for _, s in b]),
                    np.zeros(len(b), dtype=int))

        det = copy.copy(french)
        det.conf, det.scales, det.outlines, det.faint_conf, det.zoom = 0.35, (1.0, 0.65), False, 0.02, None
        det.faint_overlap, det.faint_overlap_from, det.faint_holds = 0.7, 0.0, False
        for k, v in options.items():
            setattr(det, k, v)
        monkeypatch.setattr(det, "_boxes_at", boxes_at)
        return sorted(map(tuple, det.find_boxes(np.zeros((400, 400, 3), np.uint8))[0].tolist()))

    assert run([(under, 0.05)]) == sorted([top, under])
    assert run([(under, 0.05)], faint_overlap_from=0.1) == [top]
    assert run([(under, 0.15)], faint_overlap_from=0.1) == sorted([top, under])
    assert run([(around, 0.15)]) == sorted([top, around])
    assert run([(around, 0.15)], faint_holds=True) == [top]
    assert run([(under, 0.15)], faint_holds=True) == sorted([top, under])  # it holds only half of ``top``


def test_which_surer_boxes_a_faint_box_holds():
    from companion.vision.detector import _holds

    faint = np.array([100.0, 100.0, 200.0, 200.0])
    sure = np.array([[105.0, 105.0, 160.0, 195.0],  # inside it, half its area
                     [95.0, 95.0, 205.0, 205.0],  # around it: larger
                     [150.0, 100.0, 250.0, 200.0],  # half in it
                     [101.0, 101.0, 199.0, 199.0]])  # the same card boxed again: 0.96 of its area
    assert _holds(faint, sure).tolist() == [True, False, False, False]


def test_a_family_reads_its_own_photo_settings_where_chosen(monkeypatch):
    """PHOTO_FAMILY gives one family its own face floor and view overlaps; the others, the table's one view
    and a value passed in keep theirs."""
    from companion.vision import settings as vs

    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"spanish": {"face_min_prob": 0.05, "zoom_overlap": 0.6,
                                                         "faint_overlap": 0.5, "rows": False,
                                                         "faint_min_prob": 0.25, "faint_max": 12,
                                                         "conf": 0.3, "faint_conf": 0.001,
                                                         "faint_corner_windows": 1}})
    spanish, french = vs.photo_settings(family="spanish"), vs.photo_settings(family="french")
    assert (spanish["face_min_prob"], spanish["zoom_overlap"], spanish["view_overlap"], spanish["faint_overlap"]) \
        == (0.05, 0.6, vs.VIEW_OVERLAP, 0.5)
    assert (french["face_min_prob"], french["zoom_overlap"], french["faint_overlap"]) == \
        (vs.PHOTO_FACE_MIN_PROB, vs.VIEW_OVERLAP, vs.VIEW_OVERLAP)
    assert (spanish["rows"], spanish["faint_min_prob"], french["rows"], french["faint_min_prob"]) == \
        (False, 0.25, True, vs.FAINT_MIN_PROB)
    assert vs.photo_settings(family="spanish", rows=True)["rows"] is True
    assert (spanish["faint_max"], spanish["conf"], french["faint_max"], french["conf"]) == \
        (12, 0.3, vs.FAINT_MAX, vs.PHOTO_CONF)
    assert vs.photo_settings(family="spanish", scales=[1.0])["conf"] == vs.TABLE_CONF
    assert (spanish["faint_conf"], french["faint_conf"]) == (0.001, vs.FAINT_CONF)
    assert (spanish["faint_corner_windows"], french["faint_corner_windows"]) == (1, None)
    assert vs.photo_settings(family="spanish", faint_corner_windows=0)["faint_corner_windows"] is None
    assert CardDetector("spanish", **spanish).faint_corner_windows == 1
    with pytest.raises(ValueError, match="faint_corner_windows"):
        CardDetector("spanish", faint_corner_windows=len(vs.CORNER_SHIFTS) + 1)
    assert vs.photo_settings(family="spanish", scales=[1.0])["faint_conf"] is None  # the table's one view: none
    assert vs.photo_settings(family="spanish", faint_conf=0.05)["faint_conf"] == 0.05
    assert CardDetector("spanish", **spanish).faint_max == 12
    assert CardDetector("spanish", **spanish).faint_overlap == 0.5
    assert vs.photo_settings(family="spanish", face_min_prob=0.3)["face_min_prob"] == 0.3
    assert vs.photo_settings(family="spanish", scales=[1.0])["face_min_prob"] == 0.0
    with pytest.raises(ValueError, match="zoom_overlap"):
        CardDetector("french", zoom_overlap=1.5)
    with pytest.raises(ValueError, match="view_overlap"):
        CardDetector("french", view_overlap=-0.1)
    with pytest.raises(ValueError, match="faint_overlap"):
        CardDetector("french", faint_overlap=2.0)
    with pytest.raises(ValueError, match="faint_max"):
        CardDetector("french", faint_max=-1)
    with pytest.raises(ValueError, match="faint_overlap_from"):
        CardDetector("french", faint_overlap_from=1.5)
    assert (french["faint_overlap_from"], french["faint_holds"]) == (0.0, False)
    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"french": {"faint_overlap_from": 0.1, "faint_holds": True}})
    french = vs.photo_settings(family="french")
    assert (french["faint_overlap_from"], french["faint_holds"]) == (0.1, True)
    assert vs.photo_settings(family="french", faint_holds=False)["faint_holds"] is False
    assert CardDetector("french", **french).faint_holds is True


def test_an_overlap_out_of_range_is_a_clear_error_of_the_evaluation(tmp_path, capsys):
    """`evaluate --view-overlap 2` stops with the option's name before any scene is read, no traceback."""
    from companion.vision import evaluate as ve

    for option in ("--view-overlap", "--zoom-overlap", "--faint-overlap", "--faint-overlap-from"):
        with pytest.raises(SystemExit) as stop:
            ve.main(["synthetic", "--family", "spanish", "--data", str(tmp_path), option, "2"])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert option[2:].replace("-", "_") in err and "Traceback" not in err


def test_detect_and_the_evaluation_read_the_family_photo_settings(monkeypatch, tmp_path, capsys):
    """`companion detect --family F` and `evaluate synthetic --family F` build their detector with F's own photo
    settings (PHOTO_FAMILY), not the shared ones: the Spanish values were chosen on Spanish scenes (rule 71)."""
    from companion.vision import detector as vd
    from companion.vision import evaluate as ve
    from companion.vision import settings as vs

    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"spanish": {"faint_min_prob": 0.33, "zoom_overlap": 0.66}})
    seen = []

    class Recorder:
        def __init__(self, family, **kw):
            seen.append((family, kw.get("faint_min_prob"), kw.get("zoom_overlap")))
            raise ValueError("recorded")

    monkeypatch.setattr(vd, "CardDetector", Recorder)
    monkeypatch.setattr(ve, "CardDetector", Recorder)
    image = tmp_path / "x.png"
    image.write_bytes(b"")
    assert main(["detect", str(image), "--family", "spanish"]) == 2
    with pytest.raises(SystemExit):
        ve.main(["synthetic", "--family", "spanish", "--data", str(tmp_path)])
    assert main(["detect", str(image), "--family", "french"]) == 2
    assert seen == [("spanish", 0.33, 0.66), ("spanish", 0.33, 0.66), ("french", vs.FAINT_MIN_PROB, vs.VIEW_OVERLAP)]


def test_a_photo_leaves_out_a_face_it_cannot_name_and_the_table_keeps_it(monkeypatch):
    """On real photos a box the detector was sure of that the classifier named at p < 0.2 lay on clutter (a
    towel, a coin, a pip taken for a card), so a photo leaves such a face out; the table keeps every reading,
    weighed by its tracker over many frames.  A back is kept whatever the classifier says."""
    from companion.vision.settings import PHOTO_FACE_MIN_PROB

    assert photo_settings()["face_min_prob"] == PHOTO_FACE_MIN_PROB > 0
    assert photo_settings(scales=[1.0])["face_min_prob"] == 0.0  # one view: the table's settings
    found = [Detection("QH", 0.9 * 0.95, (0.0, 0.0, 50.0, 70.0), 0.95, 0.9),
             Detection("KC", 0.6 * 0.1, (60.0, 0.0, 110.0, 70.0), 0.1, 0.6),
             Detection("back", 0.7, (120.0, 0.0, 170.0, 70.0), 0.05, 0.7)]
    image = np.zeros((100, 200, 3), np.uint8)
    cards = {}
    for name, settings in (("photo", photo_settings()), ("table", {})):
        det = CardDetector("french", **settings)
        monkeypatch.setattr(det, "find_boxes", lambda img: (np.zeros((0, 4)), np.zeros(0), np.zeros(0, int)))
        monkeypatch.setattr(det, "name_boxes", lambda img, *a: list(found))
        monkeypatch.setattr(det, "split_rows", lambda img, dets: dets)
        cards[name] = [d.card for d in det.detect(image)]
    assert cards == {"photo": ["QH", "back"], "table": ["QH", "KC", "back"]}
    with pytest.raises(ValueError, match="face_min_prob"):
        CardDetector("french", face_min_prob=1.0)


def test_cli_lists_rescored_detections_from_a_floor_unless_told(capsys):
    """`companion detect` lists a rescored photo's detections from confidence 0.02 (Spanish photos have no output
    floor of their own since rule 186), every candidate with ``--min-confidence 0``, and a reading that is not
    rescored (one view) in full; a value outside [0, 1) is one clear error.  The French fixtures read as Spanish
    cards give weak candidates to list or not."""
    from companion.commands.detect import LISTED_RESCORED_MIN

    images = [str(p) for p in sorted(FIXTURES.glob("*.jpg"))]

    def listed(*extra: str) -> list[float]:
        assert main(["detect", *images, "--json", "--family", "spanish", *extra]) == 0
        return sorted(d["confidence"] for line in capsys.readouterr().out.strip().splitlines()
                      for d in json.loads(line)["detections"])

    default, every = listed(), listed("--min-confidence", "0")
    assert default and min(default) >= LISTED_RESCORED_MIN
    assert default == [c for c in every if c >= LISTED_RESCORED_MIN] and len(default) < len(every)
    assert listed("--scales", "1") == listed("--scales", "1", "--min-confidence", "0")
    assert main(["detect", "--min-confidence", "1.5", images[0]]) == 2
    assert "--min-confidence must be in [0, 1)" in capsys.readouterr().err


def test_cli_min_prob_keeps_or_leaves_out_the_faces_named_weakly(capsys, tmp_path):
    """`companion detect --min-prob P`: the photo's floor on the classifier's probability of a face, 0 keeping
    every face found; a value outside [0, 1) is one clear error.  The fixtures are read as they are and at half
    their size (a camera further off): since session 104 the full-size fixtures' faces are all named surely."""
    images = [str(p) for p in sorted(FIXTURES.glob("*.jpg"))]
    for path in list(images):
        image = read_image(path)
        half = tmp_path / f"half-{Path(path).name}"
        cv2.imwrite(str(half), cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))
        images.append(str(half))

    def faces(*extra: str) -> list[str]:
        assert main(["detect", "--json", *extra, *images]) == 0
        return [d["card"] for line in capsys.readouterr().out.strip().splitlines()
                for d in json.loads(line)["detections"] if d["card"] != "back"]

    every, default, sure = faces("--min-prob", "0"), faces(), faces("--min-prob", "0.99")
    assert set(sure) <= set(default) <= set(every)
    assert len(sure) < len(every)
    assert main(["detect", "--min-prob", "1.5", images[0]]) == 2
    assert "face_min_prob must be in [0, 1)" in capsys.readouterr().err


def faint_split(det, monkeypatch):
    """A reader of two boxes through ``det.readings`` with ``sure`` given, answering which boxes it told
    :meth:`CardDetector.classify_crops` were faint (None: it did not tell)."""
    seen = []
    flat = np.full((2, len(det.cls_names)), 1.0 / len(det.cls_names))
    monkeypatch.setattr(det, "classify_crops", lambda *a, **k: seen.append(k.get("faint")) or flat)
    image = np.full((200, 300, 3), 90, np.uint8)
    boxes = np.array([[10.0, 10.0, 110.0, 150.0], [150.0, 10.0, 250.0, 150.0]])

    def faint_asked(sure: list[bool]):
        det.readings(image, boxes, 3, None, np.array(sure))
        return seen[-1]

    return faint_asked

def test_faint_boxes_read_their_corners_from_fewer_windows_when_asked(french, monkeypatch):
    """``faint_corner_windows``: the faint boxes' corners are read from the first windows of ``corner_shifts`` alone,
    the sure boxes' from all of them, each reading back in its box's row; off (None), one reading of every box
    from every window, as before.  The boxes' sureness reaches the corners from :meth:`CardDetector.readings`."""
    import copy

    det = copy.copy(french)
    det.corner_shifts = ((0.0, 0.0), (0.042, 0.0), (0.0, 0.042))
    calls = []

    def corner_readings(crops, shifts=None, overlapped=None, raw=None):
        shifts = det.corner_shifts if shifts is None else shifts
        calls.append((len(crops), len(shifts)))
        out = np.zeros((len(crops), 3))
        out[:, len(shifts) - 1] = 1.0  # a reading that says how many windows it came from
        return out

    monkeypatch.setattr(det, "corner_readings", corner_readings)
    crops = np.zeros((4, 96, 96, 3), np.uint8)
    faint = np.array([False, True, False, True])
    det.faint_corner_windows = 1
    got = det.box_corner_readings(crops, None, faint)
    assert calls == [(2, 3), (2, 1)]
    assert got.argmax(axis=1).tolist() == [2, 0, 2, 0]
    calls.clear()
    assert det.box_corner_readings(crops, None, np.zeros(4, bool)).argmax(axis=1).tolist() == [2, 2, 2, 2]
    det.faint_corner_windows = None
    assert det.box_corner_readings(crops, None, faint).argmax(axis=1).tolist() == [2, 2, 2, 2]
    assert calls == [(4, 3), (4, 3)]
    faint_asked = faint_split(det, monkeypatch)
    first = faint_asked([True, False])
    det.faint_corner_windows = 1
    assert first is None and faint_asked([True, False]).tolist() == [False, True]
    assert faint_asked([True, True]) is None


def test_faint_boxes_read_their_whole_card_one_way_up_when_asked(french, monkeypatch):
    """``faint_tta`` False: a faint box's whole card is read as it lies, a sure box's both ways up and averaged;
    on (the default), every box both ways up.  The boxes' sureness reaches the whole card from
    :meth:`CardDetector.readings`, and French photos ask for it (rule 105)."""
    import copy

    from companion.vision import detector as vd
    from companion.vision import settings as vs

    det = copy.copy(french)
    passes = []

    def run_batch(session, name, batch, views):
        passes.append(len(views))
        out = np.zeros((len(views), 4))
        out[np.arange(len(views)), views[:, 0, 0, 0]] = 1.0  # a reading that says which corner came first
        return out

    monkeypatch.setattr(vd, "_run_batch", run_batch)
    crops = np.zeros((3, 8, 8, 3), np.uint8)
    crops[:, 0, 0] = 1  # upright, the top-left pixel reads class 1; upside down, the bottom-right's class 2
    crops[:, -1, -1] = 2
    faint = np.array([False, True, False])
    det.tta, det.faint_tta = True, False
    got = det.whole_readings(crops, faint)
    assert passes == [5]
    assert got[1].tolist() == [0.0, 1.0, 0.0, 0.0]  # one way up
    assert got[0].tolist() == got[2].tolist() == [0.0, 0.5, 0.5, 0.0]  # both ways, averaged
    passes.clear()
    assert det.whole_readings(crops, None)[1].tolist() == [0.0, 0.5, 0.5, 0.0] and passes == [6]
    det.faint_tta = True
    passes.clear()
    assert det.whole_readings(crops, faint)[1].tolist() == [0.0, 0.5, 0.5, 0.0] and passes == [6]
    det.tta = False
    passes.clear()
    assert det.whole_readings(crops, faint)[:, 1].tolist() == [1.0, 1.0, 1.0] and passes == [3]

    det.tta, det.faint_tta, det.faint_corner_windows = True, False, None
    faint_asked = faint_split(det, monkeypatch)
    assert faint_asked([True, False]).tolist() == [False, True]
    det.faint_tta = True
    assert faint_asked([True, False]) is None

    french_settings = vs.photo_settings(family="french")
    spanish_settings = vs.photo_settings(family="spanish")
    assert french_settings["faint_tta"] is False and spanish_settings["faint_tta"] is False  # rules 105, 106
    assert vs.photo_settings(family="french", faint_tta=True)["faint_tta"] is True
    assert vs.photo_settings(family=None)["faint_tta"] is True
    assert CardDetector("spanish", **spanish_settings).faint_tta is False
    assert (vs.PHOTO_FAMILY["french"]["faint_max"], vs.PHOTO_FAMILY["spanish"]["faint_max"]) == (16, 64)


def test_a_family_merges_faces_named_alike_at_its_own_overlap(monkeypatch):
    """``merge_iou`` in PHOTO_FAMILY: Spanish photos merge faces named alike from IoU 0.35 (rule 106) in one view and
    not with the shrunk view, where the rescorer ranks a twin last (``merge_iou_shrunk`` None, rule 186), French ones
    from 0.3 (rule 129), a family without its own at ``MERGE_IOU``; a value passed in wins (0: not merged), the
    table's one view too."""
    from companion.vision import settings as vs
    from companion.vision.merging import MERGE_IOU

    assert vs.photo_settings(family="spanish")["merge_iou"] is None
    assert vs.photo_settings(family="french")["merge_iou"] == 0.3
    assert vs.photo_settings(family="spanish", scales=[1.0])["merge_iou"] == 0.35
    assert vs.photo_settings(family="spanish", merge_iou=0.6)["merge_iou"] == 0.6
    assert vs.photo_settings(family="spanish", merge_iou=0)["merge_iou"] is None
    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"french": {"merge_iou": 0.45}})
    assert vs.photo_settings(family="french")["merge_iou"] == 0.45
    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"french": {"merge_iou": 0.45, "merge_iou_shrunk": 0.6}})
    assert vs.photo_settings(family="french")["merge_iou"] == 0.6
    assert vs.photo_settings(family="french", scales=[1.0])["merge_iou"] == 0.45
    assert vs.photo_settings(family="spanish")["merge_iou"] == MERGE_IOU


def test_sure_boxes_are_drawn_in_and_faint_ones_left_when_box_shrink_is_set(french, monkeypatch):
    """``box_shrink``: the detector's sure boxes are reported drawn in about their centres (it boxes a card about
    3.5 % too wide on each side: session 95), faint boxes as found, and with ``covered_box_shrink`` the sure boxes
    another box covers part of by that factor instead (a covered card's box often holds only its part in view);
    names and scores do not change.  Boxes and readings are given, so the rule is tested whatever the weights."""
    import copy

    det = copy.copy(french)
    det.prior, det.conf, det.scales, det.outlines = None, 0.35, (1.0,), False
    det.faint_conf, det.faint_min_prob = 0.05, 0.5
    index = {v: k for k, v in det.cls_names.items()}
    image = np.zeros((120, 400, 3), np.uint8)
    boxes = {(10, 10, 70, 100): (0.8, (0, 0, 255)),  # QH, sure, alone
             (100, 10, 160, 100): (0.2, (255, 0, 0)),  # 7S, faint
             (200, 10, 260, 100): (0.8, (0, 255, 0)),  # KD, sure, a third of it under 5C's box
             (240, 20, 300, 110): (0.7, (255, 255, 255))}  # 5C, sure, over KD
    for (x1, y1, x2, y2), (_, colour) in boxes.items():
        image[y1 + 2:y2 - 2, x1 + 2:x2 - 2] = colour

    def fake(crops, corner_crops=None, upright=None, overlapped=None):
        out = np.full((len(crops), len(det.cls_names)), 0.001)
        for k, crop in enumerate(crops):
            b, g, r = crop.reshape(-1, 3).mean(axis=0)
            name = "5C" if min(b, g, r) > 150 else "KD" if g > 150 else "QH" if r > 100 else "7S"
            out[k, index[name]] = 0.9
        return out

    monkeypatch.setattr(det, "_boxes_at", _given_boxes(det, boxes))
    monkeypatch.setattr(det, "classify_crops", fake)
    plain = {d.card: d for d in det.detect(image)}
    assert set(plain) == {"QH", "7S", "KD", "5C"}
    assert {c: d.box for c, d in plain.items()} == dict(zip(("QH", "7S", "KD", "5C"), boxes))
    det.box_shrink = 0.9
    drawn = {d.card: d for d in det.detect(image)}
    assert drawn["QH"].box == pytest.approx((13.0, 14.5, 67.0, 95.5))  # 60 x 90 -> 54 x 81 about (40, 55)
    assert drawn["QH"].confidence == plain["QH"].confidence
    assert drawn["7S"].box == plain["7S"].box  # faint: as found
    assert drawn["KD"].box == pytest.approx((203.0, 14.5, 257.0, 95.5))  # covered: by box_shrink too
    det.covered_box_shrink = 1.0
    apart = {d.card: d for d in det.detect(image)}
    assert apart["QH"].box == drawn["QH"].box
    assert apart["KD"].box == plain["KD"].box and apart["5C"].box == plain["5C"].box  # each covers part of the other


def test_box_shrink_must_be_a_factor_that_keeps_a_box():
    for bad in (0.0, 0.3, 1.2):
        with pytest.raises(ValueError, match="box_shrink"):
            CardDetector("french", box_shrink=bad)


def test_whole_upright_averages_the_whole_card_read_turned_upright(french, monkeypatch):
    """``whole_upright``: the whole card's reading of the card turned upright (resized to the classifier's crop)
    is averaged with the box crop's, for the overlapped boxes ("overlapped") or every card turned upright ("all");
    "none" leaves the box crop's reading alone, and a card with no upright crop keeps it in every mode."""
    import copy

    from companion.vision import settings as vs

    det = copy.copy(french)
    seen = []

    def whole_readings(crops, faint=None):
        seen.append(crops.shape)
        out = np.zeros((len(crops), 2))
        out[:, 1] = 1.0  # the upright crops read class 1
        return out

    monkeypatch.setattr(det, "whole_readings", whole_readings)
    whole = np.tile([1.0, 0.0], (3, 1))  # the box crops read class 0
    upright = [np.zeros((40, 40, 3), np.uint8), None, np.zeros((40, 40, 3), np.uint8)]
    found = [0, 2]
    overlapped = np.array([False, True, True])
    det.whole_upright = "none"
    assert det._with_whole_upright(whole, upright, found, overlapped, None).tolist() == whole.tolist()
    det.whole_upright = "overlapped"
    got = det._with_whole_upright(whole, upright, found, overlapped, None)
    assert got.tolist() == [[1.0, 0.0], [1.0, 0.0], [0.5, 0.5]]
    assert seen == [(1, det.crop, det.crop, 3)]
    assert det._with_whole_upright(whole, upright, found, None, None).tolist() == whole.tolist()
    det.whole_upright = "all"
    got = det._with_whole_upright(whole, upright, found, overlapped, None)
    assert got.tolist() == [[0.5, 0.5], [1.0, 0.0], [0.5, 0.5]]
    assert whole.tolist() == np.tile([1.0, 0.0], (3, 1)).tolist()  # the input is not written over
    with pytest.raises(ValueError, match="whole_upright"):
        CardDetector("french", whole_upright="some")
    assert vs.photo_settings(family="french", whole_upright="all")["whole_upright"] == "all"
    monkeypatch.setattr(vs, "PHOTO_FAMILY", {"french": {"whole_upright": "overlapped"}})
    assert vs.photo_settings(family="french")["whole_upright"] == "overlapped"
    assert vs.photo_settings(family="spanish")["whole_upright"] == "none"


def test_upright_crops_read_their_corners_from_fewer_windows_when_asked(french, monkeypatch):
    """``upright_corner_windows``: a crop turned upright has its corners read from the first windows of
    ``corner_shifts`` alone, the box crop from all of them, and its reading is those windows' own; off (None),
    every crop from every window, as before (rule 199)."""
    import copy

    det = copy.copy(french)
    rng = np.random.default_rng(3)
    crops = rng.integers(0, 255, (3, 96, 96, 3), dtype=np.uint8)
    assert len(det.box_corner_windows(crops, None, 1)) == 1
    assert len(det.box_corner_windows(crops, None, 1)[0]) == 2 * 3
    assert len(det.box_corner_windows(crops)[0]) == 2 * 3 * len(det.corner_shifts)
    one = det.box_corner_readings(crops, None, None, None, 1)
    assert np.allclose(one, det.corner_readings(crops, det.corner_shifts[:1]))
    assert not np.allclose(one, det.box_corner_readings(crops))
    # a faint box's own limit and this one: the smaller wins
    det.faint_corner_windows = 2
    groups = det._corner_groups(np.array([False, True, False]), 1)
    assert [len(shifts) for _, shifts in groups] == [1, 1]

    batches = []
    real = det.window_readings
    monkeypatch.setattr(det, "window_readings", lambda views: batches.append(len(views)) or real(views))
    upright = [crops[0], None, crops[2]]
    det.faint_corner_windows = None
    det.upright_corner_windows = None
    full = det.classify_crops(crops, upright=upright)
    det.upright_corner_windows = 1
    fewer = det.classify_crops(crops, upright=upright)
    windows = len(det.corner_shifts)
    sides = batches[0] - (2 * 3 * windows + 2 * 2 * windows)  # the side suits' windows, the same both times
    assert batches == [2 * 3 * windows + 2 * 2 * windows + sides, 2 * 3 * windows + 2 * 2 + sides]
    assert fewer.shape == full.shape and np.allclose(fewer.sum(axis=1), 1.0)


@pytest.mark.parametrize("windows", [0, 5, -1])
def test_upright_corner_windows_must_be_among_the_windows(windows):
    with pytest.raises(ValueError, match="upright_corner_windows"):
        CardDetector("french", upright_corner_windows=windows)


def test_the_evaluation_reads_the_windows_it_is_told_and_says_so(capsys):
    """``evaluate --corner-shifts`` / ``--upright-corner-windows`` reach the detector and its result; a window
    that is not two numbers is a usage error, not a crash."""
    import json

    from companion.vision.evaluate import main as evaluate_main

    assert evaluate_main(["latency", "--frames", "1", "--scales", "1", "--corner-shifts", "0,0;0.042,0.042",
                          "--upright-corner-windows", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["corner_shifts"] == [[0.0, 0.0], [0.042, 0.042]] and out["upright_corner_windows"] == 1
    with pytest.raises(SystemExit):
        evaluate_main(["latency", "--corner-shifts", "0;x"])
    assert "expected windows as x,y" in capsys.readouterr().err

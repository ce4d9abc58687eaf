"""Rule 182: photo detections rescored by a fitted logistic model (:mod:`companion.vision.rescoring`)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from companion.vision.detector import Detection
from companion.vision.onnx_runtime import ModelError
from companion.vision.rescoring import FEATURES, FORMAT, Rescorer, detection_features, fit, rescorer_file

FIXTURES = Path(__file__).resolve().parents[2] / "datasets" / "fixtures"
COL = {name: i for i, name in enumerate(FEATURES)}


def _found() -> list[Detection]:
    """A sure QH with a close second name, a second QH box inside it named less surely, a back apart."""
    return [Detection("QH", 0.6, (0, 0, 100, 140), 0.75, 0.8, (("QD", 0.3),), outline=0.9),
            Detection("QH", 0.3, (10, 10, 60, 80), 0.5, 0.6, (), outline=0.0),
            Detection("back", 0.7, (300, 0, 400, 140), 1.0, 0.7, (("2C", 0.01),), outline=None)]


def test_features_say_what_each_detection_is() -> None:
    """Each documented feature, read off three hand-made detections."""
    rows = detection_features(_found(), [False, True, False], [False, True, False])
    assert rows.shape == (3, len(FEATURES))
    first, second, back = rows
    assert first[COL["log_detector"]] == pytest.approx(math.log(0.8))
    assert first[COL["log_name"]] == pytest.approx(math.log(0.75))
    assert first[COL["next_name"]] == pytest.approx(0.5)  # 0.3 over 0.6
    assert (first[COL["outline"]], first[COL["no_outline"]]) == (0.9, 0.0)
    assert (second[COL["outline"]], second[COL["no_outline"]], back[COL["no_outline"]]) == (0.0, 1.0, 1.0)
    assert (second[COL["covered"]], second[COL["faint"]], first[COL["covered"]]) == (1.0, 1.0, 0.0)
    assert (back[COL["back"]], first[COL["back"]]) == (1.0, 0.0)
    # the second QH box: a surer box has its name, and it lies wholly inside that box
    assert (second[COL["surer_namesake"]], first[COL["surer_namesake"]]) == (1.0, 0.0)
    assert second[COL["held_in"]] == pytest.approx(1.0)
    assert first[COL["held_in"]] == pytest.approx(50 * 70 / (100 * 140))
    assert first[COL["max_iou"]] == pytest.approx(50 * 70 / (100 * 140)) and back[COL["max_iou"]] == 0.0
    assert (first[COL["overlapping"]], back[COL["overlapping"]]) == (1.0, 0.0)
    assert first[COL["log_area"]] == pytest.approx(0.0)  # the median box
    assert first[COL["tilt"]] == pytest.approx(abs(math.log(100 / 140)))
    assert detection_features([], [], []).shape == (0, len(FEATURES))


def _model(weights: dict[str, float], bias: float = 0.0) -> Rescorer:
    k = len(FEATURES)
    return Rescorer((0.0,) * k, (1.0,) * k, tuple(weights.get(n, 0.0) for n in FEATURES), bias)


def test_rescored_changes_only_the_confidences_and_the_order() -> None:
    """A model that trusts the name alone puts the back (named at 1.0) first and the weakly named QH last; boxes,
    names and the detector's and classifier's own figures are kept, the alternatives scaled with the confidence."""
    found = _found()
    out = _model({"log_name": 2.0}).rescored(found, [False, True, False], [False, True, False])
    assert [d.card for d in out] == ["back", "QH", "QH"]
    assert [d.box for d in out] == [found[2].box, found[0].box, found[1].box]
    assert [(d.rank_confidence, d.detector_confidence, d.outline) for d in out] == \
        [(f.rank_confidence, f.detector_confidence, f.outline) for f in (found[2], found[0], found[1])]
    p = 1 / (1 + math.exp(-2 * math.log(0.75)))
    assert out[1].confidence == pytest.approx(p)
    assert out[1].alternatives[0] == ("QD", pytest.approx(0.3 * p / 0.6))
    assert out[0].alternatives[0][1] <= 1.0
    assert _model({}).rescored([], [], []) == []


def test_fit_learns_which_detections_are_right() -> None:
    """On detections whose rightness follows the name's probability and a surer namesake, the fitted model ranks
    right ones above wrong ones, and its weights point the expected ways."""
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(600, len(FEATURES)))
    rows[:, COL["surer_namesake"]] = rng.random(600) < 0.2
    logit = 2.5 * rows[:, COL["log_name"]] - 3.0 * rows[:, COL["surer_namesake"]] + 0.5
    right = rng.random(600) < 1 / (1 + np.exp(-logit))
    model = fit(rows, right, meta={"data": ["test"]})
    w = dict(zip(FEATURES, model.weights))
    assert w["log_name"] > 1.0 and w["surer_namesake"] < -0.5
    assert max(abs(w[n]) for n in FEATURES if n not in ("log_name", "surer_namesake")) < 0.5
    p = model.probabilities(rows)
    assert p[right].mean() > p[~right].mean() + 0.3
    with pytest.raises(ValueError, match="right and wrong"):
        fit(rows, np.ones(600, dtype=bool))
    with pytest.raises(ValueError, match="rows"):
        fit(rows[:, :3], right)


def test_save_and_load_round_trip_and_bad_files_are_clear_errors(tmp_path: Path) -> None:
    model = _model({"log_name": 1.5, "back": -0.25}, bias=0.5)
    path = tmp_path / rescorer_file("french")
    model.save(path)
    again = Rescorer.load(path)
    assert again == model and json.loads(path.read_text())["format"] == FORMAT
    with pytest.raises(ModelError, match="not found"):
        Rescorer.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ModelError, match="bad.json"):
        Rescorer.load(bad)
    data = model.to_dict()
    bad.write_text(json.dumps({**data, "format": "other"}))
    with pytest.raises(ModelError, match="not a rescorer"):
        Rescorer.load(bad)
    bad.write_text(json.dumps({**data, "features": data["features"][:-1]}))
    with pytest.raises(ModelError, match="other features"):
        Rescorer.load(bad)
    bad.write_text(json.dumps({**data, "weights": data["weights"][:-1]}))
    with pytest.raises(ModelError, match="not a valid rescorer"):
        Rescorer.load(bad)
    bad.write_text(json.dumps({**data, "scale": [0.0] * len(FEATURES)}))
    with pytest.raises(ModelError, match="not a valid rescorer"):
        Rescorer.load(bad)


def test_the_detector_rescores_only_where_asked_and_a_rescorer_is_there(tmp_path: Path) -> None:
    """``CardDetector(rescorer=True)`` reads the models folder's ``card-rescorer-<family>-photo.json`` as a last step
    ("rescored"); a folder without one reads as before.  The boxes and names are those read without it."""
    import cv2

    from companion.paths import models_dir
    from companion.vision.detector import CardDetector

    for f in models_dir().glob("*.onnx"):
        (tmp_path / f.name).symlink_to(f)
    plain = CardDetector("french", models_dir=tmp_path, rescorer=True)
    assert plain.rescorer is None and "no rescorer read" in plain.missing_models_warning()
    _model({"log_name": 3.0, "log_detector": 1.0}, bias=1.0).save(tmp_path / rescorer_file("french"))
    rescoring = CardDetector("french", models_dir=tmp_path, rescorer=True)
    assert rescoring.rescorer is not None and CardDetector("french", models_dir=tmp_path).rescorer is None
    assert "rescorer" not in (rescoring.missing_models_warning() or "")
    rec = json.loads((FIXTURES / "fixtures.json").read_text())[0]
    image = cv2.imread(str(FIXTURES / rec["image"]))
    stages = rescoring.read_stages(image, *rescoring.find_boxes(image))
    assert stages[-1][0] == "rescored"
    before, after = stages[-2][1], stages[-1][1]
    assert sorted((d.card, d.box) for d in before) == sorted((d.card, d.box) for d in after)
    assert all(0.0 < d.confidence < 1.0 for d in after)
    assert [d.confidence for d in after] == sorted((d.confidence for d in after), reverse=True)
    assert {d.card for d in after} >= {c["card"] for c in rec["cards"]}


def test_photos_of_both_families_read_their_shipped_rescorer() -> None:
    """Rule 182 shipped a rescorer for French photos, fitted on the two spent tune seeds (refitted by rule 184 on their
    reading with lower face floors); rule 186 one for Spanish photos, fitted on theirs with looser drop rules.  The
    table and one-view photo settings are not rescored."""
    from companion.paths import models_dir
    from companion.vision.settings import photo_settings

    for family, seeds in (("french", ["fr6613", "fr6640"]), ("spanish", ["val6661", "val6662"])):
        assert photo_settings(family=family)["rescorer"] is True
        assert photo_settings(family=family, scales=[1.0])["rescorer"] is False
        shipped = Rescorer.load(models_dir() / rescorer_file(family))
        assert shipped.meta["family"] == family and shipped.meta["data"] == seeds
        assert shipped.meta["right"] < shipped.meta["detections"]
        w = dict(zip(FEATURES, shipped.weights))
        # a surely named box is likelier right, one with a surer namesake less (and a French one inside another box)
        assert w["log_name"] > 0 and w["surer_namesake"] < 0, (family, w)
        assert family != "french" or w["held_in"] < 0


def test_rescored_min_drops_only_the_boxes_rescored_under_it(tmp_path: Path) -> None:
    """``rescored_min`` (rule 184): the one step that drops by the rescored probability (French photos: 0.1); a clear
    error outside (0, 1)."""
    import cv2

    from companion.paths import models_dir
    from companion.vision.detector import CardDetector
    from companion.vision.settings import photo_settings

    for f in models_dir().glob("*.onnx"):
        (tmp_path / f.name).symlink_to(f)
    # a model that rescores by the detector's score alone: p = sigmoid(4 * (log score - log 0.5))
    k = len(FEATURES)
    mean = tuple(math.log(0.5) if n == "log_detector" else 0.0 for n in FEATURES)
    Rescorer(mean, (1.0,) * k, tuple(4.0 if n == "log_detector" else 0.0 for n in FEATURES), 0.0).save(
        tmp_path / rescorer_file("french"))
    rec = json.loads((FIXTURES / "fixtures.json").read_text())[0]
    image = cv2.imread(str(FIXTURES / rec["image"]))
    settings = photo_settings(family="french")
    assert settings["rescored_min"] == 0.1 and photo_settings(family="spanish")["rescored_min"] is None
    settings["rescored_min"] = None
    every = CardDetector("french", models_dir=tmp_path, **settings).detect(image)
    cut = max(0.02, min(d.confidence for d in every) + 1e-6)
    kept = CardDetector("french", models_dir=tmp_path, **{**settings, "rescored_min": cut}).detect(image)
    assert [d.box for d in kept] == [d.box for d in every if d.confidence >= cut]
    assert len(kept) < len(every)
    for bad in (0.0, 1.0, -0.5):
        with pytest.raises(ValueError, match="rescored_min"):
            CardDetector("french", models_dir=tmp_path, rescored_min=bad)

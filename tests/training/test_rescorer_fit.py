"""The photo rescorer's fit (``python -m companion.training.rescorer``, rule 182): labels by the mAP rule, the fit, the
file it writes and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.detector import Detection
from companion.vision.rescoring import FEATURES, Rescorer

A, B, C = [10.0, 10.0, 60.0, 80.0], [100.0, 10.0, 150.0, 80.0], [200.0, 10.0, 250.0, 80.0]


def test_labels_follow_the_map_rule() -> None:
    """Right: claims a labelled card of its name at IoU 0.5 (the surer of two boxes on one card claims it); left
    out: lies on an unlabelled card; wrong: anything else (another name, a second box)."""
    from companion.training.rescorer import LEFT_OUT, RIGHT, WRONG, labels

    found = [Detection("AH", 0.9, tuple(A)), Detection("AH", 0.5, tuple(A)), Detection("3C", 0.8, tuple(B)),
             Detection("KS", 0.7, tuple(C))]
    truths = [{"card": "AH", "box": A}, {"card": "2C", "box": B}]
    ignored = [{"card": "KS", "box": C}]
    assert labels(found, truths, ignored).tolist() == [RIGHT, WRONG, WRONG, LEFT_OUT]


class _Reader:
    """A photo reader for the fit: on each scene a right box named surely and a wrong one named weakly (its name
    another card's), the detector equally sure of both."""

    family = "french"

    def __init__(self, *args, **kwargs) -> None:
        pass

    def detect(self, image):
        return [Detection("AH", 0.72, tuple(A), 0.9, 0.8, (("AD", 0.05),)),
                Detection("3C", 0.24, tuple(B), 0.3, 0.8, (("2C", 0.2),))]

    def covered(self, found):
        return np.zeros(len(found), dtype=bool)

    def faint(self, d):
        return False


def _folder(root: Path, n: int) -> Path:
    (root / "scenes").mkdir(parents=True)
    (root / "images").mkdir()
    records = []
    for i in range(n):
        cv2.imwrite(str(root / "images" / f"{i}.jpg"), np.full((100, 300, 3), 90, np.uint8))
        records.append({"image": f"images/{i}.jpg", "cards": [{"card": "AH", "box": A, "labelled": True},
                                                              {"card": "2C", "box": B, "labelled": True}]})
    (root / "scenes" / "val-french.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    return root


def test_the_fit_writes_a_rescorer_that_ranks_the_right_boxes_first(tmp_path, monkeypatch, capsys) -> None:
    import companion.training.rescorer as cli

    monkeypatch.setattr(cli, "CardDetector", _Reader)
    data = _folder(tmp_path / "fr1", 6)
    out = tmp_path / "r.json"
    assert cli.main([str(data), "--out", str(out)]) == 0
    model = Rescorer.load(out)
    assert model.meta["detections"] == 12 and model.meta["right"] == 6 and model.meta["data"] == ["fr1"]
    assert model.meta["command"].startswith("python -m companion.training.rescorer ")
    assert dict(zip(FEATURES, model.weights))["log_name"] > 0
    reader = _Reader()
    found = reader.detect(None)
    rescored = model.rescored(found, [False, False], [False, False])
    assert [d.card for d in rescored] == ["AH", "3C"] and rescored[0].confidence > 0.9 > 0.1 > rescored[1].confidence
    assert "12 detections (6 right)" in capsys.readouterr().out


def test_the_fit_says_why_it_cannot_fit(tmp_path, monkeypatch, capsys) -> None:
    import companion.training.rescorer as cli

    monkeypatch.setattr(cli, "CardDetector", _Reader)
    assert cli.main([str(tmp_path / "missing"), "--out", str(tmp_path / "r.json")]) == 2
    assert "not found" in capsys.readouterr().err
    data = _folder(tmp_path / "fr2", 2)
    (data / "scenes" / "val-french.jsonl").write_text(json.dumps(
        {"image": "images/0.jpg", "cards": [{"card": "AH", "box": A, "labelled": True},
                                            {"card": "3C", "box": B, "labelled": True}]}))
    assert cli.main([str(data), "--out", str(tmp_path / "r.json")]) == 1  # every box right: nothing to tell apart
    assert "right and wrong" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()
    with pytest.raises(SystemExit):
        cli.main([str(data), "--c", "0"])

"""``pipeline --stages detect-<family>`` trains a family's own detector and exports it under the name the companion
reads for that family, without torch: ``_train`` and ``export_onnx`` are replaced by recorders."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.training import train
from companion.vision.detector import DETECTOR_FILE, detector_file


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> dict[str, list]:
    seen: dict[str, list] = {"train": [], "export": []}

    def fake_train(runs, name, blank, init, resume, hours, transfer=False, **settings):
        seen["train"].append({"name": name, "init": init, "hours": hours, **settings})
        return Path(runs) / name / "weights" / "best.pt"

    monkeypatch.setattr(train, "_train", fake_train)
    monkeypatch.setattr(train, "export_onnx", lambda weights, out, imgsz, runs: seen["export"].append((weights, out)))
    return seen


def _pipeline(tmp_path: Path, stage: str) -> int:
    return train.main(["pipeline", "--data", str(tmp_path), "--runs", str(tmp_path / "runs"), "--models",
                       str(tmp_path / "models"), "--stages", stage, "--det-data", str(tmp_path / "spanish.yaml"),
                       "--det-init", "card-detector.pt", "--det-lr0", "0.0005", "--det-hours", "0.5"])


def test_a_family_detector_is_exported_under_its_own_name(recorded: dict[str, list], tmp_path: Path) -> None:
    assert _pipeline(tmp_path, "detect-spanish") == 0
    run = recorded["train"][-1]
    assert run["name"] == "detect-spanish" and run["init"] == "card-detector.pt" and run["hours"] == 0.5
    assert run["data"] == str(tmp_path / "spanish.yaml") and run["lr0"] == 0.0005
    weights, out = recorded["export"][-1]
    assert weights == tmp_path / "runs" / "detect-spanish" / "weights" / "best.pt"
    assert out == tmp_path / "models" / detector_file("spanish") != tmp_path / "models" / DETECTOR_FILE
    # its own DONE mark: the shared detector's stage is not taken for done
    assert (tmp_path / "runs" / "detect-spanish" / "DONE").is_file()
    assert not (tmp_path / "runs" / "detect" / "DONE").exists()


def test_the_shared_detector_keeps_its_name(recorded: dict[str, list], tmp_path: Path) -> None:
    assert _pipeline(tmp_path, "detect") == 0
    assert recorded["train"][-1]["name"] == "detect"
    assert recorded["export"][-1][1] == tmp_path / "models" / DETECTOR_FILE


def test_an_unknown_family_is_refused_before_training(recorded: dict[str, list], tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="detect-french, detect-spanish"):
        _pipeline(tmp_path, "detect-klingon")
    assert recorded["train"] == [] and recorded["export"] == []

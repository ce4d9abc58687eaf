"""Which start ``train outlines`` makes from its ``--init``, without torch: ``_train`` is replaced by a recorder."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from companion.training import train


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    seen: list[dict] = []

    def fake_train(runs, name, blank, init, resume, hours, transfer=False, **settings):
        seen.append({"blank": blank, "init": init, "transfer": transfer, **settings})
        return Path(runs) / name / "weights" / "best.pt"

    monkeypatch.setattr(train, "_train", fake_train)
    monkeypatch.setattr(train, "_checkpoint_task",
                        lambda weights, runs: {"detector.pt": "detect", "outlines.pt": "obb"}[weights])
    return seen


def test_from_the_detector_is_a_transfer_with_a_blank_head(calls: list[dict], tmp_path: Path) -> None:
    train.train_outlines(tmp_path / "data.yaml", tmp_path, init="detector.pt")
    assert calls[-1]["transfer"] is True and calls[-1]["blank"] == "yolo26n-obb.yaml"


def test_from_an_outline_checkpoint_continues_it_whole(calls: list[dict], tmp_path: Path) -> None:
    train.train_outlines(tmp_path / "data.yaml", tmp_path, init="outlines.pt", lr0=0.0003)
    assert calls[-1]["transfer"] is False and calls[-1]["init"] == "outlines.pt" and calls[-1]["lr0"] == 0.0003


def test_from_nothing_starts_blank(calls: list[dict], tmp_path: Path) -> None:
    train.train_outlines(tmp_path / "data.yaml", tmp_path)
    assert calls[-1]["transfer"] is True and calls[-1]["init"] is None


def test_the_command_line_sets_the_training_size(calls: list[dict], tmp_path: Path) -> None:
    """``--imgsz`` reaches ultralytics (rule 141: an outline model trained at 480); 320 when not given."""
    train.main(["outlines", "--data", str(tmp_path / "data.yaml"), "--runs", str(tmp_path), "--init", "outlines.pt",
                "--imgsz", "480"])
    assert calls[-1]["imgsz"] == 480 and calls[-1]["init"] == "outlines.pt"
    train.main(["outlines", "--data", str(tmp_path / "data.yaml"), "--runs", str(tmp_path)])
    assert calls[-1]["imgsz"] == 320


class _RecordingYOLO:
    """Stands in for ``ultralytics.YOLO``: records what each ``train`` call was given."""

    trained: list[dict] = []

    def __init__(self, weights: str) -> None:
        self.weights = weights

    def train(self, **settings) -> None:
        self.trained.append({"weights": self.weights, **settings})


@pytest.fixture
def recording_yolo(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    monkeypatch.setattr(train, "_setup_ultralytics", lambda runs: None)
    monkeypatch.setitem(sys.modules, "ultralytics", types.SimpleNamespace(YOLO=_RecordingYOLO))
    _RecordingYOLO.trained = []
    return _RecordingYOLO.trained


def test_a_resumed_run_gets_the_hours_left_not_its_whole_budget_again(recording_yolo: list[dict],
                                                                      tmp_path: Path) -> None:
    """ultralytics times a resumed run from its restart: ``--hours`` on resume is the budget still left."""
    last = tmp_path / "outlines" / "weights" / "last.pt"
    last.parent.mkdir(parents=True)
    last.touch()
    train.main(["outlines", "--data", str(tmp_path / "data.yaml"), "--runs", str(tmp_path), "--resume",
                "--hours", "0.7"])
    assert recording_yolo[-1] == {"weights": str(last), "resume": True, "time": 0.7}
    train.main(["outlines", "--data", str(tmp_path / "data.yaml"), "--runs", str(tmp_path), "--resume"])
    assert recording_yolo[-1] == {"weights": str(last), "resume": True}


def test_resume_without_a_last_checkpoint_starts_with_the_whole_budget(recording_yolo: list[dict],
                                                                       tmp_path: Path) -> None:
    train.main(["outlines", "--data", str(tmp_path / "data.yaml"), "--runs", str(tmp_path), "--resume",
                "--hours", "1.5"])
    assert recording_yolo[-1]["time"] == 1.5 and recording_yolo[-1]["weights"] == "yolo26n-obb.yaml"
    assert "resume" not in recording_yolo[-1]

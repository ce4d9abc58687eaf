"""Every epoch read by the figure it is for: ``pipeline --save-period`` keeps each epoch's weights, and
bench/epoch_figures.py exports each into a copy of the models and reads it.  Without torch: the training and the
export are replaced by recorders, the reading by a stand-in that reads which weights it was given."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.training import train


@pytest.fixture(scope="module")
def epochs_driver(bench_script):
    return bench_script("epoch_figures")


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    seen: list[dict] = []

    def fake_train(runs, name, blank, init, resume, hours, transfer=False, **settings):
        seen.append({"name": name, **settings})
        return Path(runs) / name / "weights" / "best.pt"

    monkeypatch.setattr(train, "_train", fake_train)
    monkeypatch.setattr(train, "export_onnx", lambda weights, out, imgsz, runs: None)
    return seen


def _pipeline(tmp_path: Path, *extra: str) -> int:
    return train.main(["pipeline", "--data", str(tmp_path), "--runs", str(tmp_path / "runs"), "--models",
                       str(tmp_path / "models"), "--stages", "classify-spanish,corners-spanish", *extra])


def test_each_stage_keeps_every_epoch_only_when_asked(recorded: list[dict], tmp_path: Path) -> None:
    assert _pipeline(tmp_path) == 0
    assert [r["save_period"] for r in recorded] == [-1, -1]  # ultralytics' own: best.pt and last.pt only
    recorded.clear()
    assert _pipeline(tmp_path, "--save-period", "1", "--force") == 0
    assert [(r["name"], r["save_period"]) for r in recorded] == [("classify-spanish", 1), ("corners-spanish", 1)]


def test_epochs_are_read_in_their_order_then_the_last(epochs_driver, tmp_path: Path) -> None:
    for name in ("epoch10.pt", "epoch2.pt", "epoch1.pt", "last.pt", "best.pt", "epochx.pt"):
        (tmp_path / name).write_text(name)
    assert [n for n, _ in epochs_driver.epoch_weights(tmp_path)] == ["epoch1.pt", "epoch2.pt", "epoch10.pt", "last.pt"]
    assert epochs_driver.epoch_weights(tmp_path / "nothing") == []


def test_each_epoch_is_read_with_the_base_models_and_its_own_file(epochs_driver, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture) -> None:
    base, weights = tmp_path / "models", tmp_path / "weights"
    base.mkdir(), weights.mkdir()
    (base / "card-corners-spanish-photo.onnx").write_text("shipped")
    (base / "card-detector.onnx").write_text("detector")
    (base / "checkpoints").mkdir()
    (base / "checkpoints" / "big.pt").write_text("not copied")
    for n in (1, 2):
        (weights / f"epoch{n}.pt").write_text(f"e{n}")
    (weights / "last.pt").write_text("e3")
    # the export writes what the weights hold; the reading's mAP50 is read back from the file it was given
    monkeypatch.setattr(train, "export_onnx",
                        lambda w, out, imgsz, runs: out.write_text(Path(w).read_text()) and out)
    figures = {"shipped": 0.60, "e1": 0.61, "e2": 0.65, "e3": 0.63}
    seen: list[tuple[str, bool, bool]] = []

    def fake_read(models: Path, family: str, data: Path, limit: int | None) -> dict:
        held = (models / "card-corners-spanish-photo.onnx").read_text()
        seen.append((held, (models / "card-detector.onnx").is_file(), (models / "checkpoints").exists()))
        cards = {"named_right": 0.5}
        return {"mAP50": figures[held], "mAP50-95": figures[held] / 2,
                "readings": {"partly_covered": cards, "in_full_view": cards}}

    monkeypatch.setattr(epochs_driver, "read", fake_read)
    assert epochs_driver.main([str(weights), "--file", "card-corners-spanish-photo.onnx", "--imgsz", "64",
                               "--family", "spanish", "--data", str(tmp_path), "--models", str(base)]) == 0
    assert seen == [("shipped", True, True), ("e1", True, False), ("e2", True, False), ("e3", True, False)]
    out = capsys.readouterr().out
    assert "+0.0500" in out and "+0.0300" in out and "epoch2.pt" in out
    assert (base / "card-corners-spanish-photo.onnx").read_text() == "shipped"  # the base is never written


def test_a_file_the_base_does_not_ship_is_refused(epochs_driver, tmp_path: Path) -> None:
    (tmp_path / "last.pt").write_text("x")
    with pytest.raises(SystemExit):
        epochs_driver.main([str(tmp_path), "--file", "card-nothing.onnx", "--imgsz", "64", "--family", "spanish",
                            "--data", str(tmp_path), "--models", str(tmp_path)])


def test_a_folder_with_no_weights_is_a_clear_error(epochs_driver, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "card-corners-spanish-photo.onnx").write_text("shipped")
    with pytest.raises(SystemExit):
        epochs_driver.main([str(tmp_path / "empty"), "--file", "card-corners-spanish-photo.onnx", "--imgsz", "64",
                            "--family", "spanish", "--data", str(tmp_path), "--models", str(tmp_path / "models")])
    assert "no epochN.pt or last.pt" in capsys.readouterr().err

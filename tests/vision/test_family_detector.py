"""A family's own detector (``card-detector-<family>.onnx``) is read for that family's cards where it is shipped,
and the shared ``card-detector.onnx`` everywhere else."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from companion.vision.detector import DETECTOR_FILE, CardDetector, ModelError, detector_file, shipped_detector


def test_the_shared_detector_unless_the_family_ships_its_own(tmp_path: Path) -> None:
    (tmp_path / DETECTOR_FILE).write_bytes(b"shared")
    assert shipped_detector(tmp_path, "spanish") == tmp_path / DETECTOR_FILE
    (tmp_path / detector_file("spanish")).write_bytes(b"own")
    assert shipped_detector(tmp_path, "spanish") == tmp_path / "card-detector-spanish.onnx"
    assert shipped_detector(tmp_path, "french") == tmp_path / DETECTOR_FILE


def test_the_card_detector_loads_its_familys_own_file(models_copy: Path) -> None:
    for family in ("french", "spanish"):
        (models_copy / detector_file(family)).unlink(missing_ok=True)  # the shipped ones, if any
    assert CardDetector("spanish", models_dir=models_copy).det_path == models_copy / DETECTOR_FILE
    # a broken Spanish file is the one the Spanish detector loads, and refuses by name; French reads the shared one
    (models_copy / detector_file("spanish")).write_bytes(b"not an onnx model")
    with pytest.raises(ModelError, match="card-detector-spanish.onnx"):
        CardDetector("spanish", models_dir=models_copy)
    assert CardDetector("french", models_dir=models_copy).det_path == models_copy / DETECTOR_FILE
    # a working one is read in place of the shared detector
    shutil.copy(models_copy / DETECTOR_FILE, models_copy / detector_file("spanish"))
    assert CardDetector("spanish", models_dir=models_copy).det_path == models_copy / "card-detector-spanish.onnx"

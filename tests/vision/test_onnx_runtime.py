"""The sessions every vision model runs in: threads that spin within a run and stop after it (rule 165), the same
outputs as a session that never spins, and clear errors for missing or corrupt weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from companion.paths import models_dir
from companion.vision.detector import corner_file, detector_file
from companion.vision.onnx_runtime import ModelError, session


def _never_spinning(path: Path) -> ort.InferenceSession:
    """Main's sessions before rule 165: two threads that never spin."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


def test_threads_spin_within_a_run_and_stop_after_it():
    s = session(models_dir() / detector_file("french", photo=True), 2)
    opts = s.get_session_options()
    assert opts.intra_op_num_threads == 2
    assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "1"
    assert opts.get_session_config_entry("session.force_spinning_stop") == "1"


@pytest.mark.parametrize("name, shape", [(detector_file("french", photo=True), (1, 3, 192, 320)),
                                         (corner_file("french", photo=True), (8, 3, 64, 64))])
def test_spinning_changes_when_threads_wake_not_what_they_compute(name, shape):
    path = models_dir() / name
    x = np.random.default_rng(165).random(shape, dtype=np.float32)
    spinning, still = session(path, 2), _never_spinning(path)
    feed = {spinning.get_inputs()[0].name: x}
    for _ in range(3):  # runs after the first too: the pool has spun and stopped in between
        assert np.array_equal(spinning.run(None, feed)[0], still.run(None, feed)[0])


def test_missing_and_corrupt_weights_are_clear_errors(tmp_path):
    with pytest.raises(ModelError, match="model file not found"):
        session(tmp_path / "absent.onnx", 2)
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not an onnx model")
    with pytest.raises(ModelError, match="cannot load model"):
        session(bad, 2)

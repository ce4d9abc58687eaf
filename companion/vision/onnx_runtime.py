"""What every ONNX model of the vision stage shares: loading a session, and letterboxing a view for it.

Why a module of its own: the card detector and the outline model (:mod:`companion.vision.outline_model`)
both read a frame letterboxed as ultralytics trained them, through onnxruntime sessions tuned alike for 2 cores.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np


class ModelError(RuntimeError):
    """Weights are missing, unreadable or not the expected model."""


def session(path: Path, threads: int):
    """An onnxruntime CPU session for ``path`` with ``threads`` intra-op threads.  Raises :class:`ModelError`
    when the file is missing or cannot be loaded."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort

    try:
        ort.disable_telemetry_events()
    except AttributeError:
        pass
    if not path.is_file():
        raise ModelError(f"model file not found: {path} (expected the shipped weights in models/, "
                         f"or set COMPANION_MODELS)")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    # About seven runs of six models a frame, one after another, on 2 cores. Within a run the pool's threads spin
    # between its many small operators (waking a sleeping thread for each costs more than the operator); once the
    # run ends they stop at once, or a pool left spinning takes the cores from the next session's run and from
    # OpenCV (no spinning at all: 95-110 ms a one-view frame; spinning left on: 190; spin, then stop: 85; rule 165).
    opts.add_session_config_entry("session.intra_op.allow_spinning", "1")
    opts.add_session_config_entry("session.force_spinning_stop", "1")
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types for corrupt files
        raise ModelError(f"cannot load model {path}: {str(exc).splitlines()[0][:200]}") from None


def letterbox(image: np.ndarray, size: int, stride: int | None = None,
              min_side: int = 0) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping aspect, pad to size x size with grey 114 (as ultralytics does); with ``stride``, pad
    each side only up to the next multiple of it and to at least ``min_side`` (a 1280x720 frame at 320:
    320x192), for a detector exported with a dynamic input: the picture's pixels are the same, the grey
    bands are not computed."""
    h, w = image.shape[:2]
    r = min(size / h, size / w)
    nw, nh = max(1, int(round(w * r))), max(1, int(round(h * r)))  # a sliver of an image keeps a row
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    out_w, out_h = (size, size) if stride is None else (max(-(-nw // stride) * stride, min_side),
                                                         max(-(-nh // stride) * stride, min_side))
    px, py = (out_w - nw) / 2, (out_h - nh) / 2
    top, left = int(round(py - 0.1)), int(round(px - 0.1))
    out = cv2.copyMakeBorder(resized, top, out_h - nh - top, left, out_w - nw - left, cv2.BORDER_CONSTANT,
                             value=(114, 114, 114))
    return out, r, (left, top)

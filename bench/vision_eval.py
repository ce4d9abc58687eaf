"""Card recognition on real photos and its speed: the figures issue 3 reports, side by side.

    python bench/vision_eval.py                     # real photos: all, tune half, test half; 720p latency
    python bench/vision_eval.py --no-outlines       # the same without the outline search
    python bench/vision_eval.py --no-faint          # ... without the faint boxes (before session 16)
    python bench/vision_eval.py --no-rows           # ... without splitting rows of cards (before session 18)
    python bench/vision_eval.py --models DIR        # ... with the ONNX files of DIR (a candidate)
    python bench/vision_eval.py --no-outline-model  # ... turning cards upright by the finders alone
    python bench/vision_eval.py --no-zoom           # ... without the zoomed view for small cards (before session 69)

A thin driver around ``python -m companion.vision.evaluate`` (see its
docstring).  The photo settings (shrunk view, threshold, outline fill, faint boxes, rows) were
chosen on the ``tune`` half of the real photos: the ``test`` half is the
figure that says how they do on photos they were not chosen on.  Needs
``../shared/real-photos`` (development machines only); latency runs anywhere.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys

from companion.vision import evaluate
from companion.vision.crops import QUAD_METHODS
from companion.vision.settings import TABLE_OUTLINE_MODEL

ROWS = [
    ("real photos, all", ["real"]),
    ("real photos, tune half", ["real", "--half", "tune"]),
    ("real photos, test half", ["real", "--half", "test"]),
]


def _run(args: list[str]) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        evaluate.main(args)
    return json.loads(out.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-outlines", action="store_true", help="without the outline search")
    parser.add_argument("--no-faint", action="store_true", help="without the faint boxes")
    parser.add_argument("--no-rows", action="store_true", help="without splitting rows of overlapping cards")
    parser.add_argument("--outline-model", action=argparse.BooleanOptionalAction, default=None,
                        help="with or without the outline model's outlines (default: the photo rows "
                             "PHOTO_OUTLINE_MODEL, the table row TABLE_OUTLINE_MODEL)")
    parser.add_argument("--no-zoom", action="store_true", help="without the zoomed view for small cards")
    parser.add_argument("--frames", type=int, default=40, help="latency: frames timed")
    parser.add_argument("--models", default=None, help="folder of ONNX files (default: the shipped models/)")
    args = parser.parse_args(argv)
    extra = (["--models", args.models] if args.models else []) + (["--no-outlines"] if args.no_outlines else []) \
        + (["--faint-conf", "0"] if args.no_faint else []) \
        + (["--no-rows"] if args.no_rows else []) + (["--zoom", "0"] if args.no_zoom else []) \
        + ([] if args.outline_model is None else ["--outline-model" if args.outline_model else "--no-outline-model"])
    print(f"{'':26} {'cards':>6} {'right rank':>11} {'boxed':>6} {'false/img':>9} {'ms/photo':>9}")
    for label, cmd in ROWS:
        result = _run(cmd + extra)
        real = result.get("real")
        if real is None:
            print(f"{label:26} (not run: no real photos here)")
            continue
        print(f"{label:26} {real['labelled_cards']:>6} {real['share_right_rank']:>11.1%} "
              f"{real['share_boxed_any_rank']:>6.1%} {real['false_detections_per_image']:>9.3f} "
              f"{real['mean_ms_per_photo']:>9.1f}")
    latencies = (("latency, photo settings", ["latency"]),
                 # the table's: one view, boxes down to the tracker's weak threshold, outlines, one corner window,
                 # its own corner model and classifier, no bands, the frame padded only to the detector's stride,
                 # each card's outline from the outline model (TABLE_OUTLINE_MODEL), else found paper first
                 # (crops.QUAD_METHODS), and no zoomed view
                 ("latency, table settings", ["latency", "--scales", "1", "--conf", "0.15", "--outlines", "--one-window",
                                              "--zoom", "0",
                                              "--table-corners", "--table-classifier", "--table-detector", "--no-square",
                                              "--band-weight", "0", "--quad", ",".join(QUAD_METHODS),
                                              "--outline-model" if TABLE_OUTLINE_MODEL else "--no-outline-model"]))
    for label, cmd in latencies:
        lat = _run(cmd + ["--frames", str(args.frames)] + extra)["latency"]
        print(f"{label:26} {lat['median_ms']:>6.1f} ms a {lat['frame']} ({lat['fps']:.1f} fps; medians: decode "
              f"{lat['decode_ms']:.1f}, boxes {lat['detector_ms']:.1f}, naming {lat['classifier_ms']:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

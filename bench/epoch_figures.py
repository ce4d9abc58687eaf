"""Each saved epoch of a training run, read by the synthetic figure it is meant to raise.

Why: sessions 76-77 continued three photo models (P3, C3, P4) whose own validation top-1 (crops or corner windows
of one seed) rose by 0.01-0.02 while Spanish synthetic mAP50 did not, or fell; the epoch a stage keeps (best or
last by that top-1) says little about the figure.  Train with ``--save-period 1`` (weights/epochN.pt every epoch),
then read each epoch here on a tune seed of its own, and judge the one chosen on fresh seeds as before.

    python -m companion.training.train pipeline ... --save-period 1
    python bench/epoch_figures.py RUNS/corners-spanish/weights --file card-corners-spanish-photo.onnx --imgsz 64 \\
        --family spanish --data TUNE_DIR [--models BASE] [--limit 100] [--out DIR]

Each epoch's weights are exported into a copy of ``--models`` (default: the shipped ``models/``) with ``--file``
replaced, and read with the photo settings (``companion.vision.evaluate.evaluate_synthetic``).  The base (the
models as they are) is read first, so every row has its difference.  Needs the ``train`` extra (the export).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from companion.paths import models_dir
from companion.vision.detector import FAMILIES, CardDetector
from companion.vision.evaluate import evaluate_synthetic
from companion.vision.settings import photo_settings


def epoch_weights(folder: Path) -> list[tuple[str, Path]]:
    """The run's epochN.pt in epoch order, then last.pt (the epoch a time limit cut short has only that).  Named by
    their files: ultralytics counts them from 0 (epoch0.pt is results.csv's epoch 1)."""
    found = []
    for path in folder.glob("epoch*.pt"):
        if m := re.fullmatch(r"epoch(\d+)\.pt", path.name):
            found.append((int(m.group(1)), path))
    rows = [(p.name, p) for _, p in sorted(found)]
    if (folder / "last.pt").is_file():
        rows.append(("last.pt", folder / "last.pt"))
    return rows


def read(models: Path, family: str, data: Path, limit: int | None) -> dict:
    detector = CardDetector(family, models_dir=models, **photo_settings(family=family))
    return evaluate_synthetic(detector, data, limit)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("weights", type=Path, help="a run's weights folder (epochN.pt from --save-period, last.pt)")
    p.add_argument("--file", required=True,
                   help="the ONNX file each epoch replaces, e.g. card-corners-spanish-photo.onnx")
    p.add_argument("--imgsz", type=int, required=True, help="the export size (96 classifier, 64 corners)")
    p.add_argument("--family", choices=FAMILIES, required=True)
    p.add_argument("--data", type=Path, required=True, help="a validation folder (companion dataset build --split val)")
    p.add_argument("--models", type=Path, default=None, help="the base models (default: the shipped models/)")
    p.add_argument("--limit", type=int, default=None, help="read only the first N scenes")
    p.add_argument("--out", type=Path, default=None, help="keep each epoch's models folder here (default: not kept)")
    args = p.parse_args(argv)
    base = args.models or models_dir()
    if not (base / args.file).is_file():
        p.error(f"{base / args.file} not found: --file names a model the base folder ships")
    rows = epoch_weights(args.weights)
    if not rows:
        p.error(f"no epochN.pt or last.pt in {args.weights} (train with --save-period 1)")
    from companion.training.train import export_onnx  # the train extra: torch and ultralytics

    console = Console()
    table = Table(title=f"{args.family} synthetic, photo settings, {args.data}")
    for col in ("weights", "mAP50", "mAP50-95", "d mAP50", "covered named right", "full view named right"):
        table.add_column(col, justify="right" if col != "weights" else "left")
    first = read(base, args.family, args.data, args.limit)

    def add(name: str, r: dict) -> None:
        cov, full = r["readings"].get("partly_covered", {}), r["readings"].get("in_full_view", {})
        table.add_row(name, f"{r['mAP50']:.4f}", f"{r['mAP50-95']:.4f}", f"{r['mAP50'] - first['mAP50']:+.4f}",
                      f"{cov.get('named_right', float('nan')):.3f}", f"{full.get('named_right', float('nan')):.3f}")

    add("base", first)
    with tempfile.TemporaryDirectory() as tmp:
        for name, weights in rows:
            folder = (args.out if args.out else Path(tmp)) / Path(name).stem
            folder.mkdir(parents=True, exist_ok=True)
            for onnx in base.glob("*.onnx"):  # what the detector reads; not the checkpoints (140 MB)
                shutil.copy2(onnx, folder / onnx.name)
            export_onnx(weights, folder / args.file, args.imgsz, Path(tmp) / "runs")
            add(name, read(folder, args.family, args.data, args.limit))
            if not args.out:
                shutil.rmtree(folder)
            console.print(f"read {name}", style="dim")
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

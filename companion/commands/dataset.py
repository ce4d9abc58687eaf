"""``companion dataset``: build synthetic training data (see datasets/README.md)."""

from __future__ import annotations

import argparse
import sys
import time


def _build(args: argparse.Namespace) -> int:
    from companion.synth.art import ArtError
    from companion.synth.build import build_crops, build_dataset, write_combined_yaml

    t0 = time.time()
    try:
        for split in args.split:
            n = args.n if split == "train" else (args.n_val if args.n_val is not None else max(1, args.n // 8))
            if n > 0:
                build_dataset(args.family, n, args.out, split=split, seed=args.seed, workers=args.workers)
                print(f"{args.family} {split}: {n} scenes -> {args.out}", flush=True)
            if args.crops and split == "train":
                from pathlib import Path

                count = build_crops(args.family, args.crops, Path(args.out) / "cls", split=split, seed=args.seed,
                                    workers=args.workers)
                print(f"{args.family} {split}: {count} extra classifier crops from {args.crops} small scenes")
    except ArtError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.combine:
        print(f"wrote {write_combined_yaml(args.combine)}")
    print(f"done in {time.time() - t0:.0f}s")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("dataset", help="build synthetic card datasets (YOLO format)")
    sub = p.add_subparsers(dest="dataset_command", required=True)
    b = sub.add_parser("build", help="render table scenes with labels")
    b.add_argument("--family", choices=("french", "spanish"), required=True)
    b.add_argument("--n", type=int, required=True, help="training scenes to render")
    b.add_argument("--n-val", type=int, default=None, help="validation scenes (default n/8; held-back designs)")
    b.add_argument("--out", required=True, help="output folder, e.g. /work/data/french")
    b.add_argument("--split", nargs="+", default=["train", "val"], choices=("train", "val"))
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--workers", type=int, default=1)
    b.add_argument("--crops", type=int, default=0, metavar="N",
                   help="also render N small close-up scenes for extra classifier crops (cheaper per crop)")
    b.add_argument("--combine", metavar="ROOT", default=None,
                   help="also write ROOT/det.yaml joining ROOT/french and ROOT/spanish for the detector")
    b.set_defaults(func=_build)

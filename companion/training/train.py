"""Train the card models from scratch on CPU, resumably, and export them to ONNX.

Stages (run one at a time; ``pipeline`` chains them and skips finished ones):

- ``detect``: a YOLO26n detector with two classes (0 card face up, 1 back),
  whole-card boxes, family-agnostic, at imgsz 320; ``detect-<family>`` the same
  continued on one family's scenes (``--det-data``), exported as that family's own
  detector (``card-detector-<family>.onnx``, read for its cards in place of the shared one);
- ``classify``: a YOLO26n-cls classifier per family on 96x96 squashed crops of
  face-up cards (52 French / 48 Spanish classes);
- ``corners``: a second classifier per family on the two index corners of the
  same crops (64x64, see :func:`companion.vision.crops.corner_views`), started
  from the whole-card classifier's weights; the detector averages both readings;
- ``export``: best weights -> ONNX in ``models/`` (what the companion runs).

Every stage writes ultralytics' ``last.pt``/``best.pt`` and ``results.csv``
under ``--runs`` (outside the repository); ``--resume`` continues a stage from
its ``last.pt`` after the session or the machine died.  torch and ultralytics
are imported lazily: they come with the ``train`` extra only.

    python -m companion.training.train pipeline --data /work/data --runs /work/train-runs
    python -m companion.training.train pipeline --data /work/data --runs /work/train-runs --resume
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from companion.paths import models_dir
# the names the companion loads
from companion.vision.detector import DETECTOR_FILE, FAMILIES, classifier_file, corner_file, detector_file


def _setup_ultralytics(runs: Path) -> None:
    """Offline, quiet, both cores (see shared/notes/training-on-cpu.md)."""
    cfg = runs / "ultralytics-config"
    font_dir = cfg / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "0")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(cfg))
    font = font_dir / "Arial.ttf"
    if not font.exists():
        try:
            import matplotlib

            src = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
            shutil.copy(src, font)
        except Exception:  # no matplotlib: ultralytics only uses the font for plots
            pass
    import ultralytics.utils.torch_utils as tu

    tu.NUM_THREADS = int(os.environ.get("TRAIN_THREADS", "2"))
    import torch

    torch.set_num_threads(tu.NUM_THREADS)


def _log(runs: Path, msg: str) -> None:
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {msg}"
    print(line, flush=True)
    with open(runs / "pipeline.log", "a") as f:
        f.write(line + "\n")


def _checkpoint_task(weights: str, runs: Path) -> str:
    """The task ultralytics records in a checkpoint ("detect", "obb", "classify")."""
    _setup_ultralytics(runs)
    from ultralytics import YOLO

    return YOLO(weights).task


def _train(runs: Path, name: str, blank: str, init: str | None, resume: bool, hours: float | None,
           transfer: bool = False, **settings) -> Path:
    """Continue ``runs/name`` from its last.pt (``resume``), or start it from ``init`` or from ``blank``.

    ``init`` is an earlier checkpoint of ours to keep learning from with a fresh
    schedule (nothing pretrained can be downloaded here); ``hours`` is ultralytics'
    ``time``: the stage stops after that budget with its LR schedule fitted to it (on resume, the budget left).
    With ``transfer`` the model is ``blank``'s (another task's head) and only the tensors of ``init`` that fit
    it are carried over; its new head is blank, so it warms up.
    """
    _setup_ultralytics(runs)
    from ultralytics import YOLO

    last = runs / name / "weights" / "last.pt"
    extra = {"time": hours} if hours else {}
    if resume and last.exists():
        # ultralytics times a resumed run from its restart, and without ``time`` it would grant the checkpoint's
        # whole budget again: on resume ``hours`` is what is left of it.
        YOLO(str(last)).train(resume=True, **extra)
    else:
        if transfer:
            model, pretrained, warmup = YOLO(blank), init or False, 1.0
        else:
            # pretrained False would reset the weights of ``init``. A warm-up (bias LR 0.1) wrecks a trained
            # checkpoint: measured, the first epoch of a continuation fell from mAP50 0.81 to 0.59. Only a blank
            # start needs one.
            model, pretrained, warmup = YOLO(init or blank), bool(init), 0.0 if init else 1.0
        model.train(workers=0, device="cpu", project=str(runs), name=name, exist_ok=True, cache="ram",
                    pretrained=pretrained, patience=100, plots=False, amp=False, verbose=True, seed=0,
                    warmup_epochs=warmup, **extra, **settings)
    return runs / name / "weights" / "best.pt"


def train_detector(data_yaml: Path, runs: Path, name: str = "detect", epochs: int = 30, imgsz: int = 320,
                   batch: int = 16, resume: bool = False, hours: float | None = None,
                   init: str | None = None, lr0: float | None = None, save_period: int = -1) -> Path:
    # lr0 None: ultralytics' "auto" optimizer choice; a number forces AdamW at that rate (continuations).
    tuned = {"optimizer": "AdamW", "lr0": lr0} if lr0 else {}
    return _train(runs, name, "yolo26n.yaml", init, resume, hours, **tuned, data=str(data_yaml), epochs=epochs, imgsz=imgsz,
                  save_period=save_period,
                  batch=batch, close_mosaic=max(1, epochs // 5), degrees=10.0, fliplr=0.5, scale=0.5, mosaic=1.0)


def train_classifier(data_dir: Path, runs: Path, name: str, epochs: int = 20, imgsz: int = 96,
                     batch: int = 64, resume: bool = False, hours: float | None = None,
                     init: str | None = None, lr0: float = 0.002, save_period: int = -1) -> Path:
    # No flips: mirrored indices are not cards. Mild crop scale: the index must stay in view.
    # lr0: "auto" picks 0.0002 for 52 classes, far too slow from scratch in a short budget.
    # save_period N: ultralytics keeps weights/epochN.pt every N epochs (-1: best.pt and last.pt only), so that a
    # continuation can be chosen by the figure it is for (bench/epoch_figures.py), not by its own validation top-1
    return _train(runs, name, "yolo26n-cls.yaml", init, resume, hours, save_period=save_period, data=str(data_dir),
                  epochs=epochs, imgsz=imgsz, batch=batch, fliplr=0.0, scale=0.25, erasing=0.2, optimizer="AdamW",
                  lr0=lr0)


def train_outlines(data_yaml: Path, runs: Path, name: str = "outlines", epochs: int = 30, imgsz: int = 320,
                   batch: int = 16, resume: bool = False, hours: float | None = None,
                   init: str | None = None, lr0: float = 0.001) -> Path:
    """The outline model (session 54): a YOLO26n OBB model of every card's whole rotated rectangle, covered
    cards too (``companion dataset outlines``). ``init`` is the card detector's checkpoint: its backbone and
    neck carry over (708 of 792 tensors), the OBB head starts blank and warms up. ``init`` an outline
    checkpoint already (a continuation) carries over whole, with no warm-up: session 55's continuation, made
    as a transfer, fell from mAP50 0.905 to 0.894 in its warm-up epoch."""
    transfer = init is None or _checkpoint_task(init, runs) != "obb"
    return _train(runs, name, "yolo26n-obb.yaml", init, resume, hours, transfer=transfer, data=str(data_yaml),
                  epochs=epochs, imgsz=imgsz, batch=batch, optimizer="AdamW", lr0=lr0, degrees=10.0, fliplr=0.5,
                  scale=0.5, mosaic=1.0, close_mosaic=2)


def export_onnx(weights: Path, out: Path, imgsz: int, runs: Path) -> Path:
    """Export ``weights`` to ONNX at ``out`` (end-to-end YOLO26 head, no NMS needed: the detector's boxes, the
    outline model's rotated boxes)."""
    _setup_ultralytics(runs)
    from ultralytics import YOLO

    model = YOLO(str(weights))
    # dynamic: a classifier names every card of a frame in one call; the detector reads a frame letterboxed to
    # its own shape (320x192 for 720p, not 320x320: the same pixels, about 5 ms a frame less, session 45)
    kwargs = {"format": "onnx", "imgsz": imgsz, "simplify": True, "dynamic": True}
    if model.task in ("detect", "obb"):
        kwargs["nms"] = False  # ultralytics' switch for the end-to-end head (its one-to-one branch, top-k, no NMS)
    path = Path(model.export(**kwargs))  # ultralytics writes it beside the weights
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(path, out)  # moved, so that no stray copy is left beside a committed checkpoint
    return out


def add_class(weights: Path, out: Path, name: str, runs: Path) -> Path:
    """A classifier checkpoint with one output more, ``name``, after its others (whose rows are kept as they are).

    Why by hand: given a dataset with one class more, ultralytics draws the whole last layer afresh and the
    checkpoint's reading is lost.  The new row starts at the mean of the others' weights and a bias 3 below
    their mean, so the model reads as before until it learns the class (session 40: the corner model's
    ``hidden``, which sorts after ``back`` and so is last in a class folder's order too).
    """
    _setup_ultralytics(runs)
    import torch

    ckpt = torch.load(str(weights), map_location="cpu", weights_only=False)
    model = ckpt["model"]
    old = model.model[-1].linear
    if name in model.names.values():
        raise ValueError(f"{weights} already has a class {name!r}")
    new = torch.nn.Linear(old.in_features, old.out_features + 1).to(old.weight.dtype)
    with torch.no_grad():
        new.weight[:-1] = old.weight
        new.bias[:-1] = old.bias
        new.weight[-1] = old.weight.mean(0)
        new.bias[-1] = old.bias.mean() - 3.0
    model.model[-1].linear = new
    model.names = {**model.names, old.out_features: name}
    model.yaml["nc"] = old.out_features + 1
    for key in ("optimizer", "ema", "updates", "scaler", "best_fitness", "train_metrics", "train_results"):
        ckpt[key] = None
    ckpt["epoch"] = -1
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(ckpt, str(out))
    return out


def _done(runs: Path, name: str) -> bool:
    return (runs / name / "DONE").exists()


def _mark_done(runs: Path, name: str, info: dict) -> None:
    (runs / name).mkdir(parents=True, exist_ok=True)
    (runs / name / "DONE").write_text(json.dumps(info) + "\n")


def pipeline(args: argparse.Namespace) -> int:
    runs, data = Path(args.runs), Path(args.data)
    runs.mkdir(parents=True, exist_ok=True)
    models = Path(args.models) if args.models else models_dir()
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    for stage in stages:
        if _done(runs, stage) and not args.force:
            _log(runs, f"{stage}: already done, skipping")
            continue
        _log(runs, f"{stage}: start (resume={args.resume})")
        t0 = time.time()
        if stage == "detect" or stage.startswith("detect-"):
            # detect-<family>: that family's own detector (--det-data its scenes alone), exported under its name
            family = stage.split("-", 1)[1] if "-" in stage else None
            if family is not None and family not in FAMILIES:
                raise SystemExit(f"unknown stage {stage}: a family detector is one of "
                                 f"detect-{', detect-'.join(FAMILIES)}")
            best = train_detector(Path(args.det_data) if args.det_data else data / "det.yaml", runs, stage, args.det_epochs, args.det_imgsz,
                                  resume=args.resume, hours=args.det_hours, init=args.det_init, lr0=args.det_lr0,
                                  save_period=args.save_period)
            export_onnx(best, models / (detector_file(family) if family else DETECTOR_FILE), args.det_imgsz, runs)
        elif stage.startswith("classify-"):
            family = stage.split("-", 1)[1]
            hours = args.cls_hours.get(family) if args.cls_hours else None
            init = args.cls_init.get(family) if args.cls_init else None
            best = train_classifier(data / family / args.cls_dir, runs, stage, args.cls_epochs, args.cls_imgsz,
                                    resume=args.resume, hours=hours, init=init, lr0=args.cls_lr0,
                                    save_period=args.save_period)
            export_onnx(best, models / classifier_file(family), args.cls_imgsz, runs)
        elif stage.startswith("corners-"):
            family = stage.split("-", 1)[1]
            init = args.corner_init.get(family) if args.corner_init else None
            best = train_classifier(data / family / args.corner_dir, runs, stage, args.cls_epochs, args.corner_imgsz,
                                    resume=args.resume, hours=args.corner_hours, init=init, lr0=args.cls_lr0,
                                    save_period=args.save_period)
            export_onnx(best, models / corner_file(family), args.corner_imgsz, runs)
        else:
            raise SystemExit(f"unknown stage {stage}")
        _mark_done(runs, stage, {"seconds": round(time.time() - t0)})
        _log(runs, f"{stage}: done in {time.time() - t0:.0f}s, exported to {models}")
    return 0


def _family_hours(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in (part.split("=") for part in text.split(",") if part)}


def _family_paths(text: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in text.split(",") if part)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m companion.training.train", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("pipeline", help="detect, then classify-french, then classify-spanish (resumable)")
    pp.add_argument("--data", required=True, help="dataset root: det.yaml, french/cls, spanish/cls")
    pp.add_argument("--runs", default="/work/train-runs")
    pp.add_argument("--models", default=None, help="where to export ONNX (default: the repo's models/)")
    pp.add_argument("--stages", default="classify-french,classify-spanish,detect")
    pp.add_argument("--det-epochs", type=int, default=30)
    pp.add_argument("--det-imgsz", type=int, default=320)
    pp.add_argument("--cls-epochs", type=int, default=20)
    pp.add_argument("--cls-imgsz", type=int, default=96)
    pp.add_argument("--det-hours", type=float, default=None,
                    help="wall-clock budget of the detector stage (ultralytics `time`; fits the LR schedule to it)")
    pp.add_argument("--det-data", default=None, help="detector dataset yaml (default DATA/det.yaml)")
    pp.add_argument("--det-init", default=None, help="start the detector from this checkpoint of ours")
    pp.add_argument("--cls-dir", default="cls",
                    help="classifier crops folder inside DATA/<family>/ (e.g. cls-v2 written by `dataset recrop`)")
    pp.add_argument("--cls-hours", type=_family_hours, default=None,
                    help="classifier budgets, e.g. french=0.5,spanish=0.15")
    pp.add_argument("--cls-init", type=_family_paths, default=None,
                    help="start classifiers from checkpoints of ours, e.g. french=models/checkpoints/card-classifier-french.pt")
    pp.add_argument("--corner-dir", default="corners",
                    help="corner images folder inside DATA/<family>/ (written by `companion dataset corners`)")
    pp.add_argument("--corner-imgsz", type=int, default=64)
    pp.add_argument("--corner-hours", type=float, default=None, help="wall-clock budget of a corners stage")
    pp.add_argument("--save-period", type=int, default=-1,
                    help="keep the weights of every Nth epoch (weights/epochN.pt; -1: best.pt and last.pt only), to "
                         "read each epoch's figure with bench/epoch_figures.py")
    pp.add_argument("--corner-init", type=_family_paths, default=None,
                    help="start corner classifiers from these checkpoints, e.g. french=models/checkpoints/card-classifier-french.pt")
    pp.add_argument("--det-lr0", type=float, default=None,
                    help="detector AdamW learning rate (default: ultralytics' auto choice); lower to continue a checkpoint")
    pp.add_argument("--cls-lr0", type=float, default=0.002,
                    help="classifier AdamW learning rate; lower (e.g. 0.0005) to continue a checkpoint")
    pp.add_argument("--resume", action="store_true", help="continue each unfinished stage from its last.pt")
    pp.add_argument("--force", action="store_true", help="rerun stages marked DONE")
    pp.set_defaults(func=pipeline)
    pe = sub.add_parser("export", help="export a checkpoint to ONNX")
    pe.add_argument("weights")
    pe.add_argument("out")
    pe.add_argument("--imgsz", type=int, required=True)
    pe.add_argument("--runs", default="/work/train-runs")
    pe.set_defaults(func=lambda a: (export_onnx(Path(a.weights), Path(a.out), a.imgsz, Path(a.runs)), 0)[1])
    po = sub.add_parser("outlines", help="train the outline model (every card's rotated rectangle; resumable)")
    po.add_argument("--data", required=True, help="data.yaml written by `companion dataset outlines`")
    po.add_argument("--runs", default="/work/train-runs")
    po.add_argument("--hours", type=float, default=None,
                    help="wall-clock budget (ultralytics `time`); with --resume, the part of it still left")
    po.add_argument("--epochs", type=int, default=30)
    po.add_argument("--init", default=None, help="start from this checkpoint (e.g. models/checkpoints/card-detector.pt)")
    po.add_argument("--lr0", type=float, default=0.001)
    po.add_argument("--imgsz", type=int, default=320,
                    help="training size (export at the same size: the reading takes it from the export's metadata)")
    po.add_argument("--resume", action="store_true", help="continue RUNS/outlines from its last.pt")
    po.set_defaults(func=lambda a: (train_outlines(Path(a.data), Path(a.runs), epochs=a.epochs, imgsz=a.imgsz,
                                                   hours=a.hours, init=a.init, lr0=a.lr0, resume=a.resume), 0)[1])
    pa = sub.add_parser("add-class", help="a classifier checkpoint with one class more, after its others")
    pa.add_argument("weights")
    pa.add_argument("out")
    pa.add_argument("--name", required=True, help="the new class, e.g. hidden (it must sort after the others)")
    pa.add_argument("--runs", default="/work/train-runs")
    pa.set_defaults(func=lambda a: (add_class(Path(a.weights), Path(a.out), a.name, Path(a.runs)), 0)[1])
    args = p.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())

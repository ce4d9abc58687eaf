"""Table figures over many seeds at once, on both cores: the "where it stands" table of README.md.

    python bench/table_seeds.py --seeds 0-17 30-33 --out /work/eval/all          # record, replay, sum up
    python bench/table_seeds.py --seeds 0-17 30-33 --out /work/eval/all --report # sum up what is there
    python bench/table_seeds.py --seeds 0-17 --out /work/eval/all --quad paper,table  # the same renders
                                                   # read again without the card's sides as an outline finder
    python bench/table_seeds.py --seeds 0-17 --out /work/eval/all --models /work/cand  # ... with other weights
    python bench/table_seeds.py --seeds 0-17 --out /work/eval/all --no-outline-model  # ... outlines by the finders
    python bench/table_seeds.py --seeds 408-415 --out /work/eval/arg --variants argentino  # Argentine sessions only

For each seed, in its own folder ``OUT/seed-N`` (so that two jobs never write one
folder): ``python -m companion.table.evaluate --mode video`` renders the seed's
sessions and records their detection streams (``OUT/seed-N/streams``), then the
same streams are replayed with a table that answers after ``--answer`` seconds.
A seed whose streams are there already is only replayed, so a run that was
stopped goes on where it was, and a tracker change is measured on every seed in
minutes.  ``--jobs`` seeds run at once (default 2: about 2.5 minutes a seed of
60 hands for each of the two cores here).  Then it prints hands scored right per
seed with and without answers, and the totals by deck and by camera and what the
hands scored wrong were lost to, from the runs' own ``sessions-*.json`` files
(``companion.table.evaluate.summarise``).

Why a driver: the figures are sums over 22 seeds and 1,320 hands, measured anew on
every machine (nothing of a session's working folders survives it), and a
session that rendered them by hand once left two workers rendering one folder.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from companion.table.evaluate import summarise

TAGS = {"video": "nobody answers", "video-answered": "answers"}


def parse_seeds(parts: list[str]) -> list[int]:
    """``["0-3", "30"]`` -> ``[0, 1, 2, 3, 30]`` (each seed once, in the order given)."""
    seeds: list[int] = []
    for part in parts:
        for piece in part.split(","):
            if not piece:
                continue
            lo, _, hi = piece.partition("-")
            try:
                first, last = int(lo), int(hi or lo)
            except ValueError:
                raise ValueError(f"not a seed or a range of seeds: {piece!r}") from None
            if last < first:
                raise ValueError(f"empty range of seeds: {piece!r}")
            seeds.extend(s for s in range(first, last + 1) if s not in seeds)
    return seeds


def reading_name(quad: str | None = None, models: Path | None = None,
                 outline_model: bool | None = None) -> str | None:
    """The name of a reading other than the shipped one: ``quad-paper-table-edges`` (other outline finders),
    ``models-NAME`` (the weights in folder NAME), ``outline-model`` / ``no-outline-model`` (the outline model's
    outlines first, or the finders' alone, whatever the table does), those given joined; None for the shipped
    code and weights."""
    parts = (["quad-" + quad.replace(",", "-")] if quad else []) + ([f"models-{Path(models).name}"] if models else [])
    if outline_model is not None:
        parts.append("outline-model" if outline_model else "no-outline-model")
    return "-".join(parts) or None


def seed_folder(out: Path, seed: int, quad: str | None = None, models: Path | None = None,
                outline_model: bool | None = None) -> Path:
    """Where one seed's runs write: ``OUT/seed-N``, or for another reading of the same renders
    (:func:`reading_name`) ``OUT/seed-N/quad-paper-table-edges``, say, beside the shipped code's runs."""
    folder = out / f"seed-{seed}"
    name = reading_name(quad, models, outline_model)
    return folder / name if name else folder


def seed_commands(seed: int, out: Path, hands: int, answer: float, quad: str | None = None,
                  models: Path | None = None, outline_model: bool | None = None,
                  variants: str | None = None) -> list[list[str]]:
    """The two evaluation runs of one seed: record (or replay) its streams, then replay them with answers.
    ``variants``: the evaluation's ``--variants`` (e.g. ``argentino``, to judge a change that only Spanish
    sessions see on more of them); None for its default mix."""
    folder = seed_folder(out, seed, quad, models, outline_model)
    base = [sys.executable, "-m", "companion.table.evaluate", "--hands", str(hands), "--mode", "video",
            "--seed", str(seed), "--out", str(folder), "--detections", str(folder / "streams")]
    base += ["--variants", variants] if variants else []
    base += ["--quad", quad] if quad else []
    base += [] if outline_model is None else ["--outline-model" if outline_model else "--no-outline-model"]
    return [base, base + ["--answer", str(answer)]]


def check_variants(out: Path, seed: int, variants: str | None) -> None:
    """A seed's renders are of one mix of variants: the first run writes it (``OUT/seed-N/variants``), and a later
    run that asks for another mix is refused (ValueError) rather than mixing two seeds' sessions in one sum."""
    folder = out / f"seed-{seed}"
    mark, renders = folder / "variants", folder / "sessions"
    wanted = variants or "default"
    if mark.is_file():
        had = mark.read_text(encoding="utf-8").strip()
    elif renders.is_dir() and any(renders.iterdir()):
        had = "default"  # rendered before the driver wrote the mark, when it had no --variants
    else:
        folder.mkdir(parents=True, exist_ok=True)
        mark.write_text(wanted + "\n", encoding="utf-8")
        return
    if had != wanted:
        raise ValueError(f"seed {seed}: {out} holds renders of variants {had!r}, not {wanted!r}: use another --out")


def run_seed(seed: int, out: Path, hands: int, answer: float, quad: str | None = None,
             models: Path | None = None, outline_model: bool | None = None, variants: str | None = None) -> float:
    """Run one seed's two evaluations, their output in its folder's ``log.txt``; seconds spent.
    With ``quad``, ``models`` (weights read from that folder, ``COMPANION_MODELS``) or ``outline_model`` the seed's renders
    (``OUT/seed-N/sessions``) are shared, not rendered again.
    Raises RuntimeError with the log's last line when a run fails."""
    folder = seed_folder(out, seed, quad, models, outline_model)
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, COMPANION_MODELS=str(Path(models).resolve())) if models else None
    if reading_name(quad, models, outline_model) and not (folder / "sessions").exists():
        (out / f"seed-{seed}" / "sessions").mkdir(exist_ok=True)
        (folder / "sessions").symlink_to(Path("..") / "sessions", target_is_directory=True)
    start = time.monotonic()
    with open(folder / "log.txt", "a", encoding="utf-8") as log:
        for cmd in seed_commands(seed, out, hands, answer, quad, models, outline_model, variants):
            log.write("$ " + " ".join(cmd[1:]) + "\n")
            log.flush()
            if subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env).returncode != 0:
                lines = (folder / "log.txt").read_text(encoding="utf-8").strip().splitlines()
                raise RuntimeError(f"seed {seed}: {lines[-1] if lines else 'failed'} (see {folder / 'log.txt'})")
    return time.monotonic() - start


def collect(out: Path, seeds: list[int], quad: str | None = None, models: Path | None = None,
            outline_model: bool | None = None) -> dict[str, dict[int, list[dict[str, Any]]]]:
    """Every seed's session rows (``sessions-<tag>.json``) for each tag of ``TAGS`` found under ``out``."""
    found: dict[str, dict[int, list[dict[str, Any]]]] = {tag: {} for tag in TAGS}
    for seed in seeds:
        for tag in TAGS:
            path = seed_folder(out, seed, quad, models, outline_model) / f"sessions-{tag}.json"
            if path.is_file():
                found[tag][seed] = json.loads(path.read_text(encoding="utf-8"))
    return found


def report(out: Path, seeds: list[int], console: Console, quad: str | None = None,
           models: Path | None = None, outline_model: bool | None = None) -> dict[str, Any]:
    """Print hands scored right per seed and in total (and by deck and camera, and what the others were lost
    to: ``companion.table.evaluate.loss_cause``); returns the totals."""
    found = collect(out, seeds, quad, models, outline_model)
    name = reading_name(quad, models, outline_model)
    table = Table(title=f"hands scored right ({out}{', ' + name if name else ''})")
    table.add_column("seed", justify="right")
    table.add_column("hands", justify="right")
    for label in TAGS.values():
        table.add_column(label, justify="right")
    totals: dict[str, Any] = {}
    for seed in seeds:
        cells = [found[tag].get(seed) for tag in TAGS]
        if not any(cells):
            continue
        hands = next(sum(r["hands"] for r in rows) for rows in cells if rows)
        table.add_row(str(seed), str(hands), *("-" if rows is None else str(sum(r["scored"] for r in rows))
                                               for rows in cells))
    for tag, label in TAGS.items():
        rows = [r for seed in seeds for r in found[tag].get(seed, [])]
        if not rows:
            continue
        summary = summarise(rows, "video")
        scored = sum(r["scored"] for r in rows)
        totals[tag] = {"seeds": sorted(found[tag]), "hands": summary["hands"], "scored": scored,
                       "scored_share": summary["scored_share"],
                       "by_design": {k: f"{v['scored']}/{v['hands']}" for k, v in summary["by_design"].items()},
                       "by_camera": {k: f"{v['scored']}/{v['hands']}" for k, v in summary["by_camera"].items()},
                       "lost_by_cause": summary["lost_by_cause"],
                       "latency_median_s": summary["latency_median_s"],
                       "latency_unasked_p90_s": summary["latency_unasked_p90_s"]}
    table.add_section()
    table.add_row("all", str(max((t["hands"] for t in totals.values()), default=0)),
                  *(f"{totals[tag]['scored']} ({totals[tag]['scored_share']:.1%})" if tag in totals else "-"
                    for tag in TAGS))
    console.print(table)
    for tag, t in totals.items():
        console.print(f"{TAGS[tag]}: by deck {t['by_design']}; by camera {t['by_camera']}; card to score "
                      f"median {t['latency_median_s']} s, p90 of the unasked {t['latency_unasked_p90_s']} s; "
                      f"hands lost to {t['lost_by_cause'] or '-'}")
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", nargs="+", required=True, help="seeds and ranges, e.g. 0-17 30-33")
    parser.add_argument("--out", type=Path, required=True, help="one folder for every seed (reused: runs resume)")
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--answer", type=float, default=1.0, help="seconds the answering table takes")
    parser.add_argument("--jobs", type=int, default=2, help="seeds run at once")
    parser.add_argument("--report", action="store_true", help="only sum up the runs already in --out")
    parser.add_argument("--quad", metavar="NAMES", default=None,
                        help="read the videos again with these outline finders (e.g. paper,table,edges) into "
                             "OUT/seed-N/quad-NAMES, beside the shipped code's runs of the same renders")
    parser.add_argument("--models", metavar="DIR", type=Path, default=None,
                        help="read the videos again with the weights in DIR (a copy of models/ with some files "
                             "replaced) into OUT/seed-N/models-NAME, beside the shipped weights' runs")
    parser.add_argument("--outline-model", action=argparse.BooleanOptionalAction, default=None,
                        help="read the videos again turning each card upright by the outline model's outline "
                             "(card-outlines.onnx, in models/ or --models) into OUT/seed-N/outline-model, or "
                             "(--no-outline-model) by the finders' alone into OUT/seed-N/no-outline-model "
                             "(default: as the table does, TABLE_OUTLINE_MODEL)")
    parser.add_argument("--variants", default=None, metavar="NAMES",
                        help="render only sessions of these variants (the evaluation's --variants, e.g. argentino); "
                             "an OUT holds one mix (default: the evaluation's own mix)")
    args = parser.parse_args(argv)
    if args.models is not None and not args.models.is_dir():
        parser.error(f"--models: no such folder: {args.models}")
    try:
        seeds = parse_seeds(args.seeds)
        if not args.report:
            for seed in seeds:
                check_variants(args.out, seed, args.variants)
    except ValueError as exc:
        parser.error(str(exc))
    console = Console()
    failed = []
    if not args.report:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            jobs = {pool.submit(run_seed, s, args.out, args.hands, args.answer, args.quad, args.models,
                                args.outline_model, args.variants): s
                    for s in seeds}
            for job in as_completed(jobs):
                try:
                    console.print(f"seed {jobs[job]} done in {job.result():.0f} s")
                except RuntimeError as exc:
                    failed.append(jobs[job])
                    console.print(f"[red]{exc}[/red]")
    totals = report(args.out, seeds, console, args.quad, args.models, args.outline_model)
    if failed:
        console.print(f"[red]seeds that failed: {failed}[/red]")
    reading = reading_name(args.quad, args.models, args.outline_model)
    name = f"totals-{reading}.json" if reading else "totals.json"
    (args.out / name).write_text(json.dumps(totals, indent=2) + "\n", encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""bench/table_seeds.py: the driver that measures many seeds at once sums what the runs wrote, per seed and in all."""

from __future__ import annotations

import json
import sys

import pytest
from rich.console import Console


@pytest.fixture(scope="module")
def seeds_driver(bench_script):
    return bench_script("table_seeds")


def test_seeds_and_ranges_are_read_once_each_in_order(seeds_driver):
    assert seeds_driver.parse_seeds(["0-3", "30", "2,31-32"]) == [0, 1, 2, 3, 30, 31, 32]
    for bad in (["3-1"], ["x"], ["1-y"]):
        with pytest.raises(ValueError):
            seeds_driver.parse_seeds(bad)


def test_each_seed_records_then_replays_its_own_streams_with_answers(seeds_driver, tmp_path):
    record, answered = seeds_driver.seed_commands(7, tmp_path, 60, 1.0)
    assert record[0] == sys.executable and record[1:3] == ["-m", "companion.table.evaluate"]
    at = record.index("--out")
    assert record[at + 1] == str(tmp_path / "seed-7")  # a folder of its own: two jobs never share one
    assert record[record.index("--detections") + 1] == str(tmp_path / "seed-7" / "streams")
    assert answered == record + ["--answer", "1.0"]


def _row(design: str, hands: int, scored: int, tilt: float) -> dict:
    return {"name": f"s-{design}", "variant": "paulista", "players": 4, "design": design, "tilt": tilt,
            "hands": hands, "exact": scored, "scored": scored, "cards": 8 * hands, "cards_right": 8 * scored,
            "latency": [[0.3, "auto"], [0.5, "settle"], [1.2, "timeout"]], "stats": {"process_ms": 10.0},
            "wall": 10.0, "duration": 60.0, "doubts": {}}


def test_the_report_sums_seeds_by_deck_and_camera_and_leaves_out_what_is_not_there(seeds_driver, tmp_path):
    runs = {  # seed -> tag -> rows
        0: {"video": [_row("dondorf", 4, 4, 0.0), _row("tango_nuevo", 4, 2, 0.3)],
            "video-answered": [_row("dondorf", 4, 4, 0.0), _row("tango_nuevo", 4, 3, 0.3)]},
        1: {"video": [_row("dondorf", 4, 3, 0.15)]},  # its answered replay did not run (yet)
    }
    for seed, tags in runs.items():
        (tmp_path / f"seed-{seed}").mkdir()
        for tag, rows in tags.items():
            (tmp_path / f"seed-{seed}" / f"sessions-{tag}.json").write_text(json.dumps(rows))
    console = Console(record=True, width=200)
    totals = seeds_driver.report(tmp_path, [0, 1, 2], console)
    assert totals["video"]["hands"] == 12 and totals["video"]["scored"] == 9
    assert totals["video"]["seeds"] == [0, 1]
    assert totals["video"]["by_design"] == {"dondorf": "7/8", "tango_nuevo": "2/4"}
    assert totals["video"]["by_camera"] == {"tilt 0.0": "4/4", "tilt 0.15": "3/4", "tilt 0.3": "2/4"}
    assert totals["video-answered"]["scored"] == 7 and totals["video-answered"]["seeds"] == [0]
    text = console.export_text()
    assert "9 (75.0%)" in text and "7 (87.5%)" in text
    seed_rows = [line for line in text.splitlines() if line.strip().startswith(("│    1", "│    2"))]
    assert len(seed_rows) == 1 and "-" in seed_rows[0]  # seed 1 shown without its answered figure, seed 2 not at all


def test_other_outline_finders_read_the_same_renders_into_a_folder_of_their_own(seeds_driver, tmp_path, monkeypatch):
    """``--quad paper,table,edges``: each seed's videos are read again beside the shipped code's runs, from the
    renders already there (linked, not rendered again), into streams and results of their own."""
    record, answered = seeds_driver.seed_commands(7, tmp_path, 60, 1.0, "paper,table,edges")
    folder = tmp_path / "seed-7" / "quad-paper-table-edges"
    assert record[record.index("--out") + 1] == str(folder)
    assert record[record.index("--detections") + 1] == str(folder / "streams")
    assert record[record.index("--quad") + 1] == "paper,table,edges" and answered == record + ["--answer", "1.0"]
    ran = []
    monkeypatch.setattr(seeds_driver.subprocess, "run", lambda cmd, **kw: ran.append(cmd) or type("R", (), {"returncode": 0}))
    (tmp_path / "seed-7" / "sessions" / "s00").mkdir(parents=True)
    seeds_driver.run_seed(7, tmp_path, 60, 1.0, "paper,table,edges")
    assert ran == [record, answered]
    assert (folder / "sessions").resolve() == (tmp_path / "seed-7" / "sessions").resolve()
    assert (folder / "sessions" / "s00").is_dir()
    (folder / "sessions-video.json").write_text(json.dumps([_row("dondorf", 4, 3, 0.0)]))
    totals = seeds_driver.report(tmp_path, [7], Console(record=True, width=200), "paper,table,edges")
    assert totals["video"]["scored"] == 3
    assert seeds_driver.report(tmp_path, [7], Console(record=True, width=200)) == {}  # the shipped code's: none yet


def test_other_weights_read_the_same_renders_with_their_folder_as_the_models(seeds_driver, tmp_path, monkeypatch):
    """``--models DIR``: each seed's videos are read again with the weights in DIR (``COMPANION_MODELS``), into
    ``seed-N/models-NAME`` beside the shipped weights' runs, from the renders already there."""
    weights = tmp_path / "cand-v5"
    weights.mkdir()
    record, answered = seeds_driver.seed_commands(7, tmp_path, 60, 1.0, None, weights)
    folder = tmp_path / "seed-7" / "models-cand-v5"
    assert record[record.index("--out") + 1] == str(folder) and "--quad" not in record
    envs = []
    monkeypatch.setattr(seeds_driver.subprocess, "run",
                        lambda cmd, **kw: envs.append(kw["env"]) or type("R", (), {"returncode": 0}))
    (tmp_path / "seed-7" / "sessions" / "s00").mkdir(parents=True)
    seeds_driver.run_seed(7, tmp_path, 60, 1.0, None, weights)
    assert [e["COMPANION_MODELS"] for e in envs] == [str(weights.resolve())] * 2
    assert (folder / "sessions" / "s00").is_dir()
    (folder / "sessions-video.json").write_text(json.dumps([_row("dondorf", 4, 2, 0.0)]))
    assert seeds_driver.report(tmp_path, [7], Console(record=True, width=200), None, weights)["video"]["scored"] == 2
    assert seeds_driver.reading_name("paper,table,edges", weights) == "quad-paper-table-edges-models-cand-v5"
    # the shipped weights' runs read no other folder
    envs.clear()
    seeds_driver.run_seed(7, tmp_path, 60, 1.0)
    assert envs == [None, None]


def test_the_outline_model_reads_the_same_renders_into_a_folder_of_its_own(seeds_driver, tmp_path, monkeypatch):
    """``--outline-model``: the evaluation is told to turn cards upright by the model's outlines, into
    ``seed-N/outline-model`` beside the shipped reading's runs, from the renders already there."""
    record, answered = seeds_driver.seed_commands(7, tmp_path, 60, 1.0, outline_model=True)
    folder = tmp_path / "seed-7" / "outline-model"
    assert record[record.index("--out") + 1] == str(folder) and "--outline-model" in record
    assert answered == record + ["--answer", "1.0"]
    assert "--outline-model" not in seeds_driver.seed_commands(7, tmp_path, 60, 1.0)[0]
    monkeypatch.setattr(seeds_driver.subprocess, "run", lambda cmd, **kw: type("R", (), {"returncode": 0}))
    (tmp_path / "seed-7" / "sessions" / "s00").mkdir(parents=True)
    seeds_driver.run_seed(7, tmp_path, 60, 1.0, outline_model=True)
    assert (folder / "sessions" / "s00").is_dir()
    (folder / "sessions-video.json").write_text(json.dumps([_row("dondorf", 4, 4, 0.0)]))
    assert seeds_driver.report(tmp_path, [7], Console(record=True, width=200),
                               outline_model=True)["video"]["scored"] == 4
    assert seeds_driver.reading_name("edges", None, True) == "quad-edges-outline-model"
    # the table reads the model (TABLE_OUTLINE_MODEL): --no-outline-model reads the same renders by the finders
    record = seeds_driver.seed_commands(7, tmp_path, 60, 1.0, outline_model=False)[0]
    assert "--no-outline-model" in record
    assert record[record.index("--out") + 1] == str(tmp_path / "seed-7" / "no-outline-model")


def test_variants_go_to_both_runs_and_one_out_holds_one_mix(seeds_driver, tmp_path):
    """``--variants argentino``: the seed renders Argentine sessions only, and its folder says so; asking the same
    folder for another mix is refused, so two mixes are never summed as one seed."""
    record, answered = seeds_driver.seed_commands(7, tmp_path, 60, 1.0, variants="argentino")
    assert record[record.index("--variants") + 1] == "argentino" and answered == record + ["--answer", "1.0"]
    assert "--variants" not in seeds_driver.seed_commands(7, tmp_path, 60, 1.0)[0]
    seeds_driver.check_variants(tmp_path, 7, "argentino")
    seeds_driver.check_variants(tmp_path, 7, "argentino")  # the same mix again: resumes
    with pytest.raises(ValueError, match="argentino"):
        seeds_driver.check_variants(tmp_path, 7, None)
    (tmp_path / "seed-8" / "sessions" / "s00").mkdir(parents=True)  # rendered before the mark existed
    seeds_driver.check_variants(tmp_path, 8, None)
    with pytest.raises(ValueError, match="default"):
        seeds_driver.check_variants(tmp_path, 8, "argentino")

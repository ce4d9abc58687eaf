"""Classifier crops cut from rendered table sessions (companion.synth.table_crops): each crop goes to
the folder of the card the renderer drew there."""

from __future__ import annotations

import pytest

from companion.synth.table_crops import build_table_crops, session_plan


def test_table_crops_are_filed_under_the_cards_the_session_put_face_up(tmp_path, capsys):
    from companion.synth.art import list_designs

    if not list_designs("french"):
        pytest.skip("no french card art on this machine (see .ci/setup)")
    counts = build_table_crops("french", 1, tmp_path / "train", seed=2, hands=1)
    script, opts, _ = session_plan("french", 200_000, 1)
    face_up = {c.card for c in script.cards if c.card != "back"}
    assert opts.split == "train"  # designs the classifier may train on, never the held-out ones
    folders = {p.name for p in (tmp_path / "train").iterdir()}
    assert folders and folders == set(counts) and folders <= face_up
    files = list((tmp_path / "train").rglob("*.jpg"))
    assert len(files) == sum(counts.values())
    assert {f.stem.rsplit("_", 1)[1] for f in files} == {"box", "up"}  # the two views the table reads


def test_table_crops_cli_reports_what_it_wrote(tmp_path, capsys):
    from companion.cli import main
    from companion.synth.art import list_designs

    if not list_designs("french"):
        pytest.skip("no french card art on this machine (see .ci/setup)")
    assert main(["dataset", "table-crops", "--family", "french", "--sessions", "1", "--hands", "1",
                 "--out", str(tmp_path / "train")]) == 0
    assert "crops of" in capsys.readouterr().out


def test_table_crops_without_card_art_is_one_clear_error(tmp_path, capsys, monkeypatch):
    import companion.synth.art as art
    from companion.cli import main

    monkeypatch.setattr(art, "split_designs", lambda family: ((), ()))
    assert main(["dataset", "table-crops", "--family", "french", "--sessions", "1", "--hands", "1",
                 "--out", str(tmp_path / "train")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: no french card designs on this machine") and "Traceback" not in err
    assert not list(tmp_path.rglob("*.jpg"))

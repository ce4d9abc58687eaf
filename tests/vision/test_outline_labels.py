"""Oriented-box labels of every card's whole outline, from rendered scenes (companion.synth.outline_labels)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.synth.outline_labels import OutlineDataError, outline_rows, write_outline_dataset


def _scenes(folder, records, size=(200, 100)):
    """A folder as `dataset build` writes it: images/val/*.jpg and scenes/val-french.jsonl."""
    (folder / "images" / "val").mkdir(parents=True)
    (folder / "scenes").mkdir()
    for rec in records:
        cv2.imwrite(str(folder / rec["image"]), np.full((size[1], size[0], 3), 90, np.uint8))
    (folder / "scenes" / "val-french.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def _card(corners, labelled=True, card="7H"):
    return {"card": card, "corners": corners, "labelled": labelled, "visible": 0.5, "box": [0, 0, 1, 1]}


def test_each_labelled_card_is_its_four_true_corners_as_shares_of_the_image_clipped():
    covered = _card([[20, 10], [60, 10], [60, 90], [20, 90]])  # its hidden part counts: the whole card
    out_of_frame = _card([[180, 50], [220, 50], [220, 130], [180, 130]], card="back")
    unlabelled = _card([[0, 0], [10, 0], [10, 10], [0, 10]], labelled=False)
    rows = outline_rows([covered, out_of_frame, unlabelled], 200, 100)
    assert rows == ["0 0.10000 0.10000 0.30000 0.10000 0.30000 0.90000 0.10000 0.90000",
                    "0 0.90000 0.50000 1.00000 0.50000 1.00000 1.00000 0.90000 1.00000"]
    with pytest.raises(ValueError):
        outline_rows([covered], 0, 100)


def test_a_dataset_links_the_images_and_writes_labels_and_its_yaml(tmp_path):
    card = _card([[20, 10], [60, 10], [60, 90], [20, 90]])
    records = [{"image": f"images/val/fr{i}.jpg", "design": "d", "cards": [card]} for i in range(3)]
    _scenes(tmp_path / "val9", records)
    out = tmp_path / "outlines"
    assert write_outline_dataset(out, "val", [f"{tmp_path / 'val9'}:2"]) == 2
    links = sorted((out / "images" / "val").iterdir())
    assert [p.name for p in links] == ["val9-fr0.jpg", "val9-fr1.jpg"] and all(p.is_symlink() for p in links)
    assert (out / "labels" / "val" / "val9-fr1.txt").read_text() == \
        "0 0.10000 0.10000 0.30000 0.10000 0.30000 0.90000 0.10000 0.90000\n"
    yaml = (out / "data.yaml").read_text()
    assert "train: images/train" in yaml and "val: images/val" in yaml and "0: card" in yaml
    assert write_outline_dataset(out, "val", [str(tmp_path / "val9")]) == 3  # written again: links replaced


def test_bad_scene_folders_are_clear_errors(tmp_path):
    from companion.cli import main

    with pytest.raises(OutlineDataError, match="no scenes"):
        write_outline_dataset(tmp_path / "o", "train", [str(tmp_path / "nothing")])
    records = [{"image": "images/val/gone.jpg", "design": "d", "cards": []}]
    _scenes(tmp_path / "v", records)
    (tmp_path / "v" / "images" / "val" / "gone.jpg").unlink()
    with pytest.raises(OutlineDataError, match="missing or not an image"):
        write_outline_dataset(tmp_path / "o", "train", [str(tmp_path / "v")])
    with pytest.raises(ValueError, match="DIR:N"):
        write_outline_dataset(tmp_path / "o", "train", [f"{tmp_path / 'v'}:x"])
    assert main(["dataset", "outlines", "--scenes", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")]) == 1


def test_two_scene_folders_of_one_name_are_refused_not_mixed(tmp_path):
    records = [{"image": "images/val/fr0.jpg", "design": "d", "cards": []}]
    _scenes(tmp_path / "a" / "val9", records)
    _scenes(tmp_path / "b" / "val9", records)
    write_outline_dataset(tmp_path / "o", "val", [str(tmp_path / "a" / "val9")])
    with pytest.raises(OutlineDataError, match="already another folder's image"):
        write_outline_dataset(tmp_path / "o", "val", [str(tmp_path / "b" / "val9")])
    first = tmp_path / "a" / "val9" / "images" / "val" / "fr0.jpg"
    assert (tmp_path / "o" / "images" / "val" / "val9-fr0.jpg").resolve() == first.resolve()

"""Faces printed in other inks (companion.synth.ink): the ink moves, the paper stays, and the crops use it."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.synth.ink import INKS, paper_and_ink, random_palette, reinked_face

PAPER = (235, 240, 245)


def _face(ink: tuple[int, int, int], alpha: bool = True) -> np.ndarray:
    """A 207x319 card on cream paper with a rank letter in its top-left index region, a pip in ``ink`` in its
    middle and one pure red patch (a figure's other colour)."""
    img = np.zeros((319, 207, 4 if alpha else 3), np.uint8)
    img[:, :, :3] = PAPER
    if alpha:
        img[:, :, 3] = 255
        img[:4, :4, 3] = 0  # a rounded corner
    cv2.putText(img, "K", (6, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (*ink, 255) if alpha else ink, 4)
    cv2.circle(img, (103, 160), 30, (*ink, 255) if alpha else ink, -1)
    img[250:270, 90:110, :3] = (0, 0, 255)
    return img


def test_paper_and_ink_are_read_from_the_index_region():
    paper, ink = paper_and_ink(_face((20, 20, 20)), "french")
    np.testing.assert_allclose(paper, PAPER, atol=1)
    np.testing.assert_allclose(ink, (20, 20, 20), atol=6)


@pytest.mark.parametrize("old, new", [("black", "lavender"), ("red", "yellow"), ("black", "green"),
                                      ("red", "blue")])
def test_the_ink_becomes_the_new_colour_and_the_paper_stays(old, new):
    face = _face(INKS[old])
    out = reinked_face(face, "KS", {"S": INKS[new]})
    assert out.shape == face.shape and out.dtype == np.uint8
    np.testing.assert_array_equal(out[:, :, 3], face[:, :, 3])  # transparency untouched
    np.testing.assert_array_equal(out[200, 30, :3], PAPER)  # paper
    np.testing.assert_allclose(out[160, 103, :3].astype(int), INKS[new], atol=3)  # the pip's ink
    # the letter's strokes carry the new ink where they carried the old
    letter = np.all(face[:, :, :3] == INKS[old], axis=2)
    letter[100:, :] = False
    assert letter.sum() > 50
    np.testing.assert_allclose(out[letter][:, :3].mean(axis=0), INKS[new], atol=3)
    # another colour is tinted by the share of the ink it carries, not flattened into the ink
    assert not np.array_equal(out[260, 100, :3], np.array(INKS[new], np.uint8))


def test_a_kept_suit_a_back_and_a_paper_only_face_are_returned_as_they_are():
    face = _face(INKS["black"])
    assert reinked_face(face, "KS", {"S": None}) is face
    assert reinked_face(face, "KS", {"H": INKS["blue"]}) is face  # another suit's ink
    assert reinked_face(face, "back", {"S": INKS["blue"]}) is face
    blank = np.full((319, 207, 3), 240, np.uint8)
    assert reinked_face(blank, "5S", {"S": INKS["blue"]}) is blank  # no ink to move
    three = _face(INKS["black"], alpha=False)
    assert reinked_face(three, "KS", {"S": INKS["blue"]}).shape == three.shape


def test_a_palette_is_one_ink_a_suit_of_the_family_drawn_from_the_seed():
    a, b = random_palette(np.random.default_rng(7)), random_palette(np.random.default_rng(7))
    assert a == b and set(a) == {"S", "H", "D", "C"}
    assert set(random_palette(np.random.default_rng(7), "spanish")) == {"O", "C", "E", "B"}
    inks = [random_palette(np.random.default_rng(s)) for s in range(200)]
    kept = sum(p[s] is None for p in inks for s in p)
    assert 0.2 < kept / 800 < 0.4  # keep=0.3: about a third of the suits keep the art's ink
    assert all(p[s] is None or all(0 <= v <= 255 for v in p[s]) for p in inks for s in p)
    assert all(v is None for v in random_palette(np.random.default_rng(0), keep=1.0).values())


def test_crop_scenes_print_a_share_of_their_faces_in_other_inks(figure_design, monkeypatch):
    """ink=0 draws exactly the scene it always did; ink=1 draws the same cards with the faces' ink moved."""
    import companion.synth.ink as ink
    from companion.synth.build import render_crop_scene

    plain = render_crop_scene(np.random.default_rng(5), "spanish", [figure_design], figures=True)
    again = render_crop_scene(np.random.default_rng(5), "spanish", [figure_design], figures=True, ink=0.0)
    np.testing.assert_array_equal(plain.image, again.image)
    moved: list[str] = []
    real = ink.reinked_face

    def spy(face, card, palette, family="french"):
        moved.append(card)
        return real(face, card, palette, family)

    monkeypatch.setattr(ink, "reinked_face", spy)
    monkeypatch.setattr(ink, "random_palette", lambda rng, family, keep=0.3: {s: INKS["green"] for s in "OCEB"})
    inked = render_crop_scene(np.random.default_rng(5), "spanish", [figure_design], figures=True, ink=1.0)
    faces = [c.card for c in inked.cards if c.card != "back"]
    assert faces and sorted(set(moved)) == sorted(set(faces))
    assert not np.array_equal(plain.image, inked.image)


def test_dataset_crops_takes_an_ink_share(tmp_path, only_figure_design):
    from companion.cli import main

    out = tmp_path / "cls"
    assert main(["dataset", "crops", "--family", "spanish", "--n", "4", "--out", str(out), "--ink", "1"]) == 0
    assert list(out.rglob("*.jpg"))


def test_dataset_build_inks_every_face_of_a_training_scene_and_never_a_validation_one(tmp_path, monkeypatch,
                                                                                     one_french_design):
    """`dataset build --ink 1` prints every face-up card of each training scene in the scene's palette (a
    redrawn face too); validation scenes show the held-back decks as printed; at 0 a seed renders the scenes it
    always did."""
    import companion.synth.build as build
    import companion.synth.ink as ink

    one_french_design(_face(INKS["black"]))
    inked: list[tuple[str, tuple]] = []
    real = ink.reinked_face

    def spy(face_, card, palette, family="french"):
        inked.append((card, tuple(sorted(palette.items()))))
        return real(face_, card, palette, family)

    monkeypatch.setattr(ink, "reinked_face", spy)

    def faces(out, split):
        return sorted(c["card"] for line in (out / "scenes" / f"{split}-french.jsonl").read_text().splitlines()
                      for c in json.loads(line)["cards"] if c["card"] != "back")

    out = build.build_dataset("french", 3, tmp_path / "inked", split="train", seed=4, ink=1.0, reindex=0.5)
    assert faces(out, "train") and sorted(c for c, _ in inked) == faces(out, "train")  # every face, once
    assert len({p for _, p in inked}) == 3  # one palette a scene
    inked.clear()
    build.build_dataset("french", 2, tmp_path / "val", split="val", seed=4, ink=1.0)
    plain = build.build_dataset("french", 2, tmp_path / "plain", split="train", seed=4, ink=0.0)
    default = build.build_dataset("french", 2, tmp_path / "default", split="train", seed=4)
    assert inked == []
    for stem in ("fr000000", "fr000001"):
        a = cv2.imread(str(plain / "images" / "train" / f"{stem}.jpg"))
        assert np.array_equal(a, cv2.imread(str(default / "images" / "train" / f"{stem}.jpg")))

"""Printed things among the objects of a training scene (companion.synth.printed).

Why they exist: the French photo detectors of session 96 boxed pages, a notebook, a certificate and a card box
in the real photos; the generator's paper had no print on it."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.synth.printed import KINDS, draw_printed, printed_face


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_is_a_face_with_print_on_it(kind):
    """Each face is the size asked, and marked: dark or coloured strokes on its paper, not a flat sheet."""
    rng = np.random.default_rng(5)
    (w0, _), (h0, _) = KINDS[kind]
    ppm = 3.0
    h, w = int(h0 * ppm), int(w0 * ppm)
    face = printed_face(rng, kind, h, w, ppm)
    assert face.shape == (h, w, 3) and face.dtype == np.uint8
    grey = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY).astype(np.float32)
    edges = cv2.Canny(face, 60, 160) > 0
    assert edges.mean() > 0.002, f"{kind}: no print ({edges.mean():.4f} of pixels on an edge)"
    assert grey.std() > 5


def test_the_same_draws_give_the_same_face_and_an_unknown_kind_is_refused():
    a = printed_face(np.random.default_rng(1), "page", 300, 200, 1.5)
    b = printed_face(np.random.default_rng(1), "page", 300, 200, 1.5)
    c = printed_face(np.random.default_rng(2), "page", 300, 200, 1.5)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    with pytest.raises(ValueError, match="unknown printed kind 'poster'"):
        printed_face(np.random.default_rng(1), "poster", 10, 10, 1.0)


def test_printed_things_lie_at_any_place_and_often_run_off_the_frame():
    """Over many draws every kind appears, some are cut by the image's edge (as the real false boxes were) and
    some lie wholly inside; the shadow callback is called with the object's quad."""
    H, W = 240, 320
    kinds, cut, inside = set(), 0, 0
    shadows = []
    for seed in range(60):
        canvas = np.full((H, W, 3), 90.0, np.float32)
        kind = draw_printed(canvas, np.random.default_rng(seed), ppm=0.8,
                            shadow=lambda c, quad, *rest: shadows.append(quad))
        kinds.add(kind)
        changed = np.abs(canvas - 90.0).max(axis=2) > 1
        if not changed.any():
            continue
        ys, xs = np.nonzero(changed)
        if xs.min() == 0 or ys.min() == 0 or xs.max() == W - 1 or ys.max() == H - 1:
            cut += 1
        else:
            inside += 1
    assert kinds == set(KINDS)
    assert cut >= 5 and inside >= 5
    assert shadows and all(q.shape == (4, 2) for q in shadows)


def test_dataset_build_printed_draws_under_the_cards_of_training_scenes_only(tmp_path, one_french_design, scene_image):
    """`--printed 1` changes the training images but not their cards (the things lie under them); validation
    scenes never get them, and at 0 a seed renders the scenes it always did."""
    import companion.synth.build as build

    face = np.full((360, 250, 4), 255, np.uint8)
    face[:, :, :3] = (235, 240, 245)
    one_french_design(face)

    def cards(out, split):
        return [[(c["card"], c["box"]) for c in json.loads(line)["cards"]]
                for line in (out / "scenes" / f"{split}-french.jsonl").read_text().splitlines()]

    with_print = build.build_dataset("french", 3, tmp_path / "printed", split="train", seed=7, printed=1.0)
    plain = build.build_dataset("french", 3, tmp_path / "plain", split="train", seed=7, printed=0.0)
    default = build.build_dataset("french", 3, tmp_path / "default", split="train", seed=7)
    assert cards(with_print, "train") == cards(plain, "train")
    assert all(not np.array_equal(scene_image(with_print, "train", i), scene_image(plain, "train", i))
               for i in range(3))
    assert all(np.array_equal(scene_image(plain, "train", i), scene_image(default, "train", i)) for i in range(3))
    val = build.build_dataset("french", 2, tmp_path / "val", split="val", seed=7, printed=1.0)
    val0 = build.build_dataset("french", 2, tmp_path / "val0", split="val", seed=7)
    assert all(np.array_equal(scene_image(val, "val", i), scene_image(val0, "val", i)) for i in range(2))

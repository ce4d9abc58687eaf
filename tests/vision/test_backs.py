"""Random card backs for training scenes (companion.synth.backs, ``dataset build --random-backs``).

Why they exist: the French photo models dropped most backs of the held-back decks (session 98: 68 of 179 on
fr6646's first 200 scenes boxed by nothing); 35 training backs taught them those backs, not what a back is."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.synth.backs import GROUNDS, random_back


def _card_alpha(h: int = 360, w: int = 250, radius: int = 18) -> np.ndarray:
    """A card's alpha with rounded corners, as the decks' art has."""
    alpha = np.zeros((h, w), np.uint8)
    cv2.rectangle(alpha, (radius, 0), (w - 1 - radius, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, radius), (w - 1, h - 1 - radius), 255, -1)
    for x, y in ((radius, radius), (w - 1 - radius, radius), (radius, h - 1 - radius), (w - 1 - radius, h - 1 - radius)):
        cv2.circle(alpha, (x, y), radius, 255, -1)
    return alpha


@pytest.mark.parametrize("ground", GROUNDS)
def test_every_ground_is_a_print_in_the_cards_shape(ground):
    """Each back keeps the deck's shape (its alpha, rounded corners and all) and carries ink: not a blank card."""
    alpha = _card_alpha()
    back = random_back(np.random.default_rng(3), alpha, ground)
    assert back.shape == (360, 250, 4) and back.dtype == np.uint8
    assert np.array_equal(back[..., 3], alpha)
    grey = cv2.cvtColor(back[..., :3], cv2.COLOR_BGR2GRAY).astype(np.float32)[alpha > 0]
    assert grey.std() > 4 or grey.mean() < 200, f"{ground}: a blank card (mean {grey.mean():.0f}, std {grey.std():.1f})"


def test_the_same_draws_give_the_same_back_and_an_unknown_ground_is_refused():
    alpha = _card_alpha()
    a = random_back(np.random.default_rng(1), alpha)
    assert np.array_equal(a, random_back(np.random.default_rng(1), alpha))
    assert not np.array_equal(a, random_back(np.random.default_rng(2), alpha))
    with pytest.raises(ValueError, match="unknown back ground 'tartan'"):
        random_back(np.random.default_rng(1), alpha, "tartan")


def test_backs_vary_and_most_are_the_same_under_a_half_turn():
    """Over many draws every ground appears, the inks differ, and most backs (as real ones) read the same either
    way up: a face-down card must not tell which way it lies."""
    alpha = np.full((180, 124), 255, np.uint8)
    symmetric, colours = 0, []
    for seed in range(40):
        back = random_back(np.random.default_rng(seed), alpha)[..., :3].astype(np.float32)
        symmetric += float(np.abs(back - back[::-1, ::-1]).mean()) < 8.0
        colours.append(back.reshape(-1, 3).mean(axis=0))
    assert symmetric >= 20
    assert np.std(colours, axis=0).max() > 20


def test_dataset_build_random_backs_draws_the_backs_of_training_scenes_only(tmp_path, one_french_design, scene_image,
                                                                           monkeypatch):
    """`--random-backs 1` gives every face-down card of a training scene the scene's one random back (one draw a
    scene), validation scenes never get one, and at 0 a seed renders the scenes it always did."""
    import companion.synth.backs as backs
    import companion.synth.build as build

    face = np.full((360, 250, 4), 255, np.uint8)
    face[:, :, :3] = (235, 240, 245)
    one_french_design(face)
    drawn = []

    def green_back(rng, shape_alpha, ground=None):
        drawn.append(shape_alpha.shape)
        out = np.zeros(shape_alpha.shape + (4,), np.uint8)
        out[..., 1], out[..., 3] = 255, shape_alpha
        return out

    monkeypatch.setattr(backs, "random_back", green_back)

    n = 12
    out = build.build_dataset("french", n, tmp_path / "random", split="train", seed=11, random_backs=1.0)
    assert len(drawn) == n and set(drawn) == {(360, 250)}
    seen_backs = 0
    for i, line in enumerate((out / "scenes" / "train-french.jsonl").read_text().splitlines()):
        img = scene_image(out, "train", i).astype(np.int32)
        for c in json.loads(line)["cards"]:
            x1, y1, x2, y2 = (int(round(v)) for v in c["box"])
            if c["card"] != "back" or c["visible"] < 0.9 or min(x2 - x1, y2 - y1) < 12:
                continue
            cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
            patch = img[cy - 3:cy + 4, cx - 3:cx + 4].reshape(-1, 3).mean(axis=0)
            assert patch[1] > patch[0] + 40 and patch[1] > patch[2] + 40, f"scene {i}: the back is not the drawn one"
            seen_backs += 1
    assert seen_backs >= 2, "too few backs in view to check"
    plain = build.build_dataset("french", 3, tmp_path / "plain", split="train", seed=7, random_backs=0.0)
    default = build.build_dataset("french", 3, tmp_path / "default", split="train", seed=7)
    assert all(np.array_equal(scene_image(plain, "train", i), scene_image(default, "train", i)) for i in range(3))
    drawn.clear()
    val = build.build_dataset("french", 2, tmp_path / "val", split="val", seed=7, random_backs=1.0)
    val0 = build.build_dataset("french", 2, tmp_path / "val0", split="val", seed=7)
    assert not drawn
    assert all(np.array_equal(scene_image(val, "val", i), scene_image(val0, "val", i)) for i in range(2))

"""The generator's labels match what it drew."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.synth import Camera, Design, Lighting, Placement, compose_scene
from companion.synth.build import yolo_lines

W, H = 640, 480


@pytest.fixture()
def plain_design(tmp_path, monkeypatch):
    """A Spanish-style design made of flat coloured cards (no external art needed)."""
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "art"
    folder.mkdir()
    colours = {"1O": (255, 255, 255), "2O": (0, 255, 0), "3O": (0, 0, 255)}
    for card, colour in colours.items():
        img = np.zeros((319, 207, 3), np.uint8)
        img[:] = colour
        cv2.imwrite(str(folder / f"{int(card[:-1]):02d}-oros.png"), img)
    back = np.zeros((319, 207, 3), np.uint8)
    back[:] = (255, 0, 0)
    cv2.imwrite(str(folder / "reverso.png"), back)
    return Design("plain", "spanish", "naipes-libres", folder, tuple(colours))


def _render(design, placements, camera):
    background = np.zeros((200, 200, 3), np.uint8)
    lighting = Lighting(shadow=0.0)
    return compose_scene(placements, camera, design=design, lighting=lighting, background=background,
                         rng=np.random.default_rng(0))


@pytest.mark.parametrize("tilt,roll,angle", [(0.0, 0.0, 0.0), (0.0, 30.0, 20.0), (0.35, 10.0, 65.0)])
def test_box_encloses_exactly_the_drawn_card(plain_design, tilt, roll, angle):
    camera = Camera(W, H, 400.0, tilt, roll, (10.0, -5.0))
    scene = _render(plain_design, [Placement("1O", (0.0, 0.0), angle)], camera)
    (card,) = scene.cards
    ys, xs = np.nonzero(scene.image.max(axis=2) > 127)
    drawn = (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
    assert card.card == "1O"
    assert np.allclose(card.box, drawn, atol=2.5), (card.box, drawn)
    assert card.visible > 0.97 and card.labelled()


def test_covered_card_is_not_labelled_and_half_covered_vira_is(plain_design):
    camera = Camera(W, H, 400.0)
    placements = [
        Placement("2O", (0.0, 0.0), 0.0, z=0),  # fully under the back below
        Placement("back", (0.0, 0.0), 0.0, scale=1.1, z=1),
        Placement("3O", (120.0, 0.0), 0.0, z=0),  # the vira: half under a second back
        Placement("back", (120.0, 30.0), 0.0, z=1),
    ]
    scene = _render(plain_design, placements, camera)
    by_card = {}
    for c in scene.cards:
        by_card.setdefault(c.card, []).append(c)
    hidden = by_card["2O"][0]
    vira = by_card["3O"][0]
    assert hidden.visible < 0.01 and not hidden.labelled()
    assert 0.2 < vira.visible < 0.5
    # The visible part of the vira is exactly the red (BGR 0,0,255) pixels.
    red = (scene.image[:, :, 2] > 200) & (scene.image[:, :, 1] < 60) & (scene.image[:, :, 0] < 60)
    x1, y1, x2, y2 = vira.box
    full_area = (x2 - x1) * (y2 - y1)
    assert abs(red.sum() / full_area - vira.visible) < 0.03


def test_yolo_lines_are_normalised_boxes_of_labelled_cards(plain_design):
    camera = Camera(W, H, 400.0)
    scene = _render(plain_design, [Placement("1O", (-60.0, 0.0), 0.0), Placement("back", (60.0, 0.0), 90.0)], camera)
    lines = [ln.split() for ln in yolo_lines(scene)]
    assert sorted(int(ln[0]) for ln in lines) == [0, 1]
    for ln, card in zip(sorted(lines), sorted(scene.cards, key=lambda c: c.card == "back")):  # faces (0) first
        cls, cx, cy, w, h = int(ln[0]), *map(float, ln[1:])
        x1, y1, x2, y2 = card.box
        assert cls == (1 if card.card == "back" else 0)
        assert 0 < cx < 1 and 0 < cy < 1 and 0 < w < 1 and 0 < h < 1
        assert (cx, cy, w, h) == pytest.approx(((x1 + x2) / 2 / W, (y1 + y2) / 2 / H, (x2 - x1) / W, (y2 - y1) / H),
                                               abs=1e-6)


def test_outline_labels_are_the_cards_corners_clipped_to_the_image(plain_design):
    """``yolo_lines(outlines=True)`` (``dataset build --outline-labels``): each labelled card's corners as a polygon,
    clipped to the image (ultralytics refuses points outside it): the box label's corners where the card is in the
    image, the part in view within it where it runs off the edge; a card lying at an angle fills its polygon, not its
    box (why: ultralytics' rotation augmentation boxes a turned box's corners)."""
    import cv2

    camera = Camera(W, H, 400.0)
    scene = _render(plain_design, [Placement("1O", (0.0, 0.0), 30.0), Placement("back", (190.0, 0.0), 60.0)],
                    camera)
    boxes = {tuple(ln.split()[1:]): ln for ln in yolo_lines(scene)}
    polygons = [ln.split() for ln in yolo_lines(scene, outlines=True)]
    assert len(polygons) == len(boxes) == sum(c.labelled() for c in scene.cards) >= 1
    for ln, card in zip(polygons, [c for c in scene.cards if c.labelled()]):
        points = np.array(list(map(float, ln[1:]))).reshape(-1, 2)
        assert int(ln[0]) == (1 if card.card == "back" else 0) and len(points) >= 3
        assert (points >= 0).all() and (points <= 1).all()
        x1, y1, x2, y2 = card.box
        (px1, py1), (px2, py2) = points.min(axis=0) * [W, H], points.max(axis=0) * [W, H]
        if (card.corners >= 0).all() and (card.corners <= [W, H]).all():  # in the image: the box label's own corners
            assert (px1, py1, px2, py2) == pytest.approx((x1, y1, x2, y2), abs=0.01)
        else:  # off the edge: the part in view, within the box label (the whole card's box, clipped)
            assert x1 - 0.01 <= px1 and y1 - 0.01 <= py1 and px2 <= x2 + 0.01 and py2 <= y2 + 0.01
        inside = cv2.contourArea((points * [W, H]).astype(np.float32))
        assert inside < 0.9 * (x2 - x1) * (y2 - y1)  # turned: the outline leaves the box's corners out
    assert any(c.box[2] >= W - 0.01 for c in scene.cards if c.labelled()), "a card should run off the image"


def test_dataset_build_writes_matching_labels(tmp_path, plain_design, monkeypatch):
    import companion.synth.build as build

    monkeypatch.setattr(build, "designs_for", lambda family, split, workers=1, source="debian": [plain_design])
    monkeypatch.setattr(build, "_split_designs_cached", lambda family, split, source="debian": [plain_design])
    monkeypatch.setattr(build, "family_cards", lambda family: plain_design.cards)
    out = build.build_dataset("spanish", 3, tmp_path / "ds", split="train", seed=1)
    images = sorted((out / "images" / "train").glob("*.jpg"))
    assert len(images) == 3
    records = [json.loads(x) for x in (out / "scenes" / "train-spanish.jsonl").read_text().splitlines()]
    for rec in records:
        assert rec["design"] == plain_design.name  # the evaluation splits its figures by it
        stem = rec["image"].split("/")[-1][:-4]
        lines = (out / "labels" / "train" / f"{stem}.txt").read_text().split("\n")
        n_labelled = sum(c["labelled"] and (c["box"][2] - c["box"][0]) >= 3 and (c["box"][3] - c["box"][1]) >= 3
                         for c in rec["cards"])
        assert len([ln for ln in lines if ln.strip()]) == n_labelled
    assert "names:" in (out / "data.yaml").read_text()


def test_real_art_renders_when_installed():
    from companion.synth.art import card_image, split_designs

    train, hold = split_designs("french")
    if not train:
        pytest.skip("Debian card decks (gnome-cards-data, kdegames-card-data-kf5) not installed")
    assert hold and not {d.name for d in train} & {d.name for d in hold}
    img = card_image(hold[0], "QH")
    assert img.ndim == 3 and img.shape[2] == 4 and img.shape[0] == 360


def test_dataset_build_layouts_and_start_add_new_scenes(tmp_path, plain_design, monkeypatch):
    import companion.synth.build as build
    from companion.synth.layouts import random_layout

    kinds = []

    def spy(rng, pool, kind=None, back_rate=0.12):
        placements, used = random_layout(rng, pool, kind, back_rate)
        kinds.append(used)
        return placements, used

    monkeypatch.setattr(build, "random_layout", spy)
    monkeypatch.setattr(build, "designs_for", lambda family, split, workers=1, source="debian": [plain_design])
    monkeypatch.setattr(build, "_split_designs_cached", lambda family, split, source="debian": [plain_design])
    monkeypatch.setattr(build, "family_cards", lambda family: plain_design.cards)
    out = build.build_dataset("spanish", 2, tmp_path / "ds", split="train", seed=1)
    build.build_dataset("spanish", 3, out, split="train", seed=1, start=500, layouts=("closeup",))
    stems = sorted(p.stem for p in (out / "images" / "train").glob("*.jpg"))
    assert stems == ["sp000000", "sp000001", "sp000500", "sp000501", "sp000502"]
    assert kinds[2:] == ["closeup"] * 3
    assert len((out / "scenes" / "train-spanish.jsonl").read_text().splitlines()) == 5


def test_recrop_cuts_every_visible_face_up_card_again(tmp_path, plain_design, monkeypatch, capsys):
    import companion.synth.build as build

    monkeypatch.setattr(build, "designs_for", lambda family, split, workers=1, source="debian": [plain_design])
    monkeypatch.setattr(build, "_split_designs_cached", lambda family, split, source="debian": [plain_design])
    monkeypatch.setattr(build, "family_cards", lambda family: plain_design.cards)
    out = build.build_dataset("spanish", 4, tmp_path / "ds", split="train", seed=3)
    first = sorted(p.relative_to(out / "cls") for p in (out / "cls").rglob("*.jpg"))
    n = build.recrop_dataset(out, "spanish", tmp_path / "again", split="train")
    again = sorted(p.relative_to(tmp_path / "again") for p in (tmp_path / "again").rglob("*.jpg"))
    assert n == len(again) == len(first) > 0
    assert again == first  # same cards, same names: only the crop recipe may differ
    # a damaged scene image is named, not silently skipped
    damaged = sorted((out / "images" / "train").glob("*.jpg"))[0]
    damaged.write_bytes(b"not a jpeg")
    n2 = build.recrop_dataset(out, "spanish", tmp_path / "third", split="train")
    assert n2 < n and damaged.name in capsys.readouterr().err


def test_crop_turns_wide_boxes_so_the_long_side_is_up():
    from companion.vision.crops import crop_card

    image = np.zeros((200, 300, 3), np.uint8)
    image[50:110, 40:80] = (0, 0, 255)  # a red mark at the left end of a wide box
    wide = crop_card(image, (40.0, 50.0, 160.0, 110.0), 96)
    assert wide.shape == (96, 96, 3)
    # Turned clockwise: the left end of the box is now the top of the crop.
    assert wide[:20, :, 2].mean() > 200 and wide[-20:, :, 2].mean() < 50
    tall = crop_card(image, (40.0, 50.0, 80.0, 170.0), 96)
    assert tall[:30, :, 2].mean() > 200 and tall[-20:, :, 2].mean() < 50  # not turned
    # Training crops turn either way, at random: both ends come up.
    tops = {bool(crop_card(image, (40.0, 50.0, 160.0, 110.0), 96, np.random.default_rng(s))[:15, 30:60, 2].mean() > 200)
            for s in range(20)}
    assert tops == {True, False}


def test_dataset_cli_offers_every_layout_and_recrop_needs_scenes(tmp_path, capsys):
    from companion.cli import main
    from companion.commands.dataset import LAYOUTS as offered
    from companion.synth.layouts import LAYOUTS

    assert offered == LAYOUTS
    assert main(["dataset", "recrop", "--family", "french", "--data", str(tmp_path), "--out", str(tmp_path / "o")]) == 1
    assert "no train scenes of french" in capsys.readouterr().err


def test_mixed_face_keeps_the_index_strips_and_takes_another_figure_picture(figure_design):
    from companion.synth.art import card_image
    from companion.synth.build import mixed_face, render_crop_scene
    from companion.synth.index_corners import INDEX_REGION

    own = card_image(figure_design, "11O")
    mixed = mixed_face(figure_design, "11O", np.random.default_rng(0))
    w = own.shape[1]
    x0, x1 = round(INDEX_REGION["spanish"][2] * w), round((1 - INDEX_REGION["spanish"][2]) * w)
    assert mixed.shape == own.shape
    np.testing.assert_array_equal(mixed[:, :x0], own[:, :x0])  # both index corners on each side kept
    np.testing.assert_array_equal(mixed[:, x1:], own[:, x1:])
    middle = mixed[own.shape[0] // 2, w // 2, :3]
    donors = [card_image(figure_design, c)[own.shape[0] // 2, w // 2, :3] for c in ("10O", "12O")]
    assert any((middle == d).all() for d in donors) and not (middle == own[own.shape[0] // 2, w // 2, :3]).all()
    # a figure-only scene with every picture mixed still labels each card by its own corners
    scene = render_crop_scene(np.random.default_rng(3), "spanish", [figure_design], figures=True, face_mix=1.0)
    assert scene.cards and all(c.card in ("10O", "11O", "12O", "back") for c in scene.cards)


def test_dataset_crops_cli_writes_figure_crops(tmp_path, only_figure_design, capsys):
    from companion.cli import main

    out = tmp_path / "cls"
    assert main(["dataset", "crops", "--family", "spanish", "--n", "6", "--out", str(out), "--figures",
                 "--face-mix", "0.5", "--start", "100"]) == 0
    written = sorted(p.relative_to(out) for p in out.rglob("*.jpg"))
    assert written and all(p.parts[0] == "train" and p.parts[1] in ("10O", "11O", "12O") for p in written)
    assert all(p.name.startswith("csp00001") for p in written)  # numbered from --start
    assert f"{len(written)} classifier crops" in capsys.readouterr().out


def test_reindexed_face_redraws_only_the_index_corners_in_the_suits_colour():
    from companion.synth.reindex import reindexed_face

    card = np.full((300, 200, 4), 255, np.uint8)  # BGRA, as the art module hands out
    card[:, :, :3] = (235, 240, 245)  # off-white paper
    card[100:200, 60:140, :3] = (90, 140, 30)  # a "picture" in the middle
    card[:5, :5, 3] = 0  # a rounded corner's transparent pixels
    out = {c: reindexed_face(card, c, np.random.default_rng(7)) for c in ("QS", "KS", "QH")}
    for img in out.values():
        assert img.shape == card.shape
        np.testing.assert_array_equal(img[:, :, 3], card[:, :, 3])  # the card's outline never changes
        np.testing.assert_array_equal(img[100:200, 60:140], card[100:200, 60:140])  # nor its picture
    # same draws, another rank: the corners differ, so the letter itself was drawn
    assert (out["QS"][:80, :, :3] != out["KS"][:80, :, :3]).any()
    ink = out["QH"][:, :, :3].reshape(-1, 3).astype(int)
    ink = ink[(np.abs(ink - (235, 240, 245)).sum(axis=1) > 60)]
    ink = ink[~((ink == (90, 140, 30)).all(axis=1))]
    assert len(ink) > 20 and (ink[:, 2] > ink[:, 0] + 60).mean() > 0.8  # hearts in red (BGR: R is last)
    dark = out["QS"][:, :, :3].reshape(-1, 3).astype(int)
    assert ((dark.sum(axis=1) < 150).sum()) > 20  # spades in black


def _plain_card() -> np.ndarray:
    card = np.full((300, 200, 4), 255, np.uint8)
    card[:, :, :3] = (235, 240, 245)
    card[100:200, 60:140, :3] = (90, 140, 30)
    return card


def _ink(img: np.ndarray) -> np.ndarray:
    """Where a redrawn face differs from paper and from the test picture."""
    rgb = img[:, :, :3].astype(int)
    return (np.abs(rgb - (235, 240, 245)).sum(axis=2) > 60) & ~(rgb == (90, 140, 30)).all(axis=2)


def test_index_styles_put_the_index_where_they_say():
    from companion.synth.reindex import reindexed_face

    card = _plain_card()
    for seed in range(6):
        top_only = _ink(reindexed_face(card, "7S", np.random.default_rng(seed), ("row_single",)))
        assert top_only[:40, :60].sum() > 20 and top_only[:40, 140:].sum() > 10  # rank left, suit right (or swapped)
        assert not top_only[150:].any()  # nothing at the bottom: an upside-down card shows no index on top
        line = _ink(reindexed_face(card, "7S", np.random.default_rng(seed), ("row",)))
        assert line[260:, :60].sum() > 10 and line[260:, 140:].sum() > 10  # the same line turned at the bottom
        one = _ink(reindexed_face(card, "KH", np.random.default_rng(seed), ("single",)))
        assert one[:90].sum() > 20 and not one[150:].any()
        pictured = reindexed_face(card, "KH", np.random.default_rng(seed), ("single", "row"))
        np.testing.assert_array_equal(pictured[100:200, 60:140], card[100:200, 60:140])
    with pytest.raises(ValueError, match="index style"):
        reindexed_face(card, "7S", np.random.default_rng(0), ("diagonal",))


@pytest.mark.parametrize("style", ["stacked", "single", "row", "row_single"])
def test_a_redrawn_index_lies_inside_the_regions_it_reports(style):
    """Every stroke of a redrawn index lies inside the regions :func:`redraw_index` reports, and each region
    holds one: the scene's index_visible and the corner labels cut from it follow these regions."""
    from companion.synth.reindex import redraw_index

    card = _plain_card()
    h, w = card.shape[:2]
    for seed in range(8):
        for name in ("7S", "10D", "KH"):
            face, regions = redraw_index(card, name, np.random.default_rng(seed), (style,))
            ink = _ink(face)
            inside = np.zeros_like(ink)
            assert len(regions) == {"stacked": 2, "single": 1, "row": 2, "row_single": 1}[style]
            for region in regions:
                assert region.shape == (4, 2) and (region >= 0).all() and (region <= 1).all()
                x0, y0 = np.floor(region.min(axis=0) * (w, h)).astype(int)
                x1, y1 = np.ceil(region.max(axis=0) * (w, h)).astype(int)
                assert ink[y0:y1, x0:x1].sum() > 10  # an index is drawn there
                if style.startswith("row"):  # a line's region is its whole band, rank to suit
                    assert x1 - x0 > 0.5 * w
                inside[y0:y1, x0:x1] = True
            assert ink.any() and not (ink & ~inside).any(), (style, seed, name)
            # the same draws as the face alone gives
            np.testing.assert_array_equal(face, reindexed_face_of(card, name, seed, style))


def reindexed_face_of(card: np.ndarray, name: str, seed: int, style: str) -> np.ndarray:
    from companion.synth.reindex import reindexed_face

    return reindexed_face(card, name, np.random.default_rng(seed), (style,))


def test_a_card_is_labelled_by_where_its_own_index_lies(plain_design):
    """A card more than half under another is asked of a detector only with an index corner in view; a face
    that prints its index elsewhere than its family's decks (a redrawn one) is judged by its own regions."""
    camera = Camera(W, H, 400.0)
    top_right = np.array([[0.8, 0.0], [1.0, 0.0], [1.0, 0.27], [0.8, 0.27]])

    def under_a_back(regions):
        placements = [Placement("1O", (0.0, 0.0), 0.0, z=0, index_regions=regions),
                      Placement("back", (0.0, -40.0), 0.0, z=1)]  # covers the card's top 55 %
        return next(c for c in _render(plain_design, placements, camera).cards if c.card == "1O")

    printed, redrawn = under_a_back(None), under_a_back((top_right,))
    assert 0.15 < printed.visible < 0.5 and printed.visible == redrawn.visible
    assert printed.index_visible > 0.99 and printed.labelled()  # the family's bottom corner is in view
    assert redrawn.index_visible < 0.01 and not redrawn.labelled()  # its only index is under the back
    assert redrawn.index_regions == (top_right,)


@pytest.mark.parametrize("name, want_seen, want_regions", [
    ("plain", True, None),  # the family's corners: the bottom-right one is in view
    ("aisleriot-tango_nuevo", False, ("top-left",)),  # one index, top left, under the back
    ("kde-oxygen-white", False, ("top-right",)),  # the rank top right alone, under the back
    ("kde-dondorf", True, ("top-left", "top-right", "bottom-right", "bottom-left")),  # all four corners
])
def test_a_printed_deck_is_labelled_by_the_corners_it_prints_its_index_in(plain_design, name, want_seen,
                                                                        want_regions):
    """A deck that prints its rank elsewhere than its family's (``DESIGN_INDEX_CORNERS``) is judged by its own
    corners: a card of a one-index deck with its top under a back shows no rank, whatever its bare bottom
    corner shows, and is not asked of a detector; its record carries the regions for the corner data."""
    from dataclasses import replace

    from companion.synth.index_corners import corner_region

    camera = Camera(W, H, 400.0)
    placements = [Placement("1O", (0.0, 0.0), 0.0, z=0), Placement("back", (0.0, -40.0), 0.0, z=1)]
    design = replace(plain_design, name=name)
    card = next(c for c in _render(design, placements, camera).cards if c.card == "1O")
    assert 0.15 < card.visible < 0.5
    assert (card.index_visible > 0.99) == want_seen and card.labelled() == want_seen
    if want_regions is None:
        assert card.index_regions is None
    else:
        assert len(card.index_regions) == len(want_regions)
        for got, corner in zip(card.index_regions, want_regions):
            assert np.allclose(got, corner_region("spanish", corner))


def test_big_pip_replaces_a_number_cards_body_but_never_a_figures():
    from companion.synth.reindex import reindexed_face

    card = _plain_card()
    seven = reindexed_face(card, "7H", np.random.default_rng(3), ("row_single",), big_pip=1.0)
    body = seven[110:260, 40:160, :3].reshape(-1, 3).astype(int)
    assert not (body == (90, 140, 30)).all(axis=1).any()  # the old picture is gone
    red = (body[:, 2] > body[:, 0] + 60).mean()
    assert red > 0.3  # most of the body is one red heart
    queen = reindexed_face(card, "QH", np.random.default_rng(3), ("row_single",), big_pip=1.0)
    np.testing.assert_array_equal(queen[100:200, 60:140], card[100:200, 60:140])


def test_index_fonts_are_text_faces_of_both_kinds(tmp_path, monkeypatch):
    from companion.synth import reindex

    for name in ("Serif.ttf", "Book.otf", "StandardSymbolsPS.otf", "D050000L.otf", "STIXMath.ttf", "notes.txt"):
        (tmp_path / name).write_bytes(b"")
    monkeypatch.setattr(reindex, "FONT_DIRS", (str(tmp_path),))
    reindex.text_fonts.cache_clear()
    try:
        assert [p.rsplit("/", 1)[1] for p in reindex.text_fonts()] == ["Book.otf", "Serif.ttf"]
    finally:
        reindex.text_fonts.cache_clear()


def _photo(folder, name, bgr, size=(200, 300)):
    folder.mkdir(parents=True, exist_ok=True)
    img = np.zeros((*size, 3), np.uint8)
    img[:] = bgr
    cv2.imwrite(str(folder / name), img)


def test_photo_surfaces_are_cut_from_the_photographs(tmp_path):
    from companion.synth.photos import PhotoPool, find_photos

    _photo(tmp_path / "p", "blue.png", (220, 40, 40))
    _photo(tmp_path / "p" / "sub", "blue.jpg", (230, 30, 30))
    _photo(tmp_path / "p", "icon.png", (0, 0, 255), size=(16, 16))  # too small to be a surface
    (tmp_path / "p" / "notes.txt").write_text("not a photo")
    assert sorted(p.name for p in find_photos([str(tmp_path / "p")])) == ["blue.jpg", "blue.png", "icon.png"]
    pool = PhotoPool.from_dirs([str(tmp_path / "p")])
    rng = np.random.default_rng(0)
    cuts = [pool.surface(rng, 50, 80) for _ in range(20)] + [pool.patch(rng, 31, 17) for _ in range(20)]
    assert {c.shape for c in cuts} == {(50, 80, 3), (31, 17, 3)} and {c.dtype for c in cuts} == {np.dtype(np.uint8)}
    mean = np.mean([c.reshape(-1, 3).mean(axis=0) for c in cuts], axis=0)
    assert mean[0] > mean[2] + 40  # blue photographs, never the red icon


def test_dataset_build_lays_scenes_on_photographs_and_labels_them_the_same(tmp_path, plain_design, monkeypatch):
    import companion.synth.build as build

    monkeypatch.setattr(build, "designs_for", lambda family, split, workers=1, source="debian": [plain_design])
    monkeypatch.setattr(build, "_split_designs_cached", lambda family, split, source="debian": [plain_design])
    monkeypatch.setattr(build, "family_cards", lambda family: plain_design.cards)
    monkeypatch.setattr(build, "random_lighting", lambda rng: Lighting(shadow=0.0))
    from companion.synth.photos import PhotoPool

    class Magenta(PhotoPool):  # every cut of it is plain magenta (cutting is tested above)
        def cut(self, rng, height, width, zoom=(0.25, 1.0)):
            return np.full((height, width, 3), (255, 0, 255), np.uint8)

    monkeypatch.setattr(build, "pool_for", lambda dirs: Magenta([tmp_path / "photos" / "magenta.png"]))
    _photo(tmp_path / "photos", "magenta.png", (255, 0, 255))
    out = build.build_dataset("spanish", 3, tmp_path / "ds", split="train", seed=1, layouts=("closeup",),
                              photo_dirs=(str(tmp_path / "photos"),), photo_share=1.0)
    for rec in (json.loads(x) for x in (out / "scenes" / "train-spanish.jsonl").read_text().splitlines()):
        img = cv2.imread(str(out / rec["image"]))
        covered = np.zeros(img.shape[:2], np.uint8)
        for c in rec["cards"]:
            cv2.fillConvexPoly(covered, np.array(c["corners"], np.int32), 1)
        table = img[covered == 0].astype(int)
        # the surface is the photograph: magenta (blue and red well above green) where no card lies
        assert np.median(table[:, 0] - table[:, 1]) > 60 and np.median(table[:, 2] - table[:, 1]) > 60
        stem = rec["image"].split("/")[-1][:-4]
        lines = [ln for ln in (out / "labels" / "train" / f"{stem}.txt").read_text().split("\n") if ln.strip()]
        assert len(lines) == sum(c["labelled"] and (c["box"][2] - c["box"][0]) >= 3
                                 and (c["box"][3] - c["box"][1]) >= 3 for c in rec["cards"])


def test_dataset_build_with_no_photographs_is_one_clear_error(tmp_path, capsys):
    from companion.cli import main

    (tmp_path / "empty").mkdir()
    rc = main(["dataset", "build", "--family", "spanish", "--n", "1", "--out", str(tmp_path / "ds"),
               "--photos", str(tmp_path / "empty")])
    err = capsys.readouterr().err
    assert rc == 1 and "no photographs" in err and str(tmp_path / "empty") in err
    assert not (tmp_path / "ds").exists()


@pytest.mark.parametrize("command, option", [
    (["build", "--family", "spanish", "--n", "1", "--photos"], "--photo-share"),
    (["crops", "--family", "french", "--n", "1"], "--reindex"),
    (["build", "--family", "french", "--n", "1"], "--reindex"),
    (["build", "--family", "french", "--n", "1"], "--big-pip"),
    (["crops", "--family", "french", "--n", "1"], "--ink"),
    (["build", "--family", "french", "--n", "1"], "--ink"),
    (["build", "--family", "french", "--n", "1"], "--printed"),
    (["scene-corners", "--scenes", "S"], "--hidden-share"),
    (["scene-corners", "--scenes", "S"], "--full-share"),
])
@pytest.mark.parametrize("value", ["60", "-0.1", "half"])
def test_a_share_out_of_range_is_refused_before_anything_is_drawn(tmp_path, capsys, command, option, value):
    """A share the drawing code would clip (a --hidden-share of 3 acting as 1) is a usage error instead."""
    from companion.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["dataset", *command, "--out", str(tmp_path / "ds"), option, value])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert option in err and "expected a share in [0, 1]" in err and value in err
    assert not (tmp_path / "ds").exists()


def test_covered_crops_name_the_card_a_detector_boxes_however_covered(tmp_path):
    """By default a crop is cut only for a card mostly in view; with ``covered`` every card the detector is
    asked to box (half in view, or 15 % with its index corner) is cut, under its own name, and a card
    nearly hidden (no index corner in view) still is not."""
    from companion.synth.build import write_crops

    image = np.full((240, 320, 3), 90, np.uint8)
    cards = [("QH", (20.0, 20.0, 90.0, 120.0), 1.0, 1.0),   # in full view
             ("7S", (100.0, 20.0, 170.0, 120.0), 0.3, 1.0),  # under another, its index corner showing
             ("2D", (180.0, 20.0, 250.0, 120.0), 0.55, 0.2),  # half in view
             ("KC", (20.0, 130.0, 90.0, 230.0), 0.3, 0.4),  # under another, its index hidden: not boxed
             ("back", (100.0, 130.0, 170.0, 230.0), 0.3, 1.0)]
    rng = np.random.default_rng(0)

    def written(folder):
        return sorted(p.parent.name for p in folder.rglob("*.jpg"))

    assert write_crops(image, cards, tmp_path / "default", "s", 96, rng) == 1
    assert written(tmp_path / "default") == ["QH"]
    assert write_crops(image, cards, tmp_path / "covered", "s", 96, rng, covered=True) == 3
    assert written(tmp_path / "covered") == ["2D", "7S", "QH"]
    assert write_crops(image, cards, tmp_path / "backs", "s", 96, rng, backs=True, covered=True) == 4
    assert written(tmp_path / "backs") == ["2D", "7S", "QH", "back"]


def _card_record(card: str, x0: float, y0: float, x1: float, y1: float, visible: float, index_visible: float) -> dict:
    return {"card": card, "box": [x0, y0, x1, y1], "corners": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
            "visible": visible, "index_visible": index_visible, "labelled": True}


def test_scene_corners_label_a_window_only_where_it_shows_its_own_cards_index(tmp_path, capsys):
    """A card whose top-left index lies under another card gives only the window of its other index (whichever
    way up the crop was cut), the card on top both; a card the cards above do not explain (a finger hides
    part of it) gives none; and the command writes them in one folder per card, warning of a scene whose image
    is lost and writing the others."""
    from companion.synth.scene import index_regions
    from companion.synth.scene_corners import scene_corner_images

    image = np.full((240, 320, 3), 90, np.uint8)
    under = _card_record("7S", 40, 40, 110, 140, 1 - 40 * 55 / 7000, 1.0)  # its top-left index under QH
    top = _card_record("QH", 20, 10, 80, 95, 1.0, 1.0)
    hidden = _card_record("2D", 200, 40, 270, 140, 0.6, 1.0)  # in full view of every card, yet 0.6 visible
    for record in (under, top, hidden):
        x0, y0, x1, y1 = (int(v) for v in record["box"])
        image[y0:y1, x0:x1] = 255
    pairs = scene_corner_images(image, [under, top, hidden], np.random.default_rng(0), reps=3, full_share=1.0)
    labels = [label for label, _ in pairs]
    assert labels.count("7S") == 3 and labels.count("QH") == 6 and "2D" not in labels
    assert all(view.shape == (64, 64, 3) for _, view in pairs)
    # asked for, the window over 7S's hidden index is kept too, as "hidden" (alone with own=False); the
    # windows kept before are the same ones
    more = scene_corner_images(image, [under, top, hidden], np.random.default_rng(0), reps=3, full_share=1.0,
                               hidden_share=1.0)
    assert [label for label, _ in more if label != "hidden"] == labels and [label for label, _ in more].count("hidden") == 3
    only = scene_corner_images(image, [under, top, hidden], np.random.default_rng(0), reps=3, full_share=1.0,
                               hidden_share=1.0, own=False)
    assert [label for label, _ in only] == ["hidden"] * 3
    # the same scene with nothing above: both of 7S's windows each time
    alone = dict(under, visible=1.0)
    assert [label for label, _ in scene_corner_images(image, [alone], np.random.default_rng(0), reps=3,
                                                      full_share=1.0)] == ["7S"] * 6
    # a redrawn face is labelled where its own index lies: top left alone (one window), or a band along the top
    # that no corner window holds whole (none)
    top_left, _ = index_regions("french")
    band = [[0.03, 0.02], [0.97, 0.02], [0.97, 0.2], [0.03, 0.2]]
    for regions, want in (([top_left.tolist()], ["7S"] * 3), ([band], [])):
        redrawn = dict(alone, index_regions=regions)
        assert [label for label, _ in scene_corner_images(image, [redrawn], np.random.default_rng(0), reps=3,
                                                          full_share=1.0)] == want

    root = tmp_path / "ds"
    (root / "images").mkdir(parents=True)
    (root / "scenes").mkdir()
    cv2.imwrite(str(root / "images" / "s0.jpg"), image)
    (root / "scenes" / "train-french.jsonl").write_text(
        json.dumps({"image": "images/s0.jpg", "cards": [under, top, hidden]}) + "\n"
        + json.dumps({"image": "images/gone.jpg", "cards": [top]}) + "\n")  # a scene whose image is lost
    from companion.cli import main

    assert main(["dataset", "scene-corners", "--scenes", str(root), "--out", str(tmp_path / "out"),
                 "--reps", "3", "--full-share", "1"]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["7S", "QH"]
    assert "unreadable scene skipped" in capsys.readouterr().err
    assert len(list((tmp_path / "out").rglob("*.jpg"))) == 9  # the readable scene's, written all the same
    assert main(["dataset", "scene-corners", "--scenes", str(tmp_path / "none"), "--out", str(tmp_path / "o")]) == 1
    assert main(["dataset", "scene-corners", "--scenes", str(root), "--out", str(tmp_path / "h"), "--reps", "3",
                 "--full-share", "1", "--hidden-share", "1", "--only-hidden"]) == 0
    assert sorted(p.name for p in (tmp_path / "h").iterdir()) == ["hidden"]


def test_scene_bands_label_the_band_that_holds_a_whole_index(tmp_path):
    """The band model's data: a face printing rank and suit on one line at its top gives its top band, labelled,
    and no corner window (none holds the line whole); its bare bottom band is "hidden" only when asked for;
    cut upright from its true outline, a tilted card still shows its line in a band; and the command
    writes band images, refusing a view it does not know."""
    from companion.synth.scene_corners import scene_corner_images
    from companion.vision.crops import band_views

    image = np.full((240, 320, 3), 90, np.uint8)
    image[40:140, 40:110] = 255
    band = [[0.03, 0.02], [0.97, 0.02], [0.97, 0.2], [0.03, 0.2]]
    line = dict(_card_record("7S", 40, 40, 110, 140, 1.0, 1.0), index_regions=[band])

    def labels(record, **kw):
        return [label for label, _ in scene_corner_images(image, [record], np.random.default_rng(0), reps=3,
                                                          full_share=1.0, **kw)]

    assert labels(line) == []  # the corner windows: 55 % of the width never holds the line
    assert labels(line, view="bands") == ["7S"] * 3  # one band a cut (which one depends on the half turn)
    assert sorted(labels(line, view="bands", bare_share=1.0)) == ["7S"] * 3 + ["hidden"] * 3
    views = [cut for _, cut in scene_corner_images(image, [line], np.random.default_rng(0), reps=1,
                                                   full_share=1.0, view="bands")]
    assert views[0].shape == (96, 96, 3)

    # a card lying at 40 degrees: its box crop's bands cut its line askew, its upright crop's hold it whole
    centre, size = np.array([200.0, 120.0]), np.array([60.0, 90.0])
    turn = np.deg2rad(40)
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    quad = centre + (np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]) * size) @ rot.T
    tilted = {"card": "9H", "box": [*quad.min(axis=0), *quad.max(axis=0)], "corners": quad.tolist(),
              "visible": 1.0, "index_visible": 1.0, "labelled": True, "index_regions": [band]}
    assert labels(tilted, view="bands") == []
    assert labels(tilted, view="bands", upright_share=1.0) == ["9H"] * 3

    # band_views: the top band, then the bottom band turned a half turn
    crop = np.zeros((1, 96, 96, 3), np.uint8)
    crop[0, :10, :, 2] = 255  # red along the top
    crop[0, -10:, :, 0] = 255  # blue along the bottom
    top, bottom = band_views(crop)
    assert top[:20, :, 2].mean() > 200 and bottom[:20, :, 0].mean() > 200

    root = tmp_path / "ds"
    (root / "images").mkdir(parents=True)
    (root / "scenes").mkdir()
    cv2.imwrite(str(root / "images" / "s0.jpg"), image)
    (root / "scenes" / "train-french.jsonl").write_text(json.dumps({"image": "images/s0.jpg", "cards": [line]}) + "\n")
    from companion.cli import main

    assert main(["dataset", "scene-corners", "--scenes", str(root), "--out", str(tmp_path / "bands"), "--reps", "2",
                 "--full-share", "1", "--view", "bands"]) == 0
    written = list((tmp_path / "bands").rglob("*.jpg"))
    assert len(written) == 2 and {p.parent.name for p in written} == {"7S"}
    with pytest.raises(SystemExit):
        main(["dataset", "scene-corners", "--scenes", str(root), "--out", str(tmp_path / "x"), "--view", "edges"])
    with pytest.raises(ValueError, match="unknown view"):
        scene_corner_images(image, [line], np.random.default_rng(0), view="edges")


def test_dataset_build_reindex_redraws_every_face_of_the_training_scenes_only(tmp_path, monkeypatch,
                                                                             one_french_design):
    """`dataset build --reindex` redraws the index corners of a share of training scenes, every face-up card
    of such a scene, in the layouts asked for; validation scenes (held-back decks as printed) never, and at 0
    nothing is drawn, so a seed still renders the scenes it always did."""
    import companion.synth.build as build
    import companion.synth.reindex as reindex

    face = np.full((360, 250, 4), 255, np.uint8)
    face[:, :, :3] = (235, 240, 245)
    one_french_design(face)
    calls: list[tuple[str, tuple[str, ...], float]] = []
    original = reindex.redraw_index

    def spy(art_, card, rng, styles=("stacked",), big_pip=0.0):
        calls.append((card, styles, big_pip))
        return original(art_, card, rng, styles, big_pip)

    monkeypatch.setattr(reindex, "redraw_index", spy)

    def records(out, split):
        return [json.loads(x) for x in (out / "scenes" / f"{split}-french.jsonl").read_text().splitlines()]

    def faces(out, split):
        return sorted(c["card"] for r in records(out, split) for c in r["cards"] if c["card"] != "back")

    redrawn = build.build_dataset("french", 4, tmp_path / "redrawn", split="train", seed=3, reindex=1.0,
                                  index_styles=("row", "single"), big_pip=0.5)
    drawn = faces(redrawn, "train")
    assert drawn and sorted(c for c, _, _ in calls) == drawn  # every face of every scene, once
    assert {(s, p) for _, s, p in calls} == {(("row", "single"), 0.5)}
    # each redrawn face records where its index now lies (a line: one band; one corner: one patch), a back none
    for card in (c for r in records(redrawn, "train") for c in r["cards"]):
        if card["card"] == "back":
            assert "index_regions" not in card
        else:
            assert len(card["index_regions"]) in (1, 2) and all(np.array(r).shape == (4, 2)
                                                                for r in card["index_regions"])

    with pytest.raises(ValueError, match="unknown index style 'diagonal'"):
        build.build_dataset("french", 1, tmp_path / "bad", split="train", reindex=0.5, index_styles=("diagonal",))
    assert not (tmp_path / "bad").exists()
    calls.clear()
    val = build.build_dataset("french", 2, tmp_path / "val", split="val", seed=3, reindex=1.0)
    plain = build.build_dataset("french", 2, tmp_path / "plain", split="train", seed=3, reindex=0.0)
    assert calls == []
    assert not any("index_regions" in c for out, split in ((val, "val"), (plain, "train"))
                   for r in records(out, split) for c in r["cards"])
    default = build.build_dataset("french", 2, tmp_path / "default", split="train", seed=3)
    for stem in ("fr000000", "fr000001"):
        a = cv2.imread(str(plain / "images" / "train" / f"{stem}.jpg"))
        assert np.array_equal(a, cv2.imread(str(default / "images" / "train" / f"{stem}.jpg")))


def test_redrawn_data_says_when_this_machine_has_fewer_typefaces_than_the_recipe(monkeypatch, capsys):
    """Sessions 52-53 drew redrawn indices in the 37 faces a fresh machine has, not the recipe's 251, and
    nothing said so. A build that redraws now warns on stderr (and still builds); one that does not is quiet."""
    from companion.cli import main
    from companion.synth import reindex

    few = tuple(f"/f/Face{i}.ttf" for i in range(37))
    monkeypatch.setattr(reindex, "text_fonts", lambda: few)
    warning = reindex.font_shortfall()
    assert warning is not None and "only 37 typefaces" in warning and str(reindex.RECIPE_FACES) in warning
    monkeypatch.setattr(reindex, "text_fonts", lambda: few * 7)
    assert reindex.font_shortfall() is None
    monkeypatch.setattr(reindex, "text_fonts", lambda: few)
    # the warning comes before any work: a build with nothing to draw shows it and its own outcome
    assert main(["dataset", "crops", "--family", "french", "--n", "0", "--out", "/nonexistent/x",
                 "--reindex", "0.5"]) == 0
    assert "only 37 typefaces" in capsys.readouterr().err
    assert main(["dataset", "crops", "--family", "french", "--n", "0", "--out", "/nonexistent/x"]) == 0
    assert "typefaces" not in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--printed", "--random-backs"])
def test_dataset_build_cli_takes_a_share_of_the_training_scenes(flag, tmp_path, one_french_design, capsys):
    """`--printed P` and `--random-backs P` (the shares of training scenes given printed things, random backs) build
    with a share in [0, 1] and refuse one outside it by name."""
    from companion.cli import main

    face = np.full((360, 250, 4), 255, np.uint8)
    one_french_design(face)
    assert main(["dataset", "build", "--family", "french", "--n", "2", "--split", "train", flag, "0.5",
                 "--out", str(tmp_path / "ds")]) == 0
    assert len(list((tmp_path / "ds" / "images" / "train").glob("*.jpg"))) == 2
    with pytest.raises(SystemExit):
        main(["dataset", "build", "--family", "french", "--n", "2", flag, "1.5", "--out", str(tmp_path / "bad")])
    assert "1.5" in capsys.readouterr().err

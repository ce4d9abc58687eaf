"""The synthetic validation's figures (companion.vision.evaluate): mAP and where it goes."""

from __future__ import annotations

import pytest

from companion.vision.evaluate import map_scores, match_detections, reading_shares, val_scenes

A = [10.0, 10.0, 60.0, 90.0]
B = [100.0, 10.0, 150.0, 90.0]


def _gt(card: str, box: list[float], visible: float = 1.0, index_visible: float = 1.0) -> dict:
    return {"card": card, "box": box, "visible": visible, "index_visible": index_visible}


def _det(card: str, box: list[float], confidence: float) -> dict:
    return {"card": card, "box": box, "confidence": confidence}


def test_a_card_boxed_but_misnamed_costs_its_class_and_shows_as_a_naming_miss():
    images = [([_gt("AH", A), _gt("2C", B, visible=0.6)], [], [_det("AH", A, 0.9), _det("3C", B, 0.8)])]
    scores = map_scores(images)
    assert scores["classes"] == 2 and scores["mAP50"] == pytest.approx(0.5)
    shares = reading_shares(images)
    assert shares["all"] == {"cards": 2, "boxed": 1.0, "named_right": 0.5}
    assert shares["in_full_view"]["named_right"] == 1.0 and shares["partly_covered"]["named_right"] == 0.0


def test_matching_lets_the_most_confident_claim_a_card_and_skips_loose_or_misnamed_boxes():
    """The matching mAP counts (and bench/box_tightness.py reports): one card claimed once, by its own name only."""
    near_a = [12.0, 12.0, 62.0, 92.0]
    truths = [_gt("AH", A), _gt("2C", B)]
    dets = [_det("AH", near_a, 0.4), _det("AH", A, 0.9), _det("3C", B, 0.8),
            _det("2C", [100.0, 10.0, 150.0, 250.0], 0.7)]           # 2C's box three times too tall: IoU 0.33
    matched = [(d["confidence"], j, round(v, 3)) for d, j, v in match_detections(truths, dets, 0.5)]
    assert matched[0] == (0.9, 0, 1.0)                               # the surest AH claims the card
    assert matched[1] == (0.8, None, 0.0)                            # 3C names no labelled card
    assert matched[2][:2] == (0.7, None) and matched[2][2] < 0.5      # too loose for 2C
    assert matched[3][:2] == (0.4, None) and matched[3][2] == 0.0    # AH already claimed: nothing left to match


def test_the_box_of_a_card_over_another_does_not_box_the_card_under_it():
    """Session 101: a covered card with no box of its own, under a card whose box overlaps it by 0.6, is unboxed in
    the readings (the box is the top card's: it overlaps that one more), not misnamed; a box naming a card right
    boxes it even where it overlaps another card more, as the mAP matches it."""
    top, under = _gt("KH", [0.0, 0.0, 60.0, 90.0]), _gt("5C", [10.0, 0.0, 70.0, 90.0], visible=0.3)
    shares = reading_shares([([top, under], [], [_det("KH", [2.0, 0.0, 62.0, 90.0], 0.9)])])
    assert shares["in_full_view"] == {"cards": 1, "boxed": 1.0, "named_right": 1.0}
    assert shares["partly_covered"] == {"cards": 1, "boxed": 0.0, "named_right": 0.0}
    # the unlabelled cards count as the scene's other cards too
    shares = reading_shares([([under], [top], [_det("KH", [2.0, 0.0, 62.0, 90.0], 0.9)])])
    assert shares["partly_covered"]["boxed"] == 0.0
    named = reading_shares([([top, under], [], [_det("5C", [4.0, 0.0, 64.0, 90.0], 0.9)])])
    assert named["partly_covered"] == {"cards": 1, "boxed": 1.0, "named_right": 1.0}


def test_a_folder_without_validation_scenes_gets_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="companion dataset build"):
        val_scenes(tmp_path, "spanish")


def test_a_faint_right_reading_kept_under_a_lower_threshold_counts():
    images = [([_gt("AH", A), _gt("2C", B)], [], [_det("AH", A, 0.9), _det("2C", B, 0.05)])]
    assert map_scores(images)["mAP50"] == pytest.approx(1.0)
    loose = [([_gt("AH", A)], [], [_det("AH", [10.0, 10.0, 60.0, 200.0], 0.9)])]  # IoU 0.42: not boxed
    assert map_scores(loose)["mAP50"] == 0.0 and reading_shares(loose)["all"]["boxed"] == 0.0


def test_a_covered_card_is_counted_apart_when_neither_index_corner_is_in_view():
    """A half-covered card whose index corners are both under other cards is labelled but shows no index: its
    misses are a ceiling for a corner reader, counted apart from the covered cards whose index is in view."""
    C = [200.0, 10.0, 250.0, 90.0]
    images = [([_gt("AH", A, visible=0.6, index_visible=1.0), _gt("2C", B, visible=0.55, index_visible=0.3),
                _gt("KS", C)], [], [_det("AH", A, 0.9), _det("3C", B, 0.8), _det("KS", C, 0.9)])]
    shares = reading_shares(images)
    assert shares["covered_index_seen"] == {"cards": 1, "boxed": 1.0, "named_right": 1.0}
    assert shares["covered_index_hidden"] == {"cards": 1, "boxed": 1.0, "named_right": 0.0}
    assert shares["partly_covered"]["cards"] == 2 and shares["in_full_view"]["cards"] == 1


def test_the_synthetic_figures_split_by_the_design_each_scene_names(tmp_path):
    """Scenes rendered since session 45 record their face design: the evaluation names the cards right per
    design too, so that a miss gathered on one held-out deck shows as that deck's.  Older scenes (no design)
    give the totals alone."""
    import json

    import cv2
    import numpy as np

    from companion.vision.detector import Detection
    from companion.vision.evaluate import evaluate_synthetic

    (tmp_path / "scenes").mkdir()
    (tmp_path / "images").mkdir()
    records = []
    for i, design in enumerate(("deck-a", "deck-b", "deck-a")):
        cv2.imwrite(str(tmp_path / "images" / f"{i}.jpg"), np.full((100, 200, 3), i, np.uint8))
        records.append({"image": f"images/{i}.jpg", "design": design,
                        "cards": [{**_gt("AH", A), "labelled": True}, {**_gt("2C", B, visible=0.5), "labelled": True}]})

    class Reader:
        """Names deck-a's cards right and calls deck-b's two of clubs a three (the scene's pixel value tells)."""
        family = "french"

        def detect(self, image):
            return [Detection("AH", 0.9, tuple(A)), Detection("3C" if image[0, 0, 0] == 1 else "2C", 0.9, tuple(B))]

    (tmp_path / "scenes" / "val-french.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    out = evaluate_synthetic(Reader(), tmp_path)
    by = out["readings_by_design"]
    assert sorted(by) == ["deck-a", "deck-b"]
    assert by["deck-a"]["all"] == {"cards": 4, "boxed": 1.0, "named_right": 1.0}
    assert by["deck-b"]["in_full_view"]["named_right"] == 1.0 and by["deck-b"]["partly_covered"]["named_right"] == 0.0
    assert out["readings"]["all"]["named_right"] == pytest.approx(5 / 6, abs=1e-4)
    for r in records:
        del r["design"]
    (tmp_path / "scenes" / "val-french.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    assert "readings_by_design" not in evaluate_synthetic(Reader(), tmp_path)


def test_the_synthetic_figures_split_by_card_size_where_scenes_record_outlines():
    """A card's size is its outline's short side; the shares are split by it so that a reader's misses show apart
    from cards too small to read.  Scenes without outlines give no split."""
    from companion.vision.evaluate import card_size, readings_by_size, size_group

    def outlined(card: str, box: list[float], short: float, long_: float, **kw) -> dict:
        x, y = box[0], box[1]
        return {**_gt(card, box, **kw), "corners": [[x, y], [x + short, y], [x + short, y + long_], [x, y + long_]]}

    small, big = outlined("AH", A, 25.0, 35.0), outlined("2C", B, 50.0, 80.0, visible=0.5)
    assert card_size(small) == pytest.approx(25.0) and card_size(big) == pytest.approx(50.0)
    assert card_size(_gt("AH", A)) is None
    assert [size_group(v) for v in (10, 30, 45, 79.9, 80, 300)] == [
        "under 30 px", "30-40 px", "40-50 px", "60-80 px", "80 px and more", "80 px and more"]
    images = [([small, big], [], [_det("AH", A, 0.9), _det("3C", B, 0.8)])]
    by = readings_by_size(images)
    assert list(by) == ["under 30 px", "50-60 px"]
    assert by["under 30 px"]["all"] == {"cards": 1, "boxed": 1.0, "named_right": 1.0}
    assert by["50-60 px"]["partly_covered"] == {"cards": 1, "boxed": 1.0, "named_right": 0.0}
    assert readings_by_size([([_gt("AH", A)], [], [_det("AH", A, 0.9)])]) == {}


def test_the_nameable_figure_leaves_out_covered_cards_whose_index_is_hidden(tmp_path):
    """Beside the mAP of every labelled card, ``nameable``: the same without the covered faces showing under
    half of an index region (nothing in the picture names them; a detection of one is dropped, not counted
    false), backs and cards in full view always kept.  Scenes rendered before a deck's own index corners were
    followed are not measured so, and say why."""
    import json

    import cv2
    import numpy as np

    from companion.vision.detector import Detection
    from companion.vision.evaluate import evaluate_synthetic, nameable

    C = [200.0, 10.0, 250.0, 90.0]
    assert nameable({**_gt("2C", B, visible=0.6, index_visible=0.5)})
    assert not nameable({**_gt("2C", B, visible=0.6, index_visible=0.49)})
    assert nameable({**_gt("back", B, visible=0.6, index_visible=0.0)}) and nameable(_gt("2C", B, index_visible=0))
    (tmp_path / "scenes").mkdir()
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "0.jpg"), np.zeros((100, 300, 3), np.uint8))
    regions = [[[0, 0], [0.2, 0], [0.2, 0.27], [0, 0.27]]]
    cards = [{**_gt("AH", A), "labelled": True, "index_regions": regions},
             {**_gt("2C", B, visible=0.55, index_visible=0.1), "labelled": True, "index_regions": regions},
             {**_gt("KS", C, visible=0.6, index_visible=0.9), "labelled": True, "index_regions": regions}]
    record = {"image": "images/0.jpg", "design": "aisleriot-tango_nuevo", "cards": cards}

    class Reader:
        """Names the two of clubs, whose rank is hidden, a three; the other two right."""
        family = "french"

        def detect(self, image):
            return [Detection("AH", 0.9, tuple(A)), Detection("3C", 0.9, tuple(B)), Detection("KS", 0.8, tuple(C))]

    scenes = tmp_path / "scenes" / "val-french.jsonl"
    scenes.write_text(json.dumps(record))
    out = evaluate_synthetic(Reader(), tmp_path)
    assert out["mAP50"] < 1.0 and out["labelled_cards"] == 3
    assert out["nameable"]["mAP50"] == pytest.approx(1.0)
    assert out["nameable"]["cards"] == 2 and out["nameable"]["left_out"] == 1
    for c in cards:
        del c["index_regions"]  # as the odd decks' scenes were recorded before session 53
    scenes.write_text(json.dumps(record))
    assert "render them again" in evaluate_synthetic(Reader(), tmp_path)["nameable"]


def test_every_candidate_keeps_the_photo_views_and_drops_only_their_operating_thresholds(tmp_path, capsys):
    """``evaluate --every-candidate``: the usual mAP protocol (every box the detector scores 0.01 or more, however
    weakly named) on the photo settings' own views and models; a threshold given outright still wins, and
    without the flag the operating point is read, as every figure before it was."""
    import json

    import cv2
    import numpy as np

    from companion.vision.evaluate import EVERY_CANDIDATE, main

    (tmp_path / "AH").mkdir()
    cv2.imwrite(str(tmp_path / "AH" / "a.jpg"), np.full((96, 96, 3), 200, np.uint8))

    def read(*extra: str) -> dict:
        assert main(["classifier", "--crops", str(tmp_path), *extra]) == 0
        return json.loads(capsys.readouterr().out)

    plain, every, told = read(), read("--every-candidate"), read("--every-candidate", "--conf", "0.05")
    assert not plain["every_candidate"] and plain["conf"] > 0.1 and plain["face_min_prob"] > 0.0
    assert every["every_candidate"] and {k: every[k] for k in EVERY_CANDIDATE} == EVERY_CANDIDATE
    assert told["conf"] == 0.05 and told["face_min_prob"] == 0.0
    assert every["scales"] == plain["scales"] and every["zoom"] == plain["zoom"]  # the same views


def test_backs_get_their_own_ap_and_readings_apart_from_the_faces():
    """A back boxed as a face counts as a miss of the back class; the figures say so apart (``back_AP50``)."""
    images = [([_gt("back", A), _gt("2C", B)], [], [_det("AH", A, 0.9), _det("2C", B, 0.8)])]
    scores = map_scores(images)
    assert scores["back_AP50"] == 0.0 and scores["mAP50"] == pytest.approx(0.5)
    assert "back_AP50" not in map_scores([([_gt("2C", B)], [], [_det("2C", B, 0.8)])])
    only_backs = [([g for g in gts if g["card"] == "back"], ign, dets) for gts, ign, dets in images]
    assert reading_shares(only_backs)["all"] == {"cards": 1, "boxed": 1.0, "named_right": 0.0}


def test_misnamed_cards_splits_the_faces_and_counts_a_borrowed_neighbours_name(bench_script, tmp_path, capsys):
    """bench/misnamed_cards.py: each labelled face counted once in its view with what happened to it (the detection
    boxing it, as `evaluate`'s readings), backs left out; a covered face boxed on its own and named as the card over
    it counts as taking its neighbour's rank and name, one named a rank no neighbour holds as neither; a missing
    folder is a clear error."""
    mod = bench_script("misnamed_cards")
    over = {"card": "KH", "box": [0, 0, 60, 90], "labelled": True}
    under = {"card": "5C", "box": [30, 0, 90, 90], "visible": 0.5, "index_visible": 1.0, "labelled": True}
    alone = {"card": "7D", "box": [200, 0, 260, 90], "visible": 0.6, "index_visible": 0.9, "labelled": True}
    hidden = {"card": "2S", "box": [300, 0, 360, 90], "visible": 0.4, "index_visible": 0.0, "labelled": True}
    suit = {"card": "9H", "box": [400, 0, 460, 90], "labelled": True}
    back = {"card": "back", "box": [500, 0, 560, 90], "labelled": True}
    dets = [{"card": "KH", "box": [0, 0, 60, 90]}, {"card": "KH", "box": [31, 0, 90, 90]},
            {"card": "QD", "box": [200, 0, 260, 90]}, {"card": "9S", "box": [400, 0, 460, 90]},
            {"card": "back", "box": [300, 0, 360, 90]}]
    rec = {"cards": [over, under, alone, hidden, suit, back]}
    per_view, borrowed, lost = mod.tally([(rec, dets, None)])
    assert per_view["in full view"] == {"right": 1, "suit only wrong": 1}
    assert per_view["covered, index in view"] == {"rank wrong": 2}
    assert per_view["covered, index hidden"] == {"named back": 1}
    assert borrowed["covered, rank wrong"] == 2
    assert (borrowed["took a neighbour's rank"], borrowed["took a neighbour's name"]) == (1, 1)
    assert borrowed["chance: a neighbour's rank"] == pytest.approx(1 / 12)
    assert all(not c for c in lost.values())  # no unboxed face
    assert mod.outcome(over, []) == ("unboxed", None)
    assert mod.main([str(tmp_path)]) == 2
    assert "not found" in capsys.readouterr().err


def test_misnamed_cards_counts_the_backs_apart_with_backs(bench_script):
    """With ``backs`` only the labelled backs are counted, in full view or covered (a back has no index), as right,
    unboxed or named a face; the faces and the neighbours' names are left out."""
    mod = bench_script("misnamed_cards")
    face = {"card": "KH", "box": [0, 0, 60, 90], "labelled": True}
    shown = {"card": "back", "box": [100, 0, 160, 90], "labelled": True}
    under = {"card": "back", "box": [200, 0, 260, 90], "visible": 0.5, "index_visible": 0.0, "labelled": True}
    lost = {"card": "back", "box": [300, 0, 360, 90], "labelled": True}
    dets = [{"card": "KH", "box": [0, 0, 60, 90]}, {"card": "back", "box": [100, 0, 160, 90]},
            {"card": "7D", "box": [200, 0, 260, 90]}]
    per_view, borrowed, _ = mod.tally([({"cards": [face, shown, under, lost]}, dets, None)], backs=True)
    assert per_view == {"in full view": {"right": 1, "unboxed": 1}, "covered": {"named a face": 1}}
    assert not borrowed
    faces, _, _ = mod.tally([({"cards": [face, shown, under, lost]}, dets, None)])
    assert faces["in full view"] == {"right": 1} and not faces["covered, index hidden"]


def test_misnamed_cards_says_which_step_lost_a_covered_card_the_box_over_it_does_not_box(bench_script):
    """A card half under another whose only box left is the top card's (IoU 0.6 with it, 0.9 with the top card) is
    unboxed, not misread as the top card; the step that lost its own box is named: the detector never gave one, the
    views' weighing dropped it, or a named step of the reading."""
    mod = bench_script("misnamed_cards")
    top = {"card": "KH", "box": [0, 0, 60, 90], "labelled": True}
    under = {"card": "5C", "box": [10, 0, 70, 90], "visible": 0.3, "index_visible": 1.0, "labelled": True}
    dets = [{"card": "KH", "box": [2, 0, 62, 90]}]
    assert mod.outcome(under, dets, [top]) == ("unboxed", None)
    assert mod.outcome(under, dets) == ("rank wrong", dets[0])  # without the scene's other cards: the old count
    own = [11.0, 0.0, 70.0, 90.0]
    trace = {"raw": [[2.0, 0.0, 62.0, 90.0], own], "found": [[2.0, 0.0, 62.0, 90.0], own],
             "stages": [("named", [[2.0, 0.0, 62.0, 90.0], own]), ("floors", [[2.0, 0.0, 62.0, 90.0]])]}
    per_view, _, lost = mod.tally([({"cards": [top, under]}, dets, trace)])
    assert per_view["covered, index in view"] == {"unboxed": 1} and per_view["in full view"] == {"right": 1}
    assert lost["covered, index in view"] == {"floors": 1}
    assert mod.lost_at(under, [top], {**trace, "found": trace["found"][:1]}) == mod.VIEWS_WEIGHED
    assert mod.lost_at(under, [top], {**trace, "raw": trace["raw"][:1]}) == mod.NEVER_BOXED

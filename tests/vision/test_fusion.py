"""Readings of one view fused (``companion.vision.fusion``, rules 163 and 173): the mirrored and the turned readings'
boxes mapped back, pairs averaged, a box one side alone found kept at a share of its score."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.fusion import fuse_readings, mirror_boxes, turn_boxes


def readings(*rows: tuple[float, float, float, float, float, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.array(rows, dtype=np.float64).reshape(-1, 6)
    return a[:, :4], a[:, 4], a[:, 5].astype(int)


def test_a_box_read_on_the_mirrored_image_maps_back_to_the_same_place() -> None:
    box = np.array([[10.0, 20.0, 40.0, 70.0]])
    assert mirror_boxes(box, 100).tolist() == [[60.0, 20.0, 90.0, 70.0]]
    assert mirror_boxes(mirror_boxes(box, 100), 100).tolist() == box.tolist()


def test_a_box_read_on_the_turned_image_maps_back_to_the_same_place() -> None:
    box = np.array([[10.0, 20.0, 40.0, 70.0]])
    assert turn_boxes(box, 100, 80).tolist() == [[60.0, 10.0, 90.0, 60.0]]
    assert turn_boxes(turn_boxes(box, 100, 80), 100, 80).tolist() == box.tolist()
    assert turn_boxes(np.zeros((0, 4)), 100, 80).shape == (0, 4)


def test_paired_boxes_are_averaged_by_score_and_lone_ones_keep_a_share() -> None:
    first = readings((0, 0, 10, 10, 0.8, 0), (50, 50, 60, 60, 0.6, 0), (80, 0, 90, 10, 0.5, 1))
    second = readings((1, 0, 11, 10, 0.4, 0), (80, 0, 90, 10, 0.3, 0), (20, 20, 30, 30, 0.2, 1))
    b, s, c = fuse_readings(first, second, single=0.5, floor=0.05)
    got = [(tuple(np.round(x, 3).tolist()), round(float(y), 3), int(k)) for x, y, k in zip(b, s, c)]
    assert got == [
        ((0.333, 0.0, 10.333, 10.0), 0.6, 0),  # the pair: coordinates weighted 0.8 : 0.4, the mean score
        ((50.0, 50.0, 60.0, 60.0), 0.3, 0),  # found by the first reading alone: half its score
        ((80.0, 0.0, 90.0, 10.0), 0.25, 1),  # the same place read as two classes is two boxes, each alone
        ((80.0, 0.0, 90.0, 10.0), 0.15, 0),
        ((20.0, 20.0, 30.0, 30.0), 0.1, 1),  # found by the second reading alone
    ]


def test_a_box_fused_under_the_floor_is_dropped_and_single_one_keeps_it() -> None:
    first = readings((0, 0, 10, 10, 0.12, 0))
    second = readings()
    assert len(fuse_readings(first, second, single=0.5, floor=0.1)[0]) == 0
    b, s, _ = fuse_readings(first, second, single=1.0, floor=0.1)
    assert b.tolist() == [[0.0, 0.0, 10.0, 10.0]] and s.tolist() == pytest.approx([0.12])


def test_first_single_sets_apart_the_share_of_the_first_readings_lone_boxes() -> None:
    """Rule 177: a third reading fused onto two adds its lone boxes at ``single`` without lowering the boxes it
    missed (``first_single``); the pairs are fused as before."""
    first = readings((0, 0, 10, 10, 0.8, 0), (50, 50, 60, 60, 0.6, 0))
    second = readings((1, 0, 11, 10, 0.4, 0), (20, 20, 30, 30, 0.2, 1))
    _, s, c = fuse_readings(first, second, single=0.5, floor=0.05, first_single=1.0)
    # the pair 0.6; the first reading's lone box keeps 0.6 (half of it, 0.3, without first_single); the second's 0.1
    assert list(zip(s.round(3).tolist(), c.tolist())) == [(0.6, 0), (0.6, 0), (0.1, 1)]
    # a share under the floor drops the second reading's lone box and keeps the first's as found
    b, s, c = fuse_readings(first, second, single=0.01, floor=0.02, first_single=1.0)
    assert s.round(3).tolist() == [0.6, 0.6] and c.tolist() == [0, 0]
    assert b[1].tolist() == [50.0, 50.0, 60.0, 60.0]
    # None: as single (the symmetric fusion of rule 173)
    assert fuse_readings(first, second, single=0.5, floor=0.05, first_single=None)[1].round(3).tolist() == \
        fuse_readings(first, second, single=0.5, floor=0.05)[1].round(3).tolist()


def test_a_lifted_pair_keeps_the_first_box_and_the_higher_score() -> None:
    """Rule 179's ``pair`` "lift": a confirming reading raises a card's score, never lowers it or moves its box; lone
    boxes are kept at their shares as with "mean"; an unknown pairing is a clear error."""
    first = readings((0, 0, 10, 10, 0.8, 0), (50, 50, 60, 60, 0.3, 0))
    second = readings((1, 0, 11, 10, 0.4, 0), (51, 50, 61, 60, 0.7, 0), (20, 20, 30, 30, 0.2, 1))
    b, s, c = fuse_readings(first, second, single=0.5, floor=0.05, first_single=1.0, pair="lift")
    got = [(x.tolist(), round(float(y), 3), int(k)) for x, y, k in zip(b, s, c)]
    assert got == [([0.0, 0.0, 10.0, 10.0], 0.8, 0),  # the higher score was the first's: unchanged
                   ([50.0, 50.0, 60.0, 60.0], 0.7, 0),  # raised by the second reading, its box not moved
                   ([20.0, 20.0, 30.0, 30.0], 0.1, 1)]  # the second reading's lone box at half its score
    # "top": the boxes averaged by score as with "mean", the higher score
    b, s, _ = fuse_readings(first, second, single=0.5, floor=0.05, first_single=1.0, pair="top")
    assert s.round(3).tolist() == [0.8, 0.7, 0.1]
    assert b[0].tolist() == pytest.approx([0.4 / 1.2, 0.0, (8.0 + 4.4) / 1.2, 10.0])
    assert b[1].tolist() == pytest.approx([50.7, 50.0, 60.7, 60.0])
    with pytest.raises(ValueError, match="pair"):
        fuse_readings(first, second, single=0.5, floor=0.05, pair="max")


def test_each_box_is_paired_once_with_the_one_it_overlaps_most() -> None:
    first = readings((0, 0, 10, 10, 0.9, 0), (2, 0, 12, 10, 0.7, 0))
    second = readings((2, 0, 12, 10, 0.5, 0))
    b, s, _ = fuse_readings(first, second, single=0.5, floor=0.0)
    # the surest first box takes the only second box it overlaps enough (IoU 0.67); the other first box is alone
    assert s.tolist() == pytest.approx([0.7, 0.35])
    assert b[0].tolist() == pytest.approx([0.9 * 0 / 1.4 + 0.5 * 2 / 1.4, 0.0, (0.9 * 10 + 0.5 * 12) / 1.4, 10.0])


def test_the_detector_reads_the_full_view_again_mirrored_and_fuses_the_two(monkeypatch) -> None:
    """``CardDetector(flip=S)``: the full view (and no other) is read a second time mirrored, by the same detector at
    the same size, its boxes mapped back and fused; without ``flip`` it is read once.  A share outside (0, 1] is a
    clear error."""
    import copy

    from companion.vision.detector import CardDetector
    from companion.vision.settings import photo_settings

    base = CardDetector("french", **photo_settings(family="french", small_cards=0, flip=0.5, turn=0))
    assert base.flip == 0.5 and base.small_det is None
    image = np.zeros((100, 200, 3), np.uint8)
    image[:, :100] = 255  # white on the left: a mirrored image is white on the right
    read = []

    def at(img, factor, conf=None, session=None, size=None):
        mirrored = bool(img[0, -1, 0] == 255)
        read.append((factor, mirrored))
        if factor != 1.0:
            return np.zeros((0, 4)), np.zeros(0), np.zeros(0, dtype=int)
        # one card at x 10-50 seen by both readings (the mirrored one sees it at 150-190), one seen only unmirrored
        rows = [[150.0, 10.0, 190.0, 90.0, 0.4]] if mirrored else [[10.0, 10.0, 50.0, 90.0, 0.8],
                                                                 [120.0, 10.0, 160.0, 90.0, 0.9]]
        a = np.array(rows)
        return a[:, :4], a[:, 4], np.zeros(len(a), dtype=int)

    for flip in (0.5, None):
        det = copy.copy(base)
        det.flip, det.outlines, det.faint_conf, det.zoom = flip, False, None, None
        det.outline_model, det.outline_model_boxes = None, None
        monkeypatch.setattr(det, "_boxes_at", at)
        read.clear()
        boxes, scores, _ = det.find_boxes(image)
        got = sorted((np.round(b, 6).tolist(), round(float(s), 3)) for b, s in zip(boxes, scores))
        if flip:
            assert read == [(1.0, False), (1.0, True)] + [(f, False) for f in det.scales if f != 1.0]
            # the pair at its mean score 0.6 (the box the same), the lone card at half its score
            assert got == [([10.0, 10.0, 50.0, 90.0], 0.6), ([120.0, 10.0, 160.0, 90.0], 0.45)]
        else:
            assert read == [(f, False) for f in det.scales]
            assert got == [([10.0, 10.0, 50.0, 90.0], 0.8), ([120.0, 10.0, 160.0, 90.0], 0.9)]
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="flip"):
            CardDetector("french", flip=bad)
    assert photo_settings(family="french", flip=0)["flip"] is None


def test_photos_read_with_the_shrunk_view_fuse_a_mirrored_reading_and_one_view_does_not() -> None:
    """Shipped: French photos read with the shrunk view keep a lone box at its score (rule 163, session 110), Spanish
    photos half of it (rule 171, session 112); a frame read with one view (the table's, the latency figure) is read
    once."""
    from companion.vision.detector import CardDetector
    from companion.vision.settings import photo_settings

    assert photo_settings(family="french")["flip"] == 1.0
    assert photo_settings(family="french", scales=[1.0])["flip"] is None
    assert photo_settings(family="french", scales=[1.0], flip=0.5)["flip"] == 0.5
    assert photo_settings(family="spanish")["flip"] == 0.5
    assert photo_settings(family="spanish", scales=[1.0])["flip"] is None
    assert CardDetector("french", **photo_settings(family="french")).flip == 1.0


@pytest.mark.parametrize("missed, kept, lone", [(0, None, 0.45), (1.0, 1.0, 0.9), (None, 1.0, 0.9)])
def test_the_detector_reads_the_full_view_turned_after_the_mirrored_one_and_fuses_all_three(monkeypatch, missed, kept,
                                                                                            lone) -> None:
    """``CardDetector(turn=S)``: the full view (and no other) is read once more turned a half turn, after the mirrored
    reading, its boxes mapped back and fused with the first two's; a box only one side found keeps S of its score,
    a box only the turned reading missed ``turn_missed`` of it where given (rule 177: French photos' own 1.0 where
    None is passed; 0 means as ``turn``).  A share outside (0, 1] is a
    clear error; ``turn`` 0 in the settings is off."""
    import copy

    import cv2

    from companion.vision.detector import CardDetector
    from companion.vision.settings import photo_settings

    base = CardDetector("french", **photo_settings(family="french", small_cards=0, flip=1.0, turn=0.5,
                                                   turn_missed=missed))
    assert base.flip == 1.0 and base.turn == 0.5 and base.turn_missed == kept
    image = np.zeros((100, 200, 3), np.uint8)
    image[:50, :100] = 255  # white in the top left: mirrored, top right; turned, bottom right
    read = []

    def at(img, factor, conf=None, session=None, size=None):
        how = "mirrored" if img[0, -1, 0] == 255 else "turned" if img[-1, -1, 0] == 255 else "as is"
        read.append((factor, how))
        if factor != 1.0:
            return np.zeros((0, 4)), np.zeros(0), np.zeros(0, dtype=int)
        # a card at x 10-50, y 10-40 that all three see; one at 120-160 only the image as it is shows
        rows = {"as is": [[10.0, 10.0, 50.0, 40.0, 0.8], [120.0, 10.0, 160.0, 90.0, 0.9]],
                "mirrored": [[150.0, 10.0, 190.0, 40.0, 0.4]],
                "turned": [[150.0, 60.0, 190.0, 90.0, 0.6]]}[how]
        a = np.array(rows)
        return a[:, :4], a[:, 4], np.zeros(len(a), dtype=int)

    assert cv2.rotate(image, cv2.ROTATE_180)[-1, -1, 0] == 255
    det = copy.copy(base)
    det.outlines, det.faint_conf, det.zoom = False, None, None
    det.outline_model, det.outline_model_boxes = None, None
    monkeypatch.setattr(det, "_boxes_at", at)
    boxes, scores, _ = det.find_boxes(image)
    assert read[:3] == [(1.0, "as is"), (1.0, "mirrored"), (1.0, "turned")]
    assert all(f != 1.0 and how == "as is" for f, how in read[3:])
    got = sorted((np.round(b, 6).tolist(), round(float(s), 3)) for b, s in zip(boxes, scores))
    # the card all three saw: the first two's mean 0.6, then with the turned 0.6 -> 0.6; the lone card: 0.9 (flip
    # 1.0 keeps it), then half of it for the turned reading missing it, or all of it with turn_missed 1.0
    assert got == [([10.0, 10.0, 50.0, 40.0], 0.6), ([120.0, 10.0, 160.0, 90.0], lone)]
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="turn"):
            CardDetector("french", turn=bad)
        with pytest.raises(ValueError, match="turn_missed"):
            CardDetector("french", turn=0.5, turn_missed=bad)
    with pytest.raises(ValueError, match="turn_pair"):
        CardDetector("french", turn=0.5, turn_pair="max")
    assert CardDetector("french", **photo_settings(family="french", turn_pair="lift")).turn_pair == "lift"
    assert photo_settings(family="french", turn=0)["turn"] is None
    assert photo_settings(family="french", scales=[1.0])["turn"] is None


def test_french_photos_ship_the_turned_reading_fused_one_way_and_spanish_ones_do_not() -> None:
    """Rule 177 (session 113): French photos read with the shrunk view read the full view turned too, a lone turned box
    kept at half its score and a box it missed at all of it; one view (the latency frames) is read once; Spanish
    photos stay without it (rule 178 failed its tune)."""
    from companion.vision.detector import CardDetector
    from companion.vision.settings import photo_settings

    french = photo_settings(family="french")
    assert (french["turn"], french["turn_missed"]) == (0.5, 1.0)
    det = CardDetector("french", **french)
    assert (det.turn, det.turn_missed) == (0.5, 1.0)
    assert photo_settings(family="french", scales=[1.0])["turn"] is None
    assert CardDetector("french", **photo_settings(family="french", scales=[1.0])).turn_missed is None
    assert photo_settings(family="spanish")["turn"] is None


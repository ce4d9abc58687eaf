"""Rule 181: photo detections' confidences re-weighed by the detector's score (``CardDetector(score_power=a)``)."""

import pytest


def test_score_power_reorders_the_detections_by_the_naming_and_drops_none() -> None:
    """Rule 181's ``score_power`` a: each confidence (detector score times the classifier's probability) is
    multiplied by the detector's score to the power a - 1, at most 1, and the list is sorted again; nothing else
    changes.  Off (None) by default; a share outside (0, 2] is a clear error."""
    import copy

    from companion.vision.detector import CardDetector, Detection
    from companion.vision.settings import photo_settings

    base = CardDetector("french", **photo_settings(family="french", score_power=0.5))
    assert base.score_power == 0.5 and photo_settings(family="french")["score_power"] is None
    # a sure box named weakly, then a faint box named surely: 0.9 x 0.4 = 0.36 ranks above 0.25 x 0.96 = 0.24 ...
    found = [Detection("QH", 0.36, (0, 0, 10, 10), 0.4, 0.9, (("QD", 0.18),)),
             Detection("7S", 0.24, (20, 0, 30, 10), 0.96, 0.25)]
    out = base.reranked(found)
    # ... and with a = 0.5, sqrt(0.9) x 0.4 = 0.379 below sqrt(0.25) x 0.96 = 0.48
    assert [d.card for d in out] == ["7S", "QH"]
    assert [round(d.confidence, 3) for d in out] == [0.48, 0.379]
    assert out[1].alternatives[0][0] == "QD" and round(out[1].alternatives[0][1], 3) == round(0.18 / 0.9 ** 0.5, 3)
    assert [(d.box, d.rank_confidence, d.detector_confidence) for d in out] == \
        [(f.box, f.rank_confidence, f.detector_confidence) for f in reversed(found)]
    one = copy.copy(base)
    one.score_power = 1.0
    assert [d.confidence for d in one.reranked(found)] == [0.36, 0.24]
    for bad in (0.0, 2.5):
        with pytest.raises(ValueError, match="score_power"):
            CardDetector("french", score_power=bad)

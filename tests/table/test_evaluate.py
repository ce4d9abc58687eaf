"""The table evaluation's recorded detection streams: a tracker change is
measured on exactly the detections of a run on the video."""

from __future__ import annotations

import json

import pytest

from companion.paths import models_dir
from companion.table.evaluate import main


@pytest.mark.skipif(not (models_dir() / "card-detector.onnx").is_file(), reason="detector weights not in models/")
def test_recorded_detections_replay_the_video_run(tmp_path):
    from companion.synth.art import list_designs

    if not list_designs("french"):
        pytest.skip("no french card art on this machine (see .ci/setup)")
    args = ["--hands", "2", "--hands-per-session", "2", "--variants", "mineiro", "--mode", "video",
            "--out", str(tmp_path / "eval"), "--detections", str(tmp_path / "streams")]
    assert main(args) == 0
    (stream,) = (tmp_path / "streams").glob("*.jsonl")
    header = json.loads(stream.read_text().splitlines()[0])["stream"]
    assert header["detector"]["conf"] == 0.15 and header["session"] == stream.stem
    first = json.loads((tmp_path / "eval" / "sessions-video.json").read_text())
    assert main(args) == 0  # second run: the stream, not the video
    again = json.loads((tmp_path / "eval" / "sessions-video.json").read_text())
    assert [r["log"] for r in again] == [r["log"] for r in first]
    assert [r["per_hand"] for r in again] == [r["per_hand"] for r in first]
    # a stream recorded with another detector threshold is refused, not silently reused
    with pytest.raises(ValueError, match="recorded with"):
        main(args + ["--conf", "0.3"])
    # ... or with the cards' outlines found another way; the reading's finders are its own, not the module's
    from companion.vision import crops
    from companion.vision.settings import TABLE_OUTLINE_MODEL

    shipped = crops.QUAD_METHODS
    for other_reading in (["--quad", "edges,paper"], ["--no-outline-model" if TABLE_OUTLINE_MODEL else "--outline-model"]):
        with pytest.raises(ValueError, match="recorded with"):
            main(args + other_reading)
    assert crops.QUAD_METHODS == shipped
    # ... and so is one recorded under another rule for the whole card's rank
    lines = stream.read_text().splitlines()
    other = json.loads(lines[0])
    rule = other["stream"]["detector"]
    rule["whole_rank_sure"] = 0.5 if rule["whole_rank_sure"] != 0.5 else 0.6
    stream.write_text("\n".join([json.dumps(other)] + lines[1:]) + "\n")
    with pytest.raises(ValueError, match="recorded with"):
        main(args)
    # ... and one that named the outline model's outlines no box covered, or did not
    rule["whole_rank_sure"] = json.loads(lines[0])["stream"]["detector"]["whole_rank_sure"]
    rule["outline_model_boxes"] = 0.9 if rule.get("outline_model_boxes") is None else None
    stream.write_text("\n".join([json.dumps(other)] + lines[1:]) + "\n")
    with pytest.raises(ValueError, match="recorded with"):
        main(args)


def test_a_stream_header_without_a_later_setting_counts_it_as_it_then_was():
    """Streams recorded before ``whole_rank_sure`` existed mixed the whole card's rank always (0), and before
    session 55 none read the outline model, and before session 59 none named its outlines that no box covers."""
    from companion.table.evaluate import recorded_identity

    assert recorded_identity({"detector": {"conf": 0.15}}) == {"conf": 0.15, "whole_rank_sure": 0.0,
                                                               "outline_model": False, "outline_model_boxes": None}
    assert recorded_identity({"detector": {"conf": 0.15, "whole_rank_sure": 0.7}})["whole_rank_sure"] == 0.7
    assert recorded_identity({}) is None


def test_sessions_rendered_for_another_seed_are_not_reused(tmp_path):
    args = ["--hands", "2", "--hands-per-session", "2", "--variants", "mineiro", "--mode", "noise",
            "--out", str(tmp_path)]
    assert main(args) == 0
    with pytest.raises(ValueError, match="another --seed"):
        main(args + ["--seed", "7"])  # (seed 7 plans a session of the same name, s00-mineiro-2p)


def test_cards_logged_right_count_the_vira_and_face_up_plays_of_each_hand():
    from companion.table.evaluate import compare

    match = {"type": "match", "variant": "paulista", "players": 2}
    truth = [match, {"type": "hand", "dealer": 1, "vira": "5H"},
             {"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "7D"},
             {"type": "play", "seat": 1, "covered": True},
             {"type": "hand", "dealer": 0, "vira": "KS"}, {"type": "play", "seat": 1, "card": "AS"}]
    got = [match, {"type": "hand", "dealer": 1, "vira": "5D"},  # the vira misread
           {"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "7D"},
           {"type": "play", "seat": 1, "covered": True},
           {"type": "hand", "dealer": 0, "vira": "KS"}, {"type": "play", "seat": 0, "card": "AS"}]
    cmp = compare(match, truth, got)
    # 5 face-up cards (two viras, three plays; the covered play has no card); only 5H missed --
    # AS counts though the log gives it to another seat (the hand is then not exact)
    assert (cmp["cards"], cmp["cards_right"]) == (5, 4)
    assert cmp["exact"] == 0
    assert compare(match, truth, truth)["cards_right"] == 5
    assert compare(match, truth, [match])["cards_right"] == 0


def test_doubts_count_what_a_live_table_would_have_been_asked():
    from types import SimpleNamespace

    from companion.table.evaluate import _asked, doubts
    from companion.table.fusion import Applied, Fusion, FusionConfig
    from companion.table.observations import Proposal

    truth = [{"type": "match", "variant": "paulista", "players": 2}, {"type": "hand", "dealer": 1, "vira": "5H"},
             {"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "7D"},
             {"type": "play", "seat": 0, "card": "AS"}]

    def applied(event, how, flags=(), source="vision"):
        return Applied(event, Proposal(event, 0.0, 0.3, source, list(flags)), 0.0, 0.0, resolved_by=how)

    log = [applied({"type": "hand", "dealer": 1, "vira": "5H"}, "auto"),
           applied({"type": "play", "seat": 0, "card": "4C"}, "timeout", ["low_confidence", "unrivalled"]),
           applied({"type": "play", "seat": 1, "card": "7S"}, "timeout", ["low_confidence"]),  # wrong, asked
           applied({"type": "play", "seat": 0, "card": "AS"}, "timeout", ["low_confidence"]),  # right, asked
           applied({"type": "play", "seat": 1, "card": "KD"}, "auto"),  # wrong, not asked
           applied({"type": "raise", "seat": 0, "to": 3}, "timeout", ["speech_confirm"], source="voice")]
    fusion = SimpleNamespace(applied=log, config=FusionConfig())
    fusion.settles = lambda prop: Fusion.settles(fusion, prop)
    result = SimpleNamespace(session=SimpleNamespace(fusion=fusion))
    counts = doubts(result, truth)
    assert counts == {"auto_right": 1, "auto_wrong": 1, "quiet_right": 1, "quiet_wrong": 0,
                      "asked_right": 1, "asked_wrong": 1}
    assert _asked([{"doubts": counts}]) == {"right_cards_asked_share": 0.3333, "wrong_cards_asked": "1/2"}


def test_the_latency_counts_every_camera_card_held_or_not():
    """The latency figure is from a card put down to the score, for every card the camera put in: the
    cards held for an answer count (after the unattended timeout), not only the ones applied at once."""
    from companion.table.evaluate import summarise

    row = {"hands": 1, "exact": 1, "scored": 1, "cards": 5, "cards_right": 5, "wall": 1.0, "duration": 10.0,
           "stats": {"process_ms": 0.0}, "variant": "paulista", "tilt": 0.0,
           "latency": [(0.2, "auto"), (0.3, "settle"), (0.4, "auto"), (2.5, "timeout"), (2.6, "timeout")]}
    out = summarise([row], "video")
    assert out["latency_median_s"] == 0.4 and out["latency_p90_s"] == 2.6
    assert out["latency_unasked_median_s"] == 0.3  # auto and settle: nobody was asked
    assert out["cards_held_share"] == 0.4


def test_a_table_that_answers_is_reported_apart(tmp_path):
    """``--answer``: the same sessions with the card questions answered from the truth, in their own
    report (``-answered``), with what was said; the unattended report is not overwritten."""
    args = ["--hands", "8", "--hands-per-session", "4", "--variants", "paulista", "--mode", "noise",
            "--noise", "hard", "--out", str(tmp_path)]
    assert main(args) == 0
    assert main(args + ["--answer", "1.0"]) == 0
    plain = json.loads((tmp_path / "report-noise-hard.json").read_text())["noise"]
    answered = json.loads((tmp_path / "report-noise-hard-answered.json").read_text())["noise"]
    assert "answers" not in plain and answered["answer_after_s"] == 1.0
    said = answered["answers"]
    assert said and set(said) <= {"confirmed", "chosen", "typed", "rejected", "left", "alert_chosen", "alert_typed", "alert_refused",
                                     "missed_typed", "missed_refused"}
    assert answered["answers_per_hand"] == round(sum(said.values()) / answered["hands"], 2)
    assert answered["scored_share"] >= plain["scored_share"]


def test_tracker_and_detector_settings_reach_the_session(tmp_path, monkeypatch):
    """The settings the latency was measured with (README) are options of the evaluation itself."""
    from companion.table import evaluate

    seen = []
    original = evaluate.replay

    def spy(*args, **kwargs):
        seen.append(kwargs["config"])
        return original(*args, **kwargs)

    monkeypatch.setattr(evaluate, "replay", spy)
    args = ["--hands", "2", "--hands-per-session", "2", "--variants", "mineiro", "--mode", "noise",
            "--out", str(tmp_path), "--settle-confidence", "0.1", "--change-threshold", "5", "--weak-frames", "6"]
    assert main(args) == 0
    (config,) = seen
    assert config.tracker.settle_confidence == 0.1 and config.tracker.weak_frames == 6
    assert config.change_threshold == 5.0


def test_a_hand_without_a_vira_is_not_timed_from_the_deal():
    """The truth dates a hand from the deal; without a vira the camera can only open it with the first
    card played, whose play is timed already.  Timed from the deal, those hands put the latency's p90
    near 2 s for cards nobody waited on.  A vira is a card put down: its hand is timed."""
    from types import SimpleNamespace

    from companion.table.evaluate import latencies

    def applied(event, t, how="auto"):
        return SimpleNamespace(event=event, stream_t=t, resolved_by=how, proposal=SimpleNamespace(source="vision"))

    play = {"type": "play", "seat": 1, "card": "4C"}
    script = SimpleNamespace(timed_log=[(1.0, {"type": "hand", "dealer": 0}), (3.0, play),
                                        (9.0, {"type": "hand", "dealer": 1, "vira": "5H"})])
    fusion = SimpleNamespace(applied=[applied({"type": "hand", "dealer": 0}, 3.3), applied(play, 3.3),
                                      applied({"type": "hand", "dealer": 1, "vira": "5H"}, 9.4, "settle")])
    result = SimpleNamespace(session=SimpleNamespace(fusion=fusion))
    assert latencies(result, script) == [(0.3, "auto"), (0.4, "settle")]


def test_a_hand_scored_wrong_says_what_it_was_lost_to():
    from companion.table.evaluate import compare, loss_cause, summarise

    hand = [{"type": "hand", "dealer": 1, "vira": "5H"}, {"type": "play", "seat": 0, "card": "4C"},
            {"type": "play", "seat": 1, "card": "7D"}, {"type": "raise", "seat": 0, "to": 3}]
    plays = hand[1:3]

    def but(*events: dict) -> list[dict]:
        return [hand[0], *events]

    assert loss_cause(hand, []) == "no hand"
    assert loss_cause(hand, [{"type": "hand", "dealer": 1, "vira": "5D"}, *hand[1:]]) == "vira"
    assert loss_cause(hand, but(plays[0], hand[3])) == "play missed"
    assert loss_cause(hand, but(*plays, {"type": "play", "seat": 0, "covered": True}, hand[3])) == "play extra"
    assert loss_cause(hand, but(plays[0], {"type": "play", "seat": 1, "card": "7H"}, hand[3])) == "card misread"
    assert loss_cause(hand, but(plays[0], {"type": "play", "seat": 1, "covered": True}, hand[3])) == "card misread"
    assert loss_cause(hand, but(plays[1], plays[0], hand[3])) == "seat"  # the right cards, the wrong order
    assert loss_cause(hand, but(*plays)) == "calls"  # the truco was never heard
    # the vira decides first: a hand whose vira was misread shows as that, whatever else went wrong
    assert loss_cause(hand, [{"type": "hand", "dealer": 1, "vira": "5D"}, plays[0]]) == "vira"

    # compare() keeps the cause of each hand scored wrong, summarise() counts them.  Vira 5H (manilhas: the
    # sixes): seat 1 takes both tricks with 7D and 3D; read as 4D, its second card loses to KH
    match = {"type": "match", "variant": "paulista", "players": 2}
    truth = [match, hand[0], *plays, {"type": "play", "seat": 1, "card": "3D"}, {"type": "play", "seat": 0, "card": "KH"}]
    got = [match, hand[0], *plays, {"type": "play", "seat": 1, "card": "4D"}, {"type": "play", "seat": 0, "card": "KH"}]
    cmp = compare(match, truth, got)
    assert cmp["scored"] == 0 and [h.get("cause") for h in cmp["per_hand"]] == ["card misread"]
    assert "cause" not in compare(match, truth, truth)["per_hand"][0]
    row = {**cmp, "latency": [], "stats": {"process_ms": 1.0}, "wall": 1.0, "duration": 1.0, "variant": "paulista",
           "tilt": 0.0}
    assert summarise([row, {**row, "per_hand": [{"scored": False}]}], "video")["lost_by_cause"] == {"card misread": 1}

"""Stats count the words said, the engine decides who won: checked on hand-written logs."""

from __future__ import annotations

from companion.history.charts import match_score_chart, score_series, stats_over_time_chart
from companion.history.recorder import MatchRecorder
from companion.history.stats import compute_stats

PAULISTA = {"type": "match", "variant": "paulista", "players": 4, "names": ["Ana", "Bia", "Caio", "Duda"]}
# Hand 1: Ana calls truco, Bia runs.  Hand 2: Bia calls truco, Caio accepts, Ana & Caio win both tricks.
TWO_HANDS = [
    {"type": "hand", "dealer": 3, "vira": "4D"},
    {"type": "raise", "seat": 0},
    {"type": "refuse", "seat": 1},
    {"type": "hand", "dealer": 0, "vira": "4D"},
    {"type": "raise", "seat": 1},
    {"type": "accept", "seat": 2},
    {"type": "play", "seat": 1, "card": "4C"}, {"type": "play", "seat": 2, "card": "3H"},
    {"type": "play", "seat": 3, "card": "4S"}, {"type": "play", "seat": 0, "card": "2H"},
    {"type": "play", "seat": 2, "card": "3S"}, {"type": "play", "seat": 3, "card": "KC"},
    {"type": "play", "seat": 0, "card": "JD"}, {"type": "play", "seat": 1, "card": "QH"},
]


def _record(store, match_event, events):
    rec = MatchRecorder.start(store, match_event)
    for e in events:
        rec.record(e)
    return rec


def test_truco_calls_answers_and_bluffs(store):
    rec = _record(store, PAULISTA, TWO_HANDS[:4])
    rec.record({"type": "raise", "seat": 1})
    rec.undo()                                  # an undone call is not a call
    for e in TWO_HANDS[4:]:
        rec.record(e)
    assert rec.game.state.to_dict()["score"] == [4, 0]
    p = compute_stats(store).to_dict()["players"]
    assert (p["Ana"]["trucos_called"], p["Ana"]["trucos_refused"], p["Ana"]["trucos_accepted"]) == (1, 1, 0)
    assert (p["Bia"]["trucos_called"], p["Bia"]["trucos_accepted"], p["Bia"]["answered_refuse"]) == (1, 1, 1)
    assert p["Caio"]["answered_accept"] == 1
    assert (p["Bia"]["hands_with_truco"], p["Bia"]["bluffs_lost"], p["Bia"]["bluff_rate"]) == (1, 1, 1.0)
    assert (p["Ana"]["hands_with_truco"], p["Ana"]["bluffs_lost"]) == (1, 0)
    assert (p["Ana"]["hands"], p["Ana"]["hands_won"], p["Duda"]["hands_won"]) == (2, 2, 0)
    assert p["Ana"]["games"] == 0                # the match is not finished


def test_envido_average_and_success():
    from companion.history.store import HistoryStore

    store = HistoryStore("sqlite://")
    match = {"type": "match", "variant": "argentino", "players": 2, "names": ["Ana", "Bia"]}
    events = [
        {"type": "hand", "dealer": 1},
        {"type": "envido", "seat": 0, "kind": "envido"}, {"type": "accept", "seat": 1},
        {"type": "points", "seat": 0, "points": 28}, {"type": "points", "seat": 1, "points": 31},
        {"type": "fold", "seat": 0},
        {"type": "hand", "dealer": 0},
        {"type": "envido", "seat": 1, "kind": "real_envido"}, {"type": "refuse", "seat": 0},
    ]
    rec = _record(store, match, events)
    assert rec.game.state.to_dict()["score"][1] >= 2
    p = compute_stats(store).to_dict()["players"]
    assert (p["Ana"]["envido_called"], p["Ana"]["envido_won"], p["Ana"]["envido_average"]) == (1, 0, 28.0)
    assert (p["Bia"]["envido_called"], p["Bia"]["envido_won"], p["Bia"]["envido_success"]) == (1, 1, 1.0)
    assert p["Bia"]["envido_average"] == 31.0


def test_pairs_head_to_head_and_deleted_matches(store, sim_log):
    ids = []
    for seed, names in ((1, ["Ana", "Bia", "Caio", "Duda"]), (40, ["Ana", "Eva", "Caio", "Duda"])):
        log = sim_log("paulista", seed, min_events=30, names=names)
        ids.append(_record(store, log[0], log[1:]).match_id)
    m1, m2 = (store.get_match(i) for i in ids)
    stats = compute_stats(store).to_dict()
    assert stats["matches"] == 2
    assert stats["pairs"]["Ana & Caio"]["games"] == 2
    assert stats["pairs"]["Ana & Caio"]["games_won"] == [m1.winner_team, m2.winner_team].count(0)
    h2h = stats["head_to_head"]["Ana vs Bia"]
    assert h2h == {"games": 1, "Ana": int(m1.winner_team == 0), "Bia": int(m1.winner_team == 1)}
    store.soft_delete(ids[1])
    stats = compute_stats(store).to_dict()
    assert stats["matches"] == 1 and "Eva" not in stats["players"]


def test_charts_are_real_images(store):
    rec = _record(store, PAULISTA, TWO_HANDS)
    png = match_score_chart(store, rec.match_id, "png")
    svg = match_score_chart(store, rec.match_id, "svg").decode()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    assert "<svg" in svg and "Ana &amp; Caio (4)" in svg
    assert score_series([{"points": [1, 0]}, {"points": [3, 0]}]) == [(0, 0), (1, 0), (4, 0)]
    assert b"<svg" in stats_over_time_chart(store, "svg")

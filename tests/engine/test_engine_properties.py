"""Properties over random legal playouts of every preset and player count."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Game
from companion.engine.simulate import Table
from companion.tablelog import score_log

CONFIGS = [(v, p) for v in ("paulista", "mineiro", "mineiro-2pt", "clean-28") for p in (2, 4, 6)] + [
    ("argentino", 2), ("argentino", 4), ("argentino", 6)]
CONFIGS += [("argentino", 4, {"flor": False}), ("argentino", 4, {"envido_scored": "end_of_hand"}),
            ("paulista", 4, {"games": 3}), ("mineiro", 4, {"joker": True, "deck": "clean27"}),
            ("paulista", 4, {"tied_stake_carries": True, "tied_same_dealer": True})]

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _config(cfg):
    return (cfg[0], cfg[1], cfg[2] if len(cfg) > 2 else None)


def snapshot(game: Game):
    return json.dumps([game.state.to_dict(), game.records, game.legal_events(), game.score], sort_keys=True,
                      default=str)


def played_cards(record):
    cards = [c for t in record["tricks"] for _, c in t["cards"] if c is not None]
    cards += [c for _, c in record.get("unfinished_trick", []) if c is not None]
    if record.get("vira"):
        cards.append(record["vira"])
    return cards


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(map(str, c[:2])) + ("+opt" if len(c) > 2 else ""))
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_random_playout_invariants(cfg, seed):
    variant, players, options = _config(cfg)
    table = Table(variant, players, seed, options)
    game = table.game
    target = game.target
    previous = list(game.score)
    rule_end = False
    while True:
        out = table.step()
        if out is None:
            break
        # the score never falls (no penalties in these playouts)
        assert all(a >= b for a, b in zip(game.score, previous)) or game.score == [0, 0]
        if any(o.kind == "rule" and "loses the game" in o.text for o in out):
            rule_end = True
        # the game ends exactly when a team reaches the target (or a rule ends it)
        if not game.game_over:
            assert max(game.score) < target
        elif not rule_end:
            assert max(game.score) >= target
        if game.game_over and not game.match_over:
            rule_end = False
        previous = list(game.score) if not (game.game_over and game.match_over is False) else [0, 0]
    assert game.match_over
    for rec in game.records:
        cards = played_cards(rec)
        assert len(cards) == len(set(cards)), rec  # no card twice in a hand
        extra = 0
        for key in ("envido", "flor"):
            items = rec.get(key) or []
            for item in items if isinstance(items, list) else [items]:
                extra += item["points"]
        total = sum(rec["points"])
        if rec["end"] in ("tricks", "refused", "fold") and rec.get("kind") != "pica-pica":
            stake = rec["stake"] if rec["winner"] is not None else 0
            fold_bonus = total - extra - stake
            assert fold_bonus == 0, rec  # hand points = stake + envido/flor
        elif rec["end"] == "eleven_run":
            assert total == game.variant.eleven_run_points
        elif rec.get("kind") == "pica-pica" and rec["end"] != "game_over":
            assert total == sum(d["points"][0] + d["points"][1] for d in rec["duels"])
    # replaying the log gives the same state
    again = Game(table.log[0])
    for event in table.log[1:]:
        again.apply(event)
    assert snapshot(again) == snapshot(game)
    result = score_log([json.dumps(e) for e in table.log])
    assert result["errors"] == [] and result["score"] == game.score and result["hands"] == game.records


@pytest.mark.parametrize("cfg", [("paulista", 4), ("mineiro", 2), ("argentino", 4), ("argentino", 6),
                                 ("clean-28", 4), ("mineiro-2pt", 4)], ids=lambda c: f"{c[0]}-{c[1]}")
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_undo_restores_the_previous_state_exactly(cfg, seed, data):
    variant, players, _ = _config(cfg)
    table = Table(variant, players, seed)
    steps = data.draw(st.integers(1, 120))
    checks = 0
    for _ in range(steps):
        before = snapshot(table.game)
        if table.step() is None:
            break
        if data.draw(st.booleans()):
            last = table.log.pop()
            table.game.undo()
            assert snapshot(table.game) == before
            table.game.apply(last)
            table.log.append(last)
            checks += 1
    # an undo line in the log behaves the same way
    lines = [json.dumps(e) for e in table.log]
    assert score_log(lines + ['{"type": "undo"}'])["score"] == score_log(lines[:-1])["score"]

"""Random and malformed lines never crash ``companion score`` (errors name the line instead)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine.simulate import Table
from companion.tablelog import score_log

TYPES = ["match", "hand", "play", "raise", "envido", "flor", "accept", "refuse", "points", "good", "fold",
         "eleven", "penalty", "undo", "note", "bogus"]
KEYS = ["type", "seat", "card", "covered", "to", "kind", "points", "team", "decision", "dealer", "vira",
        "variant", "players", "options", "reason", "target", "names", "text"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 40), st.floats(allow_nan=True),
                    st.sampled_from(["4C", "7H", "1E", "12B", "JK", "envido", "flor", "play", "run", "paulista",
                                     "argentino", "contraflor_al_resto", "falta_envido", ""]),
                    st.text(max_size=6))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)),
                      max_leaves=6)
events = st.fixed_dictionaries({"type": st.sampled_from(TYPES)},
                               optional={k: values for k in KEYS if k != "type"})
lines = st.one_of(events.map(json.dumps), st.text(max_size=40), values.map(json.dumps))
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MATCHES = [json.dumps({"type": "match", "variant": v, "players": p})
           for v in ("paulista", "mineiro", "mineiro-2pt", "clean-28", "argentino") for p in (2, 4, 6)]


def _check(result: dict, n: int) -> None:
    json.dumps(result)
    assert set(result) >= {"variant", "score", "winner", "hands", "errors"}
    for err in result["errors"]:
        assert 1 <= err["line"] <= n and isinstance(err["message"], str)
        assert "internal error" not in err["message"], err  # a rejected event, never an engine bug


@SETTINGS
@given(first=st.sampled_from(MATCHES), body=st.lists(lines, max_size=30))
def test_random_lines_never_crash(first, body):
    log = [first, *body]
    _check(score_log(log), len(log))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), variant=st.sampled_from(["paulista", "mineiro", "argentino", "clean-28"]),
       data=st.data())
def test_mutated_legal_logs_never_crash(seed, variant, data):
    table = Table(variant, 4, seed)
    for _ in range(data.draw(st.integers(5, 80))):
        if table.step() is None:
            break
    log = [json.dumps(e) for e in table.log]
    for _ in range(data.draw(st.integers(1, 6))):
        i = data.draw(st.integers(1, len(log)))
        action = data.draw(st.sampled_from(["drop", "dup", "swap", "garble", "insert"]))
        if action == "drop" and i < len(log):
            del log[i]
        elif action == "dup" and i < len(log):
            log.insert(i, log[i])
        elif action == "swap" and i + 1 < len(log):
            log[i], log[i + 1] = log[i + 1], log[i]
        elif action == "garble" and i < len(log):
            log[i] = log[i][: data.draw(st.integers(0, len(log[i])))]
        else:
            log.insert(i, data.draw(lines))
    _check(score_log(log), len(log))


def test_a_bug_in_the_engine_is_an_illegal_event_and_leaves_the_state_as_it_was(monkeypatch):
    """A bug met while applying an event (on the fast path of a play and on the general path) must neither
    escape as a traceback nor leave half an event applied: the state is what it was before the event."""
    from companion.engine.hand import Hand
    from companion.engine.outcomes import IllegalEvent
    from engine_helpers import ev, new, run

    game = new("paulista", 2)
    run(game, "hand 1 4D", "p0 5C")
    before = game.state.to_dict()

    def broken(self, out):
        self.cur.append(("scribbled", "over", True))  # half an event applied, then the bug
        raise RuntimeError("a bug")

    monkeypatch.setattr(Hand, "_end_trick", broken)
    try:
        game.apply(ev("p1 6C"))  # the trick's last card: the fast path ends the trick
    except IllegalEvent as exc:
        assert "internal error on a play event" in str(exc) and isinstance(exc.__cause__, RuntimeError)
    else:
        raise AssertionError("the bug was not reported")
    assert game.state.to_dict() == before and len(game.events) == 2  # the hand and the first card
    monkeypatch.undo()

    from companion.engine.game import Game
    apply = Game._apply

    def broken_apply(self, event):
        out = apply(self, event)
        if event["type"] == "raise":  # the whole raise applied, then the bug (the replay after it applies the rest)
            raise RuntimeError("a bug")
        return out

    monkeypatch.setattr(Game, "_apply", broken_apply)
    try:
        game.apply(ev("r1"))  # a truco: the general path
    except IllegalEvent as exc:
        assert "internal error on a raise event" in str(exc)
    else:
        raise AssertionError("the bug was not reported")
    assert game.state.to_dict() == before and len(game.events) == 2
    monkeypatch.undo()
    run(game, "p1 6C")  # the table goes on where it was
    assert game.state.to_dict() != before

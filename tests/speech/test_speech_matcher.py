"""The matcher on a table of transcripts, near misses and table chatter.

Each case is a moment of a real engine game (a table log so far), what was
said, and what must come out: the events (type plus the fields that
matter) and the decision.  Reserved words inside talk must fire when their
bet is legal and stay silent when it is not.
"""

from __future__ import annotations

from typing import Any

import pytest
from speech_helpers import eleven_hand, view_after

from companion.speech.lexicon import load_lexicon
from companion.speech.matcher import Matcher, Word
from companion.speech.view import StaticView

ARG_START = [{"type": "hand", "dealer": 3}]
ARG_TRUCO = ARG_START + [{"type": "raise", "seat": 0, "to": 2}]
ARG_TRUCO_ACCEPTED = ARG_TRUCO + [{"type": "accept", "seat": 1}]
ARG_RETRUCO = ARG_TRUCO_ACCEPTED + [{"type": "raise", "seat": 1, "to": 3}]
ARG_VALE_CUATRO_ACCEPTED = ARG_RETRUCO + [
    {"type": "accept", "seat": 0}, {"type": "raise", "seat": 0, "to": 4}, {"type": "accept", "seat": 1},
]
ARG_ENVIDO = ARG_START + [{"type": "envido", "seat": 0, "kind": "envido"}]
ARG_ENVIDO_ACCEPTED = ARG_ENVIDO + [{"type": "accept", "seat": 1}]
ARG_ENVIDO_DECLARED = ARG_ENVIDO_ACCEPTED + [{"type": "points", "seat": 0, "points": 28}]
ARG_FLOR = ARG_START + [{"type": "flor", "seat": 0, "kind": "flor"}]
ARG_FIRST_TRICK_DONE = ARG_START + [
    {"type": "play", "seat": 0, "card": "4C"}, {"type": "play", "seat": 1, "card": "5C"},
    {"type": "play", "seat": 2, "card": "6C"}, {"type": "play", "seat": 3, "card": "7C"},
]

PAU_START = [{"type": "hand", "dealer": 3, "vira": "4D"}]
PAU_TRUCO = PAU_START + [{"type": "raise", "seat": 0, "to": 3}]
PAU_SEIS = PAU_TRUCO + [{"type": "raise", "seat": 1, "to": 6}]
PAU_ACCEPTED = PAU_TRUCO + [{"type": "accept", "seat": 1}]
PAU_ELEVEN = eleven_hand("paulista")
PAU_ELEVEN_PLAYED = PAU_ELEVEN + [{"type": "eleven", "team": 0, "decision": "play"}]

MIN_START = [{"type": "hand", "dealer": 3}]
MIN_TRUCO = MIN_START + [{"type": "raise", "seat": 0, "to": 3}]

E = dict  # an expected event: its fields that must match

# (id, variant, lang, log, said, expected events, expected decision)
CASES: list[tuple[str, str, str, list[dict[str, Any]], str, list[dict[str, Any]], str]] = [
    # --- Argentine: answering a truco (team 1 answers, team 0 bet) ---------------------
    ("quiero", "argentino", "es", ARG_TRUCO, "quiero", [E(type="accept", seat=1)], "apply"),
    ("quiero in talk", "argentino", "es", ARG_TRUCO, "bueno che quiero", [E(type="accept")], "apply"),
    ("quiero nomás", "argentino", "es", ARG_TRUCO, "quiero nomás", [E(type="accept")], "apply"),
    ("no quiero", "argentino", "es", ARG_TRUCO, "no quiero", [E(type="refuse", seat=1)], "apply"),
    ("no quiero nada", "argentino", "es", ARG_TRUCO, "no quiero nada", [E(type="refuse")], "apply"),
    ("no se si quiero", "argentino", "es", ARG_TRUCO, "no sé si quiero", [E(type="accept")], "apply"),
    ("quiero retruco", "argentino", "es", ARG_TRUCO, "quiero retruco",
     [E(type="accept", seat=1), E(type="raise", seat=1, to=3)], "apply"),
    ("quiero retruco in talk", "argentino", "es", ARG_TRUCO, "ah sí? quiero retruco che",
     [E(type="accept"), E(type="raise", to=3)], "apply"),
    ("retruco alone is a counter-raise", "argentino", "es", ARG_TRUCO, "retruco", [E(type="raise", to=3)], "apply"),
    ("quiero then envido closes", "argentino", "es", ARG_TRUCO, "quiero envido",
     [E(type="accept")], "apply"),
    ("envido before answering truco", "argentino", "es", ARG_TRUCO, "envido",
     [E(type="envido", kind="envido", seat=1)], "apply"),
    ("real envido answering", "argentino", "es", ARG_TRUCO, "real envido", [E(type="envido", kind="real_envido")], "apply"),
    ("falta envido", "argentino", "es", ARG_TRUCO, "falta envido", [E(type="envido", kind="falta_envido")], "apply"),
    ("truco when truco is open", "argentino", "es", ARG_TRUCO, "truco", [], "ignore"),
    ("vale cuatro too early", "argentino", "es", ARG_TRUCO, "vale cuatro", [], "ignore"),
    ("quiero vale cuatro: second word is not legal", "argentino", "es", ARG_TRUCO, "quiero vale cuatro",
     [E(type="accept")], "apply"),
    ("typo quero", "argentino", "es", ARG_TRUCO, "quero", [E(type="accept")], "apply"),
    ("near miss quieres", "argentino", "es", ARG_TRUCO, "¿quieres mate?", [], "ignore"),
    ("near miss quiere", "argentino", "es", ARG_TRUCO, "él quiere ganar", [], "ignore"),
    ("near miss trucho", "argentino", "es", ARG_TRUCO, "eso es trucho", [], "ignore"),
    ("chatter", "argentino", "es", ARG_TRUCO, "pasame el mate que está frío", [], "ignore"),
    ("garbled", "argentino", "es", ARG_TRUCO, "kiero", [E(type="accept")], "confirm"),
    # --- Argentine: raises after acceptance --------------------------------------------
    ("retruco by the acceptor", "argentino", "es", ARG_TRUCO_ACCEPTED, "retruco", [E(type="raise", seat=1, to=3)], "apply"),
    ("truco again is not legal", "argentino", "es", ARG_TRUCO_ACCEPTED, "truco", [], "ignore"),
    ("quiero with nothing open", "argentino", "es", ARG_TRUCO_ACCEPTED, "quiero", [], "ignore"),
    ("no quiero with nothing open", "argentino", "es", ARG_TRUCO_ACCEPTED, "no quiero", [], "ignore"),
    ("vale cuatro answering retruco", "argentino", "es", ARG_RETRUCO, "quiero vale cuatro",
     [E(type="accept", seat=0), E(type="raise", seat=0, to=4)], "apply"),
    ("after vale cuatro nothing more", "argentino", "es", ARG_VALE_CUATRO_ACCEPTED, "truco retruco vale cuatro", [], "ignore"),
    ("after vale cuatro chatter", "argentino", "es", ARG_VALE_CUATRO_ACCEPTED, "dale que quiero ganar", [], "ignore"),
    # --- Argentine: the opening -------------------------------------------------------
    ("truco at the start: both teams may", "argentino", "es", ARG_START, "truco", [E(type="raise", to=2)], "confirm"),
    ("envido at the start", "argentino", "es", ARG_START, "envido", [E(type="envido", kind="envido")], "confirm"),
    ("me voy al mazo", "argentino", "es", ARG_START, "me voy al mazo", [E(type="fold")], "confirm"),
    ("me voy alone is weak", "argentino", "es", ARG_START, "bueno me voy", [E(type="fold")], "confirm"),
    ("quiero at the start", "argentino", "es", ARG_START, "quiero", [], "ignore"),
    ("son buenas at the start", "argentino", "es", ARG_START, "son buenas", [], "ignore"),
    ("number at the start", "argentino", "es", ARG_START, "veintiocho", [], "ignore"),
    ("envido after the first trick", "argentino", "es", ARG_FIRST_TRICK_DONE, "envido", [], "ignore"),
    ("flor after the first trick", "argentino", "es", ARG_FIRST_TRICK_DONE, "flor", [], "ignore"),
    # --- Argentine: envido --------------------------------------------------------------
    ("envido answered", "argentino", "es", ARG_ENVIDO, "quiero", [E(type="accept", seat=1)], "apply"),
    ("envido envido", "argentino", "es", ARG_ENVIDO, "envido", [E(type="envido", kind="envido", seat=1)], "apply"),
    ("real envido raise", "argentino", "es", ARG_ENVIDO, "real envido", [E(type="envido", kind="real_envido")], "apply"),
    ("envido refused", "argentino", "es", ARG_ENVIDO, "no quiero", [E(type="refuse", seat=1)], "apply"),
    ("points 28", "argentino", "es", ARG_ENVIDO_ACCEPTED, "tengo veintiocho", [E(type="points", seat=0, points=28)], "apply"),
    ("points 33", "argentino", "es", ARG_ENVIDO_ACCEPTED, "treinta y tres", [E(type="points", points=33)], "apply"),
    ("points 0", "argentino", "es", ARG_ENVIDO_ACCEPTED, "cero", [E(type="points", points=0)], "apply"),
    ("points 7", "argentino", "es", ARG_ENVIDO_ACCEPTED, "siete", [E(type="points", points=7)], "apply"),
    ("points 21 alternative", "argentino", "es", ARG_ENVIDO_ACCEPTED, "veintiún", [E(type="points", points=21)], "apply"),
    ("points 27 in talk", "argentino", "es", ARG_ENVIDO_ACCEPTED, "y yo tengo veintisiete che",
     [E(type="points", points=27)], "apply"),
    ("son buenas", "argentino", "es", ARG_ENVIDO_DECLARED, "son buenas", [E(type="good", seat=1)], "apply"),
    ("points after a declaration", "argentino", "es", ARG_ENVIDO_DECLARED, "treinta", [E(type="points", seat=1, points=30)], "apply"),
    # --- Argentine: flor ----------------------------------------------------------------
    ("flor answered with flor", "argentino", "es", ARG_FLOR, "flor", [E(type="flor", kind="flor")], "confirm"),
    ("contraflor", "argentino", "es", ARG_FLOR, "contraflor", [E(type="flor", kind="contraflor")], "apply"),
    ("contra flor spelled apart", "argentino", "es", ARG_FLOR, "contra flor", [E(type="flor", kind="contraflor")], "apply"),
    ("contraflor al resto", "argentino", "es", ARG_FLOR, "contraflor al resto",
     [E(type="flor", kind="contraflor_al_resto")], "apply"),
    ("con flor me achico", "argentino", "es", ARG_FLOR, "con flor me achico", [E(type="refuse")], "apply"),
    ("chatter about flowers", "argentino", "es", ARG_FLOR, "qué lindas flores", [], "ignore"),
    # --- Paulista ----------------------------------------------------------------------
    ("truco on turn", "paulista", "pt", PAU_START, "truco", [E(type="raise", seat=0, to=3)], "apply"),
    ("truco in talk on turn", "paulista", "pt", PAU_START, "então truco", [E(type="raise", to=3)], "apply"),
    ("seis not yet", "paulista", "pt", PAU_START, "seis", [], "ignore"),
    ("aceito", "paulista", "pt", PAU_TRUCO, "aceito", [E(type="accept", seat=1)], "apply"),
    ("cai is an accept", "paulista", "pt", PAU_TRUCO, "cai", [E(type="accept")], "apply"),
    ("joga is an accept", "paulista", "pt", PAU_TRUCO, "joga", [E(type="accept")], "apply"),
    ("desce", "paulista", "pt", PAU_TRUCO, "desce", [E(type="accept")], "apply"),
    ("corro refuses", "paulista", "pt", PAU_TRUCO, "corro", [E(type="refuse", seat=1)], "apply"),
    ("não quero", "paulista", "pt", PAU_TRUCO, "não quero", [E(type="refuse")], "apply"),
    ("nao quero unaccented", "paulista", "pt", PAU_TRUCO, "nao quero", [E(type="refuse")], "apply"),
    ("seis", "paulista", "pt", PAU_TRUCO, "seis", [E(type="raise", seat=1, to=6)], "apply"),
    ("vale seis", "paulista", "pt", PAU_TRUCO, "vale seis", [E(type="raise", to=6)], "apply"),
    ("peço seis", "paulista", "pt", PAU_TRUCO, "peço seis", [E(type="raise", to=6)], "apply"),
    ("nove too early", "paulista", "pt", PAU_TRUCO, "nove", [], "ignore"),
    ("nove answering seis", "paulista", "pt", PAU_SEIS, "nove", [E(type="raise", seat=0, to=9)], "apply"),
    ("doze answering seis is too far", "paulista", "pt", PAU_SEIS, "doze", [], "ignore"),
    ("trouxe is not truco", "paulista", "pt", PAU_START, "eu trouxe a carta", [], "ignore"),
    ("trucar is not truco", "paulista", "pt", PAU_START, "eu vou trucar", [], "ignore"),
    ("chatter", "paulista", "pt", PAU_TRUCO, "olha a manilha ali", [], "ignore"),
    ("joga with nothing open", "paulista", "pt", PAU_ACCEPTED, "joga", [], "ignore"),
    ("aceito with nothing open", "paulista", "pt", PAU_ACCEPTED, "aceito", [], "ignore"),
    ("corro with nothing open folds (who?)", "paulista", "pt", PAU_ACCEPTED, "corro", [E(type="fold")], "confirm"),
    ("seis later by the team that accepted", "paulista", "pt", PAU_ACCEPTED, "vale seis",
     [E(type="raise", to=6, seat=1)], "apply"),
    ("nove skips a step", "paulista", "pt", PAU_ACCEPTED, "vale nove", [], "not-applied"),
    # --- Paulista: mão de onze -------------------------------------------------------------
    ("eleven: vamos jogar", "paulista", "pt", PAU_ELEVEN, "vamos jogar", [E(type="eleven", team=0, decision="play")], "apply"),
    ("eleven: corro runs", "paulista", "pt", PAU_ELEVEN, "corro", [E(type="eleven", team=0, decision="run")], "apply"),
    ("eleven: aceito plays", "paulista", "pt", PAU_ELEVEN, "aceito", [E(type="eleven", decision="play")], "apply"),
    ("eleven: truco is a penalty, never applied", "paulista", "pt", PAU_ELEVEN_PLAYED, "ele disse truco",
     [E(type="raise")], "confirm"),
    # --- Mineiro -----------------------------------------------------------------------
    ("mineiro truco", "mineiro", "pt", MIN_START, "truco", [E(type="raise", to=3)], "apply"),
    ("mineiro mata", "mineiro", "pt", MIN_TRUCO, "mata", [E(type="accept")], "apply"),
    ("mineiro bate", "mineiro", "pt", MIN_TRUCO, "bate", [E(type="accept")], "apply"),
    ("mineiro vem", "mineiro", "pt", MIN_TRUCO, "vem", [E(type="accept")], "apply"),
    ("mineiro vale nove too early", "mineiro", "pt", MIN_TRUCO, "vale nove", [], "ignore"),
]


@pytest.fixture(scope="module")
def matchers() -> dict[tuple[str, str], Matcher]:
    return {}


def _matcher(cache: dict[tuple[str, str], Matcher], lang: str, variant: str) -> Matcher:
    key = (lang, variant)
    if key not in cache:
        cache[key] = Matcher(load_lexicon(lang, variant))
    return cache[key]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matcher_table(case: tuple[Any, ...], matchers: dict[tuple[str, str], Matcher]) -> None:
    _, variant, lang, log, said, expected, decision = case
    result = _matcher(matchers, lang, variant).match(said, view_after(variant, log))
    if decision == "not-applied":
        # Not legal: silent, or (if the engine takes it as a penalised call) put to the table.
        assert all(e.decision == "confirm" and not e.legal for e in result.events), result.to_dict()
        return
    if decision == "ignore":
        assert result.events == [], result.to_dict()
        assert result.decision == "ignore"
        return
    assert len(result.events) == len(expected), result.to_dict()
    for heard, want in zip(result.events, expected):
        for key, value in want.items():
            assert heard.event.get(key) == value, (key, result.to_dict())
    assert result.decision == decision, result.to_dict()


def test_events_carry_time_and_confidence() -> None:
    matcher = Matcher(load_lexicon("es", "argentino"))
    words = [Word("bueno", 1.0, 1.2, 0.9), Word("quiero", 1.3, 1.7, 0.95), Word("retruco", 1.8, 2.4, 0.8)]
    result = matcher.match(words, view_after("argentino", ARG_TRUCO))
    assert [e.time for e in result.events] == [1.7, 2.4]
    assert [e.start for e in result.events] == [1.3, 1.8]
    assert [e.confidence for e in result.events] == [0.95, 0.8]
    assert result.decision == "apply"


def test_low_confidence_asks() -> None:
    matcher = Matcher(load_lexicon("es", "argentino"))
    result = matcher.match([Word("quiero", 0.0, 0.4, 0.3)], view_after("argentino", ARG_TRUCO))
    assert result.decision == "confirm"
    assert any("confidence" in r for r in result.events[0].reasons)


def test_team_attribution_answer_and_raise() -> None:
    """An answer comes from the team the bet was made to; a raise from the team that accepted."""
    matcher = Matcher(load_lexicon("es", "argentino"))
    answer = matcher.match("quiero", view_after("argentino", ARG_TRUCO)).events[0]
    assert answer.team == 1 and answer.seats == [1, 3] and not answer.needs_seat_question
    raise_ = matcher.match("retruco", view_after("argentino", ARG_TRUCO_ACCEPTED)).events[0]
    assert raise_.team == 1 and not raise_.needs_seat_question
    opening = matcher.match("truco", view_after("argentino", ARG_START)).events[0]
    assert opening.team is None and opening.needs_seat_question and opening.seats == [0, 1, 2, 3]


def test_events_apply_to_the_engine() -> None:
    """What the matcher emits is accepted by the engine, in order."""
    from speech_helpers import game_after

    game = game_after("argentino", ARG_TRUCO)
    matcher = Matcher(load_lexicon("es", "argentino"))
    from companion.speech.view import GameView

    for heard in matcher.match("quiero retruco", GameView(game)).events:
        game.apply(heard.event)
    assert game.state.open_bets[0]["kind"] == "truco" and game.state.open_bets[0]["to"] == 3


def test_confirmation_words() -> None:
    es = Matcher(load_lexicon("es"))
    pt = Matcher(load_lexicon("pt"))
    assert es.confirmation("sí, dale").answer is True
    assert es.confirmation("no").answer is False
    assert es.confirmation("mmm bueno") is None
    assert es.confirmation("sí no") is None
    assert pt.confirmation("sim").answer is True
    assert pt.confirmation("não").answer is False
    assert pt.confirmation("nao").answer is False
    answer = pt.confirmation([Word("sim", 2.0, 2.3, 0.9)])
    assert answer.time == 2.3 and answer.confidence == 0.9
    # a refusal said whole is the call, not an answer, in both languages
    assert pt.confirmation("não quero") is None
    assert es.confirmation("no quiero") is None
    assert es.confirmation("no quiero nada") is None
    assert pt.confirmation("não não quero").answer is False  # a bare "não" before the call still answers
    assert pt.confirmation("vinte e um") is None  # "é" (yes) folded inside a points call


def test_static_view_for_callers_without_engine() -> None:
    matcher = Matcher(load_lexicon("pt"))
    view = StaticView([{"type": "accept", "seat": 2}], {"players": 4})
    result = matcher.match("aceito", view)
    assert [e.event for e in result.events] == [{"type": "accept", "seat": 2}]
    assert result.events[0].team == 0


def test_matching_is_fast_enough_for_partials() -> None:
    """Partials are matched on every audio block: a long utterance stays well under 20 ms."""
    import time

    matcher = Matcher(load_lexicon("es", "argentino"))
    view = view_after("argentino", ARG_TRUCO)
    words = "bueno che la verdad que no sé si quiero pero dale quiero retruco y después vemos".split()
    matcher.match(words, view)
    started = time.perf_counter()
    for _ in range(10):
        matcher.match(words, view)
    assert (time.perf_counter() - started) / 10 < 0.05

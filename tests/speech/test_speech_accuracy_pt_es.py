"""Portuguese and Spanish accuracy with the real small vosk models.

These run only where the models are: give their folders with
``COMPANION_VOSK_MODEL_PT`` / ``COMPANION_VOSK_MODEL_ES`` (or have them in
the cache: ``companion models download --lang pt|es``).  Otherwise they are
skipped and the reason is printed (pytest -ra).  espeak-ng says each phrase
between bits of table talk; the listener must hear the phrase as its event
when the game allows it, and nothing when it does not.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from speech_helpers import game_after

from companion.speech.audio import blocks
from companion.speech.lexicon import load_lexicon
from companion.speech.listener import Listener
from companion.speech.tts import compose, espeak_available
from companion.speech.view import GameView

ARG_START = [{"type": "hand", "dealer": 3}]
ARG_TRUCO = ARG_START + [{"type": "raise", "seat": 0, "to": 2}]
ARG_ACCEPTED = ARG_TRUCO + [{"type": "accept", "seat": 1}]
ARG_ENVIDO = ARG_START + [{"type": "envido", "seat": 0, "kind": "envido"}]
ARG_ENVIDO_ACCEPTED = ARG_ENVIDO + [{"type": "accept", "seat": 1}]
ARG_FLOR = ARG_START + [{"type": "flor", "seat": 0, "kind": "flor"}]
PAU_START = [{"type": "hand", "dealer": 3, "vira": "4D"}]
PAU_TRUCO = PAU_START + [{"type": "raise", "seat": 0, "to": 3}]
PAU_SEIS = PAU_TRUCO + [{"type": "raise", "seat": 1, "to": 6}]
PAU_NOVE = PAU_SEIS + [{"type": "raise", "seat": 0, "to": 9}]
PAU_ACCEPTED = PAU_TRUCO + [{"type": "accept", "seat": 1}]

# (lang, variant, log, filler before, phrase said, expected phrase ids heard)
CASES: list[tuple[str, str, list[dict[str, Any]], str, str, list[str]]] = [
    ("es", "argentino", ARG_TRUCO, "bueno che", "quiero", ["quiero"]),
    ("es", "argentino", ARG_TRUCO, "mirá vos", "no quiero", ["no_quiero"]),
    ("es", "argentino", ARG_TRUCO, "ah sí", "quiero retruco", ["quiero", "retruco"]),
    ("es", "argentino", ARG_TRUCO, "bueno", "envido", ["envido"]),
    ("es", "argentino", ARG_TRUCO, "bueno", "real envido", ["real_envido"]),
    ("es", "argentino", ARG_TRUCO, "bueno", "falta envido", ["falta_envido"]),
    ("es", "argentino", ARG_ACCEPTED, "dale", "retruco", ["retruco"]),
    ("es", "argentino", ARG_START, "bueno che", "me voy al mazo", ["al_mazo"]),
    ("es", "argentino", ARG_ENVIDO_ACCEPTED, "yo", "tengo veintiocho", ["points_28"]),
    ("es", "argentino", ARG_ENVIDO_ACCEPTED, "yo", "treinta y tres", ["points_33"]),
    ("es", "argentino", ARG_FLOR, "uy", "contraflor al resto", ["contraflor_al_resto"]),
    ("es", "argentino", ARG_FLOR, "uy", "con flor me achico", ["con_flor_me_achico"]),
    # Not legal now: must stay silent.
    ("es", "argentino", ARG_ACCEPTED, "bueno che", "quiero", []),
    ("es", "argentino", ARG_ACCEPTED, "pasame el mate", "truco", []),
    ("pt", "paulista", PAU_START, "vamos lá", "truco", ["truco"]),
    ("pt", "paulista", PAU_TRUCO, "então", "aceito", ["aceito"]),
    ("pt", "paulista", PAU_TRUCO, "olha", "corro", ["corro"]),
    ("pt", "paulista", PAU_TRUCO, "então", "seis", ["seis"]),
    ("pt", "paulista", PAU_TRUCO, "então", "não quero", ["nao_quero"]),
    ("pt", "paulista", PAU_SEIS, "vai", "nove", ["nove"]),
    ("pt", "paulista", PAU_NOVE, "vai", "doze", ["doze"]),
    ("pt", "paulista", PAU_TRUCO, "então", "cai", ["aceito_curto"]),
    # Not legal now: must stay silent.
    ("pt", "paulista", PAU_ACCEPTED, "olha a manilha", "aceito", []),
    ("pt", "paulista", PAU_START, "vamos lá", "nove", []),
]

_models: dict[str, Any] = {}


def _model(lang: str) -> Any:
    from companion.speech.models import ModelError, listening_model_path, load_vosk_model

    if lang not in _models:
        explicit = os.environ.get(f"COMPANION_VOSK_MODEL_{lang.upper()}")
        try:
            _models[lang] = load_vosk_model(listening_model_path(lang, explicit))
        except ModelError as exc:
            _models[lang] = exc
    if isinstance(_models[lang], Exception):
        pytest.skip(f"no {lang} vosk model: set COMPANION_VOSK_MODEL_{lang.upper()}=PATH or run "
                    f"`companion models download --lang {lang}` ({str(_models[lang]).splitlines()[0]})")
    return _models[lang]


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}:{c[4]}:{len(c[2])}" for c in CASES])
def test_phrase_heard_when_legal(case: tuple[Any, ...]) -> None:
    lang, variant, log, filler, phrase, expected = case
    model = _model(lang)
    lexicon = load_lexicon(lang, variant)
    voice = lexicon.espeak_voice or lang
    audio, _ = compose([(filler, None), (phrase, "said")], voice, rate=150, gap=0.6, noise=30)
    game = game_after(variant, log)
    listener = Listener(lexicon, model, GameView(game))
    heard = []
    for pcm, _ in blocks(audio):
        for item in listener.feed(pcm):
            if item.event is not None:
                heard.append(item.event.phrase)
                if item.event.decision == "apply":
                    game.apply(item.event.event)
                    listener.set_view(GameView(game))
    heard += [item.event.phrase for item in listener.finish() if item.event is not None]
    assert heard == expected, (phrase, heard, listener.report.lines(lexicon))

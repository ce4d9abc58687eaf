"""Spoken feedback: the companion says what it applied, through espeak-ng.

Off unless asked for (``--speak pt`` or ``--speak es``).  It speaks the
engine's *outcomes*, not the raw events, so it only ever announces what the
engine accepted: "Truco! Vale três", "Envido querido", the score at the end
of a hand.  Speech runs in a background thread with a queue so the live loop
never waits for the synthesiser, and phrases never overlap.
"""

from __future__ import annotations

import queue
import shutil
import subprocess
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

VOICES = {"pt": "pt-br", "es": "es"}

NUMBERS = {
    "pt": {1: "um", 2: "dois", 3: "três", 4: "quatro", 5: "cinco", 6: "seis", 7: "sete", 8: "oito",
           9: "nove", 10: "dez", 11: "onze", 12: "doze"},
    "es": {1: "uno", 2: "dos", 3: "tres", 4: "cuatro", 5: "cinco", 6: "seis", 7: "siete", 8: "ocho",
           9: "nueve", 10: "diez", 11: "once", 12: "doce"},
}
TRUCO_WORDS = {
    "pt": {3: "Truco", 6: "Seis", 9: "Nove", 12: "Doze"},
    "es": {2: "Truco", 3: "Retruco", 4: "Vale cuatro"},
}
ENVIDO_WORDS = {"envido": "Envido", "real_envido": "Real envido", "falta_envido": "Falta envido"}
TEXT = {
    "pt": {"stake": "Vale {n}", "accept": "Aceito. Vale {n}", "refuse": "Correu",
           "envido_accept": "Envido querido", "envido_refuse": "Envido não querido",
           "envido_won": "Envido para {team}", "flor_won": "Flor para {team}",
           "score": "{a} a {b}", "score_named": "{ta} {a}, {tb} {b}",
           "game_over": "Fim de jogo. Ganhou {team}", "team": "time {n}",
           "eleven_play": "Mão de onze: {team} joga", "eleven_run": "Mão de onze: {team} correu"},
    "es": {"stake": "Vale {n}", "accept": "Quiero. Vale {n}", "refuse": "No quiero",
           "envido_accept": "Envido querido", "envido_refuse": "Envido no querido",
           "envido_won": "Envido para {team}", "flor_won": "Flor para {team}",
           "score": "{a} a {b}", "score_named": "{ta} {a}, {tb} {b}",
           "game_over": "Fin del partido. Gana {team}", "team": "equipo {n}",
           "eleven_play": "{team} juega la de once", "eleven_run": "{team} no juega la de once"},
}


class SpeechUnavailable(RuntimeError):
    pass


def _num(lang: str, n: Any) -> str:
    return NUMBERS[lang].get(n, str(n)) if isinstance(n, int) else str(n)


def phrases(lang: str, outcomes: Iterable[Any], state: dict[str, Any] | None = None,
            names: Sequence[str | None] | None = None) -> list[str]:
    """What to say for one event's outcomes (pure function: tested without audio)."""
    if lang not in TEXT:
        raise ValueError(f"spoken feedback speaks pt or es, not {lang!r}")
    t = TEXT[lang]
    state = state or {}

    def team_name(team: Any) -> str:
        members = [n for s, n in enumerate(names or []) if n and s % 2 == team]
        return " e ".join(members) if lang == "pt" and members else (
            " y ".join(members) if members else t["team"].format(n=int(team) + 1 if isinstance(team, int) else team))

    said: list[str] = []
    for outcome in outcomes:
        kind = getattr(outcome, "kind", None) or (outcome.get("kind") if isinstance(outcome, dict) else None)
        data = getattr(outcome, "data", None) or (outcome.get("data", {}) if isinstance(outcome, dict) else {})
        if kind == "bet" and data.get("bet") == "truco":
            if "answer" not in data:
                to = data.get("to")
                word = TRUCO_WORDS[lang].get(to) or str(data.get("word") or "Truco").capitalize()
                said.append(f"{word}! " + t["stake"].format(n=_num(lang, to)))
            elif data["answer"] == "accept":
                said.append(t["accept"].format(n=_num(lang, data.get("stake"))))
            else:
                said.append(t["refuse"])
        elif kind == "bet" and data.get("bet") == "envido":
            if "answer" not in data:
                said.append(ENVIDO_WORDS.get(data.get("kind"), "Envido"))
            elif data["answer"] == "accept":
                said.append(t["envido_accept"])
        elif kind == "envido_won":
            if data.get("accepted") is False:
                said.append(t["envido_refuse"])
            said.append(t["envido_won"].format(team=team_name(data.get("team"))))
        elif kind == "flor_won":
            said.append(t["flor_won"].format(team=team_name(data.get("team"))))
        elif kind == "eleven":
            key = "eleven_play" if data.get("decision") == "play" else "eleven_run"
            said.append(t[key].format(team=team_name(data.get("team"))))
        elif kind in ("game_over", "match_over"):
            team = data.get("team", data.get("winner", state.get("winner")))
            said.append(t["game_over"].format(team=team_name(team)))
            break
        elif kind in ("hand_won", "hand_tied"):
            score = state.get("score") or [0, 0]
            if names and any(names):
                said.append(t["score_named"].format(ta=team_name(0), a=score[0], tb=team_name(1), b=score[1]))
            else:
                said.append(t["score"].format(a=score[0], b=score[1]))
    return said


class Speaker:
    """Says phrases through espeak-ng in a background thread."""

    def __init__(self, lang: str = "pt", *, voice: str | None = None, rate: int = 165,
                 names: Sequence[str | None] | None = None, espeak: str | None = None) -> None:
        if lang not in VOICES:
            raise ValueError(f"spoken feedback speaks pt or es, not {lang!r}")
        self.lang = lang
        self.voice = voice or VOICES[lang]
        self.rate = rate
        self.names = list(names) if names else None
        self.binary = espeak or shutil.which("espeak-ng") or shutil.which("espeak")
        if not self.binary:
            raise SpeechUnavailable("spoken feedback needs espeak-ng: install it with "
                                    "`sudo apt-get install espeak-ng` (or run without --speak)")
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._worker, name="companion-speech", daemon=True)
        self._thread.start()
        self.spoken: list[str] = []  # what was said, for logs and tests

    def command(self, text: str, wav: Path | None = None) -> list[str]:
        cmd = [self.binary, "-v", self.voice, "-s", str(self.rate)]
        if wav is not None:
            cmd += ["-w", str(wav)]
        return cmd + ["--", text]

    def say(self, text: str) -> None:
        self._queue.put(text)

    def announce(self, event: dict[str, Any], outcomes: Iterable[Any], state: dict[str, Any] | None) -> list[str]:
        """Speak what one applied event produced (the signature LiveBoard's ``on_outcomes`` expects)."""
        said = phrases(self.lang, outcomes, state, self.names)
        for text in said:
            self.say(text)
        return said

    def synthesize(self, text: str, wav: Path) -> Path:
        """Write the phrase to a WAV file instead of the speakers (tests, recordings)."""
        subprocess.run(self.command(text, wav), check=True, capture_output=True, timeout=30)
        return wav

    def _worker(self) -> None:
        while True:
            text = self._queue.get()
            if text is None:
                return
            self.spoken.append(text)
            try:
                subprocess.run(self.command(text), check=False, capture_output=True, timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                pass
            finally:
                self._queue.task_done()

    def wait(self, timeout: float = 30.0) -> None:
        """Block until everything queued was said (used at exit)."""
        done = threading.Event()
        threading.Thread(target=lambda: (self._queue.join(), done.set()), daemon=True).start()
        done.wait(timeout)

    def close(self) -> None:
        self._queue.put(None)

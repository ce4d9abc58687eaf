"""From heard words to table-log events, by edit cost against what is legal now.

The approach follows lichess's voice moves: what was *said* is decided
first, purely from the words (the cheapest non-overlapping lexicon phrases
under substitution, deletion and insertion costs); then each phrase is
gated by the game: it becomes the first of its alternative events the
engine lists as legal, in time order, each step seeing the game after the
previous one ("quiero retruco" is an accept, then a raise by the team that
accepted).  A cost under ``apply_cost`` with confident words and a known
team is applied; anything up to ``accept_cost`` is put to the table to
confirm; the rest is ignored.  A reserved word inside talk fires when its
bet is legal (in Argentine truco it binds) and is silent when it is not.

The matcher is pure: it reads words (with audio times if any) and a
``TableView``; it never touches audio or the recogniser.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.speech.lexicon import Form, Lexicon, Phrase
from companion.speech.text import fold, tokenize
from companion.speech.view import TableView

APPLY_COST = 0.3
ACCEPT_COST = 1.0
MIN_CONFIDENCE = 0.6
DELETE_COST = 0.6  # an expected word that was not heard
INSERT_COST = 0.45  # a heard word inside a phrase that does not belong to it

# Fields of a lexicon template that are not compared with a legal event as-is.
_SPECIAL = {"to", "bet", "points"}
_BET_TYPES = {"raise", "envido", "flor"}


@dataclass(frozen=True)
class Word:
    """A recognised (or typed) word; times in seconds of audio, None when typed."""

    text: str
    start: float | None = None
    end: float | None = None
    conf: float = 1.0

    @classmethod
    def from_vosk(cls, item: dict[str, Any], offset: float = 0.0) -> Word:
        return cls(
            item["word"],
            float(item["start"]) + offset if "start" in item else None,
            float(item["end"]) + offset if "end" in item else None,
            float(item.get("conf", 1.0)),
        )


@dataclass(frozen=True)
class Candidate:
    """A lexicon phrase found in the words: which form, where, at what cost."""

    phrase: Phrase
    form: Form
    first: int  # index of the first heard word covered
    last: int  # index one past the last heard word covered
    cost: float


@dataclass
class HeardEvent:
    """One table-log event the words mean, with how sure we are and who said it."""

    event: dict[str, Any]
    phrase: str
    said: str
    cost: float
    confidence: float
    time: float | None  # audio time of the end of the last word
    start: float | None
    decision: str  # "apply" or "confirm"
    team: int | None
    seats: list[int]  # every seat that could have said it
    needs_seat_question: bool  # both teams could have said it: ask who
    legal: bool = True  # False: not legal now, but the engine accepts it (a penalised call)
    reasons: list[str] = field(default_factory=list)
    span: tuple[int, int] = (0, 0)  # indices of the heard words it covers

    @property
    def seat(self) -> int | None:
        return self.event.get("seat")

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "phrase": self.phrase,
            "said": self.said,
            "cost": round(self.cost, 3),
            "confidence": round(self.confidence, 3),
            "time": None if self.time is None else round(self.time, 3),
            "start": None if self.start is None else round(self.start, 3),
            "decision": self.decision,
            "team": self.team,
            "seats": self.seats,
            "needs_seat_question": self.needs_seat_question,
            "legal": self.legal,
            "reasons": self.reasons,
        }


@dataclass
class MatchResult:
    events: list[HeardEvent]
    heard: list[Word]
    unmatched: list[Candidate] = field(default_factory=list)  # phrases said but not legal now

    @property
    def decision(self) -> str:
        """"apply" when every event may be applied, "confirm" when any needs asking, else "ignore"."""
        if not self.events:
            return "ignore"
        return "apply" if all(e.decision == "apply" for e in self.events) else "confirm"

    @property
    def cost(self) -> float:
        return max((e.cost for e in self.events), default=float("inf"))

    @property
    def needs_seat_question(self) -> bool:
        return any(e.needs_seat_question for e in self.events)

    def to_dict(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "cost": None if not self.events else round(self.cost, 3),
            "events": [e.to_dict() for e in self.events],
            "heard": " ".join(w.text for w in self.heard),
            "unmatched": [c.phrase.id for c in self.unmatched],
        }


@dataclass(frozen=True)
class _Attribution:
    event: dict[str, Any]
    team: int | None
    seats: list[int]
    ask: bool


@dataclass(frozen=True)
class Confirmation:
    answer: bool
    time: float | None
    confidence: float


def as_words(words: Sequence[Word | str] | str) -> list[Word]:
    if isinstance(words, str):
        return [Word(t) for t in tokenize(words)]
    return [w if isinstance(w, Word) else Word(w) for w in words]


def merge_respellings(words: list[Word], respell: dict[str, list[tuple[str, ...]]]) -> list[Word]:
    """Join in-vocabulary spellings back into the lexicon word ("re truco" -> "retruco")."""
    if not respell:
        return words
    patterns = sorted(
        ((tuple(fold(w) for w in seq), word) for word, seqs in respell.items() for seq in seqs),
        key=lambda item: -len(item[0]),
    )
    folded = [fold(w.text) for w in words]
    out: list[Word] = []
    i = 0
    while i < len(words):
        for seq, word in patterns:
            if len(seq) > 1 and tuple(folded[i : i + len(seq)]) == seq:
                span = words[i : i + len(seq)]
                out.append(Word(word, span[0].start, span[-1].end, min(w.conf for w in span)))
                i += len(seq)
                break
            if len(seq) == 1 and folded[i] == seq[0] and seq[0] != fold(word):
                out.append(Word(word, words[i].start, words[i].end, words[i].conf))
                i += 1
                break
        else:
            out.append(words[i])
            i += 1
    return out


class Matcher:
    """Turns heard words into table-log events for the game as it stands."""

    def __init__(
        self,
        lexicon: Lexicon,
        apply_cost: float = APPLY_COST,
        accept_cost: float = ACCEPT_COST,
        min_confidence: float = MIN_CONFIDENCE,
        respell: dict[str, list[tuple[str, ...]]] | None = None,
    ):
        self.lexicon = lexicon
        self.apply_cost = apply_cost
        self.accept_cost = accept_cost
        self.min_confidence = min_confidence
        self.respell = lexicon.respell if respell is None else respell
        self._known = lexicon.known_folded()
        self._forms = [(p, f, f.folded) for p in lexicon.phrases for f in p.forms]
        self._reserved = {w for _, _, folded in self._forms for w in folded}
        common = {fold(w) for w in lexicon.fillers | lexicon.near_misses | lexicon.yes | lexicon.no}
        # A phrase is only looked for around its distinctive words: "no" alone
        # must not be taken for "no quiero" with "quiero" deleted.
        self._anchors = {
            form: (set(folded) - common) or set(folded) for _, form, folded in self._forms
        }
        self._all_common = {form for _, form, folded in self._forms if not set(folded) - common}
        self._sub_cache: dict[tuple[str, str], float] = {}

    # -- what was said ---------------------------------------------------------
    def _sub(self, heard: str, expected: str) -> float:
        key = (heard, expected)
        cost = self._sub_cache.get(key)
        if cost is None:
            cost = self.lexicon.substitution_cost(heard, expected, self._known)
            self._sub_cache[key] = cost
        return cost

    def _edit_cost(self, expected: tuple[str, ...], heard: list[str], form: Form) -> float:
        """Weighted edit distance; only a phrase's common words may go unheard."""
        anchors = self._anchors[form]
        optional = form not in self._all_common
        deletion = [DELETE_COST if optional and w not in anchors else float("inf") for w in expected]
        rows, cols = len(expected) + 1, len(heard) + 1
        table = [[0.0] * cols for _ in range(rows)]
        for i in range(1, rows):
            table[i][0] = table[i - 1][0] + deletion[i - 1]
        for j in range(1, cols):
            table[0][j] = j * INSERT_COST
        for i in range(1, rows):
            for j in range(1, cols):
                table[i][j] = min(
                    table[i - 1][j - 1] + self._sub(heard[j - 1], expected[i - 1]),
                    table[i - 1][j] + deletion[i - 1],
                    table[i][j - 1] + INSERT_COST,
                )
        return table[-1][-1]

    def candidates(self, words: list[Word]) -> list[Candidate]:
        """Every phrase form found in the words at a cost up to ``accept_cost``.

        A window in which no heard word can stand for any of the form's words
        costs at least a deletion plus an insertion, more than ``accept_cost``,
        so only windows around a plausible word are scored.
        """
        folded = [fold(w.text) for w in words]
        possible = [
            {e for e in self._reserved if self._sub(h, e) != float("inf")} for h in folded
        ]
        found: list[Candidate] = []
        for phrase, form, expected in self._forms:
            wanted = self._anchors[form]
            anchors = [j for j, p in enumerate(possible) if p & wanted]
            if not anchors:
                continue
            n = len(expected)
            # A phrase made only of common words ("me voy") must be said whole.
            shortest = n if form in self._all_common else max(1, n - 1)
            for length in range(shortest, n + 2):
                starts = {
                    first
                    for j in anchors
                    for first in range(max(0, j - length + 1), min(j, len(folded) - length) + 1)
                }
                for first in sorted(starts):
                    cost = self._edit_cost(expected, folded[first : first + length], form) + form.cost
                    if cost <= self.accept_cost:
                        found.append(Candidate(phrase, form, first, first + length, cost))
        return found

    def said(self, words: list[Word]) -> list[Candidate]:
        """The cheapest non-overlapping phrases, in the order they were said."""
        ranked = sorted(
            self.candidates(words),
            key=lambda c: (round(c.cost, 6), -(c.last - c.first), -len(c.form.words), c.first),
        )
        taken: list[Candidate] = []
        used: set[int] = set()
        for cand in ranked:
            span = set(range(cand.first, cand.last))
            if span & used:
                continue
            taken.append(cand)
            used |= span
        return sorted(taken, key=lambda c: c.first)

    # -- whether it counts -----------------------------------------------------
    @staticmethod
    def _innermost_bet(state: dict[str, Any]) -> str | None:
        bets = state.get("open_bets")
        if not bets:
            return None
        # The engine lists open bets innermost first (flor, envido, truco).
        last = bets[0] if isinstance(bets, list) else bets
        if isinstance(last, str):
            return last
        if isinstance(last, dict):
            kind = str(last.get("kind") or last.get("type") or "")
            return kind or None
        return None

    def _fits(self, legal: dict[str, Any], template: dict[str, Any], state: dict[str, Any]) -> bool:
        for key, value in template.items():
            if key in _SPECIAL:
                continue
            if legal.get(key) != value:
                return False
        if "to" in template and "to" in legal and legal["to"] not in template["to"]:
            return False
        if "bet" in template:
            innermost = self._innermost_bet(state)
            if innermost is not None and template["bet"] not in innermost:
                return False
        return True

    @staticmethod
    def _fill(legal: dict[str, Any], template: dict[str, Any]) -> dict[str, Any]:
        event = dict(legal)
        if "points" in template:
            event["points"] = template["points"]
        return event

    @staticmethod
    def _attribute(options: list[dict[str, Any]], state: dict[str, Any]) -> _Attribution:
        """Pick the event among per-seat options and say which team spoke.

        An answer can only come from the team the bet was made to and a
        raise from the team that accepted last: the engine lists exactly
        those seats.  When both teams are possible the table is asked.
        """
        if all(o.get("type") in ("points", "good") for o in options) and options:
            # Declarations: the engine lists every seat that may still speak, the one
            # expected next first; a declaration heard is taken as that seat's.
            chosen = options[0]
            return _Attribution(chosen, chosen["seat"] % 2, [chosen["seat"]], False)
        seats = sorted({o["seat"] for o in options if "seat" in o})
        teams = sorted({o["team"] for o in options if "team" in o} | {s % 2 for s in seats})
        turn = state.get("turn")
        if seats:
            seat = turn if turn in seats else seats[0]
            chosen = next(o for o in options if o.get("seat") == seat)
        else:
            chosen = options[0]
        team = teams[0] if len(teams) == 1 else None
        return _Attribution(chosen, team, seats, len(teams) > 1)

    def _gate(self, cand: Candidate, view: TableView) -> tuple[_Attribution, bool, TableView | None] | None:
        """The event ``cand`` means now, who said it, whether it is legal, and the game after it."""
        legal = view.legal_events()
        state = view.state()
        for template in cand.phrase.events:
            options = [self._fill(l, template) for l in legal if self._fits(l, template, state)]
            while options:
                who = self._attribute(options, state)
                nxt = view.after(who.event)
                if nxt is not None:
                    return who, True, nxt
                options = [o for o in options if o is not who.event]
        # Not legal now.  A bet the engine still takes (and punishes, e.g. truco in
        # a Paulista mão de onze) is reported for confirmation, never applied.
        accepted = self._penalised(cand.phrase, view)
        if accepted:
            who = self._attribute(accepted, state)
            return who, False, view.after(who.event)
        return None

    @staticmethod
    def _bet_probes(template: dict[str, Any], seat: int) -> list[dict[str, Any]]:
        base = {k: v for k, v in template.items() if k not in _SPECIAL}
        base["seat"] = seat
        if "to" in template:
            return [{**base, "to": to} for to in template["to"]]
        return [base]

    @staticmethod
    def _probe_seats(state: dict[str, Any]) -> list[int]:
        """Seats to try a penalised call for: the seat on turn and one of each team.

        Which team said it is what the penalty depends on; trying every seat
        would copy the game once per seat.
        """
        players = int(state.get("players") or 0)
        if state.get("hand_over") or players == 0:
            return []
        turn = state.get("turn")
        seats = [turn] if isinstance(turn, int) else []
        for team in (0, 1):
            if not any(s % 2 == team for s in seats):
                seats.append(team)
        return [s for s in seats if s < players]

    def _penalised(self, phrase: Phrase, view: TableView) -> list[dict[str, Any]]:
        """Bets of ``phrase`` the engine would take although they are not legal (a penalty)."""
        seats = self._probe_seats(view.state())
        for template in phrase.events:
            if template["type"] not in _BET_TYPES:
                continue
            accepted = [
                probe
                for seat in seats
                for probe in self._bet_probes(template, seat)
                if view.accepts(probe)
            ]
            if accepted:
                return accepted
        return []

    def _legal_phrases(self, view: TableView) -> set[str]:
        legal = view.legal_events()
        state = view.state()
        return {
            phrase.id
            for phrase in self.lexicon.phrases
            if any(self._fits(l, t, state) for t in phrase.events for l in legal)
        }

    def possible_phrases(self, view: TableView, lookahead: bool = True, penalties: bool = True) -> set[str]:
        """Phrases that can mean an event now, one event ahead, or a penalised bet.

        One step ahead covers a single breath at the table: "quiero retruco",
        or "truco!" answered by "quiero!" before the recogniser's grammar is
        switched.
        """
        wanted = self._legal_phrases(view)
        if lookahead:
            seen = {id(view)}
            tried: set[tuple[Any, ...]] = set()
            for event in view.legal_events():
                if event.get("type") == "play":
                    continue
                # Partners lead to the same words next: one seat per team is enough.
                key = (event.get("type"), event.get("kind"), event.get("to"), event.get("decision"),
                       event.get("team"), event["seat"] % 2 if "seat" in event else None)
                if key in tried:
                    continue
                tried.add(key)
                nxt = view.after(event)
                if nxt is not None and id(nxt) not in seen:
                    seen.add(id(nxt))
                    wanted |= self._legal_phrases(nxt)
        if penalties:
            for phrase in self.lexicon.phrases:
                if phrase.id not in wanted and self._penalised(phrase, view):
                    wanted.add(phrase.id)
        return wanted

    def match(self, words: Sequence[Word | str] | str, view: TableView) -> MatchResult:
        heard = merge_respellings(as_words(words), self.respell)
        result = MatchResult([], heard)
        current: TableView | None = view
        blocked = False  # an earlier event needs confirming: later ones depend on it
        for cand in self.said(heard):
            if current is None:
                break
            gated = self._gate(cand, current)
            if gated is None:
                result.unmatched.append(cand)
                continue
            who, legal, nxt = gated
            event, team, seats, ask = who.event, who.team, who.seats, who.ask
            span = heard[cand.first : cand.last]
            confidence = min(w.conf for w in span)
            reasons = []
            if cand.cost > self.apply_cost:
                reasons.append(f"cost {cand.cost:.2f} > {self.apply_cost}")
            if confidence < self.min_confidence:
                reasons.append(f"confidence {confidence:.2f} < {self.min_confidence}")
            if ask:
                reasons.append("both teams could have said it")
            if not legal:
                reasons.append("not legal now: the engine would apply the variant's penalty")
            if blocked:
                reasons.append("follows an event that needs confirming")
            decision = "confirm" if reasons else "apply"
            blocked = blocked or decision == "confirm"
            result.events.append(
                HeardEvent(
                    event=event,
                    phrase=cand.phrase.id,
                    said=" ".join(w.text for w in span),
                    cost=cand.cost,
                    confidence=confidence,
                    time=span[-1].end,
                    start=span[0].start,
                    decision=decision,
                    team=team,
                    seats=seats,
                    needs_seat_question=ask,
                    legal=legal,
                    reasons=reasons,
                    span=(cand.first, cand.last),
                )
            )
            current = nxt
        return result

    # -- yes / no --------------------------------------------------------------
    def confirmation(self, words: Sequence[Word | str] | str) -> Confirmation | None:
        """The table's answer to a pending confirmation ("sim"/"não", "sí"/"no", "네"/"아니").

        None when the words say neither or both; the caller keeps waiting.
        A yes or no word that is part of a call said whole ("não quero", "no
        quiero", "vinte e um") is the call, not an answer: measured on a
        rendered Clean-28 hand, "não quero" said while a card waited for
        confirmation was taken for "não", rejected the card and was lost as a
        refusal; the hand never ended and the three after it were not scored.
        """
        heard = as_words(words)
        loose = self._outside_calls(heard)
        answer = self.lexicon.yes_no([w.text for w in loose])
        if answer is None:
            return None
        wanted = {fold(w) for w in (self.lexicon.yes if answer else self.lexicon.no)}
        hits = [w for w in loose if fold(w.text) in wanted]
        return Confirmation(answer, hits[-1].end, min(w.conf for w in hits))

    def _outside_calls(self, heard: list[Word]) -> list[Word]:
        """The words that are not a yes/no word inside a call phrase that itself contains it."""
        inside: set[int] = set()
        for cand in self.said(heard):
            own = set(cand.form.folded)
            inside |= {i for i in range(cand.first, cand.last) if fold(heard[i].text) in own}
        return [w for i, w in enumerate(heard) if i not in inside]


def confirmation_words(lexicon: Lexicon) -> dict[str, list[str]]:
    """The yes and no words of a language, for a grammar or a prompt."""
    return {"yes": sorted(lexicon.yes), "no": sorted(lexicon.no)}

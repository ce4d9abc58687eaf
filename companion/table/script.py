"""Session scripts: a random but legal match, timed like a real table.

A script is the ground truth of a rendered session: when each card is put
on the table and where, when each call is said and in which words, when the
table is cleared, and the table log all this must produce.  It is played
through the real engine (``legal_events``) so it is legal in its variant,
with random hands dealt from the variant's deck.  The renderer
(:mod:`companion.table.render_session`) draws it; the evaluator compares what
the pipeline reconstructs with :attr:`SessionScript.log`.

Geometry is in table millimetres with the table centre at (0, 0) and seat 0
toward +y (nearest the camera, at the bottom of an unrolled image); seats
follow anticlockwise seen from above, the order of play.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from companion.table.voice import call_language

PLAY_RADIUS_MM = 185.0  # distance from the table centre to where a seat puts its cards
LATERAL_MM = 72.0  # spacing of a seat's three cards side by side


def play_radius(players: int) -> float:
    """Six players sit at a bigger table: their rows of cards must not touch."""
    return PLAY_RADIUS_MM if players <= 4 else 265.0


def lateral_spacing(players: int) -> float:
    return LATERAL_MM if players <= 4 else 66.0

# Words said for each call, by language (entries of companion/speech/lexicons).
WORDS: dict[str, dict[str, Any]] = {
    "pt": {
        "raise": {2: "truco", 3: "truco", 4: "truco", 6: "seis", 8: "nove", 9: "nove", 10: "nove", 12: "doze"},
        "accept": "aceito", "refuse": "não quero", "fold": "corro",
        "eleven_play": "vamos jogar", "eleven_run": "corro",
        "yes": "sim", "no": "não",
    },
    # Korean stand-in words of the speech layer's test lexicon (the one model a
    # package registry ships): used to drive the real recogniser in tests.
    "ko": {
        "raise": {2: "트루코", 3: "트루코", 4: "트루코", 6: "여섯", 8: "아홉", 9: "아홉", 10: "아홉", 12: "열둘"},
        "accept": "수락", "refuse": "거절", "fold": "거절",
        "eleven_play": "수락", "eleven_run": "거절",
        "yes": "네", "no": "아니",
    },
    "es": {
        "raise": {2: "truco", 3: "retruco", 4: "vale cuatro"},
        "accept": "quiero", "refuse": "no quiero", "fold": "me voy al mazo",
        "eleven_play": "quiero", "eleven_run": "no quiero",
        "yes": "sí", "no": "no",
    },
}


@dataclass
class CardOnTable:
    """A card lying on the table from ``t_on`` until ``t_off``."""

    card: str  # notation, or "back"
    center: tuple[float, float]
    angle: float
    t_on: float
    t_off: float
    z: int
    role: str  # deck | vira | play | covered
    seat: int | None = None
    hand: int = 0


@dataclass
class Call:
    t: float
    words: str
    event: dict[str, Any]
    lang: str
    seat: int | None = None


@dataclass
class SessionScript:
    variant: str
    players: int
    lang: str
    match: dict[str, Any]
    cards: list[CardOnTable] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    timed_log: list[tuple[float, dict[str, Any]]] = field(default_factory=list)  # (t, event) ground truth
    duration: float = 0.0
    hands: int = 0
    score: list[int] = field(default_factory=list)
    seed: int = 0

    @property
    def log(self) -> list[dict[str, Any]]:
        return [self.match] + [e for _, e in self.timed_log]

    def visible_at(self, t: float) -> list[CardOnTable]:
        return [c for c in self.cards if c.t_on <= t < c.t_off]

    def change_times(self) -> list[float]:
        times = {0.0}
        for c in self.cards:
            times.add(c.t_on)
            times.add(c.t_off)
        return sorted(x for x in times if x < self.duration)

    def transcript(self) -> list[dict[str, Any]]:
        """Timed transcript of the calls (what a recogniser would give), with
        the true event beside the words for checking."""
        return [{"t": round(c.t, 3), "words": c.words, "lang": c.lang, "truth": c.event} for c in self.calls]

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["timed_log"] = [{"t": round(t, 3), "event": e} for t, e in self.timed_log]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SessionScript:
        script = cls(data["variant"], data["players"], data["lang"], data["match"])
        script.cards = [CardOnTable(**{**c, "center": tuple(c["center"])}) for c in data["cards"]]
        script.calls = [Call(**c) for c in data["calls"]]
        script.timed_log = [(float(x["t"]), x["event"]) for x in data["timed_log"]]
        script.duration = float(data["duration"])
        script.hands = int(data["hands"])
        script.score = list(data.get("score", []))
        script.seed = int(data.get("seed", 0))
        return script

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> SessionScript:
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


def seat_axis(seat: int, players: int) -> tuple[float, float]:
    """Unit vector (table mm, y toward the camera) from the centre to a seat."""
    a = math.pi / 2 - 2.0 * math.pi * seat / players  # seat 0 at +y; anticlockwise seen from above
    return (math.cos(a), math.sin(a))


def play_spot(seat: int, index: int, players: int, rng: random.Random) -> tuple[tuple[float, float], float]:
    """Where a seat puts its ``index``-th card of a hand, and its rotation."""
    ux, uy = seat_axis(seat, players)
    px, py = -uy, ux  # lateral direction
    lateral = (index - 1) * lateral_spacing(players) + rng.uniform(-8, 8)
    radius = play_radius(players) + rng.uniform(-12, 12)
    x = ux * radius + px * lateral
    y = uy * radius + py * lateral
    facing = math.degrees(math.atan2(ux, uy))  # card's top points away from its seat... roughly
    return (x, y), -facing + rng.uniform(-14, 14)


def _words(lang: str, event: dict[str, Any], stake_to: int | None) -> str:
    table = WORDS[lang]
    kind = event["type"]
    if kind == "raise":
        ladder = table["raise"]
        if stake_to in ladder:
            return ladder[stake_to]
        return ladder[min(ladder, key=lambda k: abs(k - (stake_to or 0)))]
    if kind == "eleven":
        return table["eleven_play" if event["decision"] == "play" else "eleven_run"]
    return table[kind]


def make_script(variant: str = "paulista", hands: int = 3, players: int = 4, seed: int = 0,
                lang: str | None = None, covered_rate: float = 0.12, raise_rate: float = 0.12,
                fold_rate: float = 0.02, names: list[str] | None = None,
                first_dealer: int | None = None) -> SessionScript:
    """Play ``hands`` hands of ``variant`` at random (legal by the engine)."""
    from companion.engine import Game, IllegalEvent

    rng = random.Random(seed)
    match: dict[str, Any] = {"type": "match", "variant": variant, "players": players}
    if names:
        match["names"] = list(names)
    game = Game(match)
    options = game.variant
    if lang is None:
        lang = call_language(options)
    script = SessionScript(variant, players, lang, match, seed=seed)
    t = 0.6
    z = 0
    dealer = first_dealer if first_dealer is not None else rng.randrange(players)

    def apply(event: dict[str, Any], when: float) -> None:
        game.apply(event)
        script.timed_log.append((round(when, 3), event))

    for hand_index in range(hands):
        if game.state.to_dict().get("game_over"):
            break
        deck = list(options.deck_cards)
        rng.shuffle(deck)
        hand_cards: dict[int, list[str]] = {s: [deck.pop() for _ in range(3)] for s in range(players)}
        on_table: list[CardOnTable] = []
        deck_piece = CardOnTable("back", (38.0 + rng.uniform(-6, 6), rng.uniform(-6, 6)), rng.uniform(-20, 20),
                                 t, 0.0, z, "deck", None, hand_index)
        z += 1
        on_table.append(deck_piece)
        hand_event: dict[str, Any] = {"type": "hand", "dealer": dealer}
        if options.uses_vira:
            vira = deck.pop()
            hand_event["vira"] = vira
            on_table.append(CardOnTable(vira, (-42.0 + rng.uniform(-6, 6), rng.uniform(-6, 6)),
                                        90 + rng.uniform(-15, 15), t, 0.0, z, "vira", None, hand_index))
            z += 1
        apply(hand_event, t)
        t += rng.uniform(1.2, 2.0)
        played_count = {s: 0 for s in range(players)}
        steps = 0
        while steps < 60:
            steps += 1
            state = game.state.to_dict()
            if state.get("hand_over") or state.get("game_over"):
                break
            legal = game.legal_events()
            answers = [e for e in legal if e["type"] in ("accept", "refuse", "raise") and _answering(e, legal)]
            elevens = [e for e in legal if e["type"] == "eleven"]
            plays = [e for e in legal if e["type"] == "play"]
            raises = [e for e in legal if e["type"] == "raise"]
            folds = [e for e in legal if e["type"] == "fold"]
            event: dict[str, Any] | None = None
            if elevens:
                pick = rng.random()
                decision = "play" if pick < 0.8 else "run"
                choice = [e for e in elevens if e.get("decision") == decision] or elevens
                event = dict(choice[0])
            elif answers and (not plays or rng.random() < 0.85):
                accepts = [e for e in answers if e["type"] == "accept"]
                refuses = [e for e in answers if e["type"] == "refuse"]
                counter = [e for e in answers if e["type"] == "raise"]
                roll = rng.random()
                if roll < 0.68 and accepts:
                    event = dict(rng.choice(accepts))
                elif roll < 0.9 and refuses:
                    event = dict(rng.choice(refuses))
                elif counter:
                    event = dict(rng.choice(counter))
                else:
                    event = dict((accepts or refuses or answers)[0])
            elif raises and rng.random() < raise_rate and not state.get("open_bets"):
                turn = state.get("turn")
                mine = [e for e in raises if e.get("seat") == turn] or raises
                event = dict(rng.choice(mine))
            elif folds and rng.random() < fold_rate and state.get("tricks"):
                turn = state.get("turn")
                mine = [e for e in folds if e.get("seat") == turn] or folds
                event = dict(rng.choice(mine))
            elif plays:
                turn = state.get("turn")
                seat = turn if turn is not None else plays[0]["seat"]
                covered_ok = any(e.get("seat") == seat and e.get("covered") for e in plays)
                if covered_ok and rng.random() < covered_rate:
                    card = hand_cards[seat].pop(rng.randrange(len(hand_cards[seat])))
                    event = {"type": "play", "seat": seat, "covered": True}
                    face = "back"
                else:
                    card = hand_cards[seat].pop(rng.randrange(len(hand_cards[seat])))
                    event = {"type": "play", "seat": seat, "card": card}
                    face = card
                center, angle = play_spot(seat, played_count[seat], players, rng)
                played_count[seat] += 1
                try:
                    apply(event, t)
                except IllegalEvent:
                    hand_cards[seat].append(card)
                    played_count[seat] -= 1
                    continue
                on_table.append(CardOnTable(face, center, angle, t, 0.0, z, "covered" if face == "back" else "play",
                                            seat, hand_index))
                z += 1
                t += rng.uniform(1.3, 2.4)
                continue
            elif answers:
                event = dict(answers[0])
            if event is None:
                break
            if event["type"] == "raise" and "to" not in event:
                event["to"] = _next_stake(game)
            try:
                words = _words(lang, event, event.get("to"))
                seat = event.get("seat")
                apply(event, t)
            except IllegalEvent:
                continue
            script.calls.append(Call(round(t, 3), words, event, lang, seat))
            t += rng.uniform(1.0, 1.8)
        # the hand is over: the cards stay a moment, then the table is cleared
        t += rng.uniform(1.0, 1.6)
        for piece in on_table:
            piece.t_off = t
        script.cards.extend(on_table)
        t += rng.uniform(0.8, 1.4)
        dealer = (dealer + 1) % players
        script.hands += 1
    script.duration = round(t + 0.5, 3)
    state = game.state.to_dict()
    script.score = list(state.get("score", []))
    return script


def _answering(event: dict[str, Any], legal: list[dict[str, Any]]) -> bool:
    """Whether a raise in ``legal`` answers an open bet (there are accepts)."""
    return any(e["type"] == "accept" for e in legal)


def _next_stake(game: Any) -> int | None:
    for e in game.legal_events():
        if e["type"] == "raise" and "to" in e:
            return int(e["to"])
    return None

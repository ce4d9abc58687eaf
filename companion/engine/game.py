"""The game: applies table-log events, keeps the score, answers what is legal.

Like a chess board with a move stack, a :class:`Game` keeps the list of the
events it applied; ``undo`` rebuilds the state by replaying all but the last
one.  The engine is deterministic and does no I/O, so replay restores the
previous state exactly.  To keep ``undo`` cheap in a long game, the game
keeps a checkpoint of its between-deals state before every ``hand`` event
(finished deals never change, so a checkpoint is a few numbers and list
lengths) and replays only the events of the current deal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NoReturn

from companion.cards import CardError, canonical
from companion.engine.envido import ENVIDO_KINDS
from companion.engine.flor import FLOR_KINDS
from companion.engine.hand import KIND_WORDS, Hand, truco_word
from companion.engine.outcomes import IllegalEvent, Outcome
from companion.engine.ranking import manilhas as manilha_list
from companion.engine.ranking import _ranking, ranking
from companion.engine.variants import VariantError, VariantOptions, resolve

PLAYER_COUNTS = (2, 4, 6)
SEAT_EVENTS = ("play", "raise", "accept", "refuse", "fold", "envido", "flor", "points", "good")
EVENT_TYPES = frozenset(("match", "hand", *SEAT_EVENTS, "eleven", "penalty", "undo", "note"))


@lru_cache(maxsize=64)
def _play_order(players: int, dealer: int) -> tuple[int, ...]:
    """Seats in order of play, from the mão (the seat after the dealer)."""
    return tuple((dealer + 1 + i) % players for i in range(players))


class Deal:
    """One deal: a single hand over every seat, or three pica-pica duels."""

    __slots__ = ("by_seat", "dealer", "game", "hands", "kind", "number", "over", "seen", "strength", "vira")

    def __init__(self, game: Game, dealer: int, vira: str | None, kind: str) -> None:
        self.game = game
        self.dealer = dealer
        self.vira = vira
        self.kind = kind  # normal, eleven, iron, redonda, pica-pica
        self.number = game.hand_number
        strength = game._strengths.get(vira)
        if strength is None:
            strength = game._strengths[vira] = ranking(game.variant, vira)
        self.strength = strength
        self.seen: set[str] = {vira} if vira else set()
        self.over = False
        order = _play_order(game.players, dealer)
        if kind == "pica-pica":
            half = len(order) // 2
            self.hands = [Hand(game, self, (order[i], order[i + half]), "duel") for i in range(half)]
        else:
            hand_kind = kind if kind in ("eleven", "iron") else "normal"
            self.hands = [Hand(game, self, order, hand_kind, game._eleven_team)]
        if len(self.hands) == 1:
            hand = self.hands[0]
            self.by_seat = dict.fromkeys(hand.seats, hand)
        else:
            self.by_seat = {seat: h for h in self.hands for seat in h.seats}

    @property
    def mano(self) -> int:
        return (self.dealer + 1) % self.game.players

    @property
    def tied(self) -> bool:
        """A one-hand deal whose every trick tied and that nobody scored (``all_tied: nobody``)."""
        return len(self.hands) == 1 and self.hands[0].winner is None and self.hands[0].end == "tricks"

    def _hand_finished(self, hand: Hand, out: list[Outcome]) -> None:
        if self.over:
            return
        hands = self.hands
        if len(hands) == 1:  # the usual deal: that was its only hand
            self.over = True
            self.game._finished.append(self)
            return
        if self.game.game_over:
            for other in hands:
                if not other.over:
                    other.over, other.end = True, "game_over"
                    other.winner = self.game.winner
        if all(h.over for h in hands):
            self.over = True
            self.game._deal_finished(self, out)

    def abort(self, end: str, winner: int | None, out: list[Outcome]) -> None:
        """End every unfinished hand without scoring (the game ended outside the tricks)."""
        for h in self.hands:
            if not h.over:
                h.over, h.end, h.winner = True, end, winner
        if not self.over:
            self.over = True
            self.game._deal_finished(self, out)

    def record(self) -> dict[str, Any]:
        """The hand entry of ``companion score --json``."""
        points = [sum(h.points[t] for h in self.hands) for t in (0, 1)]
        tricks = []
        for h in self.hands:
            for t in h.tricks:
                tricks.append({
                    "winner": t["winner"],
                    "cards": [[s, None if cov else c] for s, c, cov in t["plays"]],
                    "lead": t["lead"],
                    "covered": [s for s, _, cov in t["plays"] if cov],
                })
        if len(self.hands) == 1:
            h = self.hands[0]
            winner, end, stake = h.winner, h.end, h.stake
        else:
            winner = 0 if points[0] > points[1] else 1 if points[1] > points[0] else None
            ends = [h.end for h in self.hands]
            end = "game_over" if "game_over" in ends else ends[-1]
            stake = sum(h.stake for h in self.hands)
        rec: dict[str, Any] = {
            "number": self.number, "dealer": self.dealer, "winner": winner, "points": points,
            "stake": stake, "end": end, "tricks": tricks, "kind": self.kind,
        }
        if self.vira:
            rec["vira"] = self.vira
        unfinished = [[s, None if cov else c] for h in self.hands for s, c, cov in h.cur]
        if unfinished:
            rec["unfinished_trick"] = unfinished
        env = [h.envido_result for h in self.hands if h.envido_result]
        if env:
            rec["envido"] = env[0] if len(env) == 1 else env
        flor = [h.flor.result for h in self.hands if h.flor is not None and h.flor.result]
        if flor:
            rec["flor"] = flor[0] if len(flor) == 1 else flor
        if len(self.hands) > 1:
            rec["duels"] = [{"seats": list(h.seats), "winner": h.winner, "points": list(h.points),
                             "stake": h.stake, "end": h.end} for h in self.hands]
        penalties = self.game._deal_penalties.get(self.number)
        if penalties:
            rec["penalties"] = penalties
        return rec


@dataclass
class GameState:
    """A snapshot of the game for displays, voice and tests (see ``to_dict``)."""

    variant: str
    players: int
    names: list[str]
    score: list[int]
    target: int
    games: list[int]
    game_number: int
    dealer: int | None
    mano: int | None
    pe: int | None
    turn: int | None
    turns: list[int]
    stake: int | None
    open_bets: list[dict[str, Any]]
    may_raise: int | None
    tricks: list[dict[str, Any]]
    trick: list[list[Any]]
    vira: str | None
    manilhas: list[str]
    hand_number: int
    hand_kind: str | None
    eleven_team: int | None
    hand_over: bool
    game_over: bool
    match_over: bool
    winner: int | None
    envido: dict[str, Any] | None
    flor: dict[str, Any] | None
    score_text: list[str] = field(default_factory=list)
    # the face-up cards of the whole deal, the vira included (sorted): in a pica-pica deal ``tricks`` and
    # ``trick`` show only the live duel, but no card of an earlier duel can be played again
    seen: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _manilha_text(o: VariantOptions, vira: str) -> str:
    """The manilhas of a vira as said in the hand-started text (cached per deck and vira)."""
    return _manilha_words(o.deck, o.joker, o.manilhas, vira)


@lru_cache(maxsize=1024)
def _manilha_words(deck: str, joker: bool, system: str, vira: str) -> str:
    return " ".join(_ranking(deck, joker, system, vira)[1])


def _int(ev: dict[str, Any], key: str, lo: int, hi: int) -> int:
    value = ev.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalEvent(f"`{key}` must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise IllegalEvent(f"`{key}` must be between {lo} and {hi}, got {value}")
    return value


class Game:
    """A match of truco driven by table-log events.

    ``Game(match_event)`` takes the first line of a table log.  ``apply``
    returns the outcomes of an event or raises :class:`IllegalEvent` with the
    state unchanged; ``undo`` retracts the last applied event.
    """

    def __init__(self, match_event: dict[str, Any], variant: str | None = None) -> None:
        if not isinstance(match_event, dict) or match_event.get("type", "match") != "match":
            raise IllegalEvent("the first event of a table log must be a `match` event")
        name = variant or match_event.get("variant")
        players = match_event.get("players", 4)
        if isinstance(players, bool) or players not in PLAYER_COUNTS:
            raise IllegalEvent(f"`players` must be 2, 4 or 6, got {players!r}")
        target = match_event.get("target")
        try:
            self.variant: VariantOptions = resolve(name, match_event.get("options"), target)
        except VariantError as exc:
            raise IllegalEvent(str(exc)) from None
        names = match_event.get("names")
        if names is not None and (not isinstance(names, list) or len(names) != players
                                  or not all(isinstance(x, str) for x in names)):
            raise IllegalEvent(f"`names` must be a list of {players} strings")
        self.variant_name: str = name
        self.players: int = players
        self.names: list[str] = list(names) if names else [f"seat {i}" for i in range(players)]
        self.match_event = dict(match_event)
        # Per-match constants read on every deal (the options are frozen).
        self._stakes: tuple[int, ...] = self.variant.stakes
        self._deck_set: frozenset[str] = self.variant.deck_set
        self._strengths: dict[str | None, dict[str, int]] = {}
        self.events: list[dict[str, Any]] = []
        self._dirty = False
        # (number of events before a `hand` event, between-deals state then); see _checkpoint
        self._checkpoints: list[tuple[Any, ...]] = []
        self._reset()

    # ----------------------------------------------------------------- basics
    def _reset(self) -> None:
        self.score = [0, 0]
        self.games_won = [0, 0]
        self.game_number = 1
        self.game_over = False
        self.match_over = False
        self.winner: int | None = None
        self.match_winner: int | None = None
        self.deal: Deal | None = None
        self.last_dealer: int | None = None
        self.last_kind: str | None = None
        self.hand_number = 0
        self._finished: list[Deal] = []
        self._records: list[dict[str, Any]] = []
        self.penalties: list[dict[str, Any]] = []
        self._deal_penalties: dict[int, list[dict[str, Any]]] = {}
        self._eleven_team: int | None = None
        self.seq = 0

    @property
    def target(self) -> int:
        return self.variant.target

    def apply(self, event: dict[str, Any]) -> list[Outcome]:
        """Apply one table-log event; see the module docstring."""
        if type(event) is not dict and not isinstance(event, dict):
            raise IllegalEvent("an event must be a JSON object")
        kind = event.get("type")
        if kind == "play":
            # The common case, most of a game: a card for a live hand goes straight to
            # the hand; anything unusual takes the general path below (the same checks
            # in the same order, so the same messages).
            deal = self.deal
            seat = event.get("seat")
            if (deal is not None and not deal.over and type(seat) is int and not self.match_over
                    and type(event.get("covered", False)) is bool):
                hand = deal.by_seat.get(seat)
                if hand is not None and not hand.over:
                    out: list[Outcome] = []
                    self._dirty = False
                    card = event.get("card")
                    cur = hand.cur
                    try:
                        if (type(card) is str and event.get("covered", False) is False and hand.flor is None
                                and hand.envido is None and hand.truco.pending_team is None
                                and hand.eleven_decided and card in hand.strength and card not in deal.seen
                                and hand.seats[(hand.pos[hand.leader] + len(cur)) % hand.n] == seat):
                            # A face-up card in turn with nothing open: what Hand._play does
                            # once all its checks pass, without the checks.
                            deal.seen.add(card)
                            cur.append((seat, card, False))
                            if not hand.tricks:
                                hand.first_played.add(seat)
                            if len(cur) == hand.n:
                                hand._end_trick(out)
                        else:
                            hand._play(event, out)
                    except Exception as exc:
                        self._roll_back(kind, exc)
                    self.seq += 1
                    self.events.append(event)
                    return out
        elif kind == "undo":
            self.undo()
            return [Outcome("undo", "the previous event was undone", {})]
        elif kind == "note":
            return []
        elif kind == "match":
            raise IllegalEvent("`match` may only be the first line of a table log")
        elif kind not in EVENT_TYPES:
            raise IllegalEvent(f"unknown event type {kind!r}")
        checkpoint = self._checkpoint() if kind == "hand" else None
        self._dirty = False
        try:
            out = self._apply(event)
        except Exception as exc:
            self._roll_back(kind, exc)
        if checkpoint is not None:
            self._keep(checkpoint)
        self.events.append(event)
        return out

    def _roll_back(self, kind: str, exc: Exception) -> NoReturn:
        """An event failed: give the state back as the event found it and raise. A rejected event
        (IllegalEvent) that changed something first is undone by replaying the log; any other exception
        is a bug, which must neither corrupt the state nor escape as a traceback."""
        if isinstance(exc, IllegalEvent):
            if self._dirty:
                self._replay()
            raise exc
        self._replay()
        raise IllegalEvent(f"internal error on a {kind} event: {exc!r}") from exc

    def undo(self) -> None:
        """Retract the last applied event (``note`` events are not events to the engine)."""
        if not self.events:
            raise IllegalEvent("nothing to undo")
        self.events.pop()
        self._replay()

    def _replay(self) -> None:
        """Rebuild the state after ``self.events``: from the last checkpoint, replaying the rest.

        Gives exactly what replaying the whole list from the match line gives
        (the property tests compare both), in time proportional to one deal.
        """
        n = len(self.events)
        checkpoints = self._checkpoints
        while checkpoints and checkpoints[-1][0] > n:
            checkpoints.pop()  # taken before events that have been undone since
        if checkpoints:
            start = checkpoints[-1][0]
            self._restore(checkpoints[-1])
        else:
            start = 0
            self._reset()
        events = self.events
        for i in range(start, n):
            ev = events[i]
            if i > start and ev["type"] == "hand":
                self._keep(self._checkpoint(i))
            self._apply(ev)

    def _checkpoint(self, at: int | None = None) -> tuple[Any, ...]:
        """The between-deals state before event number ``at`` (default: the next one).

        Only taken before a ``hand`` event, which is legal only when no deal is
        in progress: the current ``deal`` is then over and, like every finished
        deal, never changes again, so lists that only grow are kept as lengths.
        """
        return (len(self.events) if at is None else at, list(self.score), list(self.games_won),
                self.game_number, self.game_over, self.match_over, self.winner, self.match_winner,
                self.deal, self.last_dealer, self.last_kind, self.hand_number, len(self._finished),
                len(self.penalties),
                {k: list(v) for k, v in self._deal_penalties.items()} if self._deal_penalties else {},
                self._eleven_team, self.seq)

    def _keep(self, checkpoint: tuple[Any, ...]) -> None:
        checkpoints = self._checkpoints
        if not checkpoints or checkpoints[-1][0] < checkpoint[0]:
            checkpoints.append(checkpoint)

    def _restore(self, cp: tuple[Any, ...]) -> None:
        """Back to a checkpoint (copies: the checkpoint itself is never changed)."""
        (_, score, games_won, self.game_number, self.game_over, self.match_over, self.winner,
         self.match_winner, self.deal, self.last_dealer, self.last_kind, self.hand_number, finished,
         penalties, deal_penalties, self._eleven_team, self.seq) = cp
        self.score = list(score)
        self.games_won = list(games_won)
        self._finished = self._finished[:finished]
        self._records = self._records[:finished]
        self.penalties = self.penalties[:penalties]
        self._deal_penalties = {k: list(v) for k, v in deal_penalties.items()}

    def _apply(self, ev: dict[str, Any]) -> list[Outcome]:
        """Apply a checked event; ``seq`` counts applied events (replay counts the same way)."""
        out: list[Outcome] = []
        kind = ev["type"]
        if kind == "hand":
            self._hand(ev, out)
        elif kind == "penalty":
            self._penalty(ev, out)
        else:
            if self.match_over:
                raise IllegalEvent("the match is over")
            deal = self.deal
            if deal is None or deal.over:
                raise IllegalEvent("no hand in progress: a `hand` event must come first")
            if kind == "eleven":
                team = _int(ev, "team", 0, 1)
                decision = ev.get("decision")
                if decision not in ("play", "run"):
                    raise IllegalEvent("`decision` must be play or run")
                deal.hands[0].apply({"type": kind, "team": team, "decision": decision}, out)
                self.seq += 1
                return out
            seat = ev.get("seat")
            hand = deal.by_seat.get(seat) if type(seat) is int else None
            if hand is None:
                seat = _int(ev, "seat", 0, self.players - 1)
                hand = deal.by_seat[seat]
            if hand.over:
                raise IllegalEvent(f"seat {seat}'s hand is over")
            if kind != "play":
                if kind == "envido" and ev.get("kind") not in ENVIDO_KINDS:
                    raise IllegalEvent(f"envido `kind` must be one of {', '.join(ENVIDO_KINDS)}")
                if kind == "flor" and ev.get("kind") not in FLOR_KINDS:
                    raise IllegalEvent(f"flor `kind` must be one of {', '.join(FLOR_KINDS)}")
                if kind == "points":
                    _int(ev, "points", 0, 99)
                if kind == "raise" and ev.get("to") is not None:
                    _int(ev, "to", 1, 10**6)
            elif "covered" in ev and not isinstance(ev["covered"], bool):
                raise IllegalEvent("`covered` must be true or false")
            hand.apply(ev, out)
        self.seq += 1
        return out

    # ------------------------------------------------------------------ deals
    def next_dealer(self) -> int:
        if self.last_dealer is None:
            return 0
        if self.variant.tied_same_dealer and self.deal is not None and self.deal.tied and not self.game_over:
            return self.last_dealer
        return (self.last_dealer + 1) % self.players

    def _hand(self, ev: dict[str, Any], out: list[Outcome]) -> None:
        if self.match_over:
            raise IllegalEvent("the match is over")
        if self.deal is not None and not self.deal.over:
            raise IllegalEvent("the current hand is not over yet")
        dealer = ev.get("dealer")
        if type(dealer) is not int or not 0 <= dealer < self.players:
            dealer = _int(ev, "dealer", 0, self.players - 1)
        o = self.variant
        vira = ev.get("vira")
        if o.manilhas == "vira":
            if vira is None:
                raise IllegalEvent("this variant turns a vira: the `hand` event needs `vira`")
            if type(vira) is not str or vira not in self._deck_set:  # else already canonical
                try:
                    vira = canonical(vira, o.family)
                except CardError as exc:
                    raise IllegalEvent(f"vira: {exc}") from None
                if vira not in self._deck_set:
                    raise IllegalEvent(f"vira {vira} is not in the {o.deck} deck")
        elif vira is not None:
            raise IllegalEvent("this variant turns no vira")
        carried = 0
        previous = self.deal
        if (o.tied_stake_carries and previous is not None and previous.tied and not self.game_over
                and previous.hands[0].kind == "normal"):
            carried = previous.hands[0].truco.level  # the truco level the tied hand reached
        if self.game_over:  # next game of the match
            self.game_number += 1
            self.score = [0, 0]
            self.game_over = False
            self.winner = None
            self.last_kind = None
        kind = "normal"
        self._eleven_team = None
        eleven_at = o.eleven_at
        if eleven_at and (self.score[0] >= eleven_at or self.score[1] >= eleven_at):
            at = [t for t in (0, 1) if self.score[t] >= eleven_at]
            if len(at) == 1:
                kind, self._eleven_team = "eleven", at[0]
            elif len(at) == 2 and o.iron_hand:
                kind = "iron"
        if self.players == 6 and kind == "normal":
            if (o.six_players == "alternate" and self.last_kind == "redonda"
                    and max(self.score) < o.pica_pica_until):
                kind = "pica-pica"
            else:
                kind = "redonda"
        self.hand_number += 1
        self.last_dealer = dealer
        self.last_kind = kind
        self.deal = Deal(self, dealer, vira, kind)
        text = f"hand {self.hand_number}: seat {dealer} deals"
        if vira:
            text += f", vira {vira} (manilhas {_manilha_text(o, vira)})"
        if kind == "eleven":
            text += f"; mão de {o.eleven_at}: team {self._eleven_team} decides"
        elif kind == "iron":
            text += "; mão de ferro"
        elif kind == "pica-pica":
            text += "; pica-pica"
        out.append(Outcome("hand_started", text, {"dealer": dealer, "vira": vira, "kind": kind,
                                                  "hand": self.hand_number}))
        if carried and kind in ("normal", "redonda"):
            hand = self.deal.hands[0]
            hand.truco.level = min(carried, len(hand.truco.stakes) - 1)
            out.append(Outcome("rule", f"the tied hand's stake carries over: this hand is worth {hand.stake}",
                               {"rule": "tied_stake_carries", "stake": hand.stake}))

    def _deal_finished(self, deal: Deal, out: list[Outcome]) -> None:
        self._finished.append(deal)

    @property
    def records(self) -> list[dict[str, Any]]:
        """One ``companion score`` hand entry per finished deal (built lazily: the benchmark never asks)."""
        while len(self._records) < len(self._finished):
            self._records.append(self._finished[len(self._records)].record())
        return self._records

    # ---------------------------------------------------------------- scoring
    def _add(self, team: int, pts: int, out: list[Outcome], why: str = "") -> bool:
        """Give ``pts`` to ``team``; True if that ended the game."""
        if self.game_over:
            return True
        self.score[team] += pts
        out.append(Outcome("points", f"team {team} scores {pts}" + (f" ({why})" if why else ""),
                           {"team": team, "points": pts, "score": list(self.score)}))
        if self.score[team] >= self.target:
            self._end_game(team, out)
            return True
        return False

    def _add_both(self, gained: list[int], out: list[Outcome]) -> None:
        """End-of-hand scoring (both teams at once: with deferred envido a draw is possible)."""
        if self.game_over:
            return
        score = self.score
        for t in (0, 1):
            if gained[t]:
                score[t] += gained[t]
                out.append(Outcome("points", f"team {t} scores {gained[t]}",
                                   {"team": t, "points": gained[t], "score": list(score)}))
        target = self.variant.target
        if score[0] < target and score[1] < target:
            return
        over = [t for t in (0, 1) if score[t] >= target]
        if len(over) == 2 and score[0] == score[1]:
            self._end_game(None, out)
        else:
            self._end_game(max(over, key=lambda t: score[t]), out)

    def _change(self, team: int, delta: int, out: list[Outcome], hand: Hand | None = None) -> None:
        """A penalty-like change of one team's score (never below zero)."""
        if self.game_over:
            return
        if delta >= 0:
            if hand is not None:
                hand.points[team] += delta
            self._add(team, delta, out, "penalty")
            return
        real = -min(-delta, self.score[team])
        self.score[team] += real
        if hand is not None:
            hand.points[team] += real
        out.append(Outcome("points", f"team {team} loses {-real}",
                           {"team": team, "points": real, "score": list(self.score)}))

    def _end_game(self, winner: int | None, out: list[Outcome]) -> None:
        self.game_over = True
        self.winner = winner
        if winner is None:
            out.append(Outcome("game_over", "the game is drawn", {"winner": None, "score": list(self.score)}))
            self.match_over = self.variant.games == 1
            return
        self.games_won[winner] += 1
        out.append(Outcome("game_over", f"team {winner} wins the game {self.score[0]}-{self.score[1]}",
                           {"winner": winner, "score": list(self.score)}))
        if self.games_won[winner] > self.variant.games // 2:
            self.match_over = True
            self.match_winner = winner
            if self.variant.games > 1:
                out.append(Outcome("match_over", f"team {winner} wins the match",
                                   {"winner": winner, "games": list(self.games_won)}))
        elif self.variant.games == 1:
            self.match_over = True
            self.match_winner = winner

    def _lose_game(self, team: int, out: list[Outcome]) -> None:
        if not self.game_over:
            self._end_game(1 - team, out)

    def _penalize(self, team: int, points: int | None, reason: str, out: list[Outcome]) -> None:
        """An irregularity by ``team``: the variant's penalty, or ``points`` to the opponents."""
        o = self.variant
        deal = self.deal if self.deal is not None and not self.deal.over else None
        hand = deal.hands[0] if deal is not None and len(deal.hands) == 1 else None
        before = list(self.score)
        if points is None and o.penalty_rule == "game":
            out.append(Outcome("rule", f"{reason or 'irregularity'}: team {team} loses the game",
                               {"rule": "penalty", "team": team}))
            self._lose_game(team, out)
        elif points is None and o.eleven_at and max(self.score) >= o.eleven_at:
            # "A team should not be able to win a game by means of such a penalty."
            self._change(team, -o.penalty_points, out, hand)
        else:
            self._change(1 - team, o.penalty_points if points is None else points, out, hand)
        entry = {"team": team, "reason": reason, "points": [self.score[t] - before[t] for t in (0, 1)],
                 "hand": self.hand_number if deal is not None else None}
        self.penalties.append(entry)
        if deal is not None:
            self._deal_penalties.setdefault(deal.number, []).append(entry)
            if self.game_over and not deal.over:
                deal.abort("penalty", self.winner, out)

    def _penalty(self, ev: dict[str, Any], out: list[Outcome]) -> None:
        if self.match_over:
            raise IllegalEvent("the match is over")
        team = _int(ev, "team", 0, 1)
        reason = ev.get("reason") or ""
        if not isinstance(reason, str):
            raise IllegalEvent("`reason` must be a string")
        points = ev.get("points")
        if points is not None:
            points = _int(ev, "points", 0, 1000)
        self._penalize(team, points, reason, out)

    # ------------------------------------------------------------- questions
    @property
    def state(self) -> GameState:
        o = self.variant
        deal = self.deal
        hand = None
        if deal is not None:
            live = [h for h in deal.hands if not h.over]
            hand = live[0] if live else deal.hands[0]
        open_bets: list[dict[str, Any]] = []
        turns: list[int] = []
        envido = flor = None
        if deal is not None and not deal.over:
            for h in deal.hands:
                if h.over:
                    continue
                if h.turn is not None:
                    turns.append(h.turn)
                f = h.flor
                if f is not None and not f.settled:
                    open_bets.append({"kind": "flor", "bet": f.bet or "flor", "team": f.pending_team,
                                      "announced": list(f.announced), "declaring": f.declarations is not None})
                e = h.envido
                if e is not None and not h.envido_done:
                    open_bets.append({"kind": "envido", "bets": [k for _, k in e.bets], "team": e.last_team,
                                      "accepted": e.accepted})
                tr = h.truco
                if tr.pending_team is not None:
                    open_bets.append({"kind": "truco", "team": tr.pending_team, "seat": tr.pending_seat,
                                      "to": tr.proposed, "word": truco_word(tr.proposed or 0, tr.stakes)})
        if hand is not None:
            envido = hand.envido_result or (
                {"bets": [k for _, k in hand.envido.bets], "accepted": hand.envido.accepted,
                 "declared": dict(hand.envido.declarations.declared) if hand.envido.declarations else {}}
                if hand.envido is not None else None)
            if hand.flor is not None:
                f = hand.flor
                flor = f.result or {"announced": list(f.announced), "bet": f.bet,
                                    "declared": dict(f.declarations.declared) if f.declarations else {}}
        hand_over = deal is None or deal.over
        tricks = []
        trick: list[list[Any]] = []
        if hand is not None:
            tricks = [{"winner": t["winner"], "lead": t["lead"],
                       "cards": [[s, None if cov else c] for s, c, cov in t["plays"]]} for t in hand.tricks]
            trick = [[s, None if cov else c] for s, c, cov in hand.cur]
        return GameState(
            variant=self.variant_name, players=self.players, names=list(self.names),
            score=list(self.score), target=o.target, games=list(self.games_won), game_number=self.game_number,
            dealer=deal.dealer if deal else None, mano=deal.mano if deal else None,
            pe=deal.dealer if deal else None,
            turn=(turns[0] if turns else None), turns=turns,
            stake=hand.stake if hand is not None else None, open_bets=open_bets,
            may_raise=hand.truco.may_raise if hand is not None else None,
            tricks=tricks, trick=trick, vira=deal.vira if deal else None,
            manilhas=manilha_list(o, deal.vira) if deal else ([] if o.uses_vira else manilha_list(o)),
            hand_number=self.hand_number, hand_kind=deal.kind if deal else None,
            eleven_team=self._eleven_team if deal and not hand_over else None,
            hand_over=hand_over, game_over=self.game_over, match_over=self.match_over,
            winner=self.winner, envido=envido, flor=flor, score_text=self.score_text(),
            seen=sorted(deal.seen) if deal is not None and not hand_over else [],
        )

    def score_text(self) -> list[str]:
        """Scores as said at the table (malas/buenas in Argentine truco)."""
        mb = self.variant.malas_buenas
        if not mb:
            return [str(s) for s in self.score]
        return [f"{s} malas" if s <= mb else f"{s - mb} buenas" for s in self.score]

    def covered_block(self, seat: int) -> str | None:
        """Why ``seat`` may not play a face-down card now (None if it may), bets aside.

        The table tracker asks it about a card read as a back: where the rules
        forbid one, the card is face up and was misread.
        """
        if self.deal is None or self.deal.over or seat not in self.deal.by_seat:
            return "no hand is being played"
        return self.deal.by_seat[seat].covered_block(seat)

    def declaration_kind(self, seat: int) -> str | None:
        """``"envido"`` or ``"flor"`` when a comparison waits for declarations in ``seat``'s hand."""
        if self.deal is None or self.deal.over or seat not in self.deal.by_seat:
            return None
        found = self.deal.by_seat[seat]._declarations()
        return found[0] if found else None

    def legal_events(self) -> list[dict[str, Any]]:
        """Events that move the game on from here (``note``, ``penalty`` and ``undo`` are always possible).

        ``play`` is listed per seat without a card (any unplayed card), with
        ``covered: True`` when a face-down card is allowed; ``points`` is
        listed per seat without a value; in vira variants ``hand`` carries
        ``"vira": None`` meaning "the turned card".
        """
        return self._legal(True)

    def _legal(self, copy: bool) -> list[dict[str, Any]]:
        """``legal_events``; with ``copy=False`` some dicts are shared templates that the
        caller must not change (the simulator copies the one event it picks)."""
        if self.match_over:
            return []
        deal = self.deal
        if deal is None or deal.over:
            ev: dict[str, Any] = {"type": "hand", "dealer": self.next_dealer()}
            if self.variant.uses_vira:
                ev["vira"] = None
            return [ev]
        if len(deal.hands) == 1:
            return legal_hand_events(deal.hands[0], copy)
        result: list[dict[str, Any]] = []
        for h in deal.hands:
            if not h.over:
                result.extend(legal_hand_events(h, copy))
        return result


def legal_hand_events(h: Hand, copy: bool = True) -> list[dict[str, Any]]:
    """Legal next events of one hand (see :meth:`Game.legal_events`; ``copy``: see ``Game._legal``)."""
    o = h.o
    tr = h.truco
    if h.flor is None and h.envido is None and tr.pending_team is None and h.eleven_decided:
        # Fast path (most of a hand): no bet open, nothing to declare.  The same
        # events in the same order as the general path below, assembled from
        # shared templates and copied once at the end (callers may fill them in).
        seats = h.seats
        cur = h.cur
        turn = seats[(h.pos[h.leader] + len(cur)) % h.n]
        if h.tricks and o.covered and ((not cur and h.winners[-1] is not None) or h.covered_block(turn) is None):
            # (leading a trick after a won one: nothing can forbid a face-down card)
            ev = [_PLAY[turn], _PLAY_COVERED[turn]]
        else:
            ev = [_PLAY[turn]]
        stakes = tr.stakes
        level = tr.level + 1
        kind = h.kind
        if level < len(stakes) and kind != "eleven" and kind != "iron":
            nxt = stakes[level]
            may = tr.may_raise
            if not o.raise_on_turn:
                raisers: tuple[int, ...] = seats
            else:
                acc = h.accepted_at
                raisers = (turn,) if acc is None or acc[1] != h.game.seq - 1 else _raisers(h, turn)
            if h.truco_trick is not None and h.truco_trick == len(h.tricks) and cur:
                raisers = _in_truco_trick(h, raisers)
            allowed = o.raise_when_winning == "allowed"
            for s in raisers:
                team = s % 2
                if (may is None or may == team) and (allowed or _raise_ok(h, team, False)):
                    ev.append(_raise_event(s, nxt))
        if (o.envido or o.flor) and not h.tricks and kind in ("normal", "duel"):
            # envido and flor belong to the first trick, before the player's own card
            free = [s for s in h.seats if s not in h.first_played]
            if o.envido and not h.envido_done:
                teams = h.truco_teams
                for s in free:
                    if s % 2 not in teams:
                        ev.extend(_ENVIDO_BETS[s])
            if o.flor and not h.envido_done:
                for s in free:
                    ev.append(_FLOR[s])
        ev.extend(_fold_events(seats))
        return list(map(dict.copy, ev)) if copy else ev
    return _slow_events(h)


def _slow_events(h: Hand) -> list[dict[str, Any]]:
    """``legal_hand_events`` when a bet is open, points are declared or a decision is due."""
    o = h.o
    if not h.eleven_decided:
        return [{"type": "eleven", "team": h.eleven_team, "decision": "play"},
                {"type": "eleven", "team": h.eleven_team, "decision": "run"}]
    ev: list[dict[str, Any]] = []
    found = h._declarations()
    f = h.flor
    if found is not None:
        return _declaration_events(h, *found)
    if f is not None and not f.settled and f.pending_team is not None:
        answering = 1 - f.pending_team
        for s in h.seats:
            if s % 2 == answering and h._flor_participant(s) is None:
                ev.append({"type": "accept", "seat": s})
                ev.append({"type": "refuse", "seat": s})
                if f.bet == "contraflor":
                    ev.append({"type": "flor", "seat": s, "kind": "contraflor_al_resto"})
                if s not in f.announced:
                    ev.append({"type": "flor", "seat": s, "kind": "flor"})
        # the bettor's partners may still announce a flor of their own
        ev.extend({"type": "flor", "seat": s, "kind": "flor"} for s in h.seats
                  if s % 2 != answering and h.flor_block(s) is None)
        return ev
    flor_announce = [s for s in h.seats if h.flor_block(s) is None] if o.flor else []
    e = h.envido
    if e is not None and not h.envido_done:
        answering = 1 - e.last_team
        for s in h.seats:
            if s % 2 == answering:
                ev.append({"type": "accept", "seat": s})
                ev.append({"type": "refuse", "seat": s})
                for kind in ENVIDO_KINDS:
                    if e.can_raise_with(kind):
                        ev.append({"type": "envido", "seat": s, "kind": kind})
        ev.extend({"type": "flor", "seat": s, "kind": "flor"} for s in flor_announce)
        ev.extend(map(dict.copy, _fold_events(h.seats)))
        return ev
    ev.extend({"type": "flor", "seat": s, "kind": "flor"} for s in flor_announce)
    if f is not None and not f.settled:
        for s in h.seats:
            if s % 2 in f.teams and not f.contested:
                continue
            if h._flor_participant(s) is None:
                ev.append({"type": "refuse", "seat": s})
                if f.bet is None:
                    ev.append({"type": "flor", "seat": s, "kind": "contraflor"})
                    ev.append({"type": "flor", "seat": s, "kind": "contraflor_al_resto"})
    tr = h.truco
    turn = h.turn
    envido_seats = [s for s in h.seats if h.envido_block(s) is None] if o.envido else []
    if tr.pending_team is not None:
        answering = 1 - tr.pending_team
        nxt = tr.next_stake(True)
        for s in h.seats:
            if s % 2 != answering:
                continue
            ev.append({"type": "accept", "seat": s})
            if f is None or {"type": "refuse", "seat": s} not in ev:  # (already listed: it answers the flor)
                ev.append({"type": "refuse", "seat": s})
            if nxt is not None and o.counter_raise and _raise_ok(h, answering, True):
                ev.append({"type": "raise", "seat": s, "to": nxt})
            if s in envido_seats:
                ev.extend({"type": "envido", "seat": s, "kind": k} for k in ENVIDO_KINDS)
        if o.play_with_open_truco and turn is not None:
            ev.extend(_plays(h, turn))
        ev.extend(map(dict.copy, _fold_events(h.seats)))
        return ev
    if turn is not None:
        ev.extend(_plays(h, turn))
        nxt = tr.next_stake(False)
        if nxt is not None and h.kind not in ("eleven", "iron"):
            raisers = _raisers(h, turn) if o.raise_on_turn else h.seats
            if h.truco_trick is not None and h.truco_trick == len(h.tricks) and h.cur:
                raisers = _in_truco_trick(h, raisers)
            for s in raisers:
                team = s % 2
                if (tr.may_raise is None or tr.may_raise == team) and _raise_ok(h, team, False):
                    ev.append({"type": "raise", "seat": s, "to": nxt})
    for s in envido_seats:
        ev.extend({"type": "envido", "seat": s, "kind": k} for k in ENVIDO_KINDS)
    ev.extend(map(dict.copy, _fold_events(h.seats)))
    return ev


# Templates of the events the fast path of ``legal_hand_events`` lists: shared,
# so they are only ever handed out as copies.
_SEATS = range(max(PLAYER_COUNTS))
_PLAY = tuple({"type": "play", "seat": s} for s in _SEATS)
_PLAY_COVERED = tuple({"type": "play", "seat": s, "covered": True} for s in _SEATS)
_ENVIDO_BETS = tuple(tuple({"type": "envido", "seat": s, "kind": k} for k in ENVIDO_KINDS) for s in _SEATS)
_FLOR = tuple({"type": "flor", "seat": s, "kind": "flor"} for s in _SEATS)


@lru_cache(maxsize=256)
def _fold_events(seats: tuple[int, ...]) -> tuple[dict[str, Any], ...]:
    return tuple({"type": "fold", "seat": s} for s in seats)


@lru_cache(maxsize=1024)
def _raise_event(seat: int, to: int) -> dict[str, Any]:
    return {"type": "raise", "seat": seat, "to": to}


def _raisers(h: Hand, turn: int) -> tuple[int, ...]:
    """Seats that may call a new truco when only the player to play may: that player, plus the
    team that accepted in the event just before ("quiero retruco" logged as accept then raise)."""
    acc = h.accepted_at
    if acc is not None and acc[1] == h.game.seq - 1:
        return (turn, *(s for s in h.seats if s % 2 == acc[0] and s != turn))
    return (turn,)


def _in_truco_trick(h: Hand, raisers: tuple[int, ...]) -> tuple[int, ...]:
    """Mineiro: once the truco trick is under way nobody bets again, except the team that
    accepted in the event just before ("quiero, vale seis" logged as accept then raise)."""
    acc = h.accepted_at
    if acc is None or acc[1] != h.game.seq - 1:
        return ()
    return tuple(s for s in raisers if s % 2 == acc[0])


def _declaration_events(h: Hand, what: str, decl: Any) -> list[dict[str, Any]]:
    """Events accepted while envido or flor points are being declared.

    Every seat of the comparison that has not spoken may declare (the one
    expected next is listed first) or, facing a better declaration, say son
    buenas.  During envido declarations a flor may still be announced (it
    cancels the envido).  While both teams' flores wait for the comparison to
    start, another flor, con flor me achico (``refuse``) and contraflor / al
    resto are still open; once it has started only points and son buenas are.
    """
    ev: list[dict[str, Any]] = []
    first = decl.next_seat()
    speakers = [s for s in decl.order if decl.can_speak(s) is None]
    if first in speakers:
        speakers.remove(first)
        speakers.insert(0, first)
    best = decl.best_seat
    for s in speakers:
        ev.append({"type": "points", "seat": s})
        if best is not None and best % 2 != s % 2:
            ev.append({"type": "good", "seat": s})
    f = h.flor
    if what == "envido":
        if h.o.flor:
            ev.extend({"type": "flor", "seat": s, "kind": "flor"} for s in h.seats if h.flor_block(s) is None)
        return ev
    assert f is not None
    if f.declarations is not None:
        return ev
    ev.extend({"type": "flor", "seat": s, "kind": "flor"} for s in h.seats if h.flor_block(s) is None)
    for s in h.seats:
        if h._flor_participant(s) is None:
            ev.append({"type": "refuse", "seat": s})
            if f.bet is None:
                ev.append({"type": "flor", "seat": s, "kind": "contraflor"})
                ev.append({"type": "flor", "seat": s, "kind": "contraflor_al_resto"})
    return ev


def _raise_ok(h: Hand, team: int, counter: bool) -> bool:
    if h.o.raise_when_winning == "allowed":
        return True
    tr = h.truco
    secured = tr.stakes[tr.level + 1] if counter else tr.stake
    return h.game.score[team] + secured < h.o.target


def _plays(h: Hand, seat: int) -> list[dict[str, Any]]:
    ev: list[dict[str, Any]] = [{"type": "play", "seat": seat}]
    o = h.o
    if o.covered and h.tricks and h.covered_block(seat) is None:
        ev.append({"type": "play", "seat": seat, "covered": True})
    return ev


__all__ = ["Game", "GameState", "Deal", "IllegalEvent", "Outcome", "KIND_WORDS"]

"""One hand (deal) of truco among some seats: tricks, truco, envido, flor.

A normal deal is one :class:`Hand` over every seat; a six-player pica-pica
deal is three two-seat hands played side by side (see ``game.Deal``).  Every
handler checks first and changes state only once the event is known to be
legal, so an :class:`IllegalEvent` leaves the hand untouched.  The one
exception (closing a flor round before the next event) marks the game dirty,
and the game restores itself by replay if that event is then refused.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from companion.cards import CardError, canonical
from companion.engine.bets import TrucoState
from companion.engine.envido import (
    Declarations,
    EnvidoBet,
    envido_points_valid,
    flor_points_valid,
)
from companion.engine.flor import FlorState
from companion.engine.outcomes import IllegalEvent, Outcome
from companion.engine.tricks import hand_result, trick_winner

if TYPE_CHECKING:
    from companion.engine.game import Deal, Game

KIND_WORDS = {
    "envido": "envido", "real_envido": "real envido", "falta_envido": "falta envido",
    "flor": "flor", "contraflor": "contraflor", "contraflor_al_resto": "contraflor al resto",
}


@lru_cache(maxsize=256)
def _positions(seats: tuple[int, ...]) -> dict[int, int]:
    """Seat -> index in ``seats`` (shared, read-only: built once per seat order)."""
    return {seat: i for i, seat in enumerate(seats)}


def eleven_name(at: int) -> str:
    return {11: "mão de onze", 10: "mão de dez"}.get(at, f"mão de {at}")


def truco_word(stake: int, stakes: tuple[int, ...]) -> str:
    """Name of the call that proposes ``stake`` (truco, seis/retruco, ...)."""
    idx = stakes.index(stake)
    if stakes[-1] == 4 and len(stakes) == 4:  # Argentine 1-2-3-4
        return ("", "truco", "retruco", "vale cuatro")[idx]
    return {1: "truco"}.get(idx, f"vale {stake}")


class Hand:
    """The tricks and bets of one hand among ``seats`` (in play order from the mão)."""

    __slots__ = ("accepted_at", "cur", "deal", "dealer", "deferred", "eleven_decided", "eleven_team", "end",
                 "envido", "envido_done", "envido_result", "first_played", "flor", "game", "kind", "leader",
                 "mano", "n", "o", "over", "points", "pos", "seats", "strength", "tricks", "truco",
                 "truco_mark", "truco_teams", "truco_trick", "winner", "winners")

    def __init__(self, game: Game, deal: Deal, seats: tuple[int, ...], kind: str,
                 eleven_team: int | None = None) -> None:
        self.game = game
        self.deal = deal
        o = self.o = game.variant
        self.seats = seats
        self.n = len(seats)
        self.pos = _positions(seats)
        self.mano = seats[0]
        self.dealer = deal.dealer
        self.kind = kind  # normal, eleven, iron, duel
        self.eleven_team = eleven_team
        self.eleven_decided = kind != "eleven"
        self.strength = deal.strength
        self.tricks: list[dict[str, Any]] = []
        self.winners: list[int | None] = []
        self.cur: list[tuple[int, str | None, bool]] = []
        self.first_played: set[int] = set()  # seats that played to the first trick
        self.leader = self.mano
        stakes = game._stakes
        if kind == "iron":
            # The iron hand decides the game: the winners get what they need.
            stakes = (max(o.hand_points, o.target - o.eleven_at),)
        self.truco = TrucoState(stakes)
        self.truco_trick: int | None = None  # Mineiro: trick an accepted truco bets on
        self.truco_mark: tuple[int, int] | None = None  # (trick, cards before the first raise)
        self.truco_teams: set[int] = set()  # teams that called or accepted a truco
        self.accepted_at: tuple[int, int] | None = None  # (team, event number) of the last truco accept
        self.envido: EnvidoBet | None = None
        self.envido_done = False
        self.envido_result: dict[str, Any] | None = None
        self.flor: FlorState | None = None
        self.over = False
        self.winner: int | None = None
        self.end: str | None = None
        self.points = [0, 0]
        self.deferred = [0, 0]

    # ------------------------------------------------------------------ views
    @property
    def stake(self) -> int:
        if self.kind == "eleven" and self.eleven_decided:
            return self.o.eleven_stake
        return self.truco.stake

    @property
    def trick_index(self) -> int:
        return len(self.tricks)

    @property
    def turn(self) -> int | None:
        if self.over or not self.eleven_decided:
            return None
        return self.seats[(self.pos[self.leader] + len(self.cur)) % self.n]

    def played_first(self, seat: int) -> bool:
        """Has ``seat`` already put a card on the first trick?"""
        return bool(self.tricks) or seat in self.first_played

    def _flor_open(self) -> bool:
        return self.flor is not None and not self.flor.settled

    def _flor_closable(self) -> bool:
        """Can the flor round end now (nothing about it waits for an answer)?"""
        f = self.flor
        if f is None or f.settled:
            return True
        if f.pending_team is not None or f.declarations is not None:
            return False
        if f.achico_seat is not None:
            return True
        return not f.contested

    def _envido_open(self) -> bool:
        return self.envido is not None and not self.envido_done

    def _blocking_reason(self) -> str | None:
        """Why the hand cannot go on with cards or truco right now, if it cannot."""
        if self._flor_open() and not self._flor_closable():
            f = self.flor
            assert f is not None
            if f.pending_team is not None:
                return f"team {1 - f.pending_team} must answer the {KIND_WORDS[f.bet or 'flor']} first"
            return "the flor must be settled first (declare flor points)"
        if self._envido_open():
            e = self.envido
            assert e is not None
            if not e.accepted:
                return f"team {1 - e.last_team} must answer the {KIND_WORDS[e.last_kind]} first"
            return "the envido points must be declared first"
        return None

    # ------------------------------------------------------------ dispatcher
    def apply(self, ev: dict[str, Any], out: list[Outcome]) -> None:
        if self.over:
            raise IllegalEvent("this hand is over; a `hand` event must start the next one")
        t = ev["type"]
        if t == "play":
            self._play(ev, out)
        elif t == "raise":
            self._raise(ev, out)
        elif t == "accept":
            self._answer(ev["seat"], True, out)
        elif t == "refuse":
            self._answer(ev["seat"], False, out)
        elif t == "fold":
            self._fold(ev["seat"], out)
        elif t == "envido":
            self._envido(ev["seat"], ev["kind"], out)
        elif t == "flor":
            self._flor(ev["seat"], ev["kind"], out)
        elif t == "points":
            self._points(ev["seat"], ev["points"], out)
        elif t == "good":
            self._good(ev["seat"], out)
        elif t == "eleven":
            self._eleven(ev["team"], ev["decision"], out)
        else:  # pragma: no cover - the game routes only the types above
            raise IllegalEvent(f"unknown event type {t!r}")

    def _member(self, seat: int) -> None:
        if seat not in self.pos:
            raise IllegalEvent(f"seat {seat} does not play in this hand")

    def _need_decision(self) -> None:
        if not self.eleven_decided:
            raise IllegalEvent(f"team {self.eleven_team} must first decide to play or run "
                               f"(`eleven` event) in this mão de {self.o.eleven_at}")

    def _close_flor(self, out: list[Outcome]) -> None:
        """End a flor round that waits for nobody (scores it)."""
        if self.flor is not None and not self.flor.settled:
            self.game._dirty = True
            self._settle_flor(out)

    # ------------------------------------------------------------------ cards
    def _play(self, ev: dict[str, Any], out: list[Outcome]) -> None:
        seat = ev["seat"]
        pos = self.pos
        if seat not in pos:
            self._member(seat)
        if not self.eleven_decided:
            self._need_decision()
        flor = self.flor
        if flor is not None or self.envido is not None:
            reason = self._blocking_reason()
            if reason:
                raise IllegalEvent(reason)
        truco = self.truco
        if truco.pending_team is not None and not self.o.play_with_open_truco:
            raise IllegalEvent(f"team {1 - truco.pending_team} must answer the "
                               f"{truco_word(truco.proposed or 0, truco.stakes)} first")
        covered = ev.get("covered", False)
        if covered is not False:
            covered = bool(covered)
        card = ev.get("card")
        if card is not None:
            strength = self.strength
            if card not in strength:  # fast path: already canonical
                try:
                    card = canonical(card, self.o.family)
                except CardError as exc:
                    raise IllegalEvent(str(exc)) from None
                if card not in strength:
                    raise IllegalEvent(f"{card} is not in the {self.o.deck} deck")
            if card in self.deal.seen:
                raise IllegalEvent(f"{card} has already been seen in this hand")
        elif not covered:
            raise IllegalEvent("a face-up play needs a card")
        if covered:
            self._check_covered(seat)
        cur = self.cur
        turn = self.seats[(pos[self.leader] + len(cur)) % self.n]
        if seat != turn:
            if self.o.out_of_turn == "lose_game":
                team = seat % 2
                out.append(Outcome("rule", f"seat {seat} played out of turn: team {team} loses the game",
                                   {"rule": "out_of_turn", "team": team}))
                self._close_flor(out)
                self.game._lose_game(team, out)
                self._finish(1 - team, "game_over", out, score=False)
                return
            raise IllegalEvent(f"it is seat {turn}'s turn to play, not seat {seat}'s")
        if flor is not None:
            self._close_flor(out)
            if self.over:
                return
        if card is not None:
            self.deal.seen.add(card)
        cur.append((seat, card, covered))
        if not self.tricks:
            self.first_played.add(seat)
        if len(cur) == self.n:
            self._end_trick(out)

    def _check_covered(self, seat: int) -> None:
        why = self.covered_block(seat)
        if why:
            raise IllegalEvent(why)

    def covered_block(self, seat: int) -> str | None:
        """Why ``seat`` may not play face down now (None if it may)."""
        o = self.o
        if not o.covered:
            return "face-down cards are not played in this variant"
        winners = self.winners
        if not winners:
            return "a card cannot be played face down in the first trick"
        if winners[-1] is None:
            if not o.covered_after_tie:
                return "no face-down card after a tied trick in this variant"
            if o.highest_after_tie and len(winners) == 1:
                return "after a tied first trick everyone must play their highest card"
        limit = o.covered_per_team
        if limit:
            team = seat % 2
            mine = 0
            for s, _, c in self.cur:
                if c and s % 2 == team:
                    mine += 1
            if mine >= limit:
                return f"team {team} has already played {mine} face-down card(s) in this trick"
        return None

    def _end_trick(self, out: list[Outcome]) -> None:
        plays = self.cur
        idx = len(self.tricks)
        o = self.o
        winner, next_leader = trick_winner(plays, self.strength, o.tie_lead)
        self.tricks.append({"winner": winner, "lead": self.leader, "plays": plays})
        self.winners.append(winner)
        self.cur = []
        self.leader = next_leader
        if winner is None:
            out.append(Outcome("trick_tied", f"trick {idx + 1} is tied", {"trick": idx}))
        else:
            out.append(Outcome("trick_won", f"team {winner} wins trick {idx + 1}",
                               {"trick": idx, "team": winner, "seat": next_leader}))
        if o.highest_after_tie and idx == 2 and self.winners[0] is None:
            self._check_highest(out)
        if self.truco_trick == idx:
            self._end_truco_trick(idx, winner, plays, out)
            return
        if idx == 0:
            return  # one trick never decides a hand (hand_result says so too)
        decided, team = hand_result(self.winners)
        if decided:
            if team is None:
                self._all_tied(out)
            else:
                self._finish(team, "tricks", out)

    def _end_truco_trick(self, idx: int, winner: int | None, plays: list[tuple[int, str | None, bool]],
                         out: list[Outcome]) -> None:
        """Mineiro: an accepted truco bets on this trick (text: 'The Truco')."""
        if winner is not None:
            self._finish(winner, "tricks", out)
            return
        best = max((self.strength[c] for _, c, cov in plays if c is not None and not cov), default=None)
        before = self.truco_mark[1] if self.truco_mark and self.truco_mark[0] == idx else 0
        early = any(i < before and c is not None and not cov and self.strength[c] == best
                    for i, (_, c, cov) in enumerate(plays))
        if early and self.truco.last_raiser is not None:
            loser = self.truco.last_raiser
            out.append(Outcome("rule", f"the truco trick is tied with a card played before the truco: "
                               f"team {loser}, who bet last, loses the hand", {"rule": "truco_tie", "team": loser}))
            self._finish(1 - loser, "tricks", out)
        elif idx == 2:
            self._all_tied(out)
        else:
            self.truco_trick = idx + 1
            self.truco_mark = (idx + 1, 0)

    def _check_highest(self, out: list[Outcome]) -> None:
        second = {s: c for s, c, cov in self.tricks[1]["plays"] if not cov and c}
        for seat, card, cov in self.tricks[2]["plays"]:
            if card and not cov and seat in second and self.strength[card] > self.strength[second[seat]]:
                out.append(Outcome("rule", f"seat {seat} kept {card}, stronger than the {second[seat]} played "
                                   "after the tied first trick (everyone must play their highest card)",
                                   {"rule": "highest_after_tie", "seat": seat}))

    def _all_tied(self, out: list[Outcome]) -> None:
        rule = self.o.all_tied
        if rule == "nobody":
            out.append(Outcome("hand_tied", "the hand is tied: nobody scores", {}))
            self._finish(None, "tricks", out)
        elif rule == "mano":
            self._finish(self.mano % 2, "tricks", out)
        elif rule == "dealer":
            self._finish(self.dealer % 2, "tricks", out)
        else:
            team = self.dealer % 2
            out.append(Outcome("rule", f"every trick tied: the dealer's team {team} loses the game",
                               {"rule": "all_tied", "team": team}))
            self.game._lose_game(team, out)
            self._finish(1 - team, "game_over", out, score=False)

    # ------------------------------------------------------------------ truco
    def _raise(self, ev: dict[str, Any], out: list[Outcome]) -> None:
        seat = ev["seat"]
        self._member(seat)
        team = seat % 2
        tr = self.truco
        if self.kind in ("eleven", "iron") and self.o.truco_at_eleven != "reject":
            # The call is a fact at the table; the variant says what it costs.
            self._truco_at_eleven(team, out)
            return
        if self.kind in ("eleven", "iron"):
            raise IllegalEvent(f"no truco in a mão de {self.o.eleven_at} or mão de ferro")
        self._need_decision()
        reason = self._blocking_reason()
        if reason:
            raise IllegalEvent(reason)
        counter = tr.pending_team is not None
        if counter:
            if tr.pending_team == team:
                raise IllegalEvent(f"team {team} cannot raise its own bet; team {1 - team} must answer")
            if not self.o.counter_raise:
                raise IllegalEvent("accept the bet first (quiero), then raise")
        else:
            if tr.may_raise is not None and tr.may_raise != team:
                raise IllegalEvent(f"only team {tr.may_raise}, who accepted the last bet, may raise")
            # "Quiero retruco" logged as accept then raise: the raise answers out of turn too.
            just_accepted = self.accepted_at == (team, self.game.seq - 1)
            if self.o.raise_on_turn and seat != self.turn and not just_accepted:
                raise IllegalEvent(f"truco may only be called by the player to play (seat {self.turn})")
            if (self.o.truco_on == "trick" and self.truco_trick == self.trick_index and self.cur
                    and not just_accepted):
                raise IllegalEvent("the truco trick is played out without further betting")
        nxt = tr.next_stake(counter)
        if nxt is None:
            raise IllegalEvent(f"the stake is already at the top of the ladder ({tr.stakes[-1]})")
        to = ev.get("to")
        if to is not None and to != nxt:
            raise IllegalEvent(f"the next raise proposes {nxt}, not {to}")
        secured = tr.stakes[tr.level + 1] if counter else tr.stake
        if self.o.raise_when_winning != "allowed" and self.game.score[team] + secured >= self.o.target:
            if self.o.raise_when_winning == "illegal":
                raise IllegalEvent(f"team {team} may not raise: accepting already wins the game")
            self._close_flor(out)
            out.append(Outcome("rule", f"team {team} raised although accepting already wins the game: "
                               "the raise is void and the opponents score the penalty",
                               {"rule": "raise_when_winning", "team": team}))
            self.game._penalize(team, None, "raise beyond the game", out)
            return
        self._close_flor(out)
        if self.over:
            return
        if self.o.truco_on == "trick" and (self.truco_mark is None or self.truco_mark[0] != self.trick_index):
            self.truco_mark = (self.trick_index, len(self.cur))
        tr.raise_(team, seat, counter)
        self.truco_teams.add(team)
        word = truco_word(nxt, tr.stakes)
        out.append(Outcome("bet", f"seat {seat} (team {team}) calls {word}: {nxt}",
                           {"bet": "truco", "seat": seat, "team": team, "to": nxt, "word": word}))

    def _truco_at_eleven(self, team: int, out: list[Outcome]) -> None:
        o = self.o
        what = "mão de ferro" if self.kind == "iron" else eleven_name(o.eleven_at)
        if o.truco_at_eleven == "lose_game":
            out.append(Outcome("rule", f"truco called in a {what}: team {team} loses the game",
                               {"rule": "truco_at_eleven", "team": team}))
            self.game._lose_game(team, out)
            self._finish(1 - team, "game_over", out, score=False)
        else:
            out.append(Outcome("rule", f"truco called in a {what}: team {team} loses {o.penalty_points}",
                               {"rule": "truco_at_eleven", "team": team}))
            self.game._change(team, -o.penalty_points, out, self)

    def _answer(self, seat: int, yes: bool, out: list[Outcome]) -> None:
        self._member(seat)
        self._need_decision()
        team = seat % 2
        f = self.flor
        if f is not None and not f.settled:
            if f.pending_team is not None:
                if f.pending_team == team:
                    raise IllegalEvent(f"team {team} cannot answer its own {KIND_WORDS[f.bet or 'flor']}")
                self._flor_answer(seat, yes, out)
                return
            # Con flor me achico answers a flor; once the flores are being compared
            # (after "con flor quiero"), conceding is "son buenas" (`good`).
            if (not yes and (team not in f.teams or f.contested) and f.declarations is None
                    and self._flor_participant(seat) is None):
                self._achico(seat, out)
                return
            if not self._flor_closable():
                raise IllegalEvent("the flor must be settled first (declare flor points)")
        e = self.envido
        if e is not None and not self.envido_done:
            if e.accepted:
                raise IllegalEvent("the envido points must be declared first")
            if e.last_team == team:
                raise IllegalEvent(f"team {team} cannot answer its own {KIND_WORDS[e.last_kind]}")
            self._envido_answer(team, yes, out)
            return
        tr = self.truco
        if tr.pending_team is None:
            raise IllegalEvent("there is no open bet to " + ("accept" if yes else "refuse"))
        if tr.pending_team == team:
            raise IllegalEvent(f"team {team} cannot answer its own bet")
        self._close_flor(out)
        if self.over:
            return
        if yes:
            to = tr.stakes[tr.level + 1]
            tr.accept(team)
            self.accepted_at = (team, self.game.seq)
            self.truco_teams.add(team)
            if self.o.truco_on == "trick":
                self.truco_trick = self.trick_index
            out.append(Outcome("bet", f"team {team} accepts: the hand is worth {to}",
                               {"bet": "truco", "answer": "accept", "team": team, "stake": to}))
        else:
            raiser = tr.pending_team
            out.append(Outcome("bet", f"team {team} refuses: team {raiser} scores {tr.stake}",
                               {"bet": "truco", "answer": "refuse", "team": team}))
            tr.clear_pending()
            self._finish(raiser, "refused", out)

    def _fold(self, seat: int, out: list[Outcome]) -> None:
        self._member(seat)
        self._need_decision()
        team = seat % 2
        other = 1 - team
        if self._flor_open() and not self._flor_closable():
            raise IllegalEvent("the flor must be settled before going to the deck")
        e = self.envido
        if e is not None and not self.envido_done and e.accepted:
            raise IllegalEvent("the envido points must be declared before going to the deck")
        extra = 0
        if (self.o.fold_envido_point and self.o.envido and self.trick_index == 0 and e is None
                and self.flor is None and self.truco.pending_team is None and self.truco.level == 0):
            extra = 1
        self._close_flor(out)
        if self.over:
            return
        if e is not None and not self.envido_done:
            pts = e.refused_value(self.o.envido_points, self.o.real_envido_points)
            self.envido_done = True
            self.envido_result = {"team": other, "points": pts, "accepted": False, "bets": [k for _, k in e.bets]}
            out.append(Outcome("envido_won", f"team {team} goes to the deck: team {other} takes the envido ({pts})",
                               {"team": other, "points": pts}))
            if self._score(other, pts, out, "envido"):
                return
        self.truco.clear_pending()
        out.append(Outcome("rule", f"seat {seat} goes to the deck: team {other} scores the hand",
                           {"rule": "fold", "team": team}))
        self._finish(other, "fold", out, bonus=extra)

    def _eleven(self, team: int, decision: str, out: list[Outcome]) -> None:
        if self.kind != "eleven":
            raise IllegalEvent(f"this is not a mão de {self.o.eleven_at or 11}")
        if self.eleven_decided:
            raise IllegalEvent("the mão de onze decision has already been taken")
        if team != self.eleven_team:
            raise IllegalEvent(f"team {self.eleven_team}, not team {team}, decides the mão de {self.o.eleven_at}")
        if decision == "run":
            out.append(Outcome("eleven", f"team {team} runs: team {1 - team} scores {self.o.eleven_run_points}",
                               {"team": team, "decision": "run"}))
            self._finish(1 - team, "eleven_run", out, points=self.o.eleven_run_points)
        else:
            self.eleven_decided = True
            out.append(Outcome("eleven", f"team {team} plays the mão de {self.o.eleven_at} for {self.o.eleven_stake}",
                               {"team": team, "decision": "play"}))

    # ----------------------------------------------------------------- envido
    def envido_block(self, seat: int) -> str | None:
        """Why ``seat`` cannot make the first envido bet now (None if it can)."""
        o = self.o
        if not o.envido:
            return "this variant has no envido"
        if self.kind in ("eleven", "iron"):
            return "no envido in this hand"
        if self.flor is not None:
            return "no envido once a flor has been announced"
        if self.envido_done:
            return "the envido has already been played in this hand"
        if self.trick_index > 0:
            return "envido is only bet during the first trick"
        if self.played_first(seat):
            return f"seat {seat} has already played to the first trick"
        if seat % 2 in self.truco_teams:
            return f"team {seat % 2} has already bet on or accepted the truco"
        return None

    def _envido(self, seat: int, kind: str, out: list[Outcome]) -> None:
        self._member(seat)
        self._need_decision()
        team = seat % 2
        e = self.envido
        if e is None:
            why = self.envido_block(seat)
            if why:
                raise IllegalEvent(why)
        else:
            if self.envido_done or e.accepted:
                raise IllegalEvent("the envido betting is closed")
            if e.last_team == team:
                raise IllegalEvent(f"team {team} cannot raise its own {KIND_WORDS[e.last_kind]}")
            if not e.can_raise_with(kind):
                raise IllegalEvent(f"{KIND_WORDS[kind]} cannot answer {KIND_WORDS[e.last_kind]}")
        if self._flor_open():
            raise IllegalEvent("no envido once a flor has been announced")
        if self.envido is None:
            self.envido = EnvidoBet()
        self.envido.bets.append((team, kind))
        out.append(Outcome("bet", f"seat {seat} (team {team}) says {KIND_WORDS[kind]}",
                           {"bet": "envido", "kind": kind, "seat": seat, "team": team}))

    def falta_value(self) -> int:
        """Points the leading team still needs to win the game."""
        return max(1, self.o.target - max(self.game.score))

    def _envido_answer(self, team: int, yes: bool, out: list[Outcome]) -> None:
        e = self.envido
        assert e is not None
        o = self.o
        if yes:
            e.accepted = True
            e.declarations = Declarations(list(self.seats))
            out.append(Outcome("bet", f"team {team} accepts the {KIND_WORDS[e.last_kind]}: declare the points",
                               {"bet": "envido", "answer": "accept", "team": team}))
        else:
            pts = e.refused_value(o.envido_points, o.real_envido_points)
            winner = e.last_team
            self.envido_done = True
            self.envido_result = {"team": winner, "points": pts, "accepted": False, "bets": [k for _, k in e.bets]}
            out.append(Outcome("envido_won", f"team {team} refuses the envido: team {winner} scores {pts}",
                               {"team": winner, "points": pts, "accepted": False}))
            self._score(winner, pts, out, "envido")

    # ------------------------------------------------------------------- flor
    def flor_block(self, seat: int) -> str | None:
        """Why ``seat`` cannot announce a flor now (None if it can)."""
        o = self.o
        if not o.flor:
            return "this variant is played without flor"
        if self.kind in ("eleven", "iron"):
            return "no flor in this hand"
        f = self.flor
        if f is not None and f.settled:
            return "the flor has already been settled in this hand"
        if f is not None and seat in f.announced:
            return f"seat {seat} has already announced a flor"
        if self.envido_done:
            return "too late for a flor: the envido has been settled"
        if self.played_first(seat):
            return f"seat {seat} has already played to the first trick"
        return None

    def _flor_participant(self, seat: int) -> str | None:
        """A seat that has announced, or may announce now, a flor."""
        f = self.flor
        if f is not None and seat in f.announced:
            return None
        return self.flor_block(seat)

    def _flor(self, seat: int, kind: str, out: list[Outcome]) -> None:
        self._member(seat)
        self._need_decision()
        team = seat % 2
        f = self.flor
        if kind == "flor":
            why = self.flor_block(seat)
            if why:
                raise IllegalEvent(why)
            if f is not None and f.declarations is not None:
                raise IllegalEvent("the flor betting is over: declare the points")
        else:
            why = self._flor_participant(seat)
            if why:
                raise IllegalEvent(why)
            if f is None or f.settled:
                raise IllegalEvent(f"{KIND_WORDS[kind]} answers an opponent's flor; none is open")
            if f.declarations is not None:
                raise IllegalEvent("the flor betting is over: declare the points")
            if not (f.teams - {team}):
                raise IllegalEvent(f"{KIND_WORDS[kind]} needs a flor announced by the other team")
            if f.pending_team is not None:
                if f.pending_team == team:
                    raise IllegalEvent(f"team {team} cannot raise its own {KIND_WORDS[f.bet or 'flor']}")
                if not (kind == "contraflor_al_resto" and f.bet == "contraflor"):
                    raise IllegalEvent(f"{KIND_WORDS[kind]} cannot answer {KIND_WORDS[f.bet or 'flor']}")
            elif f.bet is not None:
                raise IllegalEvent("the flor bet has already been settled")
        # -- legal: apply
        if self.envido is not None and not self.envido_done:
            out.append(Outcome("rule", "a flor cancels the envido bets", {"rule": "flor_cancels_envido"}))
            self.envido = None
        if f is None:
            f = self.flor = FlorState()
        if f.achico_seat is not None and f.achico_seat % 2 == team:
            # "South's Flor announcement overrides North's surrender."
            out.append(Outcome("rule", f"seat {seat}'s flor overrides the partner's surrender",
                               {"rule": "flor_overrides_achico"}))
            f.announce(f.achico_seat)
            f.achico_seat = None
        f.announce(seat)
        if kind == "contraflor_al_resto" and f.pending_team is not None:
            f.contraflor_accepted = True
        if kind != "flor":
            f.bet = kind
            f.pending_team = team
        out.append(Outcome("bet", f"seat {seat} (team {team}) says {KIND_WORDS[kind]}",
                           {"bet": "flor", "kind": kind, "seat": seat, "team": team}))

    def _achico(self, seat: int, out: list[Outcome]) -> None:
        """"Con flor me achico" said to a plain flor: the team concedes."""
        f = self.flor
        assert f is not None
        why = self._flor_participant(seat)
        if why:
            raise IllegalEvent(f"con flor me achico needs a flor: {why}")
        team = seat % 2
        f.spoken.add(seat)
        out.append(Outcome("bet", f"seat {seat} (team {team}): con flor me achico",
                           {"bet": "flor", "answer": "refuse", "seat": seat, "team": team}))
        # A surrender binds the team unless a partner whose turn to speak comes later
        # has not spoken yet ("North tried to surrender before South had had a turn to speak").
        partners_can_speak = any(
            s % 2 == team and self.pos[s] > self.pos[seat] and s not in f.spoken and not self.played_first(s)
            for s in self.seats
        )
        f.achico_seat = seat
        if not partners_can_speak:
            self._settle_flor(out)

    def _flor_answer(self, seat: int, yes: bool, out: list[Outcome]) -> None:
        f = self.flor
        assert f is not None and f.pending_team is not None
        why = self._flor_participant(seat)
        if why:
            raise IllegalEvent(f"only a player with a flor answers a {KIND_WORDS[f.bet or 'flor']}: {why}")
        team = seat % 2
        f.announce(seat)
        raiser = f.pending_team
        f.pending_team = None
        if yes:
            f.accepted = True
            f.declarations = Declarations([s for s in self.seats if s in f.announced])
            out.append(Outcome("bet", f"team {team}: con flor quiero; declare the flores",
                               {"bet": "flor", "answer": "accept", "team": team}))
        else:
            o = self.o
            if f.bet == "contraflor_al_resto" and f.contraflor_accepted:
                pts = o.contraflor_points
            else:
                pts = o.contraflor_refused
            out.append(Outcome("bet", f"team {team}: con flor me achico",
                               {"bet": "flor", "answer": "refuse", "team": team}))
            self._flor_scored(raiser, pts, out, "refused")

    def _settle_flor(self, out: list[Outcome]) -> None:
        """Score a flor round that needs no comparison."""
        f = self.flor
        assert f is not None
        o = self.o
        if f.achico_seat is not None:
            winner = 1 - f.achico_seat % 2
            pts = o.flor_points * f.count(winner) + o.flor_achico_bonus
            self._flor_scored(winner, pts, out, "achico")
        else:
            winner = f.announced[0] % 2
            self._flor_scored(winner, o.flor_points * f.count(winner), out, "uncontested")

    def _flor_scored(self, team: int, pts: int, out: list[Outcome], how: str) -> None:
        f = self.flor
        assert f is not None
        f.settled = True
        f.declarations = None
        f.result = {"team": team, "points": pts, "how": how, "flores": list(f.announced), "bet": f.bet}
        out.append(Outcome("flor_won", f"team {team} scores {pts} for the flor ({how})",
                           {"team": team, "points": pts, "how": how}))
        self._score(team, pts, out, "flor")

    # ------------------------------------------------------------ declarations
    def _declarations(self) -> tuple[str, Declarations] | None:
        f = self.flor
        if f is not None and not f.settled:
            if f.declarations is not None:
                return "flor", f.declarations
            if f.contested and f.pending_team is None and f.achico_seat is None:
                return "flor", Declarations([s for s in self.seats if s in f.announced])
            return None
        e = self.envido
        if e is not None and e.accepted and not self.envido_done and e.declarations is not None:
            return "envido", e.declarations
        return None

    def _speaking(self, seat: int, none_open: str) -> tuple[str, Declarations]:
        """The comparison (``"envido"`` or ``"flor"``) and its declarations that ``seat`` may speak in now:
        points and son buenas both need one open and the seat's turn in it (IllegalEvent, ``none_open`` when
        none is open)."""
        self._member(seat)
        found = self._declarations()
        if found is None:
            raise IllegalEvent(none_open)
        what, decl = found
        why = decl.can_speak(seat)
        if why:
            raise IllegalEvent(why)
        return what, decl

    def _keep_flor_declarations(self, what: str, decl: Declarations) -> None:
        """A flor's comparison is built when first asked for; the first word spoken in it keeps it."""
        if what == "flor":
            assert self.flor is not None
            self.flor.declarations = decl

    def _points(self, seat: int, points: int, out: list[Outcome]) -> None:
        what, decl = self._speaking(seat, "no envido or flor comparison is waiting for points")
        valid = flor_points_valid if what == "flor" else envido_points_valid
        if not valid(points):
            raise IllegalEvent(f"{points} is not a possible {what} total")
        self._keep_flor_declarations(what, decl)
        decl.declare(seat, points)
        out.append(Outcome("points", f"seat {seat} declares {points} ({what})",
                           {"seat": seat, "points": points, "what": what, "declared": True}))
        self._after_declaration(what, decl, out)

    def _good(self, seat: int, out: list[Outcome]) -> None:
        what, decl = self._speaking(seat, "no envido or flor comparison is open")
        if decl.best_seat is None:
            raise IllegalEvent("nobody has declared yet: son buenas needs a declaration to concede to")
        if decl.leading_team == seat % 2:
            raise IllegalEvent(f"team {seat % 2} already has the best {what}")
        self._keep_flor_declarations(what, decl)
        decl.good(seat)
        out.append(Outcome("bet", f"seat {seat}: son buenas", {"bet": what, "answer": "good", "seat": seat}))
        self._after_declaration(what, decl, out)

    def _after_declaration(self, what: str, decl: Declarations, out: list[Outcome]) -> None:
        if not decl.done:
            return
        team = decl.leading_team
        assert team is not None
        o = self.o
        best = decl.declared[decl.best_seat]  # type: ignore[index]
        if what == "envido":
            e = self.envido
            assert e is not None
            pts = e.accepted_value(o.envido_points, o.real_envido_points, self.falta_value())
            self.envido_done = True
            self.envido_result = {"team": team, "points": pts, "accepted": True,
                                  "bets": [k for _, k in e.bets], "best": best, "seat": decl.best_seat}
            out.append(Outcome("envido_won", f"team {team} wins the envido with {best}: {pts} points",
                               {"team": team, "points": pts, "accepted": True, "best": best}))
            self._score(team, pts, out, "envido")
        else:
            f = self.flor
            assert f is not None
            if f.bet == "contraflor" and f.accepted:
                pts = o.contraflor_points
            elif f.bet == "contraflor_al_resto" and f.accepted:
                pts = self.falta_value() + o.contraflor_resto_per_flor * f.count()
            else:
                pts = o.flor_points * f.count()
            self._flor_scored(team, pts, out, f"best flor {best}")

    # ---------------------------------------------------------------- scoring
    def _score(self, team: int, pts: int, out: list[Outcome], why: str) -> bool:
        """Score envido/flor points now (or at the end of the hand); True if the game ended."""
        if pts <= 0:
            return False
        self.points[team] += pts
        if self.o.envido_scored == "end_of_hand":
            self.deferred[team] += pts
            return False
        ended = self.game._add(team, pts, out, why)
        if ended:
            self._finish(team, "game_over", out, score=False)
        return ended

    def _finish(self, team: int | None, end: str, out: list[Outcome], score: bool = True,
                points: int | None = None, bonus: int = 0) -> None:
        """End the hand: ``team`` wins the stake (or ``points``) unless ``score`` is False."""
        if self.over:
            return
        self.over = True
        self.winner = team
        self.end = end
        self.truco.clear_pending()
        gained = list(self.deferred)
        if score and team is not None:
            stake = self.stake
            pts = (stake if points is None else points) + bonus
            gained[team] += pts
            self.points[team] += pts
            out.append(Outcome("hand_won", f"team {team} wins the hand ({end}): {pts} point(s)",
                               {"team": team, "points": pts, "end": end, "stake": stake}))
        if (gained[0] or gained[1]) and not self.game.game_over:
            self.game._add_both(gained, out)
        self.deal._hand_finished(self, out)

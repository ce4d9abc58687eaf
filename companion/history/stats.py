"""Statistics of the history, per player, per pair and head to head.

Scoring is never re-implemented here: who won each hand comes from
``companion.tablelog.score_log`` over the stored table log, and who won an
envido from the engine's ``envido_won`` outcomes while replaying it.  What this
module adds is counting *words*: who called truco, who answered it how, who
declared which envido points.  Undone events do not count (an ``undo`` removes
the previous event, as in the engine); events the engine rejected never count.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

from companion.history.models import FINISHED, REJECTED, Event, Match
from companion.history.store import HistoryStore

@dataclass
class Counters:
    """What one player (or one pair) did, summed over matches."""

    games: int = 0
    games_won: int = 0
    hands: int = 0
    hands_won: int = 0
    trucos_called: int = 0        # raise events (truco, retruco, vale cuatro, seis, nove, doze...)
    trucos_accepted: int = 0      # ... that the opponents accepted (or answered with a counter-raise)
    trucos_refused: int = 0       # ... that the opponents refused
    answered_accept: int = 0      # truco raises of the opponents this player accepted
    answered_refuse: int = 0      # ... and refused
    hands_with_truco: int = 0     # hands in which this player raised at least once
    bluffs_lost: int = 0          # ... and then lost the hand
    envido_called: int = 0
    envido_won: int = 0
    envido_points_sum: int = 0
    envido_declared: int = 0

    def add(self, other: Counters) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["envido_average"] = (self.envido_points_sum / self.envido_declared) if self.envido_declared else None
        d["envido_success"] = (self.envido_won / self.envido_called) if self.envido_called else None
        d["bluff_rate"] = (self.bluffs_lost / self.hands_with_truco) if self.hands_with_truco else None
        d["win_rate"] = (self.games_won / self.games) if self.games else None
        return d


@dataclass
class MatchFacts:
    match_id: int
    names: list[str | None]
    seats: list[Counters]
    winner: int | None
    finished: bool
    started_at: datetime | None


def effective_events(rows: Sequence[Event]) -> list[dict[str, Any]]:
    """The events that stand: rejected ones dropped, each ``undo`` removing the previous one.

    As in the engine, a ``note`` is not an event an ``undo`` can retract.
    """
    stack: list[dict[str, Any]] = []
    for row in rows:
        if row.seq == 0 or row.status == REJECTED:
            continue
        event = row.data
        if event.get("type") == "undo":
            if stack:
                stack.pop()
            continue
        if event.get("type") == "note":
            continue
        stack.append(event)
    return stack


def score_match_log(match: Match) -> dict[str, Any]:
    """``score_log`` of the stored table log (every line, as the engine would read the file)."""
    from companion.tablelog import score_log

    return score_log([e.payload for e in match.events])


def _replay_outcomes(match_event: dict[str, Any], events: Sequence[dict[str, Any]]) -> list[list[Any]]:
    from companion.engine import Game, IllegalEvent

    game = Game(match_event)
    out: list[list[Any]] = []
    for event in events:
        try:
            out.append(list(game.apply(event)))
        except IllegalEvent:
            out.append([])
    return out


def _outcome_team(outcome: Any) -> int | None:
    data = getattr(outcome, "data", None) or {}
    for key in ("team", "winner", "winner_team"):
        if isinstance(data.get(key), int):
            return data[key]
    return None


def analyse_match(match: Match) -> MatchFacts:
    n = match.players_count
    seats = [Counters() for _ in range(n)]
    events = effective_events(match.events)
    hands = score_match_log(match).get("hands", [])
    outcomes = _replay_outcomes(match.events[0].data, events)

    hand_index = -1
    open_truco: int | None = None              # seat whose truco call waits for an answer
    raised_this_hand: set[int] = set()
    envido_callers: list[int] = []

    def close_hand() -> None:
        if hand_index < 0 or hand_index >= len(hands):
            return
        winner = hands[hand_index].get("winner")
        for seat in range(n):
            seats[seat].hands += 1
            if winner is not None and winner == seat % 2:
                seats[seat].hands_won += 1
        for seat in raised_this_hand:
            seats[seat].hands_with_truco += 1
            if winner is not None and winner != seat % 2:
                seats[seat].bluffs_lost += 1

    def answer_truco(accepted: bool, answering_seat: int | None) -> None:
        nonlocal open_truco
        if open_truco is None:
            return
        if accepted:
            seats[open_truco].trucos_accepted += 1
            if answering_seat is not None:
                seats[answering_seat].answered_accept += 1
        else:
            seats[open_truco].trucos_refused += 1
            if answering_seat is not None:
                seats[answering_seat].answered_refuse += 1
        open_truco = None

    for event, outs in zip(events, outcomes):
        kind = event.get("type")
        seat = event.get("seat") if isinstance(event.get("seat"), int) else None
        if kind == "hand":
            close_hand()
            hand_index += 1
            open_truco = None
            raised_this_hand = set()
            envido_callers = []
        # The engine's outcomes say what each word meant (which bet an "accept" answered).
        for outcome in outs:
            data = getattr(outcome, "data", None) or {}
            okind = getattr(outcome, "kind", None)
            if okind == "bet" and data.get("bet") == "truco":
                if "answer" in data:
                    answer_truco(data["answer"] == "accept", seat)
                elif isinstance(data.get("seat"), int):
                    caller = data["seat"]
                    if open_truco is not None and open_truco % 2 != caller % 2:
                        answer_truco(True, caller)      # a counter-raise accepts the open truco
                    open_truco = caller
                    seats[caller].trucos_called += 1
                    raised_this_hand.add(caller)
            elif okind == "bet" and data.get("bet") == "envido":
                if "answer" not in data and isinstance(data.get("seat"), int):
                    seats[data["seat"]].envido_called += 1
                    envido_callers.append(data["seat"])
            elif okind == "points" and data.get("what") == "envido" and isinstance(data.get("seat"), int):
                if data.get("declared", True) and isinstance(data.get("points"), int):
                    seats[data["seat"]].envido_points_sum += data["points"]
                    seats[data["seat"]].envido_declared += 1
            elif okind == "envido_won":
                won = _outcome_team(outcome)
                for caller in envido_callers:
                    if won is not None and won == caller % 2:
                        seats[caller].envido_won += 1
                envido_callers = []
    close_hand()

    winner = match.winner_team
    finished = match.status == FINISHED
    for seat in range(n):
        seats[seat].games = 1 if finished else 0
        seats[seat].games_won = 1 if finished and winner == seat % 2 else 0
    return MatchFacts(match.id, match.names, seats, winner, finished, match.started_at)


@dataclass
class Stats:
    players: dict[str, Counters] = field(default_factory=dict)
    pairs: dict[str, Counters] = field(default_factory=dict)
    head_to_head: dict[str, dict[str, int]] = field(default_factory=dict)
    matches: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "players": {k: v.to_dict() for k, v in sorted(self.players.items())},
            "pairs": {k: v.to_dict() for k, v in sorted(self.pairs.items())},
            "head_to_head": dict(sorted(self.head_to_head.items())),
        }


def pair_key(names: Iterable[str]) -> str:
    return " & ".join(sorted(names))


def compute_stats(store: HistoryStore, *, player: str | None = None, since: datetime | None = None,
                  variant: str | None = None) -> Stats:
    """Stats over every non-deleted match (a deleted match is kept but not counted)."""
    stats = Stats()
    for listed in store.list_matches(player=player, since=since, variant=variant):
        match = store.get_match(listed.id)
        facts = analyse_match(match)
        stats.matches += 1
        names = facts.names
        for seat, counters in enumerate(facts.seats):
            if names[seat]:
                stats.players.setdefault(names[seat], Counters()).add(counters)
        teams: list[list[int]] = [[s for s in range(len(names)) if s % 2 == t] for t in (0, 1)]
        for team, members in enumerate(teams):
            if len(members) < 2 or not all(names[s] for s in members):
                continue
            total = Counters()
            for s in members:
                total.add(facts.seats[s])
            total.games = facts.seats[members[0]].games
            total.games_won = facts.seats[members[0]].games_won
            total.hands = facts.seats[members[0]].hands
            total.hands_won = facts.seats[members[0]].hands_won
            stats.pairs.setdefault(pair_key(names[s] for s in members), Counters()).add(total)
        if facts.finished:
            sides = [sorted({names[s] for s in members if names[s]}) for members in teams]
            for a, b in itertools.product(*sides):
                first, second = sorted((a, b))
                key = f"{first} vs {second}"
                h2h = stats.head_to_head.setdefault(key, {"games": 0, first: 0, second: 0})
                h2h["games"] += 1
                if facts.winner is not None:
                    won = a if facts.winner == 0 else b
                    h2h[won] += 1
    if player:
        stats.players = {k: v for k, v in stats.players.items() if player.lower() in k.lower()}
    return stats


def results_over_time(store: HistoryStore) -> dict[str, list[tuple[datetime, bool]]]:
    """For each named player: (date, won) of every finished match, oldest first."""
    timeline: dict[str, list[tuple[datetime, bool]]] = defaultdict(list)
    for match in sorted(store.list_matches(status=FINISHED), key=lambda m: (m.started_at, m.id)):
        when = match.started_at
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        for seat in match.seats:
            if seat.name:
                timeline[seat.name].append((when, match.winner_team == seat.team))
    return dict(timeline)


def team_names(names: Sequence[str | None]) -> list[str]:
    out = []
    for team in (0, 1):
        members = [n for s, n in enumerate(names) if s % 2 == team and n]
        out.append(" & ".join(members) if members else f"team {team}")
    return out


def match_summary(store: HistoryStore, match_id: int) -> dict[str, Any]:
    """Everything a match page shows: metadata, hands as scored by the engine, errors."""
    from companion.history.exchange import match_meta
    from companion.history.recorder import replay_rows, state_dict

    match = store.get_match(match_id)
    log = score_match_log(match)
    state = state_dict(replay_rows(match.events[0].data, []))
    return {
        "meta": {"id": match.id, **match_meta(match, with_events=False)},
        "teams": team_names(match.names),
        "target": state.get("target") or match.target,
        "hands": log.get("hands", []),
        "score": log.get("score"),
        "errors": log.get("errors", []),
        "events": len(match.events),
    }

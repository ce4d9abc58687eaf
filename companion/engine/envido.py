"""Envido bets and the declaration of points (shared with flor).

The table log never shows the hidden cards, so envido and flor are settled
from what players *say*: ``points`` events and ``good`` ("son buenas").  The
comparison follows the Argentine text: highest total wins, equal totals go to
the player earlier in order from the mano.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ENVIDO_KINDS = ("envido", "real_envido", "falta_envido")
_ORDER = {"envido": 0, "real_envido": 1, "falta_envido": 2}


@dataclass
class Declarations:
    """Who has declared what, and whose turn it is to declare.

    ``order`` is the seats taking part, from the mano round to the dealer
    (for flor: only the seats that announced one).  A seat need not declare
    while its team holds the best declaration; a team whose every remaining
    member has declared or said "son buenas" has lost the comparison.
    """

    order: list[int]
    declared: dict[int, int] = field(default_factory=dict)
    passed: set[int] = field(default_factory=set)
    best_seat: int | None = None

    def _beats(self, seat: int, points: int) -> bool:
        if self.best_seat is None:
            return True
        best = self.declared[self.best_seat]
        if points != best:
            return points > best
        return self.order.index(seat) < self.order.index(self.best_seat)

    @property
    def leading_team(self) -> int | None:
        return None if self.best_seat is None else self.best_seat % 2

    def next_seat(self) -> int | None:
        """The seat expected to speak next, or None when the comparison is over."""
        lead = self.leading_team
        for seat in self.order:
            if seat in self.declared or seat in self.passed:
                continue
            if lead is not None and seat % 2 == lead:
                continue
            return seat
        return None

    @property
    def done(self) -> bool:
        return self.best_seat is not None and self.next_seat() is None

    def can_speak(self, seat: int) -> str | None:
        """None if ``seat`` may declare now, else the reason it may not."""
        if seat not in self.order:
            return f"seat {seat} takes no part in this comparison"
        if seat in self.declared:
            return f"seat {seat} has already declared {self.declared[seat]}"
        if seat in self.passed:
            return f"seat {seat} has already said son buenas"
        return None

    def declare(self, seat: int, points: int) -> None:
        self.declared[seat] = points
        if self._beats(seat, points):
            self.best_seat = seat

    def good(self, seat: int) -> None:
        self.passed.add(seat)


@dataclass
class EnvidoBet:
    """The chain of envido bets of one hand.

    ``bets`` holds ``(team, kind)`` in the order said.  Accepted value: the
    sum of the envido/real envido values, or the falta value when the chain
    ends in falta envido.  Refused: the sum of everything before the last bet
    (raising accepts the bet below), or 1 when there was only one bet.
    """

    bets: list[tuple[int, str]] = field(default_factory=list)
    accepted: bool = False
    declarations: Declarations | None = None

    @property
    def last_team(self) -> int:
        return self.bets[-1][0]

    @property
    def last_kind(self) -> str:
        return self.bets[-1][1]

    def can_raise_with(self, kind: str) -> bool:
        """A raise may not go down the ladder, and nothing follows falta envido."""
        last = self.last_kind
        if last == "falta_envido":
            return False
        return _ORDER[kind] >= _ORDER[last]

    def accepted_value(self, envido: int, real: int, falta: int) -> int:
        if self.last_kind == "falta_envido":
            return falta
        return sum(envido if k == "envido" else real for _, k in self.bets)

    def refused_value(self, envido: int, real: int) -> int:
        if len(self.bets) == 1:
            return 1
        return sum(envido if k == "envido" else real for _, k in self.bets[:-1] if k != "falta_envido")


def envido_points_valid(points: int) -> bool:
    """Possible envido totals: one card 0-7, two of a suit 20-33."""
    return 0 <= points <= 7 or 20 <= points <= 33


def flor_points_valid(points: int) -> bool:
    """Possible flor totals: 20-38 (30-38 with the 'three negras count 30' rule)."""
    return 20 <= points <= 38

"""State of the flor in one hand (Argentine truco).

Flor is announced by the players who hold one (``flor`` events); the other
team may reply with its own flor, surrender ("con flor me achico", logged as
``refuse``), or bet: contraflor (the best flor takes a fixed amount) and
contraflor al resto (the best flor takes what the leader needs plus 3 per
flor).  A plain flor with no opposing flor is scored when the flor round is
over, i.e. at the first event that is not about the flor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.engine.envido import Declarations

FLOR_KINDS = ("flor", "contraflor", "contraflor_al_resto")


@dataclass
class FlorState:
    announced: list[int] = field(default_factory=list)  # seats, in announcement order
    spoken: set[int] = field(default_factory=set)  # seats that said anything about the flor
    bet: str | None = None  # "contraflor" / "contraflor_al_resto" once said
    pending_team: int | None = None  # team whose flor bet waits for an answer
    accepted: bool = False
    contraflor_accepted: bool = False  # a contraflor stood before an al resto was said over it
    achico_seat: int | None = None  # a surrender a partner may still override
    declarations: Declarations | None = None
    settled: bool = False
    result: dict | None = None  # what was scored, for the hand record

    @property
    def teams(self) -> set[int]:
        return {seat % 2 for seat in self.announced}

    @property
    def contested(self) -> bool:
        return len(self.teams) == 2

    def count(self, team: int | None = None) -> int:
        if team is None:
            return len(self.announced)
        return sum(1 for seat in self.announced if seat % 2 == team)

    def announce(self, seat: int) -> None:
        if seat not in self.announced:
            self.announced.append(seat)
        self.spoken.add(seat)

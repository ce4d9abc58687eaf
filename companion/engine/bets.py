"""The truco ladder of one hand.

A raise proposes the next stake of the variant's ladder; the other team
accepts (the stake becomes the proposal), refuses (the raisers score the
stake that stood before the proposal) or counter-raises (accepting and
proposing the next step).  Only the team that accepted the last bet may raise
next, so no team can raise twice in a row.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class TrucoState:
    stakes: tuple[int, ...]
    level: int = 0  # index in stakes of the accepted stake
    pending_team: int | None = None  # team whose raise waits for an answer
    pending_seat: int | None = None
    may_raise: int | None = None  # team allowed to raise next (None: either)
    last_raiser: int | None = None
    raises: int = 0  # raise events in this hand (for the record)

    @property
    def stake(self) -> int:
        return self.stakes[self.level]

    @property
    def proposed(self) -> int | None:
        return self.stakes[self.level + 1] if self.pending_team is not None else None

    def next_stake(self, counter: bool) -> int | None:
        """Stake a raise would propose now (a counter-raise goes one rung higher)."""
        idx = self.level + (2 if counter else 1)
        return self.stakes[idx] if idx < len(self.stakes) else None

    def raise_(self, team: int, seat: int, counter: bool) -> None:
        if counter:
            self.level += 1
        self.pending_team, self.pending_seat = team, seat
        self.last_raiser = team
        self.raises += 1

    def accept(self, team: int) -> None:
        self.level += 1
        self.pending_team = self.pending_seat = None
        self.may_raise = team

    def clear_pending(self) -> None:
        self.pending_team = self.pending_seat = None

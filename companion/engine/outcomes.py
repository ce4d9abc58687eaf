"""What the engine reports back: outcomes of an event, or why it was refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class IllegalEvent(ValueError):
    """The event cannot be applied in the current state; the state is unchanged.

    The message is meant for people (it is shown next to the log line).
    """


@dataclass(slots=True)
class Outcome:
    """Something that happened because of an event.

    ``kind`` is one of: ``hand_started``, ``bet`` (a truco/envido/flor bet
    made, accepted or refused), ``trick_won``, ``trick_tied``, ``hand_won``,
    ``hand_tied``, ``points`` (a team scored), ``envido_won``, ``flor_won``,
    ``eleven`` (decision taken), ``rule`` (a rule consequence such as "truco
    called in a mão de onze: team 1 loses the game"), ``game_over``,
    ``match_over``.  ``data`` carries the machine-readable details.
    """

    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "data": dict(self.data)}

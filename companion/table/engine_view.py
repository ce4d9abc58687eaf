"""The table side of the engine: the tracker's view of a game, and table logs.

``view_of(game)`` reduces the engine's state to the :class:`TableView` the
tracker needs.  A *table log* owns the game and writes every event the
engine accepted: :class:`JsonlTableLog` to a JSON Lines file (the format of
TABLE-LOG.md), :class:`RecorderTableLog` through the history recorder (so a
live match is durable and resumable), :class:`MemoryTableLog` nowhere (tests,
evaluation).  All three expose ``game``, ``record(event, source)`` (raises
the engine's ``IllegalEvent``, state unchanged) and ``undo(source)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from companion.table.tracker import TableView


def illegal_error() -> type[Exception]:
    from companion.engine import IllegalEvent

    return IllegalEvent


def new_game(match_event: dict[str, Any]) -> Any:
    from companion.engine import Game

    return Game(match_event)


def state_dict(game: Any) -> dict[str, Any]:
    state = game.state
    return state.to_dict() if hasattr(state, "to_dict") else dict(state)


def _played_cards(state: dict[str, Any]) -> tuple[set[str], int]:
    """Face-up cards out in the current hand (finished tricks and the trick
    on the table; a covered card is ``[seat, None]``) and how many plays
    were made, covered ones included.

    The face-up cards are the whole deal's (``seen``): a six-player pica-pica
    deal is three duels and the state shows only the live one's tricks, yet the
    engine refuses a card any duel played.  Read from the live duel alone, a
    card of the first duel read again in the third went in as a new play and
    was refused (seed 258, ``s04-argentino-6p``, hand 4)."""
    face_up: set[str] = set(state.get("seen") or ())
    plays = 0
    groups = [t.get("cards", []) for t in state.get("tricks") or []]
    groups.append(state.get("trick") or [])
    for cards in groups:
        for item in cards:
            plays += 1
            card = item[1] if isinstance(item, (list, tuple)) and len(item) >= 2 else None
            if isinstance(card, str):
                face_up.add(card)
    return face_up, plays


def view_of(game: Any, first_dealer: int | None = None) -> TableView:
    """The :class:`TableView` of an engine game; ``first_dealer`` is who deals
    the first hand (the engine's default is seat 0)."""
    state = state_dict(game)
    variant = game.variant
    players = int(state.get("players", 4))
    hand_number = int(state.get("hand_number") or 0)
    hand_over = bool(state.get("hand_over", True))
    in_hand = hand_number > 0 and not hand_over
    played, plays = _played_cards(state) if in_hand else (set(), 0)
    vira = state.get("vira")
    if in_hand and vira:
        played.add(vira)
    answering = None
    if in_hand and state.get("open_bets"):
        answering = answering_seat(game)
    return TableView(
        players=players,
        deck=frozenset(variant.deck_cards),
        uses_vira=bool(variant.uses_vira),
        in_hand=in_hand,
        turn=state.get("turn") if in_hand else None,
        played=frozenset(played),
        next_dealer=int(first_dealer if hand_number == 0 and first_dealer is not None else game.next_dealer()),
        game_over=bool(state.get("match_over") or state.get("game_over")),
        hand_number=hand_number,
        answering_seat=answering,
        cards_this_hand=plays,
        mano=state.get("mano"),
        turns=tuple(state.get("turns") or ()) if in_hand else (),
        trick_winners=tuple(t.get("winner") for t in state.get("tricks") or []) if in_hand else (),
        face_down_ok=in_hand and _face_down_ok(game, state),
    )


def seat_due(game: Any, event: dict[str, Any], first_dealer: int | None = None) -> int | None:
    """The seat a play goes in for in ``game`` when its own seat is not due to play (None: it is, or
    it is no play with a seat, or no hand runs).  A camera cannot tell who played out of turn: the
    card the camera saw is the due seat's (see ``Fusion._seat_by_turn``, ``amend.rename_in_hand``)."""
    if event.get("type") != "play" or "seat" not in event:
        return None
    view = view_of(game, first_dealer)
    due = view.seats_due
    if not view.in_hand or not due or event["seat"] in due:
        return None
    return int(due[0])


def _face_down_ok(game: Any, state: dict[str, Any]) -> bool:
    """Whether a seat due to play may put a card face down (no seat due, a bet open: not ruled out)."""
    seats = tuple(state.get("turns") or ()) or ((state["turn"],) if state.get("turn") is not None else ())
    return any(game.covered_block(int(seat)) is None for seat in seats) if seats else True


def answering_seat(game: Any) -> int | None:
    """The seat that may accept or refuse the open bet of ``game`` (None: no bet is open)."""
    for ev in game.legal_events():
        if ev.get("type") in ("accept", "refuse") and "seat" in ev:
            return int(ev["seat"])
    return None


class TableLog(Protocol):
    game: Any

    def record(self, event: dict[str, Any], source: str = "vision") -> list[Any]: ...

    def undo(self, source: str = "key") -> list[Any]: ...

    def close(self) -> None: ...


class MemoryTableLog:
    """Applies events to a game and keeps the accepted ones in a list."""

    def __init__(self, match_event: dict[str, Any], game: Any | None = None) -> None:
        self.match_event = dict(match_event)
        self.game = game if game is not None else new_game(match_event)
        self.events: list[dict[str, Any]] = []
        self.sources: list[str] = []

    def record(self, event: dict[str, Any], source: str = "vision") -> list[Any]:
        outcomes = self.game.apply(dict(event))
        self.events.append(dict(event))
        self.sources.append(source)
        self._written(event)
        return outcomes

    def undo(self, source: str = "key") -> list[Any]:
        return self.record({"type": "undo"}, source)

    def _written(self, event: dict[str, Any]) -> None:
        pass

    def lines(self) -> list[str]:
        return [json.dumps(self.match_event)] + [json.dumps(e) for e in self.events]

    def close(self) -> None:
        pass


class JsonlTableLog(MemoryTableLog):
    """A table log file written as it goes (flushed after every line, so a
    crash loses nothing that was applied)."""

    def __init__(self, path: str | Path, match_event: dict[str, Any]) -> None:
        super().__init__(match_event)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "w", encoding="utf-8")
        self._fh.write(json.dumps(self.match_event) + "\n")
        self._fh.flush()

    def _written(self, event: dict[str, Any]) -> None:
        self._fh.write(json.dumps(event) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()


class RecorderTableLog:
    """Events go through the history recorder (durable, resumable), and are
    also mirrored to a JSONL file when ``path`` is given."""

    def __init__(self, recorder: Any, path: str | Path | None = None,
                 match_event: dict[str, Any] | None = None) -> None:
        self.recorder = recorder
        self.mirror = JsonlTableLog(path, match_event or {}) if path is not None else None
        if self.mirror is not None:
            self.mirror.game = recorder.game  # one game: the recorder's

    @property
    def game(self) -> Any:
        return self.recorder.game

    def record(self, event: dict[str, Any], source: str = "vision") -> list[Any]:
        outcomes = self.recorder.record(dict(event), source=source)
        if self.mirror is not None:
            self.mirror.events.append(dict(event))
            self.mirror._written(event)
        return outcomes

    def undo(self, source: str = "key") -> list[Any]:
        outcomes = self.recorder.undo(source=source)
        if self.mirror is not None:
            self.mirror.events.append({"type": "undo"})
            self.mirror._written({"type": "undo"})
        return outcomes

    def close(self) -> None:
        if self.mirror is not None:
            self.mirror.close()

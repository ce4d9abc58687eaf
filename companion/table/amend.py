"""Renaming a card already in the running hand, and putting the rest of the hand back after it.

Why: two cards of one hand can be read as the same card.  The tracker used to
keep the first name for the card applied first and give the second its next
reading.  Measured on the rendered sessions (recorded detection streams, both
seeds): in 10 of 22 such conflicts the *second* card was the one read right,
and in 9 of them the second card had been read as that card in nine of ten of
its frames while the first had been in at most 60 % of its own.  Renaming the
first card means taking the hand back to it: a different vira changes the
manilhas, a different card can change who won a trick, and so whose turn each
later card was.  The engine has no "replace", only undo and apply, so this is
undo back to the card and apply the hand again.
"""

from __future__ import annotations

from typing import Any

from companion.table.engine_view import answering_seat, illegal_error, seat_due


def renamed_event(event: dict[str, Any], card: str, name: str) -> dict[str, Any] | None:
    """``event`` with ``card`` renamed ``name`` when it is the event that put ``card`` on the table
    (a face-up play of it, or the deal that turned it as the vira); else None."""
    if event.get("type") == "play" and event.get("card") == card:
        return {**event, "card": name}
    if event.get("type") == "hand" and event.get("vira") == card:
        return {**event, "vira": name}
    return None


def hand_tail(game: Any, card: str) -> list[dict[str, Any]] | None:
    """The events of the running hand from the one that put ``card`` in to the last (None: ``card``
    is not in the running hand)."""
    events = list(game.events)
    start = max((i for i, e in enumerate(events) if e.get("type") == "hand"), default=None)
    if start is None:
        return None
    for i in range(start, len(events)):
        if renamed_event(events[i], card, card) is not None:
            return [dict(e) for e in events[i:]]
    return None


def rename_in_hand(game: Any, card: str, name: str, first_dealer: int | None = None) -> list[dict[str, Any]] | None:
    """Rename ``card`` to ``name`` in the running hand of ``game`` (changed in place).

    Returns the events applied again (the renamed one first), or None -- and
    ``game`` as it was -- when ``card`` is not in the running hand or the hand
    does not go in again under the new name.  Each later play goes in for the
    seat due when it is applied again, as a camera card does (the camera saw the
    cards in this order; a different trick winner leads the next trick; the
    engine's event list does not say which play was typed, so a typed one is
    re-seated too); calls and answers go in as they were, and one the engine now
    refuses undoes the whole renaming.
    """
    tail = hand_tail(game, card)
    if tail is None:
        return None
    return _again(game, tail, renamed_event(tail[0], card, name), first_dealer)


def reseat_call(game: Any, index: int, seat: int, first_dealer: int | None = None) -> list[dict[str, Any]] | None:
    """The call at ``index`` of ``game``'s events (in its running hand) made by ``seat`` instead, and the
    hand after it applied again (``game`` changed in place): plays re-seated as in :func:`rename_in_hand`,
    and an answer or raise the engine now refuses given to the seat that may answer then.  Returns the
    events applied again, or None -- ``game`` as it was -- when the hand does not go in so.

    Why: one microphone cannot tell voices apart.  Unasked, a call both sides or several duels could
    have made goes in for a guessed seat; a six-player pica-pica truco put in the wrong duel, and its
    "no quiero" with it, ended that duel, and its cards went to the seats of another."""
    events = list(game.events)
    if not 0 <= index < len(events) or "seat" not in events[index]:
        return None
    tail = [dict(e) for e in events[index:]]
    return _again(game, tail, {**tail[0], "seat": seat}, first_dealer, answers=True)


def drop_from_hand(game: Any, card: str, first_dealer: int | None = None) -> list[dict[str, Any]] | None:
    """Take the face-up play of ``card`` out of the running hand of ``game`` (changed in place): the
    table rejected a card already in the log (see Fusion.settling).  Returns the events applied again
    after it, or None -- ``game`` as it was -- when ``card`` is no play of the running hand or the rest
    of the hand does not go in without it.  Later plays are re-seated as in :func:`rename_in_hand`."""
    tail = hand_tail(game, card)
    if tail is None or tail[0].get("type") != "play":
        return None
    return _again(game, tail, None, first_dealer)


_ANSWERS = ("accept", "refuse", "raise")


def _answered(game: Any, event: dict[str, Any]) -> dict[str, Any]:
    """``event`` (an answer, or a raise) as it goes in now: as it was when the engine takes it, else
    made by the seat that may answer the open bet (when there is one)."""
    if event in game.legal_events():
        return event
    seat = answering_seat(game)
    return event if seat is None else {**event, "seat": seat}


def _again(game: Any, tail: list[dict[str, Any]], first: dict[str, Any] | None,
           first_dealer: int | None, answers: bool = False) -> list[dict[str, Any]] | None:
    """The running hand undone back to the first event of ``tail`` (:func:`hand_tail`'s), that event
    replaced by ``first`` (None: left out) and the rest applied again (see :func:`rename_in_hand`); with
    ``answers``, each answer or raise as :func:`_answered` has it (the caller before it changed)."""
    for _ in tail:
        game.undo()
    again: list[dict[str, Any]] = []
    try:
        if first is not None:
            game.apply(dict(first))
            again.append(first)
        for event in tail[1:]:
            event = dict(event)
            seat = seat_due(game, event, first_dealer)
            if seat is not None:
                event["seat"] = seat
            if answers and event.get("type") in _ANSWERS and "seat" in event:
                event = _answered(game, event)
            game.apply(dict(event))
            again.append(event)
    except illegal_error():
        for _ in again:
            game.undo()
        for event in tail:
            game.apply(dict(event))
        return None
    return again

"""Trick winners and the hand result from the trick winners.

Kept free of any state so the rules can be tested on their own against the
14-row table in the Mineiro text.
"""

from __future__ import annotations

COVERED = -1  # strength of a face-down card: it never wins


def trick_winner(
    plays: list[tuple[int, str | None, bool]],
    strength: dict[str, int],
    tie_lead: str,
) -> tuple[int | None, int]:
    """Winner team (or None for a tie) and the seat that leads the next trick.

    ``plays`` are ``(seat, card, covered)`` in the order played.  Equal
    highest cards of one team win for that team and the first of them leads;
    equal highest cards of both teams tie the trick, and ``tie_lead`` says who
    leads next: ``leader`` (who led the tied trick), ``first`` or ``last`` of
    the tying cards.
    """
    best = COVERED
    top: list[int] = []
    for seat, card, covered in plays:
        value = COVERED if covered or card is None else strength[card]
        if value > best:
            best, top = value, [seat]
        elif value == best:
            top.append(seat)
    if best == COVERED:  # every card face down: nobody wins
        return None, plays[0][0]
    teams = {seat % 2 for seat in top}
    if len(teams) == 1:
        return top[0] % 2, top[0]
    if tie_lead == "first":
        return None, top[0]
    if tie_lead == "last":
        return None, top[-1]
    return None, plays[0][0]


def hand_result(winners: list[int | None]) -> tuple[bool, int | None]:
    """``(decided, team)`` from the trick winners so far (None = tied trick).

    Implements the table of the Mineiro text (and the same rule in the
    Argentine, 2-point and 28-card texts): two tricks win; after a tie the
    first team to win a trick wins; a tie after a won trick goes to the
    winner of the earlier trick.  A fully tied hand returns ``(True, None)``;
    the caller applies the variant's ``all_tied`` rule.
    """
    n = len(winners)
    if n < 2:
        return False, None
    t1, t2 = winners[0], winners[1]
    if n == 2:
        if t1 is not None and (t2 is None or t2 == t1):
            return True, t1
        if t1 is None and t2 is not None:
            return True, t2
        return False, None
    t3 = winners[2]
    if t3 is None:
        if t1 is not None:
            return True, t1
        return True, t2  # t2 None too: all tied
    return True, t3

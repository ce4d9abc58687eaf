"""A card renamed after the fact (companion.table.amend) is stored as undos and events again, and a
match resumed from the store is the renamed one."""

from __future__ import annotations

from companion.history.recorder import MatchRecorder
from companion.table.engine_view import RecorderTableLog
from companion.table.fusion import Fusion, FusionConfig
from companion.table.observations import Proposal

MATCH = {"type": "match", "variant": "paulista", "players": 4}


def test_a_retaken_card_survives_a_resume(store):
    fusion = Fusion(RecorderTableLog(MatchRecorder.start(store, MATCH)), FusionConfig(), first_dealer=3)
    fusion.submit(Proposal({"type": "hand", "dealer": 3, "vira": "5H"}, 0.0))
    for k, (seat, card) in enumerate([(0, "4C"), (1, "AS"), (2, "7D"), (3, "2H")]):
        fusion.submit(Proposal({"type": "play", "seat": seat, "card": card}, 1.0 + k))
    fusion.tick(6.0)
    fusion.submit(Proposal({"type": "play", "seat": 3, "card": "2H"}, 7.0, retakes=("4H", "3H")))
    fusion.tick(8.0)
    expected = fusion.log.game.events
    assert expected[-2:] == [{"type": "play", "seat": 3, "card": "4H"}, {"type": "play", "seat": 1, "card": "2H"}]
    resumed = MatchRecorder.resume(store)
    assert resumed.game.events == expected

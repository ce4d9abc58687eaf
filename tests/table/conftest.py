"""Fixtures shared by the table command tests."""

from __future__ import annotations

import pytest


@pytest.fixture()
def board_hubs(monkeypatch):  # type: ignore[no-untyped-def]
    """Hubs the commands start a scoreboard for, each served on a free port; stopped afterwards."""
    import companion.board as board

    hubs: list = []
    real_start = board.start_board

    def start(hub, host, port, token):  # type: ignore[no-untyped-def]
        hubs.append(hub)
        return real_start(hub, host, 0, token)

    monkeypatch.setattr(board, "start_board", start)
    yield hubs
    for hub in hubs:
        hub.server.stop()

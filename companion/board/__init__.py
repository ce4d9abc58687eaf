"""The scoreboard the whole table can see: a small web app fed by the live loop.

``BoardHub`` is the only link between the live loop and the pages: snapshots go
in with ``publish``, button presses come out as ``BoardCommand`` objects.
``start_board(hub, host, port, token)`` serves it in a background thread.
"""

from companion.board.hub import BoardCommand, BoardHub
from companion.board.server import start_board

__all__ = ["BoardCommand", "BoardHub", "start_board"]

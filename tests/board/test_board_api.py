"""The board server: token, state, live stream, commands, following a match in the store."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from companion.board.hub import BoardCommand, BoardHub
from companion.board.live import LiveBoard, follow_match
from companion.board.server import is_loopback, start_board
from companion.history.recorder import MatchRecorder
from companion.history.store import HistoryStore

PAULISTA = {"type": "match", "variant": "paulista", "players": 4, "names": ["Ana", "Bia", "Caio", "Duda"]}


def _get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, r.read()


def _post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, json.loads(r.read())


@pytest.fixture
def served():
    hub = BoardHub()
    hub.history_store = HistoryStore("sqlite://")
    url = start_board(hub, "127.0.0.1", 0, token="s3cret")
    base = url.split("?")[0]
    yield hub, base
    hub.server.stop()


def test_token_is_required_everywhere_but_static_files(served):
    hub, base = served
    for path in ("", "api/state", "history", "api/matches"):
        with pytest.raises(urllib.error.HTTPError) as err:
            _get(base + path)
        assert err.value.code == 401
        with pytest.raises(urllib.error.HTTPError):
            _get(base + path + "?token=wrong")
    assert _get(base + "api/state?token=s3cret")[0] == 200
    assert _get(base + "api/state", {"X-Board-Token": "s3cret"})[0] == 200
    assert _get(base + "api/state", {"Authorization": "Bearer s3cret"})[0] == 200
    assert _get(base + "static/board.js")[0] == 200
    assert b"/static/board.js" in _get(base + "?token=s3cret")[1]


def test_a_lan_address_always_gets_a_token():
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.20")
    hub = BoardHub()
    url = start_board(hub, "0.0.0.0", 0)
    try:
        assert "token=" in url and len(url.split("token=")[1]) >= 16
        port = hub.server.port
        with pytest.raises(urllib.error.HTTPError):
            _get(f"http://127.0.0.1:{port}/api/state")
    finally:
        hub.server.stop()


def test_snapshots_stream_and_buttons_become_commands(served):
    hub, base = served
    hub.publish({"state": {"score": [3, 1]}, "names": ["A", "B"]})
    received = []

    def listen():
        req = urllib.request.Request(base + "api/stream?token=s3cret")
        with urllib.request.urlopen(req, timeout=10) as r:
            for raw in r:
                line = raw.decode().strip()
                if line.startswith("data:") and line[5:].strip() not in ("", "{}"):
                    received.append(json.loads(line[5:]))
                    if len(received) == 2:
                        return

    t = threading.Thread(target=listen, daemon=True)
    t.start()
    deadline = time.monotonic() + 10
    while not received and time.monotonic() < deadline:
        time.sleep(0.05)
    hub.publish({"state": {"score": [4, 1]}})
    t.join(10)
    assert [r["state"]["score"] for r in received] == [[3, 1], [4, 1]]

    assert _post(base + "api/command?token=s3cret", {"action": "undo"}) == (202, {"queued": "undo"})
    _post(base + "api/command?token=s3cret", {"action": "confirm", "pending_id": "p7"})
    _post(base + "api/command?token=s3cret", {"action": "event", "event": {"type": "raise", "seat": 1}})
    _post(base + "api/command?token=s3cret", {"action": "event", "text": "play 2 4C"})   # the table's short form
    _post(base + "api/command?token=s3cret", {"action": "choose", "pending_id": "p7", "index": 2})  # 2nd reading
    for bad in ({"action": "explode"}, {"action": "event", "text": "dance 3"}, {"action": "confirm"},
                {"action": "choose", "pending_id": "p7"}, {"action": "choose", "pending_id": "p7", "index": 0}):
        with pytest.raises(urllib.error.HTTPError) as err:
            _post(base + "api/command?token=s3cret", bad)
        assert err.value.code == 400
    cmds = hub.poll_commands()
    assert [c.action for c in cmds] == ["undo", "confirm", "event", "event", "choose"]
    assert (cmds[4].pending_id, cmds[4].index) == ("p7", 2)
    assert cmds[1].pending_id == "p7" and cmds[2].event == {"type": "raise", "seat": 1}
    assert cmds[3].event == {"type": "play", "seat": 2, "card": "4C"}


def test_live_board_records_board_buttons_through_the_recorder():
    store = HistoryStore("sqlite://")
    rec = MatchRecorder.start(store, PAULISTA)
    hub = BoardHub()
    board = LiveBoard(hub, rec)
    board.record({"type": "hand", "dealer": 3, "vira": "4D"}, source="vision")
    board.record({"type": "raise", "seat": 0}, source="voice")
    assert hub.snapshot()["state"]["open_bets"][0]["kind"] == "truco"
    assert board.handle(BoardCommand("undo")) is None
    assert hub.snapshot()["state"]["open_bets"] == []
    assert board.handle(BoardCommand("event", event={"type": "raise", "seat": 3})) is None
    assert "raise" in hub.snapshot()["message"]                  # illegal: shown, not applied
    passed_on = board.handle(BoardCommand("confirm", pending_id="x"))
    assert passed_on is not None and passed_on.pending_id == "x"
    rows = store.events(rec.match_id)
    assert [(r.type, r.source, r.status) for r in rows[3:]] == [("undo", "board", "applied"),
                                                                ("raise", "board", "rejected")]


def test_follow_a_match_written_by_another_process(tmp_path):
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    writer_store, board_store = HistoryStore(url), HistoryStore(url)
    hub = BoardHub()
    stop = threading.Event()
    t = threading.Thread(target=follow_match, args=(board_store, hub), kwargs={"poll": 0.05, "stop": stop},
                         daemon=True)
    t.start()
    try:
        rec = MatchRecorder.start(writer_store, PAULISTA)
        for e in ({"type": "hand", "dealer": 3, "vira": "4D"}, {"type": "raise", "seat": 0},
                  {"type": "refuse", "seat": 1}):
            rec.record(e)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            state = hub.snapshot().get("state") or {}
            if state.get("score") == [1, 0]:
                break
            time.sleep(0.05)
        assert hub.snapshot()["state"]["score"] == [1, 0]
        assert hub.snapshot()["names"] == PAULISTA["names"]
        hub.submit(BoardCommand("undo"))                # the board writes the undo into the match
        deadline = time.monotonic() + 10
        while hub.snapshot()["state"]["score"] != [0, 0] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert hub.snapshot()["state"]["score"] == [0, 0]
        rec.record({"type": "accept", "seat": 1})       # the live recorder merges the board's undo first
        assert rec.game.state.to_dict()["stake"] == 3
    finally:
        stop.set()
        t.join(5)


def test_companion_board_command_serves_the_store(tmp_path):
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    rec = MatchRecorder.start(HistoryStore(url), PAULISTA)
    rec.record({"type": "hand", "dealer": 3, "vira": "4D"})
    # (a child inherits an ignored SIGINT, and a shell ignores it in the commands it starts in the
    # background (`pytest &`): the board would then never hear the Ctrl-C this test sends)
    proc = subprocess.Popen([sys.executable, "-m", "companion", "board", "--db", url, "--port", "0",
                             "--poll", "0.1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = proc.stdout.readline()
        assert line.startswith("scoreboard: http://127.0.0.1:"), proc.stderr.read()
        base = line.split()[1]
        deadline = time.monotonic() + 15
        state = {}
        while time.monotonic() < deadline:
            state = json.loads(_get(base + "api/state")[1]).get("state") or {}
            if state.get("vira") == "4D":
                break
            time.sleep(0.1)
        assert state.get("vira") == "4D"
        matches = json.loads(_get(base + "api/matches")[1])
        assert [m["id"] for m in matches] == [rec.match_id]
        detail = json.loads(_get(base + f"api/matches/{rec.match_id}")[1])
        assert detail["teams"] == ["Ana & Caio", "Bia & Duda"]
        assert _get(base + f"api/matches/{rec.match_id}/chart.svg")[1].lstrip().startswith(b"<?xml")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 0

"""The scoreboard in a real headless Chromium (Debian's, never a downloaded one).

A scripted live loop records a sequence through the recorder and publishes it;
the page must show the engine's score and trick, and its confirm and undo
buttons must go back through the loop and show the result.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from companion.board.hub import BoardHub
from companion.board.live import LiveBoard
from companion.board.server import start_board
from companion.history.recorder import MatchRecorder
from companion.history.store import HistoryStore
from companion.tablelog import score_log

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

PAULISTA = {"type": "match", "variant": "paulista", "players": 4, "names": ["Ana", "Bia", "Caio", "Duda"]}
SCRIPT = [
    {"type": "hand", "dealer": 3, "vira": "4D"},
    {"type": "raise", "seat": 0}, {"type": "refuse", "seat": 1},            # 1 × 0
    {"type": "hand", "dealer": 0, "vira": "4D"},
    {"type": "raise", "seat": 1}, {"type": "accept", "seat": 2},
    {"type": "play", "seat": 1, "card": "4C"}, {"type": "play", "seat": 2, "card": "3H"},
    {"type": "play", "seat": 3, "card": "4S"}, {"type": "play", "seat": 0, "card": "2H"},
    {"type": "play", "seat": 2, "card": "3S"}, {"type": "play", "seat": 3, "card": "KC"},
    {"type": "play", "seat": 0, "card": "JD"}, {"type": "play", "seat": 1, "card": "QH"},  # 4 × 0
    {"type": "hand", "dealer": 1, "vira": "7C"},
    {"type": "play", "seat": 2, "card": "3D"},
]
PENDING = {"id": "p1", "text": "ouvi: truco (Duda)?", "event": {"type": "raise", "seat": 3}}


@pytest.fixture
def live_board(tmp_path):
    """A board served from a live loop thread that owns the recorder, as `companion run` does."""
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite'}")
    rec = MatchRecorder.start(store, PAULISTA)
    hub = BoardHub()
    hub.history_store = store
    board = LiveBoard(hub, rec)
    for event in SCRIPT:
        board.record(event, source="vision")
    board.pending = [PENDING]
    hub.hear("truco")
    board.publish()
    stop = threading.Event()

    def loop():
        while not stop.is_set():
            cmd = hub.get_command(timeout=0.05)
            if cmd is None:
                continue
            left = board.handle(cmd)            # undo / typed events go through the recorder
            if left is not None:                # confirm / reject are the loop's business
                asked = next(p for p in board.pending if p["id"] == left.pending_id)
                board.pending.remove(asked)
                if left.action == "confirm":
                    board.record(asked["event"], source="voice")
                else:
                    board.publish()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    url = start_board(hub, "127.0.0.1", 0, token="tok")
    yield url, rec, store
    stop.set()
    thread.join(5)
    hub.server.stop()


def _browser():
    if CHROMIUM is None:
        pytest.skip("Debian chromium is not installed (apt-get install chromium chromium-driver)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (python) is not installed")
    return sync_api


def _shots_dir(tmp_path: Path) -> Path:
    out = os.environ.get("COMPANION_SCREENSHOTS")
    path = Path(out) if out else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_board_shows_the_score_and_its_buttons_work(live_board, tmp_path):
    sync_api = _browser()
    url, rec, store = live_board
    shots = _shots_dir(tmp_path)
    with sync_api.sync_playwright() as p:
        # A fresh profile directory: nothing from an earlier run, no network of its own.
        browser = p.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path=CHROMIUM,
                                                       headless=True, args=FLAGS)
        try:
            page = browser.new_page()
            page.set_viewport_size({"width": 390, "height": 844})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            page.wait_for_function("document.body.dataset.version !== undefined")
            state = rec.game.state.to_dict()
            assert state["score"] == [4, 0]
            assert page.inner_text("[data-testid=score0]") == "4"
            assert page.inner_text("[data-testid=score1]") == "0"
            assert page.inner_text("#name0") == "Ana & Caio"
            assert page.locator("[data-testid=trick] .card").count() == 1
            assert page.get_attribute("[data-testid=trick] .card", "data-card") == "3D"
            assert "truco" in page.inner_text("#heard")
            page.screenshot(path=str(shots / "board-phone.png"), full_page=True)
            metrics = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert metrics[0] <= metrics[1], "the phone layout scrolls sideways"

            page.click("[data-pending=p1] .confirm")                       # Duda's truco confirmed
            page.wait_for_function("document.querySelector('#open-bets').textContent.includes('truco')")
            assert rec.game.state.to_dict()["open_bets"][0]["seat"] == 3
            assert page.locator("[data-pending]").count() == 0

            page.click("[data-testid=undo]")                               # undo the truco
            page.wait_for_function("document.querySelector('#open-bets').textContent === ''")
            page.click("[data-testid=undo]")                               # undo the 3D
            page.wait_for_function("document.querySelectorAll('[data-testid=trick] .card').length === 0")
            assert rec.game.state.to_dict()["trick"] == []
            page.click("[data-testid=undo]")                               # undo the deal of hand 3
            page.click("[data-testid=undo]")                               # undo QH: hand 2 not over
            page.wait_for_function("document.querySelector('[data-testid=score0]').textContent === '1'")
            assert rec.game.state.to_dict()["score"] == [1, 0]
            assert page.locator("[data-testid=trick] .card").count() == 3
            assert [r.type for r in store.events(rec.match_id)][-4:] == ["undo"] * 4
            page.fill("#typed-event", "play 1 QH")                         # typed on the phone
            page.press("#typed-event", "Enter")
            page.wait_for_function("document.querySelector('[data-testid=score0]').textContent === '4'")
            assert store.events(rec.match_id)[-1].source == "board"
            page.fill("#typed-event", "play 0 7H")                         # the hand is over: illegal
            page.press("#typed-event", "Enter")
            page.wait_for_function("document.getElementById('message').textContent.includes('no hand in progress')")
            assert store.events(rec.match_id)[-1].status == "rejected"
            assert rec.game.state.to_dict()["score"] == [4, 0]
            assert errors == []

            tv = browser.new_page()
            tv.set_viewport_size({"width": 1920, "height": 1080})
            tv.goto(url + "&mode=fosforos")
            tv.wait_for_function("document.body.dataset.version !== undefined")
            lit = tv.evaluate("""[...document.querySelectorAll('#sticks0 line')]
                .filter(l => l.getAttribute('stroke') === '#e9d6a6').length""")
            assert lit == 4                                                # 4 tentos = 4 matchsticks
            tv.screenshot(path=str(shots / "board-tv.png"))
            hist = browser.new_page()
            hist.set_viewport_size({"width": 1280, "height": 900})
            hist.goto(url.replace("/?", "/history?"))
            hist.wait_for_selector("#matches tbody tr")
            assert "Ana & Caio" in hist.inner_text("#matches")
            hist.wait_for_function("document.getElementById('stats-chart').complete")
            hist.screenshot(path=str(shots / "board-history.png"), full_page=True)
            hist.click("#matches tbody a")                                 # the match page
            hist.wait_for_selector("#hands tbody tr")
            hist.wait_for_function("document.getElementById('chart').naturalWidth > 0")
            scored = score_log([e.payload for e in store.events(rec.match_id)])
            assert hist.locator("#hands tbody tr").count() == len(scored["hands"]) >= 1
            hist.screenshot(path=str(shots / "board-match.png"), full_page=True)
        finally:
            browser.close()

"""A real SIGKILL in the middle of a match loses no applied event, and resume continues.

The feeder (``python -m companion.history.feed``) prints ``applied SEQ`` only
after the recorder returned, i.e. after the event was committed and applied.
We kill it with SIGKILL (no cleanup, no atexit, no flush of anything), then
check that every event it reported is in the store, and resume.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from companion.history.models import APPLIED, FINISHED, LIVE, PENDING
from companion.history.models import dump_event
from companion.history.store import HistoryStore
from companion.tablelog import score_log


def _feeder(log_path, db_url, *extra):
    return subprocess.Popen(
        [sys.executable, "-m", "companion.history.feed", str(log_path), "--db", db_url, *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)


def test_sigkill_mid_replay_loses_nothing_and_resume_finishes(tmp_path, sim_log):
    log = sim_log("argentino", 21, min_events=120, names=["Ana", "Bia", "Caio", "Duda"])
    log_path = tmp_path / "match.jsonl"
    log_path.write_text("".join(json.dumps(e) + "\n" for e in log), encoding="utf-8")
    db_url = f"sqlite:///{tmp_path / 'history.sqlite'}"

    proc = _feeder(log_path, db_url, "--delay", "0.01")
    reported: list[int] = []
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line, f"feeder ended early: {proc.stderr.read()}"
            if line.startswith("applied "):
                reported.append(int(line.split()[1]))
                if len(reported) >= 40:
                    break
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    reported += [int(x.split()[1]) for x in proc.stdout.read().splitlines() if x.startswith("applied ")]
    proc.stdout.close()
    proc.stderr.close()
    last_reported = max(reported)
    assert last_reported < len(log) - 1, "the kill came too late to test anything"

    store = HistoryStore(db_url)
    match = store.latest_live_match()
    assert match is not None and match.status == LIVE
    rows = store.events(match.id)
    by_seq = {r.seq: r for r in rows}
    for seq in range(last_reported + 1):        # every event treated as applied is there, applied
        assert by_seq[seq].payload == dump_event(log[seq])
        assert by_seq[seq].status == APPLIED
    # At most the event in flight at the kill is beyond, committed but maybe not yet applied.
    assert len(rows) - 1 - last_reported in (0, 1)
    assert all(r.status in (APPLIED, PENDING) for r in rows)
    store.close()

    done = subprocess.run([sys.executable, "-m", "companion.history.feed", str(log_path), "--db", db_url,
                           "--resume"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith(f"resumed match {match.id} at seq {len(rows) - 1}")

    store = HistoryStore(db_url)
    final = store.get_match(match.id)
    assert [e.payload for e in final.events] == [dump_event(e) for e in log]
    assert {e.status for e in final.events} == {APPLIED}
    expected = score_log([json.dumps(e) for e in log])
    assert [final.score0, final.score1] == expected["score"]
    assert final.winner_team == expected["winner"] and final.status == FINISHED
    assert len(store.list_matches()) == 1

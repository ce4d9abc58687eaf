"""The club setup: the history on a real PostgreSQL server started for the test.

Needs Debian's ``postgresql`` package (initdb, pg_ctl); skips otherwise.  As
root the server runs as the ``postgres`` user, as PostgreSQL refuses root.
"""

from __future__ import annotations

import glob
import io
import json
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from companion.history.exchange import export_jsonl, import_text
from companion.history.recorder import MatchRecorder
from companion.history.store import HistoryStore
from companion.tablelog import score_log


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres_url():
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("PostgreSQL server binaries not found (Debian: apt-get install postgresql)")
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'psycopg[binary]')")
    prefix: list[str] = []
    base = Path(tempfile.mkdtemp(prefix="companion-pg-"))
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            runuser = None
        if not runuser:
            shutil.rmtree(base)
            pytest.skip("running as root without a `postgres` user to run the server")
        shutil.chown(base, "postgres")
        prefix = [runuser, "-u", "postgres", "--"]
    data, port = base / "data", _free_port()
    try:
        subprocess.run(prefix + [initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
                                 "--no-sync"], check=True, capture_output=True, timeout=120)
        subprocess.run(prefix + [pg_ctl, "-D", str(data), "-w", "-t", "60", "-l", str(base / "log"), "-o",
                                 f"-p {port} -k {base} -c listen_addresses=127.0.0.1", "start"],
                       check=True, capture_output=True, timeout=120)
    except subprocess.CalledProcessError as err:
        shutil.rmtree(base, ignore_errors=True)
        pytest.fail(f"could not start PostgreSQL: {err.stderr.decode(errors='replace')}")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(prefix + [pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True,
                       timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def test_record_resume_export_on_postgresql(postgres_url, sim_log, names, tmp_path):
    store = HistoryStore(postgres_url)
    assert store.url.startswith("postgresql+psycopg://")
    log = sim_log("argentino", 7, min_events=40, names=names)
    rec = MatchRecorder.start(store, log[0], venue="Clube")
    for event in log[1:20]:
        rec.record(event, source="vision")
    second_table = HistoryStore(postgres_url)      # another table of the club, same server
    resumed = MatchRecorder.resume(second_table)
    assert resumed.match_id == rec.match_id
    assert resumed.game.state.to_dict() == rec.game.state.to_dict()
    for event in log[20:]:
        resumed.record(event, source="voice")
    match = store.get_match(rec.match_id)
    assert [match.score0, match.score1] == score_log([json.dumps(e) for e in log])["score"]
    assert match.status == "finished" and match.started_at.tzinfo is not None

    out = io.StringIO()
    export_jsonl(match, out)
    local = HistoryStore(f"sqlite:///{tmp_path / 'local.sqlite'}")
    [copy_id] = import_text(local, out.getvalue())
    again = io.StringIO()
    export_jsonl(local.get_match(copy_id), again)
    assert again.getvalue() == out.getvalue()
    store.close()
    second_table.close()

"""``companion score`` and the table-log reader: exact JSON, errors per line, undo."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from engine_helpers import ev, new, run

from companion.cli import main
from companion.engine import IllegalEvent
from companion.paths import DATA_DIR
from companion.tablelog import TableLogError, parse_event, score_log


def lines(*events) -> list[str]:
    out = [json.dumps({"type": "match", "variant": "paulista", "players": 4})]
    for e in events:
        try:
            out.append(json.dumps(ev(e)))
        except (ValueError, IndexError):
            out.append(e)  # a raw (possibly broken) line
    return out


def test_score_json_matches_the_contract():
    result = score_log(lines("hand 3 QD", "p0 5C", "p1 AH", "p2 3S", "p3 KD", "p2 KC", "p3 6C", "p0 6H", "p1 6S"))
    assert result["variant"] == "paulista" and result["score"] == [1, 0] and result["winner"] is None
    assert result["errors"] == []
    hand = result["hands"][0]
    assert {k: hand[k] for k in ("dealer", "winner", "points", "stake", "end")} == {
        "dealer": 3, "winner": 0, "points": [1, 0], "stake": 1, "end": "tricks"}
    assert hand["tricks"][0]["winner"] == 0
    assert hand["tricks"][0]["cards"] == [[0, "5C"], [1, "AH"], [2, "3S"], [3, "KD"]]
    json.dumps(result)  # serialisable


def test_bad_lines_are_reported_and_the_rest_applies():
    result = score_log(lines("hand 3 QD", "not json", "p0 5C", '{"type": "play", "seat": 9, "card": "2C"}',
                             '{"type": "teleport"}', "p1 5C", '[1, 2]', "", "p1 AH", "x0"))
    assert [e["line"] for e in result["errors"]] == [3, 5, 6, 7, 8, 11]
    assert all(isinstance(e["message"], str) and e["message"] for e in result["errors"])
    assert result["hands"] == [] and result["in_progress"]


def test_undo_retracts_the_previous_applied_event():
    # undo skips rejected lines: it retracts the last event that was applied
    result = score_log(lines("hand 3 QD", "r0", "x1", '{"type": "undo"}', "a1", "p0 5C", "p0 6C",
                             '{"type": "undo"}', '{"type": "undo"}', "x1"))
    assert [e["line"] for e in result["errors"]] == [8]
    assert len(result["hands"]) == 1 and result["score"] == [1, 0]
    game = new()
    run(game, "hand 3 QD", "p0 6C", "undo")
    assert game.state.trick == []
    with pytest.raises(IllegalEvent):
        new().apply({"type": "undo"})


def test_notes_are_ignored_and_match_must_come_first():
    result = score_log(['{"type": "note", "text": "hi"}', json.dumps({"type": "match", "variant": "mineiro",
                                                                         "players": 2}),
                        '{"type": "note", "text": "x"}', '{"type": "hand", "dealer": 1}',
                        json.dumps({"type": "match", "variant": "mineiro", "players": 2})])
    assert [e["line"] for e in result["errors"]] == [1, 5]
    assert result["variant"] == "mineiro"


def test_variant_override_and_bad_match():
    result = score_log(lines("hand 3"), variant="mineiro")
    assert result["variant"] == "mineiro" and result["errors"] == []
    result = score_log(['{"type": "match", "variant": "bogus", "players": 4}', '{"type": "hand", "dealer": 0}'])
    assert result["errors"][0]["line"] == 1 and "bogus" in result["errors"][0]["message"]
    result = score_log(['{"type": "match", "variant": "paulista", "players": 5}'])
    assert result["errors"][0]["line"] == 1


def test_parse_event_checks_shapes():
    assert parse_event('{"type": "fold", "seat": 1}', 3) == {"type": "fold", "seat": 1}
    for bad in ('{"type": "fold"}', '{"type": "fold", "seat": "1"}', '{"type": "fold", "seat": true}',
                '{"type": "play", "seat": 1}', '"play"', "{", '{"type": "hand", "dealer": 0, "vira": 4}'):
        with pytest.raises(TableLogError) as info:
            parse_event(bad, 7)
        assert str(info.value).startswith("line 7:")


def test_cli_exit_status_and_json(tmp_path, capsys):
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(lines("hand 3 QD", "r0", "x1")) + "\n")
    assert main(["score", str(good), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"] == [1, 0] and out["hands"][0]["end"] == "refused"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines("hand 3 QD", "{oops", "r0", "x1")) + "\n")
    assert main(["score", str(bad), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["errors"][0]["line"] == 3 and out["score"] == [1, 0]
    assert main(["score", str(bad)]) == 1  # rich summary
    assert "rejected" in capsys.readouterr().out
    assert main(["score", str(tmp_path / "missing.jsonl"), "--json"]) == 1


def test_cli_never_shows_a_traceback(tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b'\xff\xfe{"type":\n[[[[[[[[[[\n' + b"[" * 100000 + b"\n{}\n" + b'{"type":"hand","dealer":1e999}\n')
    proc = subprocess.run([sys.executable, "-m", "companion", "score", str(junk), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert json.loads(proc.stdout)["errors"]


@pytest.mark.parametrize("name", ["paulista-example.jsonl", "argentino-example.jsonl"])
def test_bundled_example_logs_are_valid(name):
    path = DATA_DIR / "logs" / name
    result = score_log(path.read_text(encoding="utf-8").splitlines())
    assert result["errors"] == []
    assert result["winner"] is not None and len(result["hands"]) >= 5


def test_variants_command(capsys):
    assert main(["variants", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"paulista", "mineiro", "mineiro-2pt", "clean-28", "argentino"}
    assert data["mineiro"]["truco_on"] == "trick" and data["argentino"]["ladder"] == [2, 3, 4]
    assert main(["variants"]) == 0
    assert "tie_lead" in capsys.readouterr().out

"""Model download (against a local server), cache, overrides and messages."""

from __future__ import annotations

import hashlib
import http.server
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.speech import models
from companion.speech.models import ModelError, ModelSpec, download_model, resolve_model, tuned_model_dir


def _fake_model(root: Path, name: str) -> Path:
    model = root / name
    (model / "am").mkdir(parents=True)
    (model / "am" / "final.mdl").write_bytes(b"not a real model")
    (model / "conf").mkdir()
    (model / "conf" / "model.conf").write_text(
        "--min-active=200\n--endpoint.rule2.min-trailing-silence=0.5\n--endpoint.rule3.min-trailing-silence=1.0\n"
    )
    (model / "conf" / "mfcc.conf").write_text("--num-ceps=40\n")
    (model / "graph").mkdir()
    (model / "graph" / "HCLr.fst").write_bytes(b"graph")
    return model


def _zip(model: Path, archive: Path) -> Path:
    with zipfile.ZipFile(archive, "w") as zf:
        for path in model.rglob("*"):
            zf.write(path, path.relative_to(model.parent))
    return archive


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A small model zip served over HTTP on 127.0.0.1."""
    site = tmp_path / "site"
    site.mkdir()
    archive = _zip(_fake_model(tmp_path / "src", "vosk-model-small-xx-0.1"), site / "vosk-model-small-xx-0.1.zip")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(site), **kwargs)

        def log_message(self, *args):  # keep test output clean
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/{archive.name}", archive
    finally:
        server.shutdown()
        server.server_close()


def _spec(url: str, archive: Path, **overrides) -> ModelSpec:
    data = archive.read_bytes()
    fields = dict(lang="xx", name="vosk-model-small-xx-0.1", url=url, size=len(data),
                  md5=hashlib.md5(data).hexdigest(), sha256=hashlib.sha256(data).hexdigest())
    fields.update(overrides)
    return ModelSpec(**fields)


def test_download_verifies_and_installs(served, tmp_path: Path) -> None:
    url, archive = served
    path = download_model(_spec(url, archive), tmp_path / "cache", progress=False)
    assert (path / "am" / "final.mdl").read_bytes() == b"not a real model"
    manifest = models.verify_cached(path)
    assert manifest["sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest()
    # A second call finds it in the cache and does not download again.
    assert download_model(_spec("http://127.0.0.1:9/none.zip", archive), tmp_path / "cache", progress=False) == path


@pytest.mark.parametrize("field", ["sha256", "md5", "size"])
def test_download_rejects_a_checksum_mismatch(served, tmp_path: Path, field: str) -> None:
    url, archive = served
    bad = {"sha256": "0" * 64, "md5": "0" * 32, "size": 12}[field]
    with pytest.raises(ModelError, match="not installed"):
        download_model(_spec(url, archive, **{field: bad}), tmp_path / "cache", progress=False)
    assert not (tmp_path / "cache" / "vosk-model-small-xx-0.1").exists()


def test_download_from_a_file_url(served, tmp_path: Path) -> None:
    _, archive = served
    path = download_model(_spec(archive.as_uri(), archive), tmp_path / "cache", progress=False)
    assert models.is_model_dir(path)


def test_offline_message_says_what_to_do(tmp_path: Path) -> None:
    spec = ModelSpec("xx", "vosk-model-small-xx-0.1", "http://127.0.0.1:9/vosk-model-small-xx-0.1.zip")
    with pytest.raises(ModelError) as info:
        download_model(spec, tmp_path / "cache", progress=False, timeout=2)
    message = str(info.value)
    assert "--model PATH" in message and models.ENV_MODEL in message


def test_missing_model_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(models.ENV_MODEL, raising=False)
    with pytest.raises(ModelError) as info:
        resolve_model("pt")
    assert "companion models download --lang pt" in str(info.value)


def test_resolution_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    cached = _fake_model(tmp_path / "home" / "models", "vosk-model-small-es-0.42")
    monkeypatch.delenv(models.ENV_MODEL, raising=False)
    assert resolve_model("es") == cached
    by_env = _fake_model(tmp_path / "env", "vosk-model-small-es-0.42")
    monkeypatch.setenv(models.ENV_MODEL, str(tmp_path / "env"))  # a folder holding models by name
    assert resolve_model("es") == by_env
    explicit = _fake_model(tmp_path / "x", "mine")
    assert resolve_model("es", explicit) == explicit
    with pytest.raises(ModelError, match="not a vosk model"):
        resolve_model("es", tmp_path / "nothing")


def test_tuned_overlay_changes_only_the_endpoint(tmp_path: Path) -> None:
    model = _fake_model(tmp_path, "m")
    out = tuned_model_dir(model, {"endpoint.rule2.min-trailing-silence": 0.2}, root=tmp_path / "tuned")
    conf = (out / "conf" / "model.conf").read_text()
    assert "--endpoint.rule2.min-trailing-silence=0.2" in conf and "--min-active=200" in conf
    assert (out / "am" / "final.mdl").read_bytes() == b"not a real model"
    assert (model / "conf" / "model.conf").read_text().count("0.5") == 1  # the model is untouched
    assert tuned_model_dir(model, {"endpoint.rule2.min-trailing-silence": 0.2}, root=tmp_path / "tuned") == out


def test_cli_download_with_url(served, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from companion.cli import main

    url, archive = served
    sha = hashlib.sha256(archive.read_bytes()).hexdigest()
    rc = main(["models", "download", "--lang", "pt", "--url", url, "--sha256", sha,
               "--dest", str(tmp_path / "cache"), "--quiet"])
    assert rc == 0
    assert "installed" in capsys.readouterr().out
    rc = main(["models", "download", "--lang", "pt", "--url", url, "--sha256", "1" * 64,
               "--dest", str(tmp_path / "other"), "--quiet"])
    assert rc == 1
    assert "sha256" in capsys.readouterr().err

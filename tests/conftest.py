"""Shared test fixtures."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType
from typing import Callable

import pytest

from companion.paths import models_dir, shared_dir


@pytest.fixture(scope="session")
def shared() -> Path:
    """The read-only ``shared/`` folder; tests that need it skip without it."""
    path = shared_dir()
    if path is None:
        pytest.skip("../shared/ is not present (only development machines have it)")
    return path


def _load_bench(name: str) -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def bench_script() -> Callable[[str], ModuleType]:
    """Loads a script of ``bench/`` by name as a module, for its tests (bench is no package: drivers run as files)."""
    return _load_bench


@pytest.fixture()
def models_copy(tmp_path: Path) -> Path:
    """A models folder of the test's own: a copy of every shipped ONNX file and fitted JSON file (the photo
    rescorers), to take a file out of, break or replace (``CardDetector(models_dir=...)`` or ``COMPANION_MODELS``).
    Copies, not links: a test that writes over a linked file (``shutil.copy`` follows links) would overwrite the
    shipped model itself."""
    folder = tmp_path / "models"
    folder.mkdir()
    for path in [*models_dir().glob("*.onnx"), *models_dir().glob("*.json")]:
        shutil.copy(path, folder / path.name)
    return folder


@pytest.fixture()
def corner_models(models_copy: Path) -> Path:
    """:func:`models_copy`, for tests of the French index-corner model: they skip, with the reason, where it is
    not shipped."""
    from companion.vision.detector import corner_file

    if not (models_copy / corner_file("french")).is_file():
        pytest.skip("no French corner model shipped in models/")
    return models_copy

"""Fixtures of the history tests: table logs made by the engine's own simulator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.history.store import HistoryStore

NAMES = ["Ana", "Bia", "Caio", "Duda"]


def simulated_log(variant: str, seed: int, *, min_events: int = 0, names: list[str] | None = None) -> list[dict]:
    """A complete legal log from the engine's simulator (the first seed from ``seed`` long enough)."""
    from companion.engine.simulate import random_log

    for s in range(seed, seed + 200):
        log = random_log(variant, 4, s)
        if len(log) >= min_events:
            if names:
                log[0] = dict(log[0], names=names)
            return log
    raise AssertionError("the simulator gave no log that long")


def write_log(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path: Path) -> HistoryStore:
    s = HistoryStore(f"sqlite:///{tmp_path / 'history.sqlite'}")
    yield s
    s.close()


@pytest.fixture
def sim_log():
    """``simulated_log`` as a fixture (test modules here are not a package)."""
    return simulated_log


@pytest.fixture
def names() -> list[str]:
    return list(NAMES)

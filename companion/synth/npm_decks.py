"""French decks published on the npm registry: more designs to train the index corners on.

Why: the corner classifier names unseen designs' cards in full view about 83 % right and is limited by having
seen only the Debian decks' index faces (37 training designs).  Three more index styles are one
``npm pack`` away, each a folder of one SVG file per card:

- Adrian Kennard's cards (https://www.me.uk/cards/, CC0), as packed in ``react-free-playing-cards``: two- and
  four-colour suits, normal and big index letters (four designs);
- the "responsive playing cards" after Chris Aguilar's vectorized deck (LGPL-3.0), as packed in
  ``@younestouati/playing-cards-standard-deck``.

They are training designs only (the held-back validation designs stay the Debian five), and they are taken only
when a build asks for them (``companion dataset build --designs npm|all``), so that the default design list, and
with it every recipe's renders, stays as it was.  The packages are fetched once with ``npm pack`` into the art
cache (``$COMPANION_CACHE/npm-decks``); the art is never copied into the repository or a model.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.synth.art import FRENCH_CARDS, ArtError, Design, cache_dir

_NUMBER = {"A": "1", "J": "11", "Q": "12", "K": "13"}


def _kennard_file(card: str) -> str:
    """``QH`` -> ``QH.svg``, ``10D`` -> ``TD.svg``, ``back`` -> ``../back.svg`` (one back for the four designs)."""
    if card == "back":
        return "../back.svg"
    rank, suit = card[:-1], card[-1]
    return f"{'T' if rank == '10' else rank}{suit}.svg"


def _responsive_file(card: str) -> str:
    """``QH`` -> ``12h.svg``, ``AS`` -> ``1s.svg``, ``back`` -> ``back.svg``."""
    if card == "back":
        return "back.svg"
    rank, suit = card[:-1], card[-1]
    return f"{_NUMBER.get(rank, rank)}{suit.lower()}.svg"


@dataclass(frozen=True)
class NpmDeck:
    """One design inside an npm package: where its cards are and how its files are named."""

    name: str
    package: str  # name@version, pinned so that a recipe renders the same cards
    folder: str  # inside the unpacked package
    naming: str  # key of NAMINGS
    licence: str


NAMINGS: dict[str, Callable[[str], str]] = {"kennard": _kennard_file, "responsive": _responsive_file}

_KENNARD = "react-free-playing-cards@0.4.2"
_KENNARD_LICENCE = "CC0-1.0 (Adrian Kennard, https://www.me.uk/cards/), packed by react-free-playing-cards (MIT)"
NPM_DECKS: tuple[NpmDeck, ...] = (
    NpmDeck("npm-kennard-2color", _KENNARD, "package/src/images/2color", "kennard", _KENNARD_LICENCE),
    NpmDeck("npm-kennard-2color-big", _KENNARD, "package/src/images/2color-bf", "kennard", _KENNARD_LICENCE),
    NpmDeck("npm-kennard-4color", _KENNARD, "package/src/images/4color", "kennard", _KENNARD_LICENCE),
    NpmDeck("npm-kennard-4color-big", _KENNARD, "package/src/images/4color-bf", "kennard", _KENNARD_LICENCE),
    NpmDeck("npm-responsive", "@younestouati/playing-cards-standard-deck@3.0.0", "package/cards", "responsive",
            "LGPL-3.0 (after Chris Aguilar's Vectorized Playing Cards)"),
)


def npm_dir() -> Path:
    """Where fetched packages are unpacked, one folder per package."""
    return cache_dir() / "npm-decks"


def _package_dir(package: str, root: Path | None = None) -> Path:
    """``@scope/name@1.0`` -> ``scope__name-1.0``."""
    return (root or npm_dir()) / package.lstrip("@").replace("/", "__").replace("@", "-")


def card_file(design: Design, card: str) -> Path:
    """The SVG file of ``card`` (or "back") in an npm design's folder."""
    return design.source / NAMINGS[design.kind.removeprefix("npm-")](card)


def npm_designs(root: Path | None = None) -> list[Design]:
    """The npm designs whose package is unpacked under ``root`` (default :func:`npm_dir`) and holds every card."""
    designs = []
    for deck in NPM_DECKS:
        folder = _package_dir(deck.package, root) / deck.folder
        design = Design(deck.name, "french", f"npm-{deck.naming}", folder, FRENCH_CARDS, deck.licence)
        if folder.is_dir() and all(card_file(design, c).is_file() for c in FRENCH_CARDS):
            designs.append(design)
    return designs


def fetch_npm_decks(root: Path | None = None, npm: str | None = None) -> list[Design]:
    """Fetch (once) and unpack the packages of :data:`NPM_DECKS`; returns the designs then present.

    Raises ArtError with what to do when npm is missing or the registry cannot be reached: the build
    then stops before rendering anything, rather than training on fewer designs than asked for."""
    root = root or npm_dir()
    exe = npm or shutil.which("npm")
    for package in dict.fromkeys(d.package for d in NPM_DECKS):
        target = _package_dir(package, root)
        if target.is_dir():
            continue
        if exe is None:
            raise ArtError("npm not found: install Node.js's npm (Debian: apt-get install npm) to fetch the npm "
                           "decks, or build without --designs npm")
        with tempfile.TemporaryDirectory() as tmp:
            try:
                proc = subprocess.run([exe, "pack", package, "--silent", "--pack-destination", tmp],
                                      capture_output=True, text=True, timeout=300)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise ArtError(f"npm pack {package} failed: {exc}") from exc
            tarballs = sorted(Path(tmp).glob("*.tgz"))
            if proc.returncode != 0 or not tarballs:
                raise ArtError(f"npm pack {package} failed (is the npm registry reachable?): "
                               f"{(proc.stderr or proc.stdout).strip()[-300:]}")
            unpacked = Path(tmp) / "unpacked"
            with tarfile.open(tarballs[0]) as tar:
                tar.extractall(unpacked, filter="data")  # refuses links and paths leaving the folder
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(unpacked), target)
    designs = npm_designs(root)
    missing = sorted({d.name for d in NPM_DECKS} - {d.name for d in designs})
    if missing:
        raise ArtError(f"npm decks incomplete under {root}: {', '.join(missing)} (delete the folder to fetch again)")
    return designs

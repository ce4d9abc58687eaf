"""Card artwork: find deck designs, rasterise them once, hand out RGBA arrays.

French-suited designs come from the Debian packages gnome-cards-data
(/usr/share/aisleriot/cards/*.svgz) and kdegames-card-data-kf5
(/usr/share/carddecks/svg-*/); single cards are cut out of the SVG by element
id with ``rsvg-convert -i ID`` (librsvg2-bin).  Spanish-suited designs are read
from ``shared/art`` (see its README for licences).  Rasterised cards are cached
under ``$COMPANION_CACHE`` (default ``~/.cache/companion``) because rendering a
deck takes seconds and every dataset build needs it again.

The train/holdout split is *by design*: validation scenes only use designs
the models never saw, which is the closest synthetic stand-in for "a deck
bought in another shop".
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.paths import shared_dir

FRENCH_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FRENCH_SUITS = ("C", "H", "S", "D")
SPANISH_RANKS = tuple(str(r) for r in range(1, 13))
SPANISH_SUITS = ("O", "C", "E", "B")

FRENCH_CARDS: tuple[str, ...] = tuple(r + s for s in FRENCH_SUITS for r in FRENCH_RANKS)
SPANISH_CARDS: tuple[str, ...] = tuple(r + s for s in SPANISH_SUITS for r in SPANISH_RANKS)

FAMILIES = ("french", "spanish")

# Height in pixels of the cached raster of every card (width follows the design's aspect).
ART_HEIGHT = 360
# SVG cards are rendered this much taller than ART_HEIGHT, then shrunk to it (area-averaged: smoother edges).
RENDER_OVERSIZE = 1.15

_SVG_SUIT = {"C": "club", "H": "heart", "S": "spade", "D": "diamond"}
_SVG_RANK = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}

AISLERIOT_DIR = Path("/usr/share/aisleriot/cards")
KDE_DIR = Path("/usr/share/carddecks")

# Designs that are not French-suited or not usable as such: German and Swiss suits,
# "future" (computer-chip shaped cards without standard indices).  kde-konqi-modern and
# kde-xskat-french do not render with rsvg-convert and are skipped when preparing.
_EXCLUDED = {"kde-xskat-german", "aisleriot-swiss-xvii", "kde-future"}

# Held-back French designs: never used for training, only for validation and fixtures.
# Chosen to span styles (classic, modern, ornamental, dark) so the holdout says
# something about an unseen deck rather than about one odd design.
FRENCH_HOLDOUT = (
    "aisleriot-dondorf",
    "aisleriot-neoclassical_4_color",
    "aisleriot-ornamental",
    "aisleriot-tango_nuevo",
    "kde-oxygen-white",
)


def cache_dir() -> Path:
    """Where rasterised art is kept between runs (outside the repository)."""
    env = os.environ.get("COMPANION_CACHE")
    base = Path(env) if env else Path.home() / ".cache" / "companion"
    return base


class ArtError(RuntimeError):
    """Card art is missing or cannot be rendered."""


@dataclass(frozen=True)
class Design:
    """One deck design of a family.

    ``source`` is an SVG file (French) or a folder of images (Spanish);
    ``kind`` says how to read it.
    """

    name: str
    family: str
    kind: str  # "aisleriot", "kde", "naipes-libres", "fournier", "npm-kennard", "npm-responsive"
    source: Path
    cards: tuple[str, ...] = field(default=())
    licence: str = ""

    def has(self, card: str) -> bool:
        return card in self.cards


def _french_designs() -> list[Design]:
    designs: list[Design] = []
    if AISLERIOT_DIR.is_dir():
        for svg in sorted(AISLERIOT_DIR.glob("*.svgz")):
            designs.append(Design(f"aisleriot-{svg.stem}", "french", "aisleriot", svg,
                                  FRENCH_CARDS, "gnome-cards-data (GPL-3+/LGPL, see /usr/share/doc/gnome-cards-data/copyright)"))
    if KDE_DIR.is_dir():
        for folder in sorted(KDE_DIR.glob("svg-*")):
            svgs = sorted(folder.glob("*.svgz"))
            if not svgs:
                continue
            name = f"kde-{folder.name[4:]}"
            designs.append(Design(name, "french", "kde", svgs[0], FRENCH_CARDS,
                                  "kdegames-card-data-kf5 (GPL/LGPL, see /usr/share/doc/kdegames-card-data-kf5/copyright)"))
    return [d for d in designs if d.name not in _EXCLUDED and d.name.isascii()]


_FOURNIER_SUITS = {"O": "Gold", "C": "Cups", "E": "Swords", "B": "Bastos"}
_NAIPES_SUITS = {"O": "oros", "C": "copas", "E": "espadas", "B": "bastos"}


def _spanish_designs() -> list[Design]:
    shared = shared_dir()
    if shared is None:
        return []
    designs: list[Design] = []
    naipes = shared / "art" / "spanish-naipes-libres"
    if naipes.is_dir():
        cards = tuple(c for c in SPANISH_CARDS if _naipes_file(naipes, c) is not None)
        designs.append(Design("naipes-libres", "spanish", "naipes-libres", naipes, cards,
                              "CC BY-SA 3.0, Basquetteur and Germarquezm (Wikimedia Commons)"))
    fournier = shared / "art" / "spanish-fournier-pattern"
    if fournier.is_dir():
        cards = tuple(c for c in SPANISH_CARDS if _fournier_file(fournier, c) is not None)
        designs.append(Design("fournier", "spanish", "fournier", fournier, cards,
                              "MIT per AlbertoCruzLuis/Spanish-Deck-Images; train only, not redistributed"))
    return designs


def _naipes_file(folder: Path, card: str) -> Path | None:
    rank, suit = card[:-1], card[-1]
    for name in (f"{int(rank):02d}-{_NAIPES_SUITS[suit]}.png", f"{rank}-{_NAIPES_SUITS[suit]}.png"):
        if (folder / name).is_file():
            return folder / name
    return None


def _fournier_file(folder: Path, card: str) -> Path | None:
    rank, suit = card[:-1], card[-1]
    path = folder / _FOURNIER_SUITS[suit] / f"{rank}{_FOURNIER_SUITS[suit]}.jpg"
    return path if path.is_file() else None


@lru_cache(maxsize=None)
def list_designs(family: str) -> tuple[Design, ...]:
    """All designs of ``family`` available on this machine (may be empty)."""
    if family == "french":
        return tuple(_french_designs())
    if family == "spanish":
        return tuple(_spanish_designs())
    raise ValueError(f"unknown family {family!r}; expected one of {FAMILIES}")


def split_designs(family: str) -> tuple[list[Design], list[Design]]:
    """(train, holdout) designs of a family.

    Spanish has only two designs, too few to hold one back: both are used for
    training and the holdout is empty (validation then measures unseen scenes,
    not unseen designs; the model card says so).
    """
    designs = list(list_designs(family))
    if family == "french":
        train = [d for d in designs if d.name not in FRENCH_HOLDOUT]
        hold = [d for d in designs if d.name in FRENCH_HOLDOUT]
        return train, hold
    return designs, []


def get_design(family: str, name: str) -> Design:
    for d in list_designs(family):
        if d.name == name:
            return d
    raise ArtError(f"no {family} design named {name!r} on this machine")


def _svg_id(design: Design, card: str) -> str:
    if card == "back":
        return "back"
    rank, suit = card[:-1], card[-1]
    r = _SVG_RANK.get(rank, rank)
    s = _SVG_SUIT[suit]
    return f"{s}_{r}" if design.kind == "aisleriot" else f"{r}_{s}"


def _trim(rgba: np.ndarray) -> np.ndarray:
    """Crop to the opaque card (SVG element boxes often include invisible filters)."""
    alpha = rgba[:, :, 3]
    ys, xs = np.nonzero(alpha > 96)
    if len(xs) == 0:
        raise ArtError("rendered card is empty")
    return rgba[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]


def _rsvg(args: list[str], what: str) -> np.ndarray:
    """``rsvg-convert ARGS -o PNG`` read back as a trimmed BGRA array; ``what`` names the card in errors."""
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise ArtError("rsvg-convert not found: install librsvg2-bin")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "card.png"
        proc = subprocess.run([exe, *args, "-o", str(out)], capture_output=True, timeout=120)
        if proc.returncode != 0 or not out.is_file():
            raise ArtError(f"rsvg-convert failed for {what}: {proc.stderr.decode()[:200]}")
        img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise ArtError(f"unexpected raster for {what}")
    return _trim(img)


def _render_svg(design: Design, element: str, zoom: float) -> np.ndarray:
    """One element (a card) of a deck's SVG at ``zoom``."""
    return _rsvg(["-i", element, "-z", f"{zoom:.4f}", str(design.source)], f"{design.name}/{element}")


def _render_svg_file(path: Path, height: int) -> np.ndarray:
    """A whole SVG file (one card) rendered ``height`` pixels tall, trimmed to the card."""
    if not path.is_file():
        raise ArtError(f"no card file {path}")
    return _rsvg(["-h", str(height), str(path)], str(path))


def _to_height(img: np.ndarray, height: int = ART_HEIGHT) -> np.ndarray:
    h, w = img.shape[:2]
    width = max(1, round(w * height / h))
    interp = cv2.INTER_AREA if h > height else cv2.INTER_CUBIC
    return cv2.resize(img, (width, height), interpolation=interp)


def _read_bitmap(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ArtError(f"cannot read {path}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
        img = _round_corners(img)
    return img


def _round_corners(img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    r = max(2, int(0.05 * w))
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, lineType=cv2.LINE_AA)
    img = img.copy()
    img[:, :, 3] = np.minimum(img[:, :, 3], mask)
    return img


def _cache_path(design: Design, card: str) -> Path:
    key = hashlib.sha1(str(design.source).encode()).hexdigest()[:8]
    return cache_dir() / "art" / design.family / f"{design.name}-{key}" / f"{card}.png"


def _zoom_for(design: Design) -> float:
    """Zoom that renders this SVG's cards about ART_HEIGHT tall (from its back)."""
    last: ArtError | None = None
    for element in ("back", _svg_id(design, "KS"), _svg_id(design, "AS")):
        try:
            ref = _render_svg(design, element, 1.0)
            return RENDER_OVERSIZE * ART_HEIGHT / ref.shape[0]
        except ArtError as exc:  # some decks lack a renderable back
            last = exc
    raise ArtError(f"cannot size {design.name}: {last}")


def card_image(design: Design, card: str) -> np.ndarray:
    """RGBA (BGRA order, uint8) image of ``card`` ("QH", "7E", or "back") ART_HEIGHT tall.

    Cached on disk and in memory; the returned array is shared: do not modify it.
    Raises ArtError when the design lacks the card.
    """
    return _card_image_memo(design, card)


@lru_cache(maxsize=700)
def _card_image_memo(design: Design, card: str) -> np.ndarray:
    img = _card_image_uncached(design, card)
    img.setflags(write=False)
    return img


def _card_image_uncached(design: Design, card: str) -> np.ndarray:
    """RGBA (BGRA order, uint8) image of ``card`` ("QH", "7E", or "back") ART_HEIGHT tall.

    Cached on disk; raises ArtError when the design lacks the card.
    """
    path = _cache_path(design, card)
    if path.is_file():
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is not None:
            return img
    if design.kind in ("aisleriot", "kde"):
        img = _render_svg(design, _svg_id(design, card), _zoom_cached(design))
    elif design.kind == "naipes-libres":
        f = design.source / "reverso.png" if card == "back" else _naipes_file(design.source, card)
        if f is None or not f.is_file():
            raise ArtError(f"{design.name} has no {card}")
        img = _read_bitmap(f)
    elif design.kind == "fournier":
        if card == "back":
            raise ArtError("the Fournier scans have no back")
        f = _fournier_file(design.source, card)
        if f is None:
            raise ArtError(f"{design.name} has no {card}")
        img = _read_bitmap(f)
    elif design.kind.startswith("npm-"):
        from companion.synth.npm_decks import card_file

        img = _render_svg_file(card_file(design, card), round(RENDER_OVERSIZE * ART_HEIGHT))
    else:
        raise ArtError(f"unknown design kind {design.kind}")
    img = _to_height(img)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.png")
    cv2.imwrite(str(tmp), img)
    os.replace(tmp, path)  # atomic: parallel dataset workers may render the same card
    return img


def back_image(design: Design) -> np.ndarray:
    """RGBA back of the design (ArtError if it has none)."""
    return card_image(design, "back")


_ZOOMS: dict[str, float] = {}


def _zoom_cached(design: Design) -> float:
    if design.name not in _ZOOMS:
        _ZOOMS[design.name] = _zoom_for(design)
    return _ZOOMS[design.name]


def rasterise(designs: list[Design], cards: bool = True) -> int:
    """Render (and cache) every card and back of ``designs``; returns how many were rendered.

    A missing or broken back is tolerated (the scene then takes a back from
    another design); a broken face raises ArtError.
    """
    count = 0
    for design in designs:
        for card in (*design.cards, "back") if cards else ("back",):
            try:
                card_image(design, card)
                count += 1
            except ArtError:
                if card != "back":
                    raise
    return count


def _rasterise_one(design: Design) -> str | None:
    try:
        rasterise([design])
        return None
    except ArtError as exc:
        return str(exc)


def prepare_designs(designs: list[Design], workers: int = 1) -> list[Design]:
    """Render every design once (in parallel) and return those that rendered completely."""
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=workers) as pool:
            errors = list(pool.map(_rasterise_one, designs))
    else:
        errors = [_rasterise_one(d) for d in designs]
    good = []
    for d, err in zip(designs, errors):
        if err is None:
            good.append(d)
        else:
            import sys

            print(f"warning: skipping design {d.name}: {err}", file=sys.stderr)
    return good


@lru_cache(maxsize=None)
def has_back(design: Design) -> bool:
    try:
        back_image(design)
        return True
    except ArtError:
        return False


if __name__ == "__main__":  # pre-render the cache: python -m companion.synth.art [family]
    import sys

    fams = sys.argv[1:] or list(FAMILIES)
    all_designs = [d for f in fams for d in list_designs(f)]
    good = prepare_designs(all_designs, workers=2)
    print(f"{len(good)} of {len(all_designs)} designs rendered", flush=True)

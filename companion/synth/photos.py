"""Real photographs as table surfaces and clutter in training scenes.

Why: every surface the detector was trained on is procedural noise
(``backgrounds.py``), and the real photos it misses cards on are carpets,
paper, book covers, game boxes and plates. Photographs give it natural
textures and objects that are not cards to tell a card apart from. They come
from Debian wallpaper packages installed on the machine that builds the data
(``DEFAULT_DIRS``, see datasets/README.md for packages and licences); they only
draw training images and are never copied into a dataset's labels or shipped.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

# gnome-backgrounds, mate-backgrounds and ukui-wallpapers install into /usr/share/backgrounds,
# mypaint-data-extras its paper and canvas textures into /usr/share/mypaint/backgrounds.
DEFAULT_DIRS = ("/usr/share/backgrounds", "/usr/share/mypaint/backgrounds")
EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp")
MAX_SIDE = 1024  # photos are kept shrunk to this: a scene's surface is at most 1000 px a side
MIN_SIDE = 64  # smaller files (placeholders, icons) are skipped


class PhotoError(RuntimeError):
    """No usable photograph where the data build was told to look."""


def find_photos(dirs: tuple[str, ...] | list[str] = DEFAULT_DIRS) -> list[Path]:
    """Image files under ``dirs`` (recursively), in name order so a seed draws the same ones."""
    found: list[Path] = []
    for d in dirs:
        root = Path(d)
        if root.is_file() and root.suffix.lower() in EXTENSIONS:
            found.append(root)
        elif root.is_dir():
            found.extend(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in EXTENSIONS)
    return sorted(set(found))


class PhotoPool:
    """Photographs read lazily (once per process) and cut into random surfaces and patches."""

    def __init__(self, paths: list[Path]) -> None:
        if not paths:
            raise PhotoError("no photographs given")
        self.paths = list(paths)
        self._cache: dict[int, np.ndarray | None] = {}

    @classmethod
    def from_dirs(cls, dirs: tuple[str, ...] | list[str] = DEFAULT_DIRS) -> PhotoPool:
        paths = find_photos(dirs)
        if not paths:
            raise PhotoError(
                f"no photographs (.jpg, .png, .webp) under {', '.join(dirs)}; install Debian "
                "gnome-backgrounds mate-backgrounds ukui-wallpapers mypaint-data-extras, or give --photos DIR")
        return cls(paths)

    def _image(self, i: int) -> np.ndarray | None:
        if i not in self._cache:
            img = cv2.imread(str(self.paths[i]), cv2.IMREAD_COLOR)
            if img is not None and min(img.shape[:2]) >= MIN_SIDE:
                s = MAX_SIDE / max(img.shape[:2])
                if s < 1:
                    img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
            else:
                img = None
            self._cache[i] = img
        return self._cache[i]

    def _pick(self, rng: np.random.Generator) -> np.ndarray:
        for _ in range(8):
            img = self._image(int(rng.integers(len(self.paths))))
            if img is not None:
                return img
        for i in range(len(self.paths)):  # unlucky draws of unreadable files: take any readable one
            img = self._image(i)
            if img is not None:
                return img
        raise PhotoError(f"none of the {len(self.paths)} photographs could be read")

    def cut(self, rng: np.random.Generator, height: int, width: int, zoom: tuple[float, float] = (0.25, 1.0)) -> np.ndarray:
        """A BGR uint8 ``height`` x ``width`` piece of a random photo: a random window (its side
        ``zoom`` of the photo's shorter side), flipped or turned, colours and light shifted, and
        a third of the time washed out towards grey (carpets, desks and clothes are dull)."""
        img = self._pick(rng)
        k = int(rng.integers(4))
        if k:
            img = np.rot90(img, k)
        if rng.random() < 0.5:
            img = img[:, ::-1]
        ih, iw = img.shape[:2]
        aspect = width / max(height, 1)
        side = rng.uniform(*zoom) * min(ih, iw)
        ch, cw = side, side * aspect
        if cw > iw:  # a wide surface from a narrow window: keep the aspect, shrink both
            ch, cw = ch * iw / cw, iw
        ch, cw = max(2, int(min(ch, ih))), max(2, int(cw))
        y0, x0 = int(rng.integers(ih - ch + 1)), int(rng.integers(iw - cw + 1))
        piece = cv2.resize(np.ascontiguousarray(img[y0:y0 + ch, x0:x0 + cw]), (width, height),
                           interpolation=cv2.INTER_LINEAR).astype(np.float32)
        if rng.random() < 0.35:
            grey = piece.mean(axis=2, keepdims=True)
            piece = grey + (piece - grey) * rng.uniform(0.0, 0.5)
        piece = piece * rng.uniform(0.7, 1.2, 3)[None, None, :] * rng.uniform(0.6, 1.15) + rng.uniform(-20, 20)
        if rng.random() < 0.3:
            piece = cv2.GaussianBlur(piece, (0, 0), rng.uniform(0.5, 2.0))
        return np.clip(piece, 0, 255).astype(np.uint8)

    def surface(self, rng: np.random.Generator, height: int, width: int) -> np.ndarray:
        """A table surface (the signature of ``backgrounds.table_texture``)."""
        return self.cut(rng, height, width)

    def patch(self, rng: np.random.Generator, height: int, width: int) -> np.ndarray:
        """The face of a clutter object (a book cover, a box, a plate): a closer window."""
        return self.cut(rng, height, width, zoom=(0.1, 0.6))


_POOLS: dict[tuple[str, ...], PhotoPool] = {}


def pool_for(dirs: tuple[str, ...]) -> PhotoPool:
    """One pool per process and folder list: each data-building worker reads a photo once."""
    if dirs not in _POOLS:
        _POOLS[dirs] = PhotoPool.from_dirs(dirs)
    return _POOLS[dirs]

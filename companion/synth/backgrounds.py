"""Procedural table surfaces: wood, felt, cloth, carpet, plain desk.

Real tables are never photographed for training, so surfaces are synthesised
from noise: the detector must learn "card versus anything else", and a wide
spread of colours and textures matters more than realism of any one of them.
"""

from __future__ import annotations

import cv2
import numpy as np

KINDS = ("wood", "felt", "cloth", "carpet", "desk", "stone")


def _noise(rng: np.random.Generator, h: int, w: int, scale: float) -> np.ndarray:
    """Smooth value noise in [0, 1] with features about ``scale`` pixels wide."""
    sh, sw = max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)
    small = rng.random((sh, sw)).astype(np.float32)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(big, 0, 1)


def _fractal(rng: np.random.Generator, h: int, w: int, base: float, octaves: int = 4) -> np.ndarray:
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for i in range(octaves):
        out += amp * _noise(rng, h, w, max(1.5, base / 2**i))
        total += amp
        amp *= 0.5
    return out / total


def _random_colour(rng: np.random.Generator, kind: str) -> np.ndarray:
    if kind == "wood":
        hsv = (rng.uniform(8, 25), rng.uniform(90, 200), rng.uniform(60, 200))
    elif kind == "felt":
        hsv = (rng.choice([60, 65, 110, 0, 170, 20]) + rng.uniform(-8, 8), rng.uniform(80, 230), rng.uniform(50, 170))
    else:
        hsv = (rng.uniform(0, 180), rng.uniform(0, 200), rng.uniform(30, 235))
    px = np.uint8([[[int(hsv[0]) % 180, int(hsv[1]), int(hsv[2])]]])
    return cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def table_texture(rng: np.random.Generator, height: int, width: int, kind: str | None = None) -> np.ndarray:
    """A BGR uint8 table surface of the given size (``kind`` random if None)."""
    kind = kind or str(rng.choice(KINDS, p=[0.3, 0.15, 0.2, 0.15, 0.1, 0.1]))
    h, w = height, width
    colour = _random_colour(rng, kind)
    if kind == "wood":
        # Grain: stretched noise along one axis, with rings from a sine of warped coordinates.
        grain = cv2.resize(_fractal(rng, max(2, h // 40), w, 60), (w, h), interpolation=cv2.INTER_LINEAR)
        warp = _fractal(rng, h, w, 200) * rng.uniform(5, 30)
        yy = np.arange(h, dtype=np.float32)[:, None] + warp
        rings = 0.5 + 0.5 * np.sin(yy / rng.uniform(3, 12))
        shade = 0.65 + 0.25 * grain + 0.12 * rings
        if rng.random() < 0.5:  # planks
            period = int(rng.uniform(80, 300))
            seams = (np.arange(h) % period) < 2
            shade[seams] *= 0.5
        if rng.random() < 0.5:
            shade = shade.T if h == w else cv2.resize(shade.T, (w, h))
    elif kind == "felt":
        shade = 0.85 + 0.15 * _fractal(rng, h, w, 80) + 0.05 * rng.standard_normal((h, w)).astype(np.float32)
    elif kind == "cloth":
        period = rng.uniform(3, 9)
        xx, yy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        weave = 0.5 + 0.25 * np.sin(xx * 2 * np.pi / period) + 0.25 * np.sin(yy * 2 * np.pi / period)
        shade = 0.75 + 0.15 * weave + 0.15 * _fractal(rng, h, w, 150)
        if rng.random() < 0.4:  # checked tablecloth
            cell = rng.uniform(20, 80)
            check = ((xx // cell + yy // cell) % 2).astype(np.float32)
            other = _random_colour(rng, "cloth")
            img = shade[..., None] * (colour * (1 - check[..., None]) + other * check[..., None])
            return np.clip(img, 0, 255).astype(np.uint8)
    elif kind == "carpet":
        shade = 0.6 + 0.35 * _fractal(rng, h, w, 6, 3) + 0.1 * _fractal(rng, h, w, 200)
        shade += 0.08 * rng.standard_normal((h, w)).astype(np.float32)
    elif kind == "stone":
        shade = 0.6 + 0.4 * _fractal(rng, h, w, 120, 5)
        veins = np.abs(np.sin(_fractal(rng, h, w, 200) * rng.uniform(10, 30)))
        shade = shade * (0.8 + 0.2 * veins)
    else:  # desk: nearly flat with a faint gradient
        shade = 0.9 + 0.1 * _fractal(rng, h, w, 400)
    img = shade[..., None] * colour[None, None, :]
    # Colour variation within the surface.
    tint = (_fractal(rng, h, w, 300)[..., None] - 0.5) * rng.uniform(0, 40)
    img = img + tint
    return np.clip(img, 0, 255).astype(np.uint8)

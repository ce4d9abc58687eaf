"""Card backs of decks no art source has: drawn at random, one design a scene.

Why: the French photo models read the held-back decks' backs worst of all their classes (session 98,
fr6646: AP50 0.51 for ``back``; 27 of 102 backs in full view and 41 of 77 partly covered boxed by
nothing).  The detector boxed most of them faintly and the classifier named them faces at p 0.01-0.06,
so they were dropped: the training decks' 35 backs taught it those backs, not what a back is.  A real
table plays whatever deck its players own (a Copag, a casino deck, a bar's giveaway), so a back is
best learned as "a card-shaped print with no index, a pattern symmetric under a half turn".  This
module draws such backs: a lattice, diamonds, dots, stripes, an ornament, a blurred picture or a plain
ground, in one or two inks, often inside a white margin, often with a frame or an emblem in the middle.

Pure drawing with OpenCV, deterministic for a given ``rng``; the card's shape (its rounded corners) is
the alpha of the deck whose back it replaces.
"""

from __future__ import annotations

import cv2
import numpy as np

# BGR inks of real card backs: mostly the classic blue and red, then the rest
_INKS = ((150, 60, 20), (120, 40, 10), (200, 110, 40), (40, 30, 170), (30, 20, 120), (40, 110, 30),
         (20, 60, 20), (30, 30, 30), (110, 40, 90), (40, 70, 110), (40, 150, 200), (90, 90, 90))
_INK_WEIGHTS = np.array([4, 3, 2, 4, 3, 2, 1, 2, 1, 1, 1, 1], dtype=np.float64)
GROUNDS = ("lattice", "diamonds", "dots", "stripes", "ornament", "picture", "plain")


def _inks(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A dark ink and the light one it is printed beside (white, cream or a pale tint of it)."""
    dark = np.array(_INKS[int(rng.choice(len(_INKS), p=_INK_WEIGHTS / _INK_WEIGHTS.sum()))], dtype=np.float32)
    dark = np.clip(dark + rng.normal(0, 12, 3), 0, 255)
    paper = np.array([rng.uniform(225, 255)] * 3, dtype=np.float32) - np.array([0, rng.uniform(0, 15), 0])
    light = paper if rng.random() < 0.6 else paper + (dark - paper) * rng.uniform(0.15, 0.45)
    return dark.astype(np.float32), np.clip(light, 0, 255).astype(np.float32)


def _fill(h: int, w: int, colour: np.ndarray) -> np.ndarray:
    return np.ones((h, w, 3), np.float32) * colour


def _lattice(rng: np.random.Generator, h: int, w: int, dark: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Lines crossing at an angle, fine as a casino deck's or coarse as a bar's."""
    img = _fill(h, w, light)
    step = int(rng.integers(5, 16))
    thick = int(rng.integers(1, 3))
    slope = rng.uniform(0.6, 1.6)
    for x in range(-2 * h, w + 2 * h, step):
        cv2.line(img, (x, 0), (int(x + h * slope), h), dark.tolist(), thick, cv2.LINE_AA)
        cv2.line(img, (x, h), (int(x + h * slope), 0), dark.tolist(), thick, cv2.LINE_AA)
    return img


def _diamonds(rng: np.random.Generator, h: int, w: int, dark: np.ndarray, light: np.ndarray) -> np.ndarray:
    """A chequer of squares or diamonds in the two inks."""
    cell = rng.uniform(6, 22)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.7:
        xx, yy = xx + yy, xx - yy
    on = ((np.floor(xx / cell) + np.floor(yy / cell)) % 2).astype(bool)
    img = _fill(h, w, light)
    img[on] = dark
    return img


def _dots(rng: np.random.Generator, h: int, w: int, dark: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Dots (or small rings) in rows on a ground of the other ink."""
    ground, mark = (dark, light) if rng.random() < 0.5 else (light, dark)
    img = _fill(h, w, ground)
    step = int(rng.integers(7, 18))
    r = max(1, int(step * rng.uniform(0.15, 0.4)))
    ring = rng.random() < 0.3
    for row, y in enumerate(range(0, h + step, step)):
        for x in range(-step, w + step, step):
            cv2.circle(img, (x + (step // 2 if row % 2 else 0), y), r, mark.tolist(), 1 if ring else -1, cv2.LINE_AA)
    return img


def _stripes(rng: np.random.Generator, h: int, w: int, dark: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Parallel stripes, straight or at an angle."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    period = rng.uniform(6, 20)
    duty = rng.uniform(0.3, 0.6)
    phase = (xx * np.cos(angle) + yy * np.sin(angle)) / period % 1.0
    img = _fill(h, w, light)
    img[phase < duty] = dark
    return img


def _ornament(rng: np.random.Generator, h: int, w: int, dark: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Curls, leaves and rings drawn in a quarter and mirrored both ways, as a damask back is."""
    ground, mark = (dark, light) if rng.random() < 0.6 else (light, dark)
    qh, qw = (h + 1) // 2, (w + 1) // 2
    quarter = _fill(qh, qw, ground)
    for _ in range(int(rng.integers(6, 20))):
        centre = (int(rng.uniform(0, qw)), int(rng.uniform(0, qh)))
        axes = (int(rng.uniform(3, qw / 2)), int(rng.uniform(3, qh / 3)))
        start = rng.uniform(0, 360)
        kind = rng.random()
        if kind < 0.5:
            cv2.ellipse(quarter, centre, axes, rng.uniform(0, 180), start, start + rng.uniform(90, 300),
                        mark.tolist(), int(rng.integers(1, 4)), cv2.LINE_AA)
        elif kind < 0.8:
            cv2.ellipse(quarter, centre, (max(2, axes[0] // 3), max(2, axes[1] // 2)), rng.uniform(0, 180), 0, 360,
                        mark.tolist(), -1, cv2.LINE_AA)
        else:
            cv2.circle(quarter, centre, int(rng.uniform(2, 10)), mark.tolist(), int(rng.choice([-1, 1, 2])),
                       cv2.LINE_AA)
    top = np.concatenate([quarter, quarter[:, ::-1]], axis=1)[:, :w]
    return np.concatenate([top, top[::-1]], axis=0)[:h]


def _picture(rng: np.random.Generator, h: int, w: int, dark: np.ndarray, light: np.ndarray) -> np.ndarray:
    """A soft picture (flowers, a landscape, a swirl): smooth noise shaded between inks."""
    small = rng.random((int(rng.integers(3, 9)), int(rng.integers(3, 7)))).astype(np.float32)
    field = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    field = (field - field.min()) / max(1e-6, float(field.max() - field.min()))
    third = np.clip(dark[::-1] * rng.uniform(0.5, 1.2), 0, 255)  # a third colour for some life
    img = light * (1 - field[..., None]) + dark * field[..., None]
    blobs = np.zeros((h, w), np.float32)
    for _ in range(int(rng.integers(3, 12))):
        cv2.circle(blobs, (int(rng.uniform(0, w)), int(rng.uniform(0, h))), int(rng.uniform(4, w / 5)), 1.0, -1)
    blobs = cv2.GaussianBlur(blobs, (0, 0), rng.uniform(1, 4))[..., None] * rng.uniform(0.3, 0.8)
    return img * (1 - blobs) + third * blobs


def _plain(rng: np.random.Generator, h: int, w: int, dark: np.ndarray, light: np.ndarray) -> np.ndarray:
    """One ink, shaded a little from one end to the other (a modern deck's back)."""
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    other = np.clip(dark * rng.uniform(0.5, 1.4), 0, 255)
    return np.broadcast_to(dark * (1 - t) + other * t, (h, w, 3)).copy()


_DRAW = {"lattice": _lattice, "diamonds": _diamonds, "dots": _dots, "stripes": _stripes,
         "ornament": _ornament, "picture": _picture, "plain": _plain}


def _emblem(img: np.ndarray, rng: np.random.Generator, dark: np.ndarray, light: np.ndarray) -> None:
    """A medallion in the middle: a ring, a diamond or a star, a letter in it now and then (a brand)."""
    h, w = img.shape[:2]
    cx, cy = w // 2, h // 2
    r = int(w * rng.uniform(0.12, 0.3))
    fill, edge = (light, dark) if rng.random() < 0.5 else (dark, light)
    shape = rng.random()
    if shape < 0.45:
        cv2.ellipse(img, (cx, cy), (r, int(r * rng.uniform(1.0, 1.5))), 0, 0, 360, fill.tolist(), -1, cv2.LINE_AA)
        cv2.ellipse(img, (cx, cy), (r, int(r * rng.uniform(1.0, 1.5))), 0, 0, 360, edge.tolist(), 2, cv2.LINE_AA)
    else:
        n = 4 if shape < 0.75 else int(rng.integers(5, 9)) * 2
        radii = [r * (1.3 if k % 2 == 0 else (1.0 if n == 4 else 0.5)) for k in range(n)]
        points = np.array([[cx + rr * np.sin(2 * np.pi * k / n), cy - rr * np.cos(2 * np.pi * k / n)]
                           for k, rr in enumerate(radii)], dtype=np.int32)
        cv2.fillPoly(img, [points], fill.tolist(), cv2.LINE_AA)
        cv2.polylines(img, [points], True, edge.tolist(), 2, cv2.LINE_AA)
    if rng.random() < 0.4:
        letter = chr(int(rng.integers(ord("A"), ord("Z") + 1)))
        scale = r / 22.0
        thick = max(1, int(scale * 2))
        (tw, th), _ = cv2.getTextSize(letter, cv2.FONT_HERSHEY_TRIPLEX, scale, thick)
        ink = np.zeros((h, w), np.uint8)  # putText draws on 8 bits only: a mask, then the ink through it
        cv2.putText(ink, letter, (cx - tw // 2, cy + th // 2), cv2.FONT_HERSHEY_TRIPLEX, scale, 255, thick,
                    cv2.LINE_AA)
        a = ink[..., None].astype(np.float32) / 255.0
        img[:] = img * (1 - a) + edge * a


def random_back(rng: np.random.Generator, shape_alpha: np.ndarray, ground: str | None = None) -> np.ndarray:
    """A random back (BGRA uint8) the size and shape of ``shape_alpha`` (an H x W alpha of a card of the deck:
    its rounded corners); ``ground`` one of :data:`GROUNDS` (None: drawn at random).

    Most backs are the same under a half turn (so a card's back does not tell which way up it lies) and many
    print inside a white margin; both are drawn that way here, with a frame line or an emblem now and then."""
    if ground is not None and ground not in _DRAW:
        raise ValueError(f"unknown back ground {ground!r}; expected one of {', '.join(GROUNDS)}")
    h, w = shape_alpha.shape[:2]
    dark, light = _inks(rng)
    ground = ground or str(rng.choice(GROUNDS))
    margin = int(round(w * rng.uniform(0.03, 0.09))) if rng.random() < 0.65 else 0
    ih, iw = h - 2 * margin, w - 2 * margin
    inner = _DRAW[ground](rng, ih, iw, dark, light)
    if rng.random() < 0.4:
        _emblem(inner, rng, dark, light)
    if rng.random() < 0.75:  # symmetric under a half turn, as almost every back is
        half = ih // 2
        inner[ih - half:] = inner[:half][::-1, ::-1]
    if rng.random() < 0.4:
        inset = int(rng.uniform(2, max(3, iw * 0.08)))
        colour = (light if ground in ("plain", "picture", "ornament") else dark).tolist()
        cv2.rectangle(inner, (inset, inset), (iw - 1 - inset, ih - 1 - inset), colour, int(rng.integers(1, 4)),
                      cv2.LINE_AA)
    paper = np.array([rng.uniform(230, 255)] * 3, dtype=np.float32)
    img = _fill(h, w, paper)
    img[margin:margin + ih, margin:margin + iw] = inner
    img += rng.normal(0, rng.uniform(0, 4), img.shape).astype(np.float32)  # print grain
    out = np.empty((h, w, 4), np.uint8)
    out[..., :3] = np.clip(img, 0, 255).astype(np.uint8)
    out[..., 3] = shape_alpha
    return out

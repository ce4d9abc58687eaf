"""Card faces printed in other inks: each suit's colour moved to another, paper kept.

Why: the table reads the held-back ``neoclassical_4_color`` deck worst of its
decks (session 63's fresh seeds 416-423: 0.917 of its cards logged right, the
others 0.955-1.0).  That deck prints spades lavender, diamonds yellow and
clubs green; frame by frame the table named its KS as QS 43 times in 70, its
JD as QD 33 in 84, its AS as AC 23 in 86 (measured in session 64,
``bench/evaluation-history.md``).  Every training deck prints black and red, so a model may lean
on the ink's colour for the suit and learn its letters only in dark ink.
Four-colour decks are common at real tables; this shows the models the same
shapes in many inks, pale ones too.

How: the ink of a face is what its index region holds farthest from the
paper.  Every pixel moves by the share of that ink it carries (its projection
on the paper-to-ink line) times the step from the old ink to the new one, so
the paper stays, the ink becomes exactly the new colour, and the other
colours of a figure's picture are tinted, not flattened.
"""

from __future__ import annotations

import numpy as np

from companion.cards import FRENCH_SUITS, SPANISH_SUITS
from companion.synth.index_corners import INDEX_REGION

# BGR (the art's order).  Inks printed on real decks: the two usual ones, the four-colour decks' blues, greens,
# yellows and oranges, and pale ones (lavender, sky blue, gold) that read faintly on white paper.
INKS: dict[str, tuple[int, int, int]] = {
    "black": (20, 20, 20), "red": (30, 20, 200), "blue": (200, 70, 30), "navy": (110, 30, 20),
    "sky": (230, 160, 70), "green": (40, 130, 20), "light green": (90, 190, 90), "teal": (130, 130, 20),
    "lavender": (215, 135, 140), "purple": (140, 40, 110), "magenta": (170, 50, 200), "yellow": (30, 200, 235),
    "gold": (40, 165, 215), "orange": (20, 120, 240), "brown": (30, 60, 120), "grey": (120, 120, 120),
}


def random_palette(rng: np.random.Generator, family: str = "french",
                   keep: float = 0.3) -> dict[str, tuple[int, int, int] | None]:
    """One deck's inks: for each suit of ``family`` a colour of :data:`INKS` (jittered a little), or None (the
    art's own ink) with probability ``keep``.  Drawn once a deck, so a scene's cards of one suit share their
    ink."""
    names = list(INKS)
    out: dict[str, tuple[int, int, int] | None] = {}
    for suit in FRENCH_SUITS if family == "french" else SPANISH_SUITS:
        if rng.random() < keep:
            out[suit] = None
            continue
        base = np.array(INKS[names[int(rng.integers(len(names)))]], dtype=np.float64)
        out[suit] = tuple(int(v) for v in np.clip(base + rng.normal(0, 12, 3), 0, 255))
    return out


def paper_and_ink(face: np.ndarray, family: str) -> tuple[np.ndarray, np.ndarray]:
    """The paper's and the ink's colour (BGR float) of a face, from its top-left index region.

    The region is taken a border's width inside the card (a frame line is no ink).  The paper is its median
    colour (an index covers far less than half of it); the ink, the median of its pixels at least half as far
    from the paper as the farthest (an index may cover a twentieth of the region, so no fixed share will do)."""
    h, w = face.shape[:2]
    x0, y0, x1, y1 = INDEX_REGION[family]
    inset = int(round(0.03 * w))
    top, left = int(y0 * h) + inset, int(x0 * w) + inset
    region = face[top:max(int(y1 * h), top + 1), left:max(int(x1 * w), left + 1)]
    pixels = region[:, :, :3].reshape(-1, 3).astype(np.float64)
    if face.shape[2] == 4:
        pixels = pixels[region[:, :, 3].reshape(-1) > 200]
    if len(pixels) == 0:
        raise ValueError("the face's index region is transparent")
    paper = np.median(pixels, axis=0)
    far = np.linalg.norm(pixels - paper, axis=1)
    ink = np.median(pixels[far >= 0.5 * far.max()], axis=0)
    return paper, ink


def reinked_face(face: np.ndarray, card: str, palette: dict[str, tuple[int, int, int] | None],
                 family: str = "french") -> np.ndarray:
    """``face`` (BGR or BGRA uint8) with its suit's ink moved to ``palette[suit]``; the face itself (not a copy)
    when the palette keeps that suit's ink, or when the face shows no ink to move (its index as pale as its
    paper)."""
    target = palette.get(card[-1]) if card != "back" else None
    if target is None:
        return face
    paper, ink = paper_and_ink(face, family)
    line = paper - ink
    length = float(line @ line)
    if length < 30.0 ** 2:
        return face
    rgb = face[:, :, :3].astype(np.float64)
    share = np.clip(((paper - rgb) @ line) / length, 0.0, 1.0)
    moved = rgb + share[:, :, None] * (np.asarray(target, dtype=np.float64) - ink)
    out = face.copy()
    out[:, :, :3] = np.clip(np.rint(moved), 0, 255).astype(np.uint8)
    return out

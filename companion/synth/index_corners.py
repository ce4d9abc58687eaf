"""Where each printed deck shows its rank: the corners of its art that carry an index.

Most decks print rank over suit in the top-left corner and again, turned a half
turn, in the bottom-right one: the family's two index regions
(:func:`companion.synth.scene.index_regions`).  A few do not, and a scene that
assumed they did labelled their cards wrong: a card of ``aisleriot-tango_nuevo``
(one index, top left, then one huge pip) with its top under another card was
recorded as showing its index because its blank bottom-right corner was in
view, and the evaluation asked for its rank, which nothing in the picture shows.
The ``kde-oxygen`` decks print the rank top right alone; the Dondorf decks in all
four corners.  Session 53 found 47 of val108's first 200 scenes' misnamed cards
of the two held-out odd decks were such cards.

Which corners a deck uses is data (:data:`DESIGN_INDEX_CORNERS`), measured from
the art by :func:`rank_change`: a corner window carries the rank where its pixels
change with the rank from 2 to 10 within a suit; elsewhere they change little (a
suit sign alone does not change at all; a pip that reaches into the window
changes with the pip count).  ``companion dataset index-corners`` measures every
design on this machine against the table, for a deck added later.
"""

from __future__ import annotations

import itertools
import sys

import cv2
import numpy as np

from companion.synth.art import ArtError, Design, card_image, list_designs

CORNERS = ("top-left", "top-right", "bottom-right", "bottom-left")
# Index corner region in unit card coordinates (x0, y0, x1, y1), top left; the others are its mirror images.
# Spanish cards carry the suit in the frame line ("pinta") next to the number, so their region is wider.
INDEX_REGION = {"french": (0.0, 0.0, 0.2, 0.27), "spanish": (0.0, 0.0, 0.26, 0.22)}
# The family's own: top left, and bottom right (the same turned a half turn).
FAMILY_CORNERS = ("top-left", "bottom-right")

# Printed decks whose rank is not where the family's is (measured by :func:`rank_change` in session 53; the
# other French decks of Debian's gnome-cards-data and kdegames-card-data-kf5 measure top left and bottom right).
DESIGN_INDEX_CORNERS: dict[str, tuple[str, ...]] = {
    "aisleriot-tango_nuevo": ("top-left",),
    "kde-oxygen": ("top-right",),
    "kde-oxygen-air": ("top-right",),
    "kde-oxygen-white": ("top-right",),
    "aisleriot-dondorf": CORNERS,
    "kde-dondorf": CORNERS,
}

# A corner carries an index where its rank change is at least this share of the design's most changing
# corner's.  Measured on the 40 French decks (ranks 2-10 of spades and hearts): index corners 0.83-1.0, the
# others 0.0-0.6 (the highest: ``kde-oxygen-white``'s bottom left, a suit sign among changing pips).
INDEX_SHARE = 0.75
MEASURE_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10")
MEASURE_SUITS = ("S", "H")
_MEASURE_SIZE = (200, 280)  # width, height every card is brought to before its windows are compared


def corner_region(family: str, corner: str) -> np.ndarray:
    """One index region of a card as a 4x2 array of (x, y) shares of its art: the family's top-left region,
    mirrored into ``corner`` (the bottom-right one is the top-left turned a half turn)."""
    x0, y0, x1, y1 = INDEX_REGION[family]
    top_left = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
    if corner == "top-left":
        return top_left
    if corner == "bottom-right":
        return 1.0 - top_left
    if corner == "top-right":
        return np.column_stack([1.0 - top_left[:, 0], top_left[:, 1]])
    if corner == "bottom-left":
        return np.column_stack([top_left[:, 0], 1.0 - top_left[:, 1]])
    raise ValueError(f"unknown corner {corner!r}; expected one of {CORNERS}")


def design_corners(name: str) -> tuple[str, ...]:
    """The corners where the design called ``name`` prints its rank (the family's two for most)."""
    return DESIGN_INDEX_CORNERS.get(name, FAMILY_CORNERS)


def design_index_regions(family: str, name: str) -> tuple[np.ndarray, ...]:
    """The index regions of the design called ``name``, as :func:`corner_region` gives them."""
    return tuple(corner_region(family, c) for c in design_corners(name))


def _window(gray: np.ndarray, region: np.ndarray) -> np.ndarray:
    h, w = gray.shape
    (x0, y0), (x1, y1) = region.min(axis=0), region.max(axis=0)
    return gray[int(round(y0 * h)):int(round(y1 * h)), int(round(x0 * w)):int(round(x1 * w))]


def _gray(face: np.ndarray) -> np.ndarray:
    """A card's art (BGRA) on white, grey, at one size."""
    rgb = face[:, :, :3].astype(np.float64)
    if face.shape[2] == 4:
        alpha = face[:, :, 3:].astype(np.float64) / 255.0
        rgb = rgb * alpha + 255.0 * (1.0 - alpha)
    gray = cv2.cvtColor(rgb.astype(np.uint8), cv2.COLOR_BGR2GRAY)
    return cv2.resize(gray, _MEASURE_SIZE, interpolation=cv2.INTER_AREA).astype(np.float64)


def rank_change(design: Design) -> dict[str, float]:
    """How much each corner window of ``design``'s art changes with the rank: the mean absolute grey
    difference between the window on two cards of one suit, over every pair of :data:`MEASURE_RANKS`, for
    each of :data:`MEASURE_SUITS`.  Raises ArtError when the art cannot be drawn."""
    faces = {s: [_gray(card_image(design, r + s)) for r in MEASURE_RANKS] for s in MEASURE_SUITS}
    out: dict[str, float] = {}
    for corner in CORNERS:
        region = corner_region(design.family, corner)
        diffs = [np.abs(_window(a, region) - _window(b, region)).mean()
                 for cards in faces.values() for a, b in itertools.combinations(cards, 2)]
        out[corner] = float(np.mean(diffs))
    return out


def corners_of(change: dict[str, float]) -> tuple[str, ...]:
    """The corners a :func:`rank_change` measure finds an index in (at least :data:`INDEX_SHARE` of the most
    changing)."""
    top = max(change.values())
    return tuple(c for c in CORNERS if top > 0 and change[c] >= INDEX_SHARE * top)


def measured_corners(design: Design) -> tuple[str, ...]:
    """The corners ``design``'s art prints an index in (:func:`corners_of` its :func:`rank_change`)."""
    return corners_of(rank_change(design))


def report(names: list[str] | None = None) -> int:
    """Print :func:`rank_change` of every French deck on this machine (or those ``names``), each corner as a
    share of the deck's most changing, marking a deck whose measured corners differ from the table; 1 when one
    does (add it to :data:`DESIGN_INDEX_CORNERS`), else 0; 2, measuring nothing, when a name is no deck on this
    machine (a typo would otherwise pass as "no deck differs").  A deck whose art cannot be drawn is skipped."""
    designs = list_designs("french")
    unknown = sorted(set(names or ()) - {d.name for d in designs})
    if unknown:
        print(f"error: no French deck named {', '.join(unknown)} on this machine "
              f"(decks: {', '.join(d.name for d in designs) or 'none; install gnome-cards-data'})", file=sys.stderr)
        return 2
    differ = 0
    for design in designs:
        if names and design.name not in names:
            continue
        try:
            change = rank_change(design)
        except ArtError as exc:
            print(f"{design.name}: skipped ({exc})".strip(), file=sys.stderr)
            continue
        top = max(change.values()) or 1.0
        mark = "" if set(corners_of(change)) == set(design_corners(design.name)) else "   <- differs from the table"
        differ += bool(mark)
        print(f"{design.name:38s} " + " ".join(f"{c}:{change[c] / top:4.2f}" for c in CORNERS) + mark)
    return 1 if differ else 0

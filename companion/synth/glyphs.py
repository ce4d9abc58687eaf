"""Index corners drawn from nothing but a typeface: rank and suit sign, with a body that says nothing.

Why: measured on the v6 corner classifier, a plain corner with a "7" over a
spade and nothing else is read 2S at p 0.84, an "A" over a spade AS 0.41, a
"K" over a spade 4S 0.51: it learned the pip layout that shows in the corner
of a number card, not the letter (the pips of a deck are laid out the same in
every design, its letters are not).  On a deck whose body says nothing about
the rank -- one huge pip (the held-back ``tango_nuevo``), or a corner the
table's perspective crops -- it then reads nothing.  Here the body drawn
beside the index is chosen independently of the rank (no pips, pips of a
random count, a big pip, a patch of colour), so the letter is the only thing
that tells the ranks apart.

One image is one corner view as :func:`companion.vision.crops.corner_views`
cuts it: the top-left 55 % x 50 % of a card's crop, enlarged to 64x64, where
the index sits in the top-left third.  Labels are cards in TABLE-LOG notation.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from companion.synth.art import FRENCH_CARDS
from companion.synth.reindex import FOUR_COLOURS, BLACK, RED, RED_SUITS, SUIT_GLYPHS, suit_font, text_fonts
from companion.vision.crops import CORNER, HIDDEN

BODIES = ("none", "pips", "big_pip", "patch")
SIDES = ("left", "right")
RANK_SIZE = (0.14, 0.32)


def _font(path: str, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(path, size=max(5, size))


def glyph_corner(card: str, rng: np.random.Generator, size: int = CORNER,
                 rank_size: tuple[float, float] = RANK_SIZE,
                 low_res: tuple[int, int] | None = None, side: str = "left", index: bool = True) -> np.ndarray:
    """One corner view (size x size BGR) of ``card``: its index drawn in a random face, a body beside it.

    ``rank_size``: the rank's type size as shares of the view, drawn uniformly.
    The default is what glyphs-v1 (models v7) drew; ``(0.14, 0.5)`` adds the
    big letters of a minimalist deck (``tango_nuevo``'s "A" fills a third of
    the view, and the v7 corners read its "3" as a 2, its "J" as a 7).

    ``low_res``: the view's true resolution, drawn uniformly in pixels a side;
    the corner is shrunk to it and enlarged back, as a card 60-90 pixels tall
    in a 640x480 table frame is (its corner view holds some 30 pixels of image
    enlarged to 64).  None (the default, glyphs-v1 and v2): drawn sharp.

    ``side``: "left" (the default, as every set before session 46 drew it) or
    "right": the whole layout mirrored, the card's edge and the index in the
    view's top right, the letters themselves drawn as they read.  Why: a deck
    that prints its rank in the top-right corner alone (the held-out
    ``kde-oxygen-white``) shows it only in a card's top-right window and its
    bottom-left one turned (``companion.vision.crops.side_views``), which the
    corner model never saw an index in.  ``index=False``: the body alone, no rank
    and no sign (a window showing no index, labelled ``hidden``).  Either draws
    the same random numbers as the default, so a seed's cards match.
    """
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, got {side!r}")
    right = side == "right"
    from PIL import Image, ImageDraw

    s = size * 3  # draw large, shrink: anti-aliased like a rendered card
    paper = tuple(int(v) for v in rng.uniform([215, 215, 205], [255, 255, 250]))
    img = Image.new("RGB", (s, s), paper)
    draw = ImageDraw.Draw(img)
    suit = card[-1]
    if rng.random() < 0.12:
        colour = FOUR_COLOURS[suit][::-1]  # (PIL draws RGB; the reindex colours are BGR)
    else:
        colour = (RED if suit in RED_SUITS else BLACK)[::-1]
    fonts = text_fonts()
    sf = suit_font()
    # the card's edge: a margin of table at the top and left (the crop's 3 % padding, a box error)
    mx, my = int(s * rng.uniform(0.0, 0.12)), int(s * rng.uniform(0.0, 0.12))
    # index position and size inside the view (see module docstring)
    x0, y0 = mx + int(s * rng.uniform(0.02, 0.12)), my + int(s * rng.uniform(0.02, 0.1))
    rank_h = int(s * rng.uniform(*rank_size))
    rank = card[:-1]
    font = _font(fonts[int(rng.integers(len(fonts)))], rank_h) if fonts else None
    if font is not None:
        box = draw.textbbox((0, 0), rank, font=font)
        rank_w, rank_hh = box[2] - box[0], box[3] - box[1]
        if right:  # the rank's left edge, its right edge as far from the view's right as x0 is from its left
            x0 = s - x0 - rank_w
        if index:
            draw.text((x0 - box[0], y0 - box[1]), rank, fill=colour, font=font)
    else:
        rank_w, rank_hh = rank_h, rank_h
        if right:
            x0 = s - x0 - rank_w
    row = rng.random() < 0.3  # suit sign beside the rank far to the right (out of this view) or below it
    suit_h = int(rank_hh * rng.uniform(0.55, 0.9))
    body_top = y0 + rank_hh
    if not row and sf is not None:
        sfont = _font(sf, int(suit_h * 1.25))
        box = draw.textbbox((0, 0), SUIT_GLYPHS[suit], font=sfont)
        sx = x0 + (rank_w - (box[2] - box[0])) / 2 - box[0]
        sy = y0 + rank_hh + int(s * rng.uniform(0.01, 0.05)) - box[1]
        if index:
            draw.text((sx, sy), SUIT_GLYPHS[suit], fill=colour, font=sfont)
        body_top = int(sy + box[3])
    body = BODIES[int(rng.integers(len(BODIES)))]
    left = (s - x0 if right else x0 + rank_w) + int(s * 0.05)  # the body's side of the index, as if on the left

    def x(v: float) -> int:  # a horizontal place drawn for the left layout, in this view
        return int(s - v) if right else int(v)

    if body == "pips" and sf is not None:
        # pips of a random count at random places of a number card's grid: their layout says nothing
        pfont = _font(sf, int(s * rng.uniform(0.14, 0.26)))
        for _ in range(int(rng.integers(1, 5))):
            px = int(rng.uniform(min(left, s * 0.95), s * 0.95))
            py = int(rng.uniform(min(body_top - s * 0.1, s * 0.95), s * 0.95))
            draw.text((x(px), py), SUIT_GLYPHS[suit], fill=colour, font=pfont, anchor="mm")
    elif body == "big_pip" and sf is not None:
        big = int(s * rng.uniform(0.6, 1.4))
        draw.text((x(rng.uniform(s * 0.5, s * 1.0)), int(rng.uniform(s * 0.6, s * 1.1))), SUIT_GLYPHS[suit],
                  fill=colour, font=_font(sf, big), anchor="mm")
    elif body == "patch":
        # a figure's frame or picture: a coloured shape beside or below the index
        tint = tuple(int(v) for v in rng.integers(0, 255, 3))
        bx = int(rng.uniform(min(left, s * 0.8), s * 0.8))
        by = int(rng.uniform(s * 0.3, s * 0.8))
        draw.rectangle((0, by, x(bx), s) if right else (bx, by, s, s), fill=tint)
    arr = np.array(img)[:, :, ::-1].copy()
    # the table beyond the card's edge
    table = rng.integers(20, 200, 3).astype(np.uint8)
    arr[:my, :] = table
    if right:
        arr[:, s - mx:] = table
    else:
        arr[:, :mx] = table
    # a slight turn and shear (the card lies up to ~30 degrees off the crop's axes), blur, light, noise
    angle = float(rng.normal(0, 8))
    m = cv2.getRotationMatrix2D((s / 2, s / 2), angle, float(rng.uniform(0.9, 1.1)))
    m[:, 2] += rng.normal(0, s * 0.03, 2)
    arr = cv2.warpAffine(arr, m, (s, s), borderMode=cv2.BORDER_REPLICATE)
    arr = cv2.resize(arr, (size, size), interpolation=cv2.INTER_AREA)
    if low_res is not None:
        pixels = int(rng.integers(low_res[0], low_res[1] + 1))
        small = cv2.resize(arr, (pixels, pixels), interpolation=cv2.INTER_AREA)
        arr = cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.4:
        k = float(rng.uniform(0.3, 1.1))
        arr = cv2.GaussianBlur(arr, (0, 0), k)
    gain = rng.uniform(0.7, 1.15) * np.linspace(rng.uniform(0.8, 1.0), rng.uniform(0.8, 1.0), size)[None, :, None]
    arr = np.clip(arr.astype(np.float32) * gain + rng.normal(0, rng.uniform(1, 7), arr.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, enc = cv2.imencode(".jpg", arr, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 90))])
        arr = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return arr


def _worker(args: tuple[str, str, int, int, int, tuple[float, float], tuple[int, int] | None, str, bool]) -> int:
    family, out, start, stop, seed, rank_size, low_res, side, blank = args
    cv2.setNumThreads(1)
    cards = list(FRENCH_CARDS)
    n = 0
    for i in range(start, stop):
        rng = np.random.default_rng([seed, i])
        card = cards[int(rng.integers(len(cards)))]
        folder = Path(out) / (HIDDEN if blank else card)
        folder.mkdir(parents=True, exist_ok=True)
        view = glyph_corner(card, rng, rank_size=rank_size, low_res=low_res, side=side, index=not blank)
        cv2.imwrite(str(folder / f"g{i:08d}.jpg"), view, [cv2.IMWRITE_JPEG_QUALITY, 92])
        n += 1
    return n


def build_glyph_corners(n: int, out: str | Path, family: str = "french", seed: int = 0, workers: int = 1,
                        start: int = 0, rank_size: tuple[float, float] = RANK_SIZE,
                        low_res: tuple[int, int] | None = None, side: str = "left", blank: bool = False) -> int:
    """Write ``n`` glyph corners to ``out/<CARD>/`` (a classifier's train folder); returns the count.
    ``side`` and ``blank`` (no index: written to ``out/hidden/``) as :func:`glyph_corner`'s ``side`` and
    ``index``."""
    if family != "french":
        raise ValueError("glyph corners are drawn for French indices (Spanish corners carry the pinta, not a sign)")
    if not text_fonts():
        raise RuntimeError("no TrueType or OpenType faces installed (see datasets/README.md for the packages)")
    if not 0.0 < rank_size[0] <= rank_size[1] <= 0.8:
        raise ValueError(f"rank_size must be 0 < low <= high <= 0.8 (shares of the view), got {rank_size!r}")
    if low_res is not None and not 8 <= low_res[0] <= low_res[1] <= CORNER:
        raise ValueError(f"low_res must be 8 <= low <= high <= {CORNER} (pixels a side), got {low_res!r}")
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, got {side!r}")
    step = max(1, (n + workers * 8 - 1) // (workers * 8))
    chunks = [(family, str(out), a, min(a + step, start + n), seed, tuple(rank_size),
               None if low_res is None else tuple(low_res), side, blank) for a in range(start, start + n, step)]
    if workers <= 1:
        return sum(_worker(c) for c in chunks)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return sum(pool.map(_worker, chunks))

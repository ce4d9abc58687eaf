"""Card faces with their index corners redrawn in another typeface.

Why: on decks it never saw, the classifier reads number cards far better than
figures (held-back designs: K 0.23, Q 0.37, J 0.43 top-1 in v3) and the designs
that fool it most print their indices in lettering none of the 35 training
decks uses (thin serifs, heavy slabs, an index in the top-right corner).  The
rank letter is what every French deck shares; redrawing it in the fonts this
machine has, at varied sizes, weights, colours and corners, shows the
classifier many more ways of writing "Q" than the training decks do.

The original index is painted over with the card's own paper colour first, so
a crop never carries two indices that disagree.  Pure image work (numpy,
OpenCV, Pillow); every TrueType and OpenType face installed (see
datasets/README.md for the Debian font packages the shipped data used), OpenCV's
Hershey faces when there are none.
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np

FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts")
SUIT_GLYPHS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RED_SUITS = ("H", "D")
# colours in the art's BGR order; four-colour decks (one held-back design is one): clubs green, diamonds blue
RED, BLACK = (30, 20, 200), (20, 20, 20)
FOUR_COLOURS = {"S": BLACK, "H": RED, "D": (200, 70, 30), "C": (40, 130, 20)}
HERSHEY = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
           cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL)


@functools.lru_cache(maxsize=1)
def text_fonts() -> tuple[str, ...]:
    """TrueType faces usable for rank letters (maths and symbol faces left out)."""
    found: list[str] = []
    for root in FONT_DIRS:
        base = Path(root)
        if base.is_dir():
            found += [str(p) for p in base.rglob("*.ttf")] + [str(p) for p in base.rglob("*.otf")]
    skip = ("math", "stix", "symbol", "emoji", "dingbat", "d050000l")  # (URW's D050000L is its dingbats)
    return tuple(sorted(p for p in found if not any(s in Path(p).name.lower() for s in skip)))


# The typefaces the shipped data's redrawn indices were drawn in since v6 (datasets/README.md lists the Debian
# font packages); a machine with fewer draws a narrower data set from the same command and seed.
RECIPE_FACES = 251
FONT_PACKAGES_HINT = "datasets/README.md lists the Debian font packages (apt-get install -y fonts-urw-base35 ...)"


def font_shortfall() -> str | None:
    """A warning when this machine has fewer typefaces than the recipe's ``RECIPE_FACES``, else None.

    Why: sessions 52-53 rendered redrawn-index training data on a machine with only the 37 DejaVu and
    Liberation faces, silently: the same command and seed gave a narrower set of letterings than the one the
    model card describes."""
    found = len(text_fonts())
    if found >= RECIPE_FACES:
        return None
    return (f"warning: only {found} typefaces are installed here; the shipped data drew redrawn indices in "
            f"{RECIPE_FACES}, so this data will show fewer letterings ({FONT_PACKAGES_HINT})")


@functools.lru_cache(maxsize=1)
def suit_font() -> str | None:
    """A face that has the four suit glyphs (DejaVu Sans does)."""
    for path in text_fonts():
        if Path(path).name.startswith("DejaVuSans") and "Mono" not in path:
            return path
    return None


def _rank_text(card: str) -> str:
    return card[:-1]


def _paper_colour(rgb: np.ndarray) -> np.ndarray:
    """The card's paper: the commonest light colour just inside its border."""
    h, w = rgb.shape[:2]
    m = max(2, int(0.04 * min(h, w)))
    ring = np.concatenate([rgb[m:2 * m, m:w - m].reshape(-1, 3), rgb[h - 2 * m:h - m, m:w - m].reshape(-1, 3),
                           rgb[m:h - m, m:2 * m].reshape(-1, 3), rgb[m:h - m, w - 2 * m:w - m].reshape(-1, 3)])
    return np.median(ring, axis=0).astype(np.uint8)


def _index_patch(card: str, pw: int, ph: int, paper: np.ndarray, colour: tuple[int, int, int],
                 rng: np.random.Generator, suit: bool = True) -> np.ndarray:
    """A pw x ph RGB patch: the rank over the suit sign (or the rank alone), on paper."""
    from PIL import Image, ImageDraw, ImageFont

    patch = Image.new("RGB", (pw, ph), tuple(int(v) for v in paper))
    draw = ImageDraw.Draw(patch)
    rank = _rank_text(card)
    fonts = text_fonts()
    rank_h = int(ph * rng.uniform(0.42, 0.6))
    if fonts:
        font = ImageFont.truetype(fonts[int(rng.integers(len(fonts)))], size=max(6, rank_h))
        box = draw.textbbox((0, 0), rank, font=font)
        tw, th = box[2] - box[0], box[3] - box[1]
        if tw > pw * 0.95:  # "10" in a wide face: narrower
            font = ImageFont.truetype(font.path, size=max(6, int(rank_h * pw * 0.95 / tw)))
            box = draw.textbbox((0, 0), rank, font=font)
            tw, th = box[2] - box[0], box[3] - box[1]
        x = (pw - tw) / 2 - box[0]
        draw.text((x, int(ph * 0.04) - box[1]), rank, fill=colour, font=font)
        top = int(ph * 0.04) + th
    else:
        arr = np.array(patch)
        face = HERSHEY[int(rng.integers(len(HERSHEY)))]
        scale = cv2.getFontScaleFromHeight(face, max(6, rank_h), 2)
        (tw, th), _ = cv2.getTextSize(rank, face, scale, 2)
        if tw > pw * 0.95:
            scale *= pw * 0.95 / tw
            (tw, th), _ = cv2.getTextSize(rank, face, scale, 2)
        cv2.putText(arr, rank, (int((pw - tw) / 2), int(ph * 0.04) + th), face, scale, colour,
                    int(rng.integers(1, 3)), cv2.LINE_AA)
        patch = Image.fromarray(arr)
        draw = ImageDraw.Draw(patch)
        top = int(ph * 0.04) + th
    if not suit:
        return np.array(patch)
    suit_h = int(ph * rng.uniform(0.25, 0.36))
    sf = suit_font()
    gap = int(ph * 0.05)
    if sf is not None and top + gap + suit_h <= ph:
        font = ImageFont.truetype(sf, size=max(5, suit_h))
        glyph = SUIT_GLYPHS[card[-1]]
        box = draw.textbbox((0, 0), glyph, font=font)
        draw.text(((pw - (box[2] - box[0])) / 2 - box[0], top + gap - box[1]), glyph, fill=colour, font=font)
    return np.array(patch)


INDEX_STYLES = ("stacked", "single", "row", "row_single")


def check_index_styles(styles: tuple[str, ...]) -> None:
    """Raise ``ValueError`` unless ``styles`` names one or more of :data:`INDEX_STYLES`.

    Why a function: ``dataset build`` checks before it writes anything, where a worker would meet a bad style
    only in the middle of a build; :func:`reindexed_face` checks the same way for its other callers."""
    if not styles:
        raise ValueError(f"no index style given; expected some of {INDEX_STYLES}")
    for style in styles:
        if style not in INDEX_STYLES:
            raise ValueError(f"unknown index style {style!r}; expected some of {INDEX_STYLES}")


def _suit_patch(card: str, pw: int, ph: int, paper: np.ndarray, colour: tuple[int, int, int]) -> np.ndarray:
    """A pw x ph RGB patch: the suit sign alone, on paper (the right half of a "row" index)."""
    from PIL import Image, ImageDraw, ImageFont

    patch = Image.new("RGB", (pw, ph), tuple(int(v) for v in paper))
    sf = suit_font()
    if sf is None:
        return np.array(patch)
    draw = ImageDraw.Draw(patch)
    font = ImageFont.truetype(sf, size=max(5, int(ph * 0.95)))
    glyph = SUIT_GLYPHS[card[-1]]
    box = draw.textbbox((0, 0), glyph, font=font)
    draw.text(((pw - (box[2] - box[0])) / 2 - box[0], (ph - (box[3] - box[1])) / 2 - box[1]), glyph,
              fill=colour, font=font)
    return np.array(patch)


def _big_pip(rgb: np.ndarray, card: str, paper: np.ndarray, colour: tuple[int, int, int],
             rng: np.random.Generator) -> None:
    """Paint the card's body as one large suit sign on bare paper, in place.

    Minimalist decks (one held-back design is one) draw every number card as the
    same huge pip and leave the rank to the index alone; a classifier that only
    saw pip layouts reads such a card by what it resembles.
    """
    from PIL import Image, ImageDraw, ImageFont

    sf = suit_font()
    if sf is None:
        return
    h, w = rgb.shape[:2]
    edge = max(1, int(0.015 * min(h, w)))
    rgb[edge:h - edge, edge:w - edge] = paper
    img = Image.fromarray(np.ascontiguousarray(rgb))
    draw = ImageDraw.Draw(img)
    size = int(w * rng.uniform(0.55, 1.0))
    font = ImageFont.truetype(sf, size=max(8, int(size * 1.3)))
    glyph = SUIT_GLYPHS[card[-1]]
    box = draw.textbbox((0, 0), glyph, font=font)
    cx, cy = w * rng.uniform(0.45, 0.55), h * rng.uniform(0.5, 0.68)
    draw.text((cx - (box[2] - box[0]) / 2 - box[0], cy - (box[3] - box[1]) / 2 - box[1]), glyph,
              fill=colour, font=font)
    rgb[:] = np.array(img)


def reindexed_face(art: np.ndarray, card: str, rng: np.random.Generator,
                   styles: tuple[str, ...] = ("stacked",), big_pip: float = 0.0) -> np.ndarray:
    """``art`` with its index corners redrawn (:func:`redraw_index`), the face alone."""
    return redraw_index(art, card, rng, styles, big_pip)[0]


def redraw_index(art: np.ndarray, card: str, rng: np.random.Generator,
                 styles: tuple[str, ...] = ("stacked",), big_pip: float = 0.0
                 ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """``art`` (a French card face, BGR or BGRA as the art module hands out) with its index corners redrawn,
    and where each whole index now lies.

    The regions are 4x2 arrays of (x, y) shares of the art, as
    :func:`companion.synth.scene.index_regions` gives them for a printed deck: one per place the card shows
    its rank with its suit (a stacked index's patch; a line's whole band, rank to suit).  Why: a scene that
    lays this face down must say whether its index is in view, and the corner images cut from the scene must
    be labelled where the index was drawn, not where the family's decks print it; a redrawn index can sit
    top right, in one corner only, or along the top.

    ``styles``: the index layouts to draw one from, evenly:

    - ``stacked``: rank over suit in the top-left and, turned half a turn,
      bottom-right corner (most decks), or top-right and bottom-left (one in five);
    - ``single``: the same, in one corner only;
    - ``row``: the rank in one top corner and the suit sign in the other, on one
      line, and the same turned at the bottom (decks with a wide index band);
    - ``row_single``: that line at the top only (a minimalist deck prints nothing
      at the bottom, so a card lying upside down shows its index bottom-right).

    ``big_pip``: the share of number cards (A-10) whose body becomes one large
    suit sign (:func:`_big_pip`).  The colour is the suit's (red/black, sometimes
    four-colour).  With the defaults the draws are those of the first version, so
    the v6 data can be rebuilt.
    """
    check_index_styles(styles)
    out = art.copy()
    rgb = out[:, :, :3]
    h, w = rgb.shape[:2]
    paper = _paper_colour(rgb)
    pw = int(w * rng.uniform(0.13, 0.2))
    ph = int(h * rng.uniform(0.17, 0.26))
    mx, my = int(w * rng.uniform(0.02, 0.05)), int(h * rng.uniform(0.02, 0.04))
    if rng.random() < 0.15:
        colour = FOUR_COLOURS[card[-1]]
    else:
        colour = RED if card[-1] in RED_SUITS else BLACK
    style = styles[0] if len(styles) == 1 else styles[int(rng.integers(len(styles)))]
    if big_pip > 0 and card[:-1] not in ("J", "Q", "K") and rng.random() < big_pip:
        _big_pip(rgb, card, paper, colour, rng)
    edge = max(1, int(0.015 * min(h, w)))
    cw, chh = int(w * 0.2), int(h * 0.27)

    def cover(cx: int, cy: int) -> None:
        x0, y0 = max(cx, edge), max(cy, edge)
        x1, y1 = min(cx + cw, w - edge), min(cy + chh, h - edge)
        rgb[y0:y1, x0:x1] = paper

    if style in ("stacked", "single"):
        patch = _index_patch(card, pw, ph, paper, colour, rng)
        # cover the printed index (a little wider than the new one, so no old stroke is left)
        right = rng.random() < 0.2
        corners = [(mx, my, patch), (w - mx - pw, h - my - ph, patch[::-1, ::-1])]
        covers = [(0, 0), (w - cw, h - chh)]
        if right:
            corners = [(w - mx - pw, my, patch), (mx, h - my - ph, patch[::-1, ::-1])]
            covers = [(w - cw, 0), (0, h - chh)]
        if style == "single":
            covers = [(0, 0), (w - cw, 0), (0, h - chh), (w - cw, h - chh)]
            corners = corners[:1]
    else:
        # a line: rank (taller than a stacked index's letter) on one side, suit sign on the other
        rh = int(h * rng.uniform(0.1, 0.17))
        rank = _index_patch(card, pw, int(rh / 0.6), paper, colour, rng, suit=False)[:int(rh * 1.12)]
        sh = int(rh * rng.uniform(0.7, 1.0))
        suit = _suit_patch(card, pw, sh, paper, colour)
        flip = rng.random() < 0.2  # suit on the left, rank on the right
        left, right_p = (suit, rank) if flip else (rank, suit)
        corners = [(mx, my, left), (w - mx - pw, my, right_p)]
        if style == "row":
            corners += [(w - mx - pw, h - my - left.shape[0], left[::-1, ::-1]),
                        (mx, h - my - right_p.shape[0], right_p[::-1, ::-1])]
        covers = [(0, 0), (w - cw, 0), (0, h - chh), (w - cw, h - chh)]
    for (cx, cy) in covers:
        cover(cx, cy)
    for x, y, p in corners:
        ph_, pw_ = p.shape[:2]
        rgb[y:y + ph_, x:x + pw_] = p
    out[:, :, :3] = rgb
    if style in ("stacked", "single"):
        boxes = [(x, y, x + p.shape[1], y + p.shape[0]) for x, y, p in corners]
    else:  # a line: rank and suit side by side make one index, at the top (and, "row", turned at the bottom)
        lines = [corners[:2]] + ([corners[2:]] if style == "row" else [])
        boxes = [(min(x for x, _, _ in pair), min(y for _, y, _ in pair),
                  max(x + p.shape[1] for x, _, p in pair), max(y + p.shape[0] for _, y, p in pair))
                 for pair in lines]
    regions = tuple(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64) / (w, h)
                    for x0, y0, x1, y1 in boxes)
    return out, regions

"""Printed things that lie on a real table and look like cards to a detector.

Why: the French photo detectors trained on outline labels boxed paper in the real photos: a
book's page, a spiral notebook, a certificate, a card box, sheets cut by the photo's edge
(session 96).  The generator's own paper was a plain white sheet with a few drawn lines, and its
photographed clutter was wallpaper: neither shows *print*.  This module draws the faces of such
objects (text set in paragraphs, headings, ruled lines, a spiral, a frame and a seal, a bright
box with a big title) and lays them on a scene, at any angle and often running off the frame, so
a detector learns that a pale rectangle with marks on it is not yet a card.

Pure drawing with OpenCV: no fonts or files needed, deterministic for a given ``rng``.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

# (rng, height, width) -> BGR uint8 image (``photos.PhotoPool.patch``): pictures printed on a page
Picture = Callable[[np.random.Generator, int, int], np.ndarray]
# (canvas, quad, strength, offset, blur) -> None: darkens the table under an object
Shadow = Callable[[np.ndarray, np.ndarray, float, np.ndarray, float], None]

# name -> (width range mm, height range mm); real sizes: A5-A4 pages, a notebook, a letter-size
# certificate, a box of cards seen from above or on its side, a business card, a book
KINDS: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "page": ((140.0, 215.0), (200.0, 300.0)),
    "notebook": ((140.0, 210.0), (200.0, 280.0)),
    "certificate": ((270.0, 300.0), (200.0, 220.0)),
    "cardbox": ((60.0, 70.0), (88.0, 100.0)),
    "businesscard": ((85.0, 90.0), (50.0, 55.0)),
    "book": ((120.0, 170.0), (180.0, 240.0)),
}
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
          cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN)
_LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyzeeaaiioonnrrsstt"))


def _words(rng: np.random.Generator, n: int, upper: bool = False) -> str:
    """``n`` random words: the texture of print, not its sense."""
    out = []
    for _ in range(n):
        w = "".join(rng.choice(_LETTERS, int(rng.integers(1, 10))))
        out.append(w.upper() if upper else w)
    return " ".join(out)


def _ink(rng: np.random.Generator, dark: bool = True) -> tuple[float, float, float]:
    if dark:
        g = rng.uniform(10, 70)
        return tuple(float(v) for v in np.clip(g + rng.normal(0, 12, 3), 0, 255))
    return tuple(float(v) for v in rng.uniform(0, 220, 3))


def _text_block(img: np.ndarray, rng: np.random.Generator, x0: int, y0: int, x1: int, y1: int,
                line_px: float, colour: tuple[float, float, float], font: int, script: bool = False) -> None:
    """Fill the rectangle with lines of words, ragged at the right, paragraph breaks now and then."""
    if line_px < 3 or x1 - x0 < 10:
        return
    font = cv2.FONT_HERSHEY_SCRIPT_SIMPLEX if script else font
    scale = line_px / 30.0  # Hershey glyphs are about 22 px high at scale 1, plus leading
    thick = max(1, int(round(scale * 1.6)))
    y = y0 + line_px
    while y < y1:
        if rng.random() < 0.12:  # paragraph break
            y += line_px * 0.7
            continue
        right = x1 if rng.random() < 0.8 else x0 + (x1 - x0) * rng.uniform(0.3, 0.9)
        x = x0 + (line_px * 1.5 if rng.random() < 0.1 else 0)
        while x < right:
            word = _words(rng, 1)
            (tw, _), _ = cv2.getTextSize(word, font, scale, thick)
            if x + tw > right:
                break
            cv2.putText(img, word, (int(x), int(y)), font, scale, colour, thick, cv2.LINE_AA)
            x += tw + line_px * 0.35
        y += line_px


def _title(img: np.ndarray, rng: np.random.Generator, cx: float, y: float, height_px: float,
           colour: tuple[float, float, float], max_w: float) -> None:
    """A centred heading ``height_px`` tall, shrunk to fit ``max_w``."""
    text = _words(rng, int(rng.integers(1, 4)), upper=rng.random() < 0.6)
    font = _FONTS[int(rng.integers(len(_FONTS) - 1))]
    scale = height_px / 22.0
    thick = max(1, int(round(scale * rng.uniform(1.5, 4.0))))
    (tw, _), _ = cv2.getTextSize(text, font, scale, thick)
    if tw > max_w > 0:
        scale *= max_w / tw
        thick = max(1, int(thick * max_w / tw))
        (tw, _), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, (int(cx - tw / 2), int(y)), font, scale, colour, thick, cv2.LINE_AA)


def _picture(img: np.ndarray, rng: np.random.Generator, x0: int, y0: int, x1: int, y1: int,
             picture: Picture | None) -> None:
    """A printed photo or drawing: from ``picture`` when given, else blobs of colour."""
    h, w = y1 - y0, x1 - x0
    if h < 4 or w < 4:
        return
    if picture is not None:
        img[y0:y1, x0:x1] = picture(rng, h, w)
        return
    img[y0:y1, x0:x1] = rng.uniform(120, 250, 3)
    for _ in range(int(rng.integers(2, 7))):
        c = (int(rng.uniform(x0, x1)), int(rng.uniform(y0, y1)))
        ax = (max(1, int(rng.uniform(0.05, 0.4) * w)), max(1, int(rng.uniform(0.05, 0.4) * h)))
        cv2.ellipse(img[y0:y1, x0:x1], (c[0] - x0, c[1] - y0), ax, rng.uniform(0, 180), 0, 360,
                    _ink(rng, dark=False), -1, cv2.LINE_AA)


def printed_face(rng: np.random.Generator, kind: str, h: int, w: int, ppm: float,
                 picture: Picture | None = None) -> np.ndarray:
    """The face of a printed ``kind`` (:data:`KINDS`), ``h`` x ``w`` pixels at ``ppm`` pixels a millimetre.

    Returns BGR uint8.  Raises ``ValueError`` for an unknown kind."""
    if kind not in KINDS:
        raise ValueError(f"unknown printed kind {kind!r}; known: {', '.join(KINDS)}")
    paper = rng.uniform(215, 252) + rng.normal(0, 4, 3)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = np.clip(paper, 0, 255)  # (F128's scenes were drawn before this clip: about 3 % of their
    # sheets had a channel past 255 wrap round to a dark tint)
    font = _FONTS[int(rng.integers(len(_FONTS)))]
    ink = _ink(rng)
    small = KINDS[kind][0][1] < 100  # a box or a card: narrow margins, or its title would not fit
    margin = int(rng.uniform(3, 8) * ppm if small else rng.uniform(8, 25) * ppm)
    line = rng.uniform(3.5, 6.0) * ppm
    if kind == "page":
        y = margin
        if rng.random() < 0.6:
            _title(img, rng, w / 2, margin + line * 2, line * rng.uniform(1.5, 3), ink, w - 2 * margin)
            y += int(line * 3)
        if rng.random() < 0.35:  # a picture across the page
            ph = int(rng.uniform(0.2, 0.45) * h)
            _picture(img, rng, margin, y, w - margin, min(h - margin, y + ph), picture)
            y += ph + int(line)
        cols = 2 if rng.random() < 0.25 else 1
        cw = (w - 2 * margin) / cols
        for c in range(cols):
            x0 = int(margin + c * cw)
            _text_block(img, rng, x0, y, int(x0 + cw - line), h - margin, line, ink, font)
    elif kind == "notebook":
        rule = rng.uniform(6, 9) * ppm
        blue = (float(rng.uniform(170, 230)), float(rng.uniform(150, 200)), float(rng.uniform(100, 160)))
        for k in range(int(rule * 2), h, max(2, int(rule))):
            cv2.line(img, (0, k), (w, k), blue, 1, cv2.LINE_AA)
        spiral_left = rng.random() < 0.5
        mx = int(rng.uniform(25, 35) * ppm)
        cv2.line(img, (mx if spiral_left else w - mx, 0), (mx if spiral_left else w - mx, h), (90, 90, 220), 1)
        if rng.random() < 0.8:
            _text_block(img, rng, mx + int(2 * ppm), int(rule * 2), w - int(10 * ppm), h - int(10 * ppm),
                        rule, _ink(rng, dark=rng.random() < 0.6), font, script=rng.random() < 0.6)
        ring = max(2, int(3 * ppm))
        xr = ring + 1 if spiral_left else w - ring - 2
        for k in range(ring * 2, h - ring, max(3, int(8 * ppm))):  # the spiral: holes and wire
            cv2.circle(img, (xr, k), max(1, ring // 2), (40, 40, 40), -1, cv2.LINE_AA)
            cv2.ellipse(img, (xr, k), (ring, max(1, ring // 2)), 30, 0, 360, (150, 150, 160),
                        max(1, int(ppm * 0.8)), cv2.LINE_AA)
    elif kind == "certificate":
        frame = (int(rng.uniform(20, 150)), int(rng.uniform(20, 150)), int(rng.uniform(20, 150)))
        m = max(2, int(rng.uniform(6, 14) * ppm))
        cv2.rectangle(img, (m, m), (w - m, h - m), frame, max(1, int(ppm * rng.uniform(1, 3))), cv2.LINE_AA)
        cv2.rectangle(img, (m + int(3 * ppm), m + int(3 * ppm)), (w - m - int(3 * ppm), h - m - int(3 * ppm)),
                      frame, 1, cv2.LINE_AA)
        _title(img, rng, w / 2, h * 0.22, line * 3, ink, w - 4 * m)
        _title(img, rng, w / 2, h * 0.42, line * 2, frame, w - 6 * m)
        for k in range(int(rng.integers(2, 5))):
            _title(img, rng, w / 2, h * (0.55 + 0.07 * k), line, ink, w * 0.6)
        seal = (int(w * rng.uniform(0.15, 0.85)), int(h * 0.82))
        cv2.circle(img, seal, max(2, int(rng.uniform(10, 20) * ppm)), frame, -1, cv2.LINE_AA)
    elif kind in ("cardbox", "book"):
        img[:] = np.array(_ink(rng, dark=False), np.float32).astype(np.uint8)
        if rng.random() < 0.5:  # a band or panel of another colour
            y0 = int(rng.uniform(0, 0.6) * h)
            img[y0:y0 + int(rng.uniform(0.1, 0.4) * h)] = np.array(_ink(rng, dark=False), np.uint8)
        if kind == "book" and rng.random() < 0.5:
            _picture(img, rng, margin, int(h * 0.3), w - margin, int(h * 0.75), picture)
        if kind == "cardbox" and rng.random() < 0.6:  # a frame printed round the panel
            f = max(1, int(rng.uniform(2, 5) * ppm))
            cv2.rectangle(img, (f, f), (w - f, h - f), _ink(rng, dark=False), max(1, int(ppm)), cv2.LINE_AA)
        light = float(img[h // 2, w // 2].mean()) < 110
        col = (235.0, 235.0, 235.0) if light else _ink(rng)
        _title(img, rng, w / 2, h * rng.uniform(0.15, 0.3), line * rng.uniform(2, 4), col, w - 2 * margin)
        if kind == "book":
            _title(img, rng, w / 2, h * 0.92, line * 1.5, col, w - 2 * margin)
        elif rng.random() < 0.6:
            _title(img, rng, w / 2, h * rng.uniform(0.55, 0.8), line * rng.uniform(2, 5), _ink(rng, dark=False),
                   w - 2 * margin)
    else:  # businesscard
        m = int(rng.uniform(4, 8) * ppm)
        if rng.random() < 0.5:  # logo
            cv2.circle(img, (m + int(5 * ppm), m + int(5 * ppm)), max(1, int(4 * ppm)), _ink(rng, dark=False), -1)
        _title(img, rng, w / 2, h * 0.45, line * 1.3, ink, w - 2 * m)
        _text_block(img, rng, m, int(h * 0.55), w - m, h - m, line * 0.7, ink, font)
    return img


def draw_printed(canvas: np.ndarray, rng: np.random.Generator, ppm: float, picture: Picture | None = None,
                 kinds: tuple[str, ...] = tuple(KINDS), shadow: Shadow | None = None) -> str:
    """Lay one printed object (a kind from ``kinds``) on ``canvas`` (BGR float32, changed in place).

    ``ppm``: the image's pixels a millimetre near its centre.  The object's centre may lie outside
    the image (a sheet cut by the photo's edge, as the real false boxes were), its angle is any, and
    ``shadow`` (the scene's own, e.g. ``scene._shadow``) lets it cast a soft one.  Returns the kind drawn."""
    H, W = canvas.shape[:2]
    kind = str(rng.choice(list(kinds)))
    (w0, w1), (h0, h1) = KINDS[kind]
    wmm, hmm = rng.uniform(w0, w1), rng.uniform(h0, h1)
    if rng.random() < 0.5:
        wmm, hmm = hmm, wmm
    # draw the face at no more than the image's resolution, at most 900 px a side (cheap)
    res = min(ppm, 900.0 / max(wmm, hmm))
    fw, fh = max(4, int(wmm * res)), max(4, int(hmm * res))
    face = printed_face(rng, kind, fh, fw, res, picture).astype(np.float32)
    cx, cy = rng.uniform(-0.1 * W, 1.1 * W), rng.uniform(-0.1 * H, 1.1 * H)
    angle = rng.uniform(0, 360) if rng.random() < 0.6 else rng.normal(0, 8)
    k = ppm / res
    m = cv2.getRotationMatrix2D((fw / 2, fh / 2), angle, k)
    m[:, 2] += (cx - fw / 2, cy - fh / 2)
    quad = cv2.transform(np.array([[[0, 0], [fw, 0], [fw, fh], [0, fh]]], np.float32), m)[0]
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [W, H])
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 0, [W, H])
    if x1 <= x0 or y1 <= y0:
        return kind
    if shadow is not None:
        shadow(canvas, quad.astype(np.float64), rng.uniform(0.1, 0.4), rng.uniform(-1, 1, 2) * ppm * 2,
            max(0.5, ppm * rng.uniform(0.5, 2.0)))
    m[:, 2] -= (x0, y0)
    size = (int(x1 - x0), int(y1 - y0))
    warped = cv2.warpAffine(face, m, size, flags=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(np.ones((fh, fw), np.float32), m, size, flags=cv2.INTER_LINEAR)[..., None]
    region = canvas[y0:y1, x0:x1]
    region *= 1 - alpha
    region += alpha * warped * rng.uniform(0.85, 1.0)
    return kind

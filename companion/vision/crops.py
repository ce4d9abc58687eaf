"""The classifier's view of a card, shared by dataset building and inference."""

from __future__ import annotations

import cv2
import numpy as np

CROP = 96
# crop_card's margin around a box and, in training, the most its jitter moves a box's side (shares of the box's size)
CROP_PAD = 0.03
CROP_JITTER = 0.06


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of box ``a`` (x1 y1 x2 y2) with each of the boxes ``b`` (N x 4)."""
    x1 = np.maximum(a[0], b[:, 0])
    y1 = np.maximum(a[1], b[:, 1])
    x2 = np.minimum(a[2], b[:, 2])
    y2 = np.minimum(a[3], b[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = lambda z: (z[..., 2] - z[..., 0]) * (z[..., 3] - z[..., 1])  # noqa: E731
    return inter / np.maximum(area(a) + area(b) - inter, 1e-9)


def crop_card(image: np.ndarray, box: tuple[float, float, float, float], size: int = CROP,
              rng: np.random.Generator | None = None) -> np.ndarray | None:
    """The card's box (jittered when ``rng`` is given), padded 3 %, long side up, squashed to size x size.

    A box wider than tall holds a card lying closer to horizontal: turning it a
    quarter turn shows every card within 45 degrees of upright (or upside down,
    which a card's two index corners make equivalent), so the classifier has half
    the rotations to learn.  With ``rng`` (training) the quarter turn's direction
    and a half turn are random, as the table gives either.

    Training crops (with ``rng``, mimicking a detector's box error) and inference
    crops (without) go through this one function so they look alike.
    Returns None when the box is degenerate or outside the image.
    """
    return crop_card_mapped(image, box, size, rng)[0]


def crop_card_mapped(image: np.ndarray, box: tuple[float, float, float, float], size: int = CROP,
                     rng: np.random.Generator | None = None) -> tuple[np.ndarray | None, np.ndarray | None]:
    """:func:`crop_card`'s crop and the 3x3 matrix taking the image's pixels to the crop's (None, None where
    it cuts none): training data that labels what lies where in a crop (which index corner a window shows,
    ``companion.synth.scene_corners``) follows the card's own corners into it."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    if w < 4 or h < 4:
        return None, None
    if rng is not None:
        jx = rng.uniform(-CROP_JITTER, CROP_JITTER, 2) * w
        jy = rng.uniform(-CROP_JITTER, CROP_JITTER, 2) * h
        x1, x2 = x1 + jx[0], x2 + jx[1]
        y1, y2 = y1 + jy[0], y2 + jy[1]
    x1, x2 = x1 - CROP_PAD * w, x2 + CROP_PAD * w
    y1, y2 = y1 - CROP_PAD * h, y2 + CROP_PAD * h
    H, W = image.shape[:2]
    xi1, yi1 = int(max(0, np.floor(x1))), int(max(0, np.floor(y1)))
    xi2, yi2 = int(min(W, np.ceil(x2))), int(min(H, np.ceil(y2)))
    if xi2 - xi1 < 4 or yi2 - yi1 < 4:
        return None, None
    crop = image[yi1:yi2, xi1:xi2]
    w0, h0 = xi2 - xi1, yi2 - yi1
    matrix = np.array([[1.0, 0.0, -xi1], [0.0, 1.0, -yi1], [0.0, 0.0, 1.0]])
    if w0 > h0:
        if rng is not None and rng.random() < 0.5:
            crop = cv2.rotate(crop, cv2.ROTATE_90_COUNTERCLOCKWISE)
            turn = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, w0 - 1.0], [0.0, 0.0, 1.0]])
        else:
            crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
            turn = np.array([[0.0, -1.0, h0 - 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
        matrix = turn @ matrix
    elif rng is not None and rng.random() < 0.5:
        crop = cv2.rotate(crop, cv2.ROTATE_180)
        matrix = np.array([[-1.0, 0.0, w0 - 1.0], [0.0, -1.0, h0 - 1.0], [0.0, 0.0, 1.0]]) @ matrix
    matrix = np.diag([size / crop.shape[1], size / crop.shape[0], 1.0]) @ matrix
    interp = cv2.INTER_AREA if crop.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(crop, (size, size), interpolation=interp), matrix


def edge_grown_boxes(boxes: np.ndarray, shape: tuple[int, ...], short_over_long: float,
                     touch: float = 1.0) -> tuple[np.ndarray, int]:
    """``boxes`` (N x 4) with each box the frame cuts grown past the frame's edge to a card's shape, and the
    margin (pixels, each side) the image must be padded with to hold them all: ``pad_frame(image, margin)`` and
    ``grown + margin`` cut the crops.  A box touching an edge (within ``touch`` pixels) whose side along that
    edge's axis is shorter than a card's short side can be (the other side times ``short_over_long``) is grown
    outward, away from the frame, to that length; a box touching both edges of an axis, or an edge of each axis
    (its other side is no whole side either), or already of a card's shape, is left as it is.  The margin holds each
    grown box with :func:`crop_card`'s margin and training jitter around it (``CROP_PAD + CROP_JITTER`` of its long
    side); it is 0 where no box grows, so a frame with no cut card is read exactly as without growing.  (Growing
    also a box too thick for a card lying across, as a card standing across the edge cut short, read the tune seed
    worse: session 83, fr6613 0.6197 -> 0.6176 with ``edge_crops``.)

    Why: :func:`crop_card` squashes a box to a square, and a box the frame cuts holds part of a card, so its
    crop shows a card of the wrong shape with its index not where a card's lies.  Grown, the crop holds the
    card's visible part where a whole card's would lie and grey where the frame cut it off (session 82:
    French faces cut by the frame's edge, boxed by the detector, were mostly dropped as named weakly)."""
    grown = np.asarray(boxes, dtype=np.float64).reshape(-1, 4).copy()
    height, width = shape[:2]
    for b in grown:
        cut = [(b[0] <= touch, b[2] >= width - touch), (b[1] <= touch, b[3] >= height - touch)]
        for axis, (lo, hi) in enumerate(((0, 2), (1, 3))):
            at_lo, at_hi = cut[axis]
            if at_lo == at_hi or any(cut[1 - axis]):
                continue  # uncut, cut on both sides, or cut across too: no whole side to take the card's size from
            need = (b[5 - hi] - b[3 - hi]) * short_over_long - (b[hi] - b[lo])
            if need <= 0:
                continue
            if at_lo:
                b[lo] -= need
            else:
                b[hi] += need
    # a grown box's crop reaches past its box by crop_card's margin and, in training, its jitter: the padding holds
    # that too, or the crop is clipped on its cut side alone (and the jitter differs between training and reading)
    moved = np.any(grown != np.asarray(boxes, dtype=np.float64).reshape(-1, 4), axis=1)
    if not moved.any():
        return grown, 0
    g = grown[moved]
    slack = (CROP_PAD + CROP_JITTER) * np.maximum(g[:, 2] - g[:, 0], g[:, 3] - g[:, 1])
    reach = np.concatenate([-g[:, 0], -g[:, 1], g[:, 2] - width, g[:, 3] - height]) + np.tile(slack, 4)
    return grown, int(np.ceil(max(0.0, reach.max())))


def pad_frame(image: np.ndarray, margin: int) -> np.ndarray:
    """``image`` inside a grey (114, the detector's letterbox grey) band ``margin`` pixels wide."""
    if margin <= 0:
        return image
    return cv2.copyMakeBorder(image, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=(114, 114, 114))


def edge_grown_frame(image: np.ndarray, boxes: np.ndarray, short_over_long: float) -> tuple[np.ndarray, np.ndarray]:
    """The image and boxes to cut crops from with the boxes the frame cuts grown (:func:`edge_grown_boxes`): the
    image padded as far as the furthest grown box's crop reaches (itself where none grows) and every box moved with it.
    The one place the detector's reading (``edge_crops``) and the training crops (``recrop --edge-grown``) pad."""
    grown, margin = edge_grown_boxes(boxes, image.shape, short_over_long)
    return pad_frame(image, margin), grown + margin


# The index corner: the share of a crop's width and height that holds a card's rank and suit
# when the card lies within about 30 degrees of upright (crop_card turns it long side up).
CORNER = 64
CORNER_SHARE = (0.55, 0.5)
# The corner classifier's class for a window whose own card's index lies under another card: the label the
# training data writes (``companion.synth.scene_corners``) and the name the detector looks for in a model.
HIDDEN = "hidden"


def corner_views(crops_bgr: np.ndarray, size: int = CORNER, offset: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Both index corners of each crop, enlarged: (2N, size, size, 3), the N top-left corners then the N
    bottom-right corners turned a half turn (so each shows its rank and suit upright).

    ``offset`` (x, y, shares of the crop's side) moves both windows that far in
    from their corners, for reading the same index from a slightly different
    window (see ``CardDetector.corner_readings``); training uses none.

    Why a second look: the whole-card classifier learns the pictures and pip layouts of
    the designs it trained on, and on an unseen design (a huge single pip, cartoon
    figures) it reads what the picture resembles.  The index corner is what a player
    reads, and it differs far less between designs than the rest of the card; a
    classifier shown only the corners has nothing else to learn from.
    """
    return np.concatenate([top_left_views(crops_bgr, size, offset),
                           top_left_views(crops_bgr[:, ::-1, ::-1], size, offset)])


def side_views(crops_bgr: np.ndarray, size: int = CORNER) -> np.ndarray:
    """The other two corners of each crop, as they read: (2N, size, size, 3), the N top-right windows as they
    lie, then the N bottom-left ones turned a half turn (so an index printed there stands upright, in the
    view's top right).  Not mirrored, as the suit's side reading is: a mirrored letter is not a letter.

    Why: a deck that prints its rank in the top-right corner alone (the held-out ``kde-oxygen-white``,
    its suit sign top left) shows :func:`corner_views` no rank at all.  The windows are
    :func:`corner_views`'s of the crops mirrored, mirrored back."""
    return np.ascontiguousarray(corner_views(np.ascontiguousarray(crops_bgr[:, :, ::-1]), size)[:, :, ::-1])


def corner_window(height: int, width: int) -> tuple[int, int]:
    """The width and height in pixels of a crop's index-corner window (``CORNER_SHARE`` of its sides): one
    place for the views cut here and for the training data that labels what such a window shows."""
    return int(round(width * CORNER_SHARE[0])), int(round(height * CORNER_SHARE[1]))


def top_left_views(crops_bgr: np.ndarray, size: int = CORNER, offset: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The top-left index corner of each crop, enlarged: (N, size, size, 3), the first half of
    :func:`corner_views` (its second half is this of the crops turned a half turn).  Alone for a card of
    which one corner shows (a strip under another card): the other corner's views are not cut at all."""
    h, w = crops_bgr.shape[1:3]
    cw, ch = corner_window(h, w)
    dx, dy = int(round(w * offset[0])), int(round(h * offset[1]))
    interp = cv2.INTER_AREA if ch > size else cv2.INTER_LINEAR
    return np.stack([cv2.resize(np.ascontiguousarray(v), (size, size), interpolation=interp)
                     for v in crops_bgr[:, dy:dy + ch, dx:dx + cw]])


# The index band: the share of an upright crop's height, its whole width, that holds a card's rank and suit
# wherever the deck prints them along its top (top left stacked, top right, or rank and suit on one line).
BAND = 96
BAND_SHARE = 0.32


def band_window(height: int) -> int:
    """The height in pixels of a crop's index band (``BAND_SHARE`` of it): one place for the views cut here
    and for the training data that labels what a band shows (``companion.synth.scene_corners``)."""
    return int(round(height * BAND_SHARE))


def band_views(crops_bgr: np.ndarray, size: int = BAND) -> np.ndarray:
    """Both index bands of each crop, enlarged: (2N, size, size, 3), the N top bands then the N bottom bands
    turned a half turn (so an index printed along either end stands upright).

    Why a band beside the corners: the corner window holds the crop's top-left 55 % x 50 %, where most decks
    print rank over suit.  The held-out decks that read worst print them elsewhere: ``tango_nuevo`` the rank
    top left and the suit sign top right on one line, ``kde-oxygen-white`` the suit top left and the rank top
    right.  No corner window shows both; the band shows both side by side, at the crop's full width."""
    h = crops_bgr.shape[1]
    bh = band_window(h)
    views = np.concatenate([crops_bgr[:, :bh], crops_bgr[:, ::-1, ::-1][:, :bh]])
    interp = cv2.INTER_AREA if bh > size else cv2.INTER_LINEAR
    return np.stack([cv2.resize(np.ascontiguousarray(v), (size, size), interpolation=interp) for v in views])


def side_pairs(quad: np.ndarray) -> tuple[float, float]:
    """A projected card's two side lengths, each pair of opposite sides averaged (a projected card is no
    rectangle): ``quad[0]``-``quad[1]`` with ``quad[3]``-``quad[2]``, then ``quad[0]``-``quad[3]`` with
    ``quad[1]``-``quad[2]``.  One measure for the upright warp of training crops and the evaluation's card sizes."""
    first = float(np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    second = float(np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    return first, second


def upright_crop_mapped(image: np.ndarray, quad: np.ndarray, size: int = CROP, turn: bool = False
                        ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The card whose art corners are ``quad`` (top-left, top-right, bottom-right, bottom-left in the image)
    turned upright as :func:`rectified_crop` turns a card whose outline it found (:func:`_warp_upright`),
    ``turn`` a half turn more, and the 3x3 matrix taking image pixels to the crop's; (None, None) for a card
    under 4 pixels a side.  For training data: what a window of a rectified crop shows, labelled from the
    scene's truth."""
    quad = np.float32(quad)
    if turn:
        quad = quad[[2, 3, 0, 1]]
    short, long_ = side_pairs(quad)
    return _warp_upright(image, quad, short, long_, size)


def _warp_upright(image: np.ndarray, pts: np.ndarray, short: float, long_: float, size: int
                  ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The card whose corners are ``pts`` (float32, clockwise on screen from the top-left end of a short side)
    warped upright at its own size (``short`` x ``long_`` pixels) padded 3 %, then squashed to size x size, and
    the 3x3 matrix taking image pixels to the result; (None, None) when it is under 4 pixels a side.  One warp
    for :func:`rectified_crop` (inference) and :func:`upright_crop_mapped` (training data)."""
    pad = 0.03
    px, py = pad * short, pad * long_
    out_w, out_h = int(round(short + 2 * px)), int(round(long_ + 2 * py))
    if out_w < 4 or out_h < 4:
        return None, None
    dst = np.array([[px, py], [px + short, py], [px + short, py + long_], [px, py + long_]], np.float32)
    matrix = cv2.getPerspectiveTransform(pts, dst)
    warped = cv2.warpPerspective(image, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if warped.shape[0] > size else cv2.INTER_LINEAR
    scale = np.diag([size / warped.shape[1], size / warped.shape[0], 1.0])
    return cv2.resize(warped, (size, size), interpolation=interp), scale @ matrix.astype(np.float64)


# A playing card's short side over its long side (poker 63 x 88 mm, bridge 57 x 89 mm, Spanish 61 x 95 mm).
CARD_ASPECT = (0.55, 0.85)
QUAD_SIDE = 72  # card_quad works on the box's region shrunk to at most this many pixels a side
# How card_quad tells a card from its surroundings, in the order tried.  "edges" (the card's straight sides,
# :func:`_edge_quad`) is tried last since session 35: on fresh rendered table sessions (seeds 228-235, 480
# hands) hands scored right 464 -> 467 with nobody answering, 471 -> 473 answered, logged exactly 407 -> 418,
# no seed losing more than one hand; real photos 472 -> 471 of 527 (bench/evaluation-history.md, sessions
# 31-35).  ``--quad paper,table`` of the evaluations (a detector's ``quad_methods``) measures the code without it.
QUAD_METHODS = ("paper", "table", "edges")


def card_quad(image: np.ndarray, box: tuple[float, float, float, float], pad: float = 0.08,
              methods: tuple[str, ...] | None = None) -> tuple[tuple[float, float], tuple[float, float], float] | None:
    """The card inside a detector box as a rotated rectangle (OpenCV's ``minAreaRect``: centre, size,
    angle, in image pixels), or None when it cannot be told from the table around it.

    How: first by the card's paper (:func:`_paper_quad`): the light, colourless
    pixels in the box, which a neighbour's coloured back does not share (the vira
    touches the deck).  Where there is no card-shaped piece of paper (a back, a
    card on a white cloth), by the table's colour (:func:`_table_quad`): the card
    is what differs from the ring just outside the box, which takes in a
    touching neighbour too.  Measured on the rendered table sessions (face-up
    detections of both seeds matched to the truth, every 10th frame): the table's
    colour alone found a rectangle for 38-58 % of the cards of each held-out
    design, with the paper 75-94 %; the one-pip deck's vira, read from both
    views (``rectify="blend"``), was right 0.69 / 0.59 of the time with the
    table's colour alone, 0.78 / 0.78 trying it first, 0.82 / 0.80 trying the
    paper first (the other designs within 0.002 either way).  With "edges"
    in ``QUAD_METHODS`` (the default), last, where neither gives a card (two touching cards'
    paper runs together; a big pip splits it), by the card's straight sides
    (:func:`_edge_quad`).  ``methods`` sets the finders and their order for one caller (the photo settings
    try the sides first, ``PHOTO_QUAD_METHODS`` in :mod:`companion.vision.settings`); None: ``QUAD_METHODS``.
    """
    region = _quad_region(image, box, pad)
    if region is None:
        return None
    quad = None
    for method in QUAD_METHODS if methods is None else methods:
        quad = _QUAD_FINDERS[method](region)
        if quad is not None:
            break
    if quad is None:
        return None
    (cx, cy), (rw, rh), angle = quad
    # back to the image's pixels (the two scales differ by rounding only)
    scale = (region.fx + region.fy) / 2.0
    return (cx / region.fx + region.x0, cy / region.fy + region.y0), (rw / scale, rh / scale), angle


class _QuadRegion:
    """The box's surroundings on a small copy (at most QUAD_SIDE pixels a side: the outline needs no
    detail, and a card filling a 720p frame would otherwise cost tens of milliseconds), in Lab, with
    the detector's box in its pixels and a mask of what lies inside that box (a little slack: boxes clip
    a card's corner; a neighbour outside it is not this card)."""

    def __init__(self, lab: np.ndarray, x0: int, y0: int, fx: float, fy: float,
                 box: tuple[float, float, float, float]) -> None:
        self.lab, self.x0, self.y0, self.fx, self.fy = lab, x0, y0, fx, fy
        self.box = box
        bx1, by1, bx2, by2 = box
        self.bw, self.bh = bx2 - bx1, by2 - by1
        self.inside = np.zeros(lab.shape[:2], np.uint8)
        self.inside[int(max(0, by1 - 0.04 * self.bh)):int(by2 + 0.04 * self.bh) + 1,
                    int(max(0, bx1 - 0.04 * self.bw)):int(bx2 + 0.04 * self.bw) + 1] = 1


def _quad_region(image: np.ndarray, box: tuple[float, float, float, float], pad: float) -> _QuadRegion | None:
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    if w < 12 or h < 12:
        return None
    H, W = image.shape[:2]
    X1, Y1 = int(max(0, np.floor(x1 - pad * w))), int(max(0, np.floor(y1 - pad * h)))
    X2, Y2 = int(min(W, np.ceil(x2 + pad * w))), int(min(H, np.ceil(y2 + pad * h)))
    region = image[Y1:Y2, X1:X2]
    if region.shape[0] < 12 or region.shape[1] < 12:
        return None
    f = min(1.0, QUAD_SIDE / max(region.shape[:2]))
    if f < 1.0:
        region = cv2.resize(region, (max(12, round(region.shape[1] * f)), max(12, round(region.shape[0] * f))),
                            interpolation=cv2.INTER_AREA)
    fx, fy = region.shape[1] / (X2 - X1), region.shape[0] / (Y2 - Y1)
    lab = cv2.cvtColor(region, cv2.COLOR_BGR2LAB).astype(np.float32)
    return _QuadRegion(lab, X1, Y1, fx, fy, ((x1 - X1) * fx, (y1 - Y1) * fy, (x2 - X1) * fx, (y2 - Y1) * fy))


def _table_quad(r: _QuadRegion):
    """The card as what differs from the table's colour (the median of a ring just outside the box) more
    than the ring itself varies; its rectangle must fill the detector's box the way a card does (its own
    bounding box close to the detector's, a card's aspect ratio).  A card half under another, or on a
    table of its own colour, gives none."""
    lab = r.lab
    ring = np.concatenate([lab[:2].reshape(-1, 3), lab[-2:].reshape(-1, 3), lab[:, :2].reshape(-1, 3),
                           lab[:, -2:].reshape(-1, 3)])
    table = np.median(ring, axis=0)
    dist = np.linalg.norm(lab - table, axis=2)
    # farther from the table's colour than the table itself varies (wood grain, cloth, light; the
    # ring's median: a neighbouring card may cross part of it)
    spread = float(np.median(np.linalg.norm(ring - table, axis=1)))
    mask = (dist > min(max(3.0 * spread + 10.0, 20.0), 60.0)).astype(np.uint8) & r.inside
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    # every sizeable piece: a pip the colour of the table splits a card's paper in two
    keep = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 0.03 * r.bw * r.bh]
    if not keep:
        return None
    quad = _card_rectangle(_pieces(labels, n, keep), r, min_area=0.4, min_fill=0.6)
    if quad is None or not _fills_box(cv2.boxPoints(quad), r):
        return None
    return quad


# How far (a share of the detector's box on each side) a rectangle's own upright bounding box may lie from
# the box for the table's colour and the card's sides to be believed: neither tells a card from a piece of it.
BOX_SLACK = 0.12


def _fills_box(corners: np.ndarray, r: _QuadRegion) -> bool:
    """Whether the rectangle with these four corners has, as its own bounding box, the detector's box give
    or take ``BOX_SLACK`` on each side."""
    rx1, ry1 = corners.min(axis=0)
    rx2, ry2 = corners.max(axis=0)
    bx1, by1, bx2, by2 = r.box
    return (abs(rx1 - bx1) <= BOX_SLACK * r.bw and abs(rx2 - bx2) <= BOX_SLACK * r.bw
            and abs(ry1 - by1) <= BOX_SLACK * r.bh and abs(ry2 - by2) <= BOX_SLACK * r.bh)


# The card's paper: at least this share of the box's brightest pixels' lightness (Lab L, 95th
# percentile), and at most this far from grey (Lab chroma).  Chosen by eye on the rendered table
# sessions' viras beside the deck (white and cream papers, warm and cold light).
PAPER_LIGHT = 0.8
PAPER_CHROMA = 22.0


def _paper(lab: np.ndarray, top: float) -> np.ndarray:
    """Which pixels of ``lab`` (float Lab) are a card's paper, ``top`` the lightness its brightest
    pixels reach: light (``PAPER_LIGHT`` of it, and above 110) and nearly grey (``PAPER_CHROMA``)."""
    L = lab[..., 0]
    chroma = np.hypot(lab[..., 1] - 128.0, lab[..., 2] - 128.0)
    return (L > PAPER_LIGHT * top) & (L > 110) & (chroma < PAPER_CHROMA)


def _paper_in(image: np.ndarray, box: tuple[float, float, float, float]) -> tuple[np.ndarray, int, int] | None:
    """Which pixels of ``box`` (clipped to the image) look like a card's paper: light against the region's own
    brightest pixels, and nearly grey (``PAPER_LIGHT``, ``PAPER_CHROMA``); with the region's top-left corner
    in the image.  None for an empty box."""
    H, W = image.shape[:2]
    x1, y1 = int(max(0, round(box[0]))), int(max(0, round(box[1])))
    x2, y2 = int(min(W, round(box[2]))), int(min(H, round(box[3])))
    if x2 <= x1 or y2 <= y1:
        return None
    lab = cv2.cvtColor(image[y1:y2, x1:x2], cv2.COLOR_BGR2LAB).astype(np.float32)
    return _paper(lab, float(np.percentile(lab[..., 0], 95))), x1, y1


def paper_share(image: np.ndarray, box: tuple[float, float, float, float]) -> float:
    """The share of ``box`` (clipped to the image) that looks like a card's paper (:func:`_paper_in`); 0 for
    an empty box."""
    found = _paper_in(image, box)
    return 0.0 if found is None else float(found[0].mean())


def paper_box(image: np.ndarray, box: tuple[float, float, float, float], share: float = 0.25
              ) -> tuple[float, float, float, float] | None:
    """``box`` shrunk to the card paper it holds: its first and last rows and columns in which at least
    ``share`` of the pixels look like paper (as :func:`paper_share` tells them).  None when no row or
    column is that much paper."""
    found = _paper_in(image, box)
    if found is None or min(found[0].shape) < 2:
        return None
    mask, x1, y1 = found
    rows = np.flatnonzero(mask.mean(axis=1) >= share)
    cols = np.flatnonzero(mask.mean(axis=0) >= share)
    if not len(rows) or not len(cols):
        return None
    return (float(x1 + cols[0]), float(y1 + rows[0]), float(x1 + cols[-1] + 1), float(y1 + rows[-1] + 1))


def paper_reach(image: np.ndarray, box: tuple[float, float, float, float], share: float = 0.25,
                reach: float = 1.0) -> tuple[float, float, float, float] | None:
    """``box`` grown sideways over the card paper that goes on past it: on each side, the columns next to
    it (over its rows) in which at least ``share`` of the pixels look like paper, one after another, at most
    ``reach`` times its width out.  None when it grows by no more than 2 pixels on either side.

    Why: the detector's box around two overlapping cards often stops short of the covered one's far edge,
    and with it of the index corner a row's strip is read by (real photos: a nine half under another,
    boxed with it up to the middle of its visible part)."""
    x1, y1, x2, y2 = box
    w = x2 - x1
    if w <= 0:
        return None
    found = _paper_in(image, (max(0.0, x1 - reach * w), y1, min(float(image.shape[1]), x2 + reach * w), y2))
    if found is None:
        return None
    mask, left, _ = found
    cols = mask.mean(axis=0) >= share
    last = len(cols) - 1
    a = min(max(int(round(x1)) - left, 0), last)
    b = min(max(int(round(x2)) - left - 1, 0), last)
    while a > 0 and cols[a - 1]:
        a -= 1
    while b < last and cols[b + 1]:
        b += 1
    grown = (float(left + a), y1, float(left + b + 1), y2)
    return grown if grown[0] < x1 - 2 or grown[2] > x2 + 2 else None


def _paper_quad(r: _QuadRegion):
    """The card as its paper: the light, nearly colourless pixels inside the box.  The biggest such
    piece first (a neighbour's pale patch is a separate piece), then every sizeable piece (a big pip
    splits the paper); the rectangle must have a card's aspect and be mostly paper.  Its size is not
    held to the detector's box, which often takes in part of the neighbour."""
    top = float(np.percentile(r.lab[..., 0][r.inside > 0], 95))
    mask = _paper(r.lab, top).astype(np.uint8) & r.inside
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n < 2:
        return None
    order = sorted(range(1, n), key=lambda i: -stats[i, cv2.CC_STAT_AREA])
    for keep in ([order[0]], [i for i in order if stats[i, cv2.CC_STAT_AREA] >= 0.03 * r.bw * r.bh]):
        if not keep:
            continue
        quad = _card_rectangle(_pieces(labels, n, keep), r, min_area=0.3, min_fill=0.45)
        if quad is not None:
            return quad
    return None


def _pieces(labels: np.ndarray, n: int, keep: list[int]) -> np.ndarray:
    """A mask (uint8, 1 on them) of the connected pieces ``keep`` of ``labels`` (``n`` labels), by one look-up
    per pixel (``np.isin`` sorted the labels each call: half a millisecond a card)."""
    chosen = np.zeros(n, np.uint8)
    chosen[keep] = 1
    return chosen[labels]


def _card_rectangle(pieces: np.ndarray, r: _QuadRegion, min_area: float, min_fill: float):
    """The minimum-area rectangle around the pieces' convex hull, if it looks like a card: not tiny, at
    least ``min_area`` of the box, a card's aspect, and at least ``min_fill`` of it covered by the pieces
    (a rectangle spanning two cards' pieces is mostly table)."""
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(cv2.convexHull(cv2.findNonZero(pieces)))
    if min(rw, rh) < 6 or rw * rh < min_area * r.bw * r.bh:
        return None
    if not CARD_ASPECT[0] <= min(rw, rh) / max(rw, rh) <= CARD_ASPECT[1]:
        return None
    rect_mask = np.zeros_like(pieces)
    cv2.fillConvexPoly(rect_mask, cv2.boxPoints(((cx, cy), (rw, rh), angle)).astype(np.int32), 1)
    if float((pieces & rect_mask).sum()) < min_fill * float(rect_mask.sum()):
        return None
    return (cx, cy), (rw, rh), angle


# The card's straight sides: where the region's lightness (Lab L, 3x3 Sobel) changes by more than this ...
EDGE_STRENGTH = 40.0
# ... along a rectangle's four sides for this share of their length (a pixel either way) is a card's
# outline.  Measured on the rendered table (session 32): cards' own outlines lie on edges for 0.9 and more of
# their length, 0.75 with one side hidden; the rectangle that ran along a vira's lower side, across the
# dealer's fingers and over the deck, 0.56.
EDGE_COVER = 0.7
EDGE_ASPECT = (0.595, 0.805)  # short side over long side: a card's 0.7, give or take 15 %
EDGE_CANDIDATES = 6  # the strongest columns and rows tried as sides
# A rectangle whose two parallel sides both run on past the same end (from ``EDGE_GAP`` pixels beyond it, for
# ``EDGE_RUN`` of the side's length, at ``EDGE_COVER``) is part of something longer: session 33's seed 18, a ghost
# box over half a sideways jack took the edge of the jack's picture for a side while the card's own long sides
# ran on (written in session 34, measured in session 35 with the sides as the default finder).
EDGE_GAP = 2
EDGE_RUN = 0.15


def _edge_angle(gx: np.ndarray, gy: np.ndarray, strong: np.ndarray) -> float | None:
    """The direction (degrees, 0-90) most of the strong edges cross: a card's four sides share it, folded to
    a quarter turn.  None where there are too few edges to tell."""
    if int(strong.sum()) < 12:
        return None
    # bins of 2 degrees centred on 0, 2, ... 88 (an upright card's edges fall in the middle of bin 0)
    theta = (np.degrees(np.arctan2(gy[strong], gx[strong])) + 1.0) % 90.0
    hist, _ = np.histogram(theta, bins=45, range=(0.0, 90.0), weights=np.hypot(gx[strong], gy[strong]))
    hist = hist + 0.5 * (np.roll(hist, 1) + np.roll(hist, -1))  # the fold makes the histogram circular
    i = int(np.argmax(hist))
    before, here, after = hist[i - 1], hist[i], hist[(i + 1) % len(hist)]
    bend = before - 2.0 * here + after
    shift = 0.5 * (before - after) / bend if bend < 0 else 0.0
    return float(((i + shift) * 2.0) % 90.0)


def _strongest(profile: np.ndarray, k: int) -> list[int]:
    """Up to ``k`` positions where ``profile`` peaks, strongest first, no two within 3 of each other (one side
    blurred over a few lines is one candidate)."""
    picked: list[int] = []
    for i in np.argsort(-profile, kind="stable"):
        if profile[i] <= 0 or len(picked) == k:
            break
        if all(abs(int(i) - j) > 3 for j in picked):
            picked.append(int(i))
    return picked


def _edge_quad(r: _QuadRegion):
    """The card as the rectangle its straight sides make, where neither its paper nor the table's colour
    gives it (two touching cards' paper is one piece; a big pip splits a card's paper).

    The region is turned so the direction most strong edges run in (:func:`_edge_angle`) is upright; the
    columns and rows where the strong edges add up to most are candidate sides; of the rectangles four of them
    make with a card's shape (``EDGE_ASPECT``) whose own bounding box is the detector's box (``BOX_SLACK``:
    a rectangle inside a box that clips the card, with a pip's straight edge for a side, is refused), the
    one whose sides lie on strong edges for the largest share of their length, if that share is at least
    ``EDGE_COVER`` (a rectangle across fingers and the deck's back is refused) and two of its parallel sides
    do not both run on past one end (:func:`_runs_on`: a piece of a longer shape, a face card's picture frame)."""
    L = np.ascontiguousarray(r.lab[..., 0])
    gx, gy = cv2.Sobel(L, cv2.CV_32F, 1, 0), cv2.Sobel(L, cv2.CV_32F, 0, 1)
    angle = _edge_angle(gx, gy, (np.hypot(gx, gy) > EDGE_STRENGTH) & (r.inside > 0))
    if angle is None:
        return None
    h, w = L.shape
    side = int(np.ceil(np.hypot(h, w))) + 2
    turn = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), angle, 1.0)
    turn[:, 2] += ((side - w) // 2, (side - h) // 2)  # whole pixels: an upright card's edges stay sharp
    flat = cv2.warpAffine(L, turn, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    valid = cv2.warpAffine(np.ones_like(L, np.uint8), turn, (side, side), flags=cv2.INTER_NEAREST)
    valid = cv2.erode(valid, np.ones((5, 5), np.uint8)) > 0  # no edges where the turned region ends
    gx, gy = cv2.Sobel(flat, cv2.CV_32F, 1, 0), cv2.Sobel(flat, cv2.CV_32F, 0, 1)
    upright = (np.abs(gx) > EDGE_STRENGTH) & (np.abs(gx) > np.abs(gy)) & valid  # on a vertical side
    level = (np.abs(gy) > EDGE_STRENGTH) & (np.abs(gy) >= np.abs(gx)) & valid  # on a horizontal side
    # a pixel either way across the side
    upright_near = cv2.dilate(upright.astype(np.uint8), np.ones((1, 3), np.uint8)) > 0
    level_near = cv2.dilate(level.astype(np.uint8), np.ones((3, 1), np.uint8)) > 0
    # where the edge is strongest, not where it is merely strong (a blurred side is strong on 3-4 lines)
    cols = _strongest((np.abs(gx) * upright).sum(axis=0), EDGE_CANDIDATES)
    rows = _strongest((np.abs(gy) * level).sum(axis=1), EDGE_CANDIDATES)
    back = cv2.invertAffineTransform(turn)
    sides = _SideSums(upright_near, level_near)
    best, best_cover = None, EDGE_COVER - 1e-6  # the first rectangle at EDGE_COVER, then only better ones
    for x1, y1, x2, y2, cover in sides.rectangles(cols, rows, best_cover):
        if cover <= best_cover or _runs_on(sides, x1, y1, x2, y2):
            continue
        corners = cv2.transform(np.array([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]]], np.float32), back)[0]
        if _fills_box(corners, r):
            best, best_cover = corners, cover
    return None if best is None else cv2.minAreaRect(best)


class _SideSums:
    """How many pixels of a column of ``upright`` (on a vertical side) or of a row of ``level`` (on a horizontal
    side) lie on an edge between two points, in two look-ups.

    Why: :func:`_edge_quad` tries up to 225 rectangles a card, and summing each one's four sides pixel by pixel
    cost it most of its time (session 44: the rectangles are now counted in one pass of arrays).  The counts are
    the sums', exactly (tests/vision/test_rectify.py)."""

    def __init__(self, upright: np.ndarray, level: np.ndarray) -> None:
        h, w = upright.shape
        self.h, self.w = h, w
        self._down = np.zeros((h + 1, w), np.int64)  # [y, x]: upright's pixels above row y in column x
        np.cumsum(upright, axis=0, out=self._down[1:])
        self._across = np.zeros((h, w + 1), np.int64)  # [y, x]: level's pixels left of column x in row y
        np.cumsum(level, axis=1, out=self._across[:, 1:])

    def rectangles(self, cols: list[int], rows: list[int], at_least: float) -> list[tuple[int, int, int, int, float]]:
        """The upright rectangles two of ``cols`` and two of ``rows`` make with a card's shape (``EDGE_ASPECT``,
        sides of 6 pixels or more), as (x1, y1, x2, y2, cover), whose sides lie on edges for more than
        ``at_least`` of their length (a pixel beyond each end counted: ``cover``); in the order of the column
        pairs, then the row pairs, each pair as it comes in ``cols`` / ``rows`` (the first of equals wins)."""
        xs = [(a, b) for a in cols for b in cols if a < b]
        ys = [(a, b) for a in rows for b in rows if a < b]
        if not xs or not ys:
            return []
        xa, ya = np.array(xs, np.int64), np.array(ys, np.int64)
        x1, x2 = np.repeat(xa[:, 0], len(ya)), np.repeat(xa[:, 1], len(ya))
        y1, y2 = np.tile(ya[:, 0], len(xa)), np.tile(ya[:, 1], len(xa))
        cw, ch = x2 - x1, y2 - y1
        short, long_ = np.minimum(cw, ch), np.maximum(cw, ch)
        aspect = short / long_
        covered = (self._down[y2 + 1, x1] - self._down[y1, x1] + self._down[y2 + 1, x2] - self._down[y1, x2]
                   + self._across[y1, x2 + 1] - self._across[y1, x1] + self._across[y2, x2 + 1] - self._across[y2, x1])
        cover = covered / (2 * (cw + ch + 2))
        keep = (short >= 6) & (aspect >= EDGE_ASPECT[0]) & (aspect <= EDGE_ASPECT[1]) & (cover > at_least)
        return [(int(x1[i]), int(y1[i]), int(x2[i]), int(y2[i]), float(cover[i])) for i in np.flatnonzero(keep)]

    def down(self, x: int, start: int, stop: int) -> tuple[int, int]:
        """Edge pixels of ``upright``'s column ``x`` in rows ``start:stop`` (clipped as a slice is), and how many
        rows that is."""
        a, b = min(max(start, 0), self.h), min(max(stop, 0), self.h)
        return (int(self._down[b, x] - self._down[a, x]), b - a) if b > a else (0, 0)

    def across(self, y: int, start: int, stop: int) -> tuple[int, int]:
        """Edge pixels of ``level``'s row ``y`` in columns ``start:stop`` (clipped as a slice is), and how many
        columns that is."""
        a, b = min(max(start, 0), self.w), min(max(stop, 0), self.w)
        return (int(self._across[y, b] - self._across[y, a]), b - a) if b > a else (0, 0)


def _runs_on(sides: _SideSums, x1: int, y1: int, x2: int, y2: int) -> bool:
    """Whether both sides of the upright rectangle (x1, y1)-(x2, y2) that meet one of its ends go on past it
    (``EDGE_GAP``, ``EDGE_RUN``, ``EDGE_COVER``): the rectangle is cut from a longer shape, not a card; one side
    alone may go on where a neighbour's side lies in line with it."""
    ex, ey = max(3, round(EDGE_RUN * (x2 - x1))), max(3, round(EDGE_RUN * (y2 - y1)))
    before_x = (max(0, x1 - EDGE_GAP - ex), max(0, x1 - EDGE_GAP))
    after_x = (x2 + EDGE_GAP + 1, x2 + EDGE_GAP + 1 + ex)
    before_y = (max(0, y1 - EDGE_GAP - ey), max(0, y1 - EDGE_GAP))
    after_y = (y2 + EDGE_GAP + 1, y2 + EDGE_GAP + 1 + ey)
    ends = ((sides.across(y1, *before_x), sides.across(y2, *before_x)),
            (sides.across(y1, *after_x), sides.across(y2, *after_x)),
            (sides.down(x1, *before_y), sides.down(x2, *before_y)),
            (sides.down(x1, *after_y), sides.down(x2, *after_y)))
    return any(_on_edge(*a) and _on_edge(*b) for a, b in ends)


def _on_edge(count: int, length: int) -> bool:
    """Whether a run of ``length`` pixels beyond a side's end, ``count`` of them on a strong edge, lies on the
    edge (``EDGE_COVER`` of it)."""
    return length >= 2 and count / length >= EDGE_COVER


_QUAD_FINDERS = {"paper": _paper_quad, "table": _table_quad, "edges": _edge_quad}


def quad_methods(names: str | tuple[str, ...]) -> tuple[str, ...]:
    """``names`` (``"edges,paper,table"`` or a tuple) as a tuple of outline finders for :func:`card_quad`.
    Raises ValueError for a name it does not know, or none."""
    methods = tuple(n.strip() for n in names.split(",")) if isinstance(names, str) else tuple(names)
    unknown = [n for n in methods if n not in _QUAD_FINDERS]
    if unknown or not methods:
        raise ValueError(f"unknown outline finder {unknown or names!r}: choose from {', '.join(_QUAD_FINDERS)}")
    return methods


def rectified_crop(image: np.ndarray, box: tuple[float, float, float, float], size: int = CROP,
                   methods: tuple[str, ...] | None = None,
                   quad: tuple[tuple[float, float], tuple[float, float], float] | None = None) -> np.ndarray | None:
    """The card in ``box`` turned upright (long side up), padded 3 %, squashed to size x size; None when
    :func:`card_quad` finds no card rectangle (the caller then keeps :func:`crop_card`; ``methods`` as there).
    ``quad``: the card's outline found already (the outline model's, :mod:`companion.vision.outline_model`),
    used in place of :func:`card_quad`'s.

    Why: a card lying 20-45 degrees off the frame's axes fills its box crop
    askew, and the box's corner shows half its index, tilted, beside the table.
    The corner classifier reads upright indices best (measured on the held-back
    ``tango_nuevo`` deck: its corners read 85 % right flat and upright, far
    fewer on the table's tilted cards).  Upright here means up to a half turn:
    the two index corners make both ways up alike.
    """
    if quad is None:
        quad = card_quad(image, box, methods=methods)
    if quad is None:
        return None
    (cx, cy), (rw, rh), angle = quad
    pts = cv2.boxPoints(((cx, cy), (rw, rh), angle)).astype(np.float32)
    # clockwise on screen like the destination (the other winding would mirror the card) ...
    x, y = pts[:, 0], pts[:, 1]
    if float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)) < 0:
        pts = pts[::-1].copy()
    # ... starting with a short side, so the long side maps to the height
    d01 = float(np.linalg.norm(pts[0] - pts[1]))
    d12 = float(np.linalg.norm(pts[1] - pts[2]))
    if d01 > d12:
        pts = np.roll(pts, -1, axis=0)
    short, long_ = min(d01, d12), max(d01, d12)
    # pts[0]->pts[1] is a short side; it goes to the top edge, keeping the winding
    return _warp_upright(image, pts, short, long_, size)[0]

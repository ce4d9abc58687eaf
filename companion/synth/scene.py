"""Compose a camera image of cards lying on a table, with exact ground truth.

Geometry lives in *table millimetres*: every card is placed by its centre,
rotation and z-order on the table plane; a :class:`Camera` maps that plane to
the image with a homography (overhead when ``tilt`` is 0, oblique otherwise).
Each card is warped straight from its art into the image with one homography,
so the labels are the projected card corners themselves, and visibility comes
from an id-map drawn in z-order: what the labels say is what was drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.synth.art import Design, card_image
from companion.synth.backgrounds import table_texture
from companion.synth.index_corners import FAMILY_CORNERS, corner_region, design_corners, design_index_regions
from companion.synth.printed import draw_printed

# (rng, height, width) -> BGR uint8 image: a table surface or an object's face
Surface = Callable[[np.random.Generator, int, int], np.ndarray]
CARD_HEIGHT_MM = {"french": 88.0, "spanish": 95.0}


def index_regions(family: str) -> tuple[np.ndarray, np.ndarray]:
    """A card's two index regions as 4x2 arrays of (x, y) shares of its art: the top-left one, and the
    bottom-right one (the same turned a half turn): where most decks of the family print their index.  One
    place for the scene's ``index_visible`` figure and for the training data that follows the regions into
    a crop (``companion.synth.scene_corners``); a deck that prints it elsewhere says so
    (:func:`companion.synth.index_corners.design_index_regions`)."""
    top_left, bottom_right = (corner_region(family, c) for c in FAMILY_CORNERS)
    return top_left, bottom_right


@dataclass
class Placement:
    """One card on the table.  ``card`` is TABLE-LOG notation or "back"."""

    card: str
    center: tuple[float, float]  # table mm
    angle: float = 0.0  # degrees, anticlockwise in table coordinates
    scale: float = 1.0  # 1.0 = standard card size of the family
    z: int = 0  # higher is on top
    design: Design | None = None  # None: the scene's design (face) or back design (back)
    art: np.ndarray | None = None  # BGRA picture to draw instead of the design's (see build.mixed_face)
    index_regions: tuple[np.ndarray, ...] | None = None  # where ``art`` prints its index (None: the family's)


@dataclass
class Camera:
    """Pinhole-like view of the table plane.

    ``view_mm``: width of table seen across the bottom (near) edge of the image;
    ``tilt`` in [0, 0.45]: how much the far edge shrinks (0 = overhead);
    ``roll``: image rotation in degrees; ``center``: table point at the image centre;
    ``jitter``: random corner displacement as a fraction of the image size.
    """

    width: int = 640
    height: int = 480
    view_mm: float = 700.0
    tilt: float = 0.0
    roll: float = 0.0
    center: tuple[float, float] = (0.0, 0.0)
    jitter: tuple[tuple[float, float], ...] = ()

    def homography(self) -> np.ndarray:
        """3x3 matrix from table mm to image pixels."""
        w, h = self.width, self.height
        vw = self.view_mm
        vh = vw * h / w * (1.0 + 1.2 * self.tilt)  # oblique views see deeper into the table
        cx, cy = self.center
        th = np.deg2rad(self.roll)
        rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
        src_local = np.array([[-vw / 2, -vh / 2], [vw / 2, -vh / 2], [vw / 2, vh / 2], [-vw / 2, vh / 2]])
        src = src_local @ rot.T + np.array([cx, cy])
        inset = self.tilt * w / 2
        dst = np.array([[inset, 0], [w - inset, 0], [w, h], [0, h]], dtype=np.float64)
        if self.jitter:
            dst = dst + np.array(self.jitter, dtype=np.float64) * np.array([w, h])
        return cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))


@dataclass
class Lighting:
    """Photometric effects applied after composition (all optional)."""

    gain: float = 1.0  # overall brightness
    colour: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains (white balance)
    gradient: float = 0.0  # strength of a smooth illumination falloff (0..0.6)
    shadow: float = 0.35  # darkness of card drop shadows (0..0.7)
    glare: int = 0  # number of specular highlights
    blur: float = 0.0  # gaussian sigma in pixels
    motion: int = 0  # motion blur kernel length in pixels
    noise: float = 0.0  # gaussian noise sigma (0..255 scale)
    jpeg: int = 0  # JPEG quality to round-trip through (0 = none)
    fingers: int = 0  # number of hands/fingers reaching over cards


@dataclass
class LabelledCard:
    """Ground truth of one placed card in the image."""

    card: str
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 of the whole card, clipped to the image
    corners: np.ndarray  # 4x2 image coordinates: top-left, top-right, bottom-right, bottom-left of the art
    visible: float  # fraction of the card's area visible in the image (not covered, not outside)
    index_visible: float  # best visible fraction of its two index corners
    z: int = 0
    placement_index: int = 0
    index_regions: tuple[np.ndarray, ...] | None = None  # its art's own index regions (None: the family's;
    # a redrawn index's, or a printed deck's that prints it elsewhere: ``companion.synth.index_corners``)

    def labelled(self) -> bool:
        """Whether a detector should be asked to find this card (:func:`boxable`)."""
        return boxable(self.visible, self.index_visible)


# How much of an index corner in view counts as the index whole (read by :func:`boxable`, and by the
# synthetic evaluation to tell a covered card whose index can be read from one whose index cannot).
INDEX_WHOLE = 0.8
# How much of a card in view counts as in full view (no card over it): the evaluation's and the training data's one
# line between full-view and partly covered cards.
IN_FULL_VIEW = 0.99


def boxable(visible: float, index_visible: float) -> bool:
    """Whether a detector should be asked to find a card this much in view (``visible``: share of its area,
    ``index_visible``: of its better index corner): half of it, or 15 % with an index corner whole."""
    return visible >= 0.5 or (visible >= 0.15 and index_visible >= INDEX_WHOLE)


@dataclass
class Scene:
    image: np.ndarray  # BGR uint8
    cards: list[LabelledCard] = field(default_factory=list)
    homography: np.ndarray | None = None
    design: str = ""  # the face design's name: the evaluation splits its figures by it


def _card_matrix(art_shape: tuple[int, int], p: Placement, height_mm: float) -> np.ndarray:
    """3x3 matrix from art pixels to table mm."""
    h, w = art_shape
    s = height_mm * p.scale / h
    th = np.deg2rad(p.angle)
    c, si = np.cos(th) * s, np.sin(th) * s
    # Centre the art, scale, rotate, translate.
    t0 = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]], dtype=np.float64)
    rs = np.array([[c, -si, p.center[0]], [si, c, p.center[1]], [0, 0, 1]], dtype=np.float64)
    return rs @ t0


def _project(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts_h = np.hstack([pts, np.ones((len(pts), 1))])
    out = pts_h @ m.T
    return out[:, :2] / out[:, 2:3]


def _blend_warp(canvas: np.ndarray, art: np.ndarray, m: np.ndarray, quad: np.ndarray) -> None:
    """Warp RGBA ``art`` by ``m`` into BGR float ``canvas`` (in place), only over its bbox."""
    H, W = canvas.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64)
    # Downscaling by a big factor aliases: pre-shrink the art when it lands much smaller.
    art_h = art.shape[0]
    side = np.linalg.norm(quad[3] - quad[0])
    if side < art_h / 2.5:
        f = max(side * 1.5 / art_h, 0.05)
        art = cv2.resize(art, (max(2, int(art.shape[1] * f)), max(2, int(art_h * f))), interpolation=cv2.INTER_AREA)
        m = m @ np.diag([1 / f, 1 / f, 1.0])
    warped = cv2.warpPerspective(art, shift @ m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1]
    roi *= 1.0 - alpha
    roi += alpha * warped[:, :, :3].astype(np.float32)


def _shadow(canvas: np.ndarray, quad: np.ndarray, strength: float, offset: np.ndarray, blur: float) -> None:
    H, W = canvas.shape[:2]
    pad = int(3 * blur + abs(offset).max() + 4)
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    q = (quad + offset - np.array([x0, y0])).astype(np.int32)
    cv2.fillConvexPoly(mask, q, 1.0, lineType=cv2.LINE_AA)
    if blur > 0.3:
        mask = cv2.GaussianBlur(mask, (0, 0), blur)
    canvas[y0:y1, x0:x1] *= (1.0 - strength * mask)[..., None]


def _fingers(canvas: np.ndarray, idmap: np.ndarray, rng: np.random.Generator, quads: list[np.ndarray],
             ppm: float) -> None:
    """Skin-coloured capsules reaching in from outside over a card: fingers, roughly."""
    H, W = canvas.shape[:2]
    if not quads:
        return
    quad = quads[int(rng.integers(len(quads)))]
    target = quad[int(rng.integers(4))] * 0.6 + quad.mean(axis=0) * 0.4
    ang = rng.uniform(0, 2 * np.pi)
    direction = np.array([np.cos(ang), np.sin(ang)])
    width = max(3.0, rng.uniform(14, 20) * ppm)
    hsv = np.uint8([[[rng.uniform(5, 20), rng.uniform(60, 170), rng.uniform(90, 240)]]])
    skin = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
    normal = np.array([-direction[1], direction[0]])
    n = int(rng.integers(1, 5))
    layer = np.zeros((H, W), np.uint8)
    for k in range(n):
        tip = target + normal * (k - (n - 1) / 2) * width * 1.05 + direction * rng.uniform(-0.5, 0.5) * width
        base = tip + direction * max(H, W) * 1.5
        cv2.line(layer, tuple(int(v) for v in tip), tuple(int(v) for v in base), 255, int(width), lineType=cv2.LINE_AA)
    if n > 1:  # the palm
        c = target + direction * width * rng.uniform(4, 6)
        cv2.circle(layer, tuple(int(v) for v in c), int(width * n * 0.7), 255, -1, lineType=cv2.LINE_AA)
    a = (cv2.GaussianBlur(layer, (0, 0), 1.0).astype(np.float32) / 255.0)[..., None]
    shade = np.float32(rng.uniform(0.8, 1.0))
    canvas *= 1 - a
    canvas += a * skin * shade * 1.8
    idmap[layer > 127] = -1


def _distractor(canvas: np.ndarray, rng: np.random.Generator, ppm: float, clutter: Surface | None = None) -> None:
    """A non-card object on the table: paper sheet, coin, phone, cup rim, pen, notebook.

    ``clutter`` (e.g. ``photos.PhotoPool.patch``) gives most boxes, cups and sheets a
    photographed face instead of a flat colour: book covers, printed boxes, plates."""
    H, W = canvas.shape[:2]
    kind = str(rng.choice(["paper", "coin", "phone", "cup", "pen", "box"]))
    cx, cy = rng.uniform(0, W), rng.uniform(0, H)
    layer = np.zeros((H, W), np.uint8)
    if kind == "paper":  # white sheet: large, square corners, maybe text lines
        w, h = rng.uniform(150, 300) * ppm, rng.uniform(200, 300) * ppm
        colour = np.full(3, rng.uniform(200, 255))
    elif kind == "box":
        top = 250 if clutter is not None else 160
        w, h = rng.uniform(40, top) * ppm, rng.uniform(40, top) * ppm
        colour = rng.uniform(0, 255, 3)
    elif kind == "phone":
        w, h = 70 * ppm, 145 * ppm
        colour = np.full(3, rng.uniform(10, 60))
    elif kind == "pen":
        w, h = rng.uniform(6, 12) * ppm, rng.uniform(120, 160) * ppm
        colour = rng.uniform(0, 255, 3)
    else:
        w = h = (rng.uniform(18, 28) if kind == "coin" else rng.uniform(70, 95)) * ppm
        colour = rng.uniform(80, 230, 3) if kind == "coin" else rng.uniform(150, 255, 3)
    if kind in ("coin", "cup"):
        cv2.ellipse(layer, ((cx, cy), (w, h * rng.uniform(0.7, 1.0)), rng.uniform(0, 180)), 255, -1, cv2.LINE_AA)
        if kind == "cup":
            inner = np.zeros_like(layer)
            cv2.ellipse(inner, ((cx, cy), (w * 0.85, h * 0.85 * rng.uniform(0.7, 1.0)), 0), 255, -1, cv2.LINE_AA)
            canvas[inner > 127] *= 0.6
    else:
        box = cv2.boxPoints(((cx, cy), (w, h), rng.uniform(0, 180)))
        cv2.fillConvexPoly(layer, box.astype(np.int32), 255, cv2.LINE_AA)
    a = (layer.astype(np.float32) / 255.0)[..., None]
    canvas *= 1 - a
    if clutter is not None and kind in ("paper", "box", "cup", "phone") and rng.random() < 0.8:
        x, y, bw, bh = cv2.boundingRect(layer)
        if bw > 1 and bh > 1:  # (the object lies within that rectangle: blended there only)
            canvas[y:y + bh, x:x + bw] += a[y:y + bh, x:x + bw] * clutter(rng, bh, bw).astype(np.float32)
            return
    canvas += a * colour.astype(np.float32)[None, None, :] * rng.uniform(0.85, 1.0)
    if kind == "paper" and rng.random() < 0.7:  # lines of handwriting or print
        for k in range(int(rng.integers(3, 12))):
            y = cy - h / 2 + (k + 1) * rng.uniform(12, 20) * ppm
            x0 = cx - w / 2 + 15 * ppm
            pts = np.array([[x0 + t, y + rng.normal(0, 1)] for t in np.linspace(0, w * 0.7, 12)], np.int32)
            mask = layer[np.clip(pts[:, 1], 0, H - 1), np.clip(pts[:, 0], 0, W - 1)] > 0
            if mask.all():
                cv2.polylines(canvas, [pts], False, (60, 40, 30), max(1, int(ppm)), cv2.LINE_AA)


def compose_scene(
    placements: list[Placement],
    camera: Camera,
    *,
    design: Design,
    back_design: Design | None = None,
    lighting: Lighting | None = None,
    background: np.ndarray | None = None,
    rng: np.random.Generator | None = None,
    distractors: int = 0,
    surface: Surface | None = None,
    clutter: Surface | None = None,
    printed: int = 0,
) -> Scene:
    """Render ``placements`` seen by ``camera``; return the BGR image and per-card ground truth.

    ``design`` draws faces (and backs when ``back_design`` is None) unless a
    placement names its own; ``background`` is a BGR texture of the table in
    millimetres-ish pixels (random procedural surface when None); ``distractors``
    non-card objects (paper, coins, phone, cup, pen, boxes) are drawn under the cards.
    ``surface`` draws the table when ``background`` is None (default: a procedural one,
    ``backgrounds.table_texture``); ``clutter`` gives the objects photographed faces.
    ``printed`` more objects are printed things (pages, a notebook, a certificate, a card box, a
    business card, a book: :mod:`companion.synth.printed`), drawn after the others and also under
    the cards; at 0 no random draw changes.
    """
    rng = rng or np.random.default_rng()
    lighting = lighting or Lighting()
    W, H = camera.width, camera.height
    hom = camera.homography()
    inv = np.linalg.inv(hom)
    family = design.family
    height_mm = CARD_HEIGHT_MM[family]

    # Table surface: a texture covering the visible table region, warped by the same homography.
    img_corners = np.array([[0, 0], [W, 0], [W, H], [0, H]], dtype=np.float64)
    table_pts = _project(inv, img_corners)
    tx0, ty0 = table_pts.min(axis=0)
    tx1, ty1 = table_pts.max(axis=0)
    ppm_img = W / camera.view_mm
    res = min(0.8 * ppm_img, 1000 / max(tx1 - tx0, ty1 - ty0))
    tw, th = max(8, int((tx1 - tx0) * res)), max(8, int((ty1 - ty0) * res))
    tex = background if background is not None else (surface or table_texture)(rng, th, tw)
    tex_to_table = np.array([[(tx1 - tx0) / tex.shape[1], 0, tx0], [0, (ty1 - ty0) / tex.shape[0], ty0], [0, 0, 1]])
    canvas = cv2.warpPerspective(tex, hom @ tex_to_table, (W, H), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT).astype(np.float32)

    for _ in range(distractors):  # objects lie under the cards (drawn first)
        _distractor(canvas, rng, ppm_img, clutter)
    for _ in range(printed):
        draw_printed(canvas, rng, ppm_img, clutter, shadow=_shadow)

    order = sorted(range(len(placements)), key=lambda i: placements[i].z)
    idmap = np.full((H, W), -1, np.int32)
    quads: dict[int, np.ndarray] = {}
    arts: dict[int, tuple[int, int]] = {}
    shadow_dir = rng.uniform(-1, 1, 2)
    shadow_px = ppm_img * rng.uniform(0.5, 3.0)
    for i in order:
        p = placements[i]
        if p.card == "back":
            d = p.design or back_design or design
        else:
            d = p.design or design
        art = p.art if p.art is not None else card_image(d, p.card)
        h, w = art.shape[:2]
        m = hom @ _card_matrix((h, w), p, height_mm)
        quad = _project(m, np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))
        if lighting.shadow > 0:
            _shadow(canvas, quad, lighting.shadow, shadow_dir * shadow_px, max(0.5, shadow_px))
        _blend_warp(canvas, art, m, quad)
        cv2.fillConvexPoly(idmap, quad.astype(np.int32), int(i))
        quads[i] = quad
        arts[i] = (h, w)

    for _ in range(lighting.fingers):
        _fingers(canvas, idmap, rng, list(quads.values()), ppm_img)

    cards: list[LabelledCard] = []
    for i in order:
        p = placements[i]
        quad = quads[i]
        area = abs(cv2.contourArea(quad.astype(np.float32)))
        if area < 4:
            continue
        # Visible area: pixels of the id-map owned by this card, inside the image.
        x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [W, H])
        x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 0, [W, H])
        visible = float((idmap[y0:y1, x0:x1] == i).sum()) / area if x1 > x0 and y1 > y0 else 0.0
        h, w = arts[i]
        m = hom @ _card_matrix((h, w), p, height_mm)
        best = 0.0
        own = p.index_regions
        if own is None and p.card != "back":
            face = p.design or design
            if design_corners(face.name) != FAMILY_CORNERS:  # a deck printing its index elsewhere
                own = design_index_regions(family, face.name)
        for reg in (own if own is not None else index_regions(family)):
            rq = _project(m, reg * np.array([w, h]))
            ra = abs(cv2.contourArea(rq.astype(np.float32)))
            if ra < 1:
                continue
            qx0, qy0 = np.clip(np.floor(rq.min(axis=0)).astype(int), 0, [W, H])
            qx1, qy1 = np.clip(np.ceil(rq.max(axis=0)).astype(int) + 1, 0, [W, H])
            if qx1 <= qx0 or qy1 <= qy0:
                continue
            mask = np.zeros((qy1 - qy0, qx1 - qx0), np.uint8)
            cv2.fillConvexPoly(mask, (rq - [qx0, qy0]).astype(np.int32), 1)
            inside = mask.astype(bool)
            frac = float((idmap[qy0:qy1, qx0:qx1][inside] == i).sum()) / ra
            best = max(best, min(frac, 1.0))
        bx0, by0 = quad.min(axis=0)
        bx1, by1 = quad.max(axis=0)
        box = (float(max(bx0, 0)), float(max(by0, 0)), float(min(bx1, W)), float(min(by1, H)))
        cards.append(LabelledCard(p.card, box, quad, min(visible, 1.0), best, p.z, i, own))

    image = _photometric(canvas, lighting, rng)
    return Scene(image=image, cards=cards, homography=hom, design=design.name)


def _smooth_field(H: int, W: int, fn) -> np.ndarray:
    """Evaluate a smooth field ``fn(xx, yy)`` on a coarse grid and upsample (cheap, same look)."""
    f = 8
    h, w = max(2, H // f), max(2, W // f)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    field = fn(xx * (W / w), yy * (H / h)).astype(np.float32)
    return cv2.resize(field, (W, H), interpolation=cv2.INTER_LINEAR)


def _photometric(canvas: np.ndarray, lt: Lighting, rng: np.random.Generator) -> np.ndarray:
    H, W = canvas.shape[:2]
    img = canvas
    gain = np.float32(lt.gain) * np.array(lt.colour, dtype=np.float32)
    if lt.gradient > 0:
        cx, cy = rng.uniform(-0.3, 1.3) * W, rng.uniform(-0.3, 1.3) * H
        field = _smooth_field(H, W, lambda x, y: 1.0 - lt.gradient * np.clip(
            np.sqrt((x - cx) ** 2 + (y - cy) ** 2) / max(H, W), 0, 1.5) / 1.5)
        img = img * field[..., None]
    for _ in range(lt.glare):
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        sx, sy = rng.uniform(0.03, 0.2) * W, rng.uniform(0.03, 0.2) * H
        amp = rng.uniform(60, 200)
        blob = _smooth_field(H, W, lambda x, y: amp * np.exp(-(((x - cx) / sx) ** 2 + ((y - cy) / sy) ** 2)))
        img = img + blob[..., None]
    img = img * gain
    if lt.noise > 0:
        img = img + rng.standard_normal(img.shape, dtype=np.float32) * np.float32(lt.noise)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if lt.blur > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), lt.blur)
    if lt.motion > 2:
        k = np.zeros((lt.motion, lt.motion), np.float32)
        k[lt.motion // 2, :] = 1.0 / lt.motion
        rot = cv2.getRotationMatrix2D((lt.motion / 2 - 0.5, lt.motion / 2 - 0.5), rng.uniform(0, 180), 1.0)
        k = cv2.warpAffine(k, rot, (lt.motion, lt.motion))
        k /= max(k.sum(), 1e-6)
        img = cv2.filter2D(img, -1, k)
    if lt.jpeg:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(lt.jpeg)])
        if ok:
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img

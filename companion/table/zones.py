"""Seat zones on the table image.

A calibration is three things marked once on a camera frame: the table
centre (where the deck and the vira lie), the place where seat 0 puts its
cards, and how many players sit.  Seats follow in the order of play
(anticlockwise seen from above, so anticlockwise in an unmirrored top-down
image); a mirrored camera sets ``clockwise``.  Each seat owns the angular
sector around its direction, and a disc around the centre is the middle of the
table (deck, vira).  Angles, not polygons, decide membership because a
sector is exact for any image size; :meth:`Zones.polygons` gives the same
sectors as polygons for drawing (or for ``supervision.PolygonZone``).

Calibrations are saved as JSON under the user's data directory;
:func:`auto_calibration` is the fallback when none was made: the centre is
the deck if one is seen, else the image centre, and seat 0 sits at the bottom
edge (nearest the camera).  The tracker then learns the real seat directions
from the first trick (each card's seat comes from the turn order) and checks
seats against zones only from then on.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion.paths import user_data_dir

CENTRE = -1  # zone id of the middle of the table


@dataclass(frozen=True)
class Calibration:
    centre: tuple[float, float]
    seat0: tuple[float, float]
    players: int = 4
    image_size: tuple[int, int] | None = None  # (width, height) of the frame it was marked on
    centre_radius: float | None = None  # pixels; default: 0.45 x distance centre -> seat 0
    clockwise: bool = False
    source: str = "manual"

    def __post_init__(self) -> None:
        if self.players not in (2, 4, 6):
            raise ValueError(f"players must be 2, 4 or 6, not {self.players}")
        if math.dist(self.centre, self.seat0) < 1.0:
            raise ValueError("seat 0 must be marked away from the table centre")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Calibration:
        size = data.get("image_size")
        return cls(
            centre=(float(data["centre"][0]), float(data["centre"][1])),
            seat0=(float(data["seat0"][0]), float(data["seat0"][1])),
            players=int(data.get("players", 4)),
            image_size=(int(size[0]), int(size[1])) if size else None,
            centre_radius=None if data.get("centre_radius") is None else float(data["centre_radius"]),
            clockwise=bool(data.get("clockwise", False)),
            source=str(data.get("source", "manual")),
        )

    def scaled_to(self, image_size: tuple[int, int]) -> Calibration:
        """The same calibration for frames of another resolution (same camera)."""
        if self.image_size is None or tuple(self.image_size) == tuple(image_size):
            return self
        sx = image_size[0] / self.image_size[0]
        sy = image_size[1] / self.image_size[1]
        radius = None if self.centre_radius is None else self.centre_radius * (sx * sy) ** 0.5
        return Calibration((self.centre[0] * sx, self.centre[1] * sy), (self.seat0[0] * sx, self.seat0[1] * sy),
                           self.players, image_size, radius, self.clockwise, self.source)

    def with_players(self, players: int) -> Calibration:
        return Calibration(self.centre, self.seat0, players, self.image_size, self.centre_radius,
                           self.clockwise, self.source)


def default_calibration_path() -> Path:
    return user_data_dir() / "calibration.json"


def save_calibration(cal: Calibration, path: str | Path | None = None) -> Path:
    target = Path(path) if path else default_calibration_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(cal.to_dict(), indent=2) + "\n", encoding="utf-8")
    return target


def load_calibration(path: str | Path | None = None) -> Calibration | None:
    """The saved calibration, or None when none was made.  A file that is
    there but unreadable is an error: silently ignoring it would put every
    card in the wrong seat."""
    target = Path(path) if path else default_calibration_path()
    if not target.exists():
        if path is not None:
            raise FileNotFoundError(f"calibration file {target} does not exist")
        return None
    try:
        return Calibration.from_dict(json.loads(target.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(f"calibration file {target} is not valid: {err}") from None


def auto_calibration(image_size: tuple[int, int], players: int = 4,
                     deck_center: tuple[float, float] | None = None) -> Calibration:
    """Zones without a calibration: centre at the deck (if seen) or the image
    centre, seat 0 toward the bottom edge, i.e. the side of the camera."""
    w, h = image_size
    cx, cy = deck_center if deck_center is not None else (w / 2.0, h / 2.0)
    reach = 0.3 * min(w, h)
    return Calibration((cx, cy), (cx, cy + reach), players, (w, h), None, False, "auto")


class Zones:
    """Which seat's zone (or the centre) a point of the image lies in."""

    def __init__(self, cal: Calibration) -> None:
        self.cal = cal
        self.players = cal.players
        cx, cy = cal.centre
        sx, sy = cal.seat0
        self.reach = math.dist(cal.centre, cal.seat0)
        self.centre_radius = cal.centre_radius if cal.centre_radius is not None else 0.45 * self.reach
        self._a0 = math.atan2(cy - sy, sx - cx)  # y flipped: up is positive
        self._dir = -1.0 if cal.clockwise else 1.0

    def seat_angle(self, seat: int) -> float:
        return self._a0 + self._dir * 2.0 * math.pi * seat / self.players

    def seat_direction(self, seat: int) -> tuple[float, float]:
        """Unit vector in image coordinates (y down) from the centre to a seat."""
        a = self.seat_angle(seat)
        return (math.cos(a), -math.sin(a))

    def seat_point(self, seat: int, reach: float | None = None) -> tuple[float, float]:
        dx, dy = self.seat_direction(seat)
        r = self.reach if reach is None else reach
        return (self.cal.centre[0] + r * dx, self.cal.centre[1] + r * dy)

    def zone_of(self, point: tuple[float, float]) -> int:
        """Seat whose sector holds ``point``, or :data:`CENTRE`."""
        cx, cy = self.cal.centre
        dx, dy = point[0] - cx, cy - point[1]
        if math.hypot(dx, dy) <= self.centre_radius:
            return CENTRE
        rel = (math.atan2(dy, dx) - self._a0) * self._dir
        step = 2.0 * math.pi / self.players
        return int(round(rel / step)) % self.players

    def angular_offset(self, point: tuple[float, float], seat: int) -> float:
        """How far (in sectors, 0 = on the seat's axis, 0.5 = on the border)
        a point lies from a seat's direction: used to tell a card clearly in
        another zone from one on the line between two."""
        cx, cy = self.cal.centre
        rel = math.atan2(cy - point[1], point[0] - cx) - self.seat_angle(seat)
        rel = (rel + math.pi) % (2.0 * math.pi) - math.pi
        return abs(rel) / (2.0 * math.pi / self.players)

    def polygons(self, image_size: tuple[int, int] | None = None) -> dict[int, np.ndarray]:
        """Sector polygons (int32 Nx2, image coordinates) per seat, plus the
        centre disc under :data:`CENTRE`, large enough to cover the image."""
        size = image_size or self.cal.image_size or (1280, 720)
        far = 2.0 * math.hypot(*size)
        cx, cy = self.cal.centre
        step = 2.0 * math.pi / self.players
        out: dict[int, np.ndarray] = {}
        for seat in range(self.players):
            a = self.seat_angle(seat)
            pts = []
            for k in range(9):
                ang = a + self._dir * step * (k / 8.0 - 0.5)
                pts.append((cx + self.centre_radius * math.cos(ang), cy - self.centre_radius * math.sin(ang)))
            for k in range(8, -1, -1):
                ang = a + self._dir * step * (k / 8.0 - 0.5)
                pts.append((cx + far * math.cos(ang), cy - far * math.sin(ang)))
            out[seat] = np.array(pts, dtype=np.int32)
        circle = [(cx + self.centre_radius * math.cos(t), cy - self.centre_radius * math.sin(t))
                  for t in np.linspace(0, 2 * math.pi, 32, endpoint=False)]
        out[CENTRE] = np.array(circle, dtype=np.int32)
        return out

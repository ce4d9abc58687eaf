"""Random table layouts, cameras and lighting for training scenes.

A Truco table shows: a row of played cards in front of each player, earlier
tricks piled or overlapping, the deck with the vira half under it (turned 90
degrees), sometimes a card played face down, hands holding a fan of three.
Close-ups of a few cards cover phone photos like the real development set.
"""

from __future__ import annotations

import numpy as np

from companion.synth.scene import Camera, Lighting, Placement

LAYOUTS = ("table", "pile", "scatter", "closeup", "fan")


def _cards(rng: np.random.Generator, pool: tuple[str, ...], n: int) -> list[str]:
    idx = rng.choice(len(pool), size=n, replace=n > len(pool))  # a real deck has no duplicates
    return [pool[i] for i in idx]


def random_layout(rng: np.random.Generator, pool: tuple[str, ...], kind: str | None = None,
                  back_rate: float = 0.12) -> tuple[list[Placement], str]:
    """Placements in table mm around (0, 0) and the layout kind used."""
    kind = kind or str(rng.choice(LAYOUTS, p=[0.4, 0.12, 0.2, 0.18, 0.1]))
    out: list[Placement] = []
    z = 0

    def face_or_back(card: str) -> str:
        return "back" if rng.random() < back_rate else card

    if kind == "table":
        players = int(rng.choice([2, 4, 6], p=[0.3, 0.5, 0.2]))
        radius = rng.uniform(110, 260)
        base = rng.uniform(0, 360)
        per_player = int(rng.integers(1, 4))
        cards = _cards(rng, pool, players * per_player + 1)
        ci = 0
        for s in range(players):
            a = np.deg2rad(base + 360 * s / players)
            towards = np.array([np.cos(a), np.sin(a)])
            side = np.array([-towards[1], towards[0]])
            row_style = rng.random()
            for k in range(per_player):
                if row_style < 0.5:  # row in front of the player
                    pos = towards * radius + side * (k - (per_player - 1) / 2) * rng.uniform(45, 75)
                else:  # overlapping trick pile: each card shifted a little
                    pos = towards * radius + side * k * rng.uniform(12, 30) + towards * k * rng.uniform(-15, 15)
                pos = pos + rng.normal(0, 6, 2)
                ang = np.rad2deg(a) + 90 + rng.normal(0, 12) + (180 if rng.random() < 0.5 else 0)
                out.append(Placement(face_or_back(cards[ci]), tuple(pos), float(ang), 1.0, z))
                ci += 1
                z += 1
        if rng.random() < 0.8:  # the deck with the vira half under it
            centre = rng.normal(0, 40, 2)
            ang = rng.uniform(0, 360)
            d = np.deg2rad(ang)
            # The vira lies across the deck, half of it sticking out.
            vira_pos = centre + np.array([np.cos(d), np.sin(d)]) * rng.uniform(35, 50)
            out.append(Placement(cards[ci], tuple(vira_pos), float(ang), 1.0, -2))
            for k in range(int(rng.integers(1, 4))):
                out.append(Placement("back", tuple(centre + rng.normal(0, 1.2, 2)), float(ang + 90 + rng.normal(0, 3)),
                                     1.0, -1 + k))
    elif kind == "pile":
        n = int(rng.integers(3, 9))
        cards = _cards(rng, pool, n)
        centre = rng.normal(0, 30, 2)
        for k, c in enumerate(cards):
            pos = centre + rng.normal(0, rng.uniform(5, 35), 2)
            out.append(Placement(face_or_back(c), tuple(pos), float(rng.uniform(0, 360)), 1.0, k))
    elif kind == "scatter":
        n = int(rng.integers(2, 12))
        cards = _cards(rng, pool, n)
        for k, c in enumerate(cards):
            pos = rng.uniform(-220, 220, 2)
            out.append(Placement(face_or_back(c), tuple(pos), float(rng.uniform(0, 360)), 1.0, k))
    elif kind == "closeup":
        n = int(rng.integers(1, 6))
        cards = _cards(rng, pool, n)
        for k, c in enumerate(cards):
            pos = rng.uniform(-70, 70, 2)
            out.append(Placement(face_or_back(c), tuple(pos), float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 25)),
                                 1.0, k))
    else:  # fan of cards as held in a hand or spread on the table
        n = int(rng.integers(3, 6))
        cards = _cards(rng, pool, n)
        pivot = rng.normal(0, 30, 2)
        base = rng.uniform(0, 360)
        spread = rng.uniform(8, 22)
        for k, c in enumerate(cards):
            ang = base + (k - (n - 1) / 2) * spread
            d = np.deg2rad(ang - 90)
            pos = pivot + np.array([np.cos(d), np.sin(d)]) * 50
            out.append(Placement(c, tuple(pos), float(ang), 1.0, k))
    # Small per-deck size variation (poker vs bridge, printing).
    s = float(rng.uniform(0.92, 1.08))
    for p in out:
        p.scale = s
    return out, kind


def random_camera(rng: np.random.Generator, kind: str, width: int, height: int) -> Camera:
    if kind == "closeup":
        view = rng.uniform(140, 420)
    elif kind in ("pile", "fan"):
        view = rng.uniform(220, 800)
    elif kind == "scatter":
        view = rng.uniform(350, 900)
    else:
        view = rng.uniform(450, 1000)
    tilt = float(rng.choice([0.0, rng.uniform(0, 0.2), rng.uniform(0.15, 0.42)], p=[0.25, 0.35, 0.4]))
    centre = tuple(rng.normal(0, view * 0.12, 2))
    jitter = tuple(tuple(v) for v in rng.normal(0, 0.02, (4, 2)))
    return Camera(width, height, float(view), tilt, float(rng.uniform(0, 360)), centre, jitter)


def random_lighting(rng: np.random.Generator) -> Lighting:
    warm = rng.uniform(-0.15, 0.15)
    return Lighting(
        gain=float(rng.uniform(0.55, 1.25)),
        colour=(float(1 - warm + rng.normal(0, 0.03)), float(1 + rng.normal(0, 0.03)), float(1 + warm + rng.normal(0, 0.03))),
        gradient=float(rng.uniform(0, 0.6)),
        shadow=float(rng.uniform(0.1, 0.6)),
        glare=int(rng.choice([0, 0, 1, 2])),
        blur=float(rng.choice([0.0, rng.uniform(0.3, 1.6)])),
        motion=int(rng.choice([0, 0, 0, rng.integers(3, 9)])),
        noise=float(rng.uniform(0, 9)),
        jpeg=int(rng.choice([0, rng.integers(35, 95)])),
        fingers=int(rng.choice([0, 0, 0, 1, 2])),
    )

"""Render the small committed test fixtures (datasets/fixtures/) from held-back designs.

    python -m companion.synth.fixtures [OUT_DIR]

Each fixture is a plain, well-lit table photo of a few face-up cards (and a
back) in designs never used for training, with its labels in
``fixtures.json``.  They are easy on purpose: the tests check that the
shipped weights load and name the cards, not the limits of the model.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.synth.art import get_design
from companion.synth.scene import Camera, Lighting, Placement, compose_scene

FIXTURES = (
    # (file, family, design, cards, seed)
    ("french-dondorf.jpg", "french", "aisleriot-dondorf", ("QH", "7C", "AS"), 1),
    ("french-neoclassical.jpg", "french", "aisleriot-neoclassical_4_color", ("10D", "KS", "3H"), 2),
    ("french-oxygen-white.jpg", "french", "kde-oxygen-white", ("JC", "9D", "back"), 3),
    ("french-ornamental.jpg", "french", "aisleriot-ornamental", ("5S", "2D", "AH"), 4),
)


def render_fixture(family: str, design_name: str, cards: tuple[str, ...], seed: int):
    rng = np.random.default_rng(seed)
    design = get_design(family, design_name)
    placements = []
    for k, card in enumerate(cards):
        x = (k - (len(cards) - 1) / 2) * 80 + rng.normal(0, 4)
        placements.append(Placement(card, (float(x), float(rng.normal(0, 6))), float(rng.normal(0, 8)), 1.0, k))
    camera = Camera(640, 360, 330.0, 0.08, float(rng.normal(0, 4)), (0.0, 0.0))
    lighting = Lighting(gain=1.0, gradient=0.15, shadow=0.3, noise=2.0, jpeg=90)
    return compose_scene(placements, camera, design=design, lighting=lighting, rng=rng)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else Path(__file__).resolve().parents[2] / "datasets" / "fixtures"
    out.mkdir(parents=True, exist_ok=True)
    records = []
    for name, family, design, cards, seed in FIXTURES:
        scene = render_fixture(family, design, cards, seed)
        cv2.imwrite(str(out / name), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 88])
        records.append({"image": name, "family": family, "design": design,
                        "cards": [{"card": c.card, "box": [round(v, 1) for v in c.box]}
                                  for c in scene.cards if c.labelled()]})
    (out / "fixtures.json").write_text(json.dumps(records, indent=1) + "\n")
    print(f"wrote {len(records)} fixtures to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

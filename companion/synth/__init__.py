"""Synthetic card-table images with exact labels (training data, test fixtures, table videos).

Reusable API (all images are numpy uint8, OpenCV channel order; geometry of the
table in millimetres; ``rng`` is a ``numpy.random.Generator``)::

    from companion.synth import (list_designs, split_designs, get_design, card_image, back_image,
                                 table_texture, Placement, Camera, Lighting, compose_scene)

    list_designs(family) -> tuple[Design, ...]          # "french" | "spanish", designs on this machine
    split_designs(family) -> (train: list[Design], holdout: list[Design])
    get_design(family, name) -> Design                  # e.g. get_design("french", "kde-future")
    card_image(design, card) -> np.ndarray HxWx4 BGRA   # card in TABLE-LOG notation ("QH", "10D", "7E");
                                                        # cached under $COMPANION_CACHE (~/.cache/companion)
    back_image(design) -> np.ndarray HxWx4 BGRA         # ArtError if the design has no back
    table_texture(rng, height, width, kind=None) -> np.ndarray HxWx3   # wood|felt|cloth|carpet|desk|stone

    Placement(card, center=(x_mm, y_mm), angle=deg, scale=1.0, z=0, design=None)  # card or "back"
    Camera(width=640, height=480, view_mm=700, tilt=0.0, roll=0.0, center=(0, 0), jitter=())
        # tilt 0 = overhead, up to ~0.45 = oblique; view_mm = table width seen at the near edge
        # .homography() -> 3x3 table-mm -> image-pixel matrix
    Lighting(gain, colour, gradient, shadow, glare, blur, motion, noise, jpeg, fingers)
    compose_scene(placements, camera, *, design, back_design=None, lighting=None,
                  background=None, rng=None) -> Scene
    Scene.image -> BGR np.ndarray; Scene.cards -> list[LabelledCard]; Scene.homography
    LabelledCard(card, box=(x1, y1, x2, y2), corners=4x2 array, visible, index_visible, z, placement_index)
        .labelled() -> bool  # whether a detector is expected to find it (enough of it, or its index, visible)

Random scenes for datasets: ``companion.synth.layouts`` (random_layout, random_camera,
random_lighting) and ``companion.synth.build`` (render_random_scene, build_dataset,
the ``companion dataset build`` command).  Placements are drawn in z order; a card
under another is covered where they overlap, so a vira half under the deck is
``Placement(vira, c, a, z=0)`` plus ``Placement("back", c2, a + 90, z=1)``.
"""

from companion.synth.art import (
    FRENCH_CARDS,
    SPANISH_CARDS,
    ArtError,
    Design,
    back_image,
    card_image,
    get_design,
    list_designs,
    split_designs,
)
from companion.synth.backgrounds import table_texture
from companion.synth.scene import Camera, LabelledCard, Lighting, Placement, Scene, compose_scene

__all__ = [
    "FRENCH_CARDS", "SPANISH_CARDS", "ArtError", "Design", "back_image", "card_image", "get_design",
    "list_designs", "split_designs", "table_texture", "Camera", "LabelledCard", "Lighting", "Placement",
    "Scene", "compose_scene",
]

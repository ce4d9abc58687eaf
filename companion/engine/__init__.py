"""The rules engine: pure, deterministic, no I/O.

>>> game = Game({"type": "match", "variant": "paulista", "players": 4})
>>> outcomes = game.apply({"type": "hand", "dealer": 3, "vira": "4D"})

See ``companion.engine.game`` for the event handling and
``companion.engine.variants`` for the presets and options.
"""

from companion.engine.game import Game, GameState
from companion.engine.outcomes import IllegalEvent, Outcome
from companion.engine.variants import PRESETS, VariantOptions, resolve

__all__ = ["Game", "GameState", "IllegalEvent", "Outcome", "PRESETS", "VariantOptions", "resolve"]

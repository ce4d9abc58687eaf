"""Where the companion finds its shipped files, the user's data and the
read-only ``shared/`` material that only exists on development machines."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent
DATA_DIR = PACKAGE_DIR / "data"


def models_dir() -> Path:
    """Trained weights shipped with the program (``models/`` at the top level)."""
    env = os.environ.get("COMPANION_MODELS")
    return Path(env) if env else REPO_DIR / "models"


def shared_dir() -> Path | None:
    """The read-only ``../shared`` folder (rules, art, real photos), if present.

    A user's machine has none; callers must skip with a clear reason then.
    """
    env = os.environ.get("COMPANION_SHARED")
    candidates = [Path(env)] if env else []
    candidates.append(REPO_DIR.parent / "shared")
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None


def user_data_dir() -> Path:
    """Per-user data directory (history database, downloaded speech models)."""
    env = os.environ.get("COMPANION_HOME")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "companion"

"""French decks from a newer Debian gnome-cards-data: more designs to train on, fetched from the Debian archive.

Why: the corner classifier names held-back designs' cards in full view about 85 % right and half of those
partly covered; it has seen 37 Debian designs and the five npm decks.  Debian trixie's gnome-cards-data
(1:3.22.35-1) carries nine French-suited decks that bookworm's (the one ``apt-get install`` gives here) lacks,
in the same aisleriot ``.svgz`` format the build already renders:

- ``minimum`` and ``minimum_dark``: one big suit sign per card, the index small in one corner (LGPL-3+);
- ``pixelangelo`` and ``pixelangelo_compact``: pixel-art courts (GPL-3+);
- ``tragy`` (Polish index: W D K), ``l-&-h`` (Swedish: Kn D K), ``mittelalter`` and ``adler`` (German: B D K),
  ``clubkarte`` (Dutch: B V H): scans of old printed decks, their court letters in their own languages
  (LGPL-3+ or GPL-3+; some scans CC BY from gkards.com).  No letter names two ranks across them
  (K is always a king, D a queen, B a jack), so a reader can learn them beside J Q K.

They are training designs only (validation keeps the held-back Debian five) and taken only when a build
asks for them (``companion dataset build --designs trixie``), so that the default design list and every
recipe's renders stay as they were.  The package is fetched once from the Debian archive (a package
registry, pinned by its SHA-256) into the art cache (``$COMPANION_CACHE/debian-decks``); only the nine
decks are unpacked, and the art is never copied into the repository or a model.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from companion.synth.art import FRENCH_CARDS, ArtError, Design, cache_dir

PACKAGE = "gnome-cards-data_3.22.35-1_all.deb"
SHA256 = "b0ea870dad2714e21364fc10b3e0e98602d8f6451cc7a829f00403e30e1a5362"
# The archive's pool drops a version once a newer one replaces it; snapshot.debian.org keeps every file
# by its SHA-1 (7383dfd72dc630730acba0bb3c48ab978a34163a).  A mirror can be named with COMPANION_DEBIAN_MIRROR.
URLS = (f"https://deb.debian.org/debian/pool/main/a/aisleriot/{PACKAGE}",
        "https://snapshot.debian.org/file/7383dfd72dc630730acba0bb3c48ab978a34163a")
CARDS_DIR = "usr/share/aisleriot/cards"
_LGPL = "LGPL-3+"
# deck file stem -> licence (upstream GNOME aisleriot cards/README.<deck>; the binary package ships none)
DECKS: dict[str, str] = {
    "minimum": f"{_LGPL} (V. Bermel; Barlow font, OFL)",
    "minimum_dark": f"{_LGPL} (V. Bermel; Barlow font, OFL)",
    "pixelangelo": "GPL-3+",
    "pixelangelo_compact": "GPL-3+",
    "tragy": "GPL-3+; court scans CC BY (gkards.com)",
    "l-&-h": f"{_LGPL}; scans CC BY (gkards.com)",
    "mittelalter": _LGPL,
    "adler": f"{_LGPL}; scans CC BY (gkards.com)",
    "clubkarte": _LGPL,
}


def decks_dir() -> Path:
    """Where the nine decks are unpacked."""
    return cache_dir() / "debian-decks" / PACKAGE.removesuffix(".deb")


def _design_name(stem: str) -> str:
    """``l-&-h`` -> ``trixie-l-h``: a name fit for cache folders and command lines."""
    return "trixie-" + re.sub(r"[^A-Za-z0-9_]+", "-", stem)


def trixie_designs(root: Path | None = None) -> list[Design]:
    """The decks unpacked under ``root`` (default :func:`decks_dir`), in :data:`DECKS` order."""
    root = root or decks_dir()
    return [Design(_design_name(stem), "french", "aisleriot", root / f"{stem}.svgz", FRENCH_CARDS,
                   f"gnome-cards-data 1:3.22.35-1 (Debian trixie): {licence}")
            for stem, licence in DECKS.items() if (root / f"{stem}.svgz").is_file()]


def ar_members(blob: bytes) -> dict[str, bytes]:
    """The members of a Unix ``ar`` archive (a ``.deb`` is one): name -> bytes.  ArtError if it is not one."""
    if not blob.startswith(b"!<arch>\n"):
        raise ArtError("not a Debian package (no ar header)")
    out, at = {}, 8
    while at + 60 <= len(blob):
        head = blob[at:at + 60]
        if head[58:60] != b"`\n":
            raise ArtError(f"corrupt ar member header at byte {at}")
        name = head[:16].decode("ascii", "replace").strip().rstrip("/")
        try:
            size = int(head[48:58].decode("ascii").strip())
        except ValueError:
            raise ArtError(f"corrupt ar member size at byte {at}") from None
        out[name] = blob[at + 60:at + 60 + size]
        at += 60 + size + (size % 2)
    return out


def unpack_decks(deb: bytes, root: Path) -> list[Design]:
    """The :data:`DECKS` of a gnome-cards-data package's bytes, written under ``root``."""
    data = next((v for k, v in ar_members(deb).items() if k.startswith("data.tar")), None)
    if data is None:
        raise ArtError("the package has no data.tar member")
    wanted = {f"{lead}{CARDS_DIR}/{stem}.svgz": stem for stem in DECKS for lead in ("./", "")}
    root.mkdir(parents=True, exist_ok=True)
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:  # xz or gz: what Python's tarfile reads
            for member in tar:
                stem = wanted.get(member.name)
                if stem is None or not member.isfile():
                    continue
                tmp = root / f".{stem}.svgz.{os.getpid()}"
                tmp.write_bytes(tar.extractfile(member).read())
                os.replace(tmp, root / f"{stem}.svgz")
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise ArtError(f"cannot unpack {PACKAGE}: {exc}") from None
    return trixie_designs(root)


def _download(urls: tuple[str, ...]) -> bytes:
    """The package's bytes from the first URL that gives the pinned file; ArtError saying what each gave."""
    mirror = os.environ.get("COMPANION_DEBIAN_MIRROR")
    if mirror:
        urls = (f"{mirror.rstrip('/')}/pool/main/a/aisleriot/{PACKAGE}", *urls)
    tried = []
    for url in urls:
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                blob = response.read()
        except (urllib.error.URLError, OSError, ValueError) as exc:
            tried.append(f"{url}: {getattr(exc, 'reason', exc)}")
            continue
        if hashlib.sha256(blob).hexdigest() != SHA256:
            tried.append(f"{url}: not the pinned file (SHA-256 differs)")
            continue
        return blob
    raise ArtError(f"cannot fetch {PACKAGE} (is the Debian archive reachable?) -- " + "; ".join(tried))


def fetch_trixie_decks(root: Path | None = None, urls: tuple[str, ...] | None = None) -> list[Design]:
    """Fetch (once) the package and unpack its nine decks; returns the designs then present.

    Raises ArtError with the reason when the archive cannot be reached or gives another file: the build
    then stops before rendering anything, rather than training on fewer designs than asked for.  ``urls``:
    where to look (default :data:`URLS`, after ``$COMPANION_DEBIAN_MIRROR``'s pool when set)."""
    root = root or decks_dir()
    present = trixie_designs(root)
    if len(present) == len(DECKS):
        return present
    blob = _download(URLS if urls is None else urls)
    root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root.parent) as tmp:  # beside root: the moves below stay on one disk
        designs = unpack_decks(blob, Path(tmp) / "decks")
        if len(designs) != len(DECKS):
            missing = sorted(set(DECKS) - {d.source.stem for d in designs})
            raise ArtError(f"{PACKAGE} lacks the decks {', '.join(missing)}")
        root.mkdir(parents=True, exist_ok=True)
        for d in designs:
            os.replace(d.source, root / d.source.name)
    return trixie_designs(root)

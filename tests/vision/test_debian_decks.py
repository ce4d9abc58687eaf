"""The newer Debian decks: reading a .deb, fetching it pinned (from a stand-in archive), and builds that ask for it."""

from __future__ import annotations

import hashlib
import io
import shutil
import tarfile

import pytest

from companion.synth import build, debian_decks
from companion.synth.art import FRENCH_CARDS, ArtError, Design, card_image
from companion.synth.debian_decks import CARDS_DIR, DECKS, ar_members, fetch_trixie_decks, trixie_designs, unpack_decks

# An aisleriot-style deck: one element per card, ids as gnome-cards-data names them.
_SUITS = {"C": "club", "H": "heart", "S": "spade", "D": "diamond"}
_RANKS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}


def _deck_svg() -> str:
    groups = []
    for k, card in enumerate((*FRENCH_CARDS, "back")):
        cid = "back" if card == "back" else f"{_SUITS[card[-1]]}_{_RANKS.get(card[:-1], card[:-1])}"
        x, y = (k % 13) * 80, (k // 13) * 120
        groups.append(f'<g id="{cid}"><rect x="{x}" y="{y}" width="72" height="110" rx="6" fill="white" '
                      f'stroke="black"/><text x="{x + 6}" y="{y + 20}" font-size="16">{card}</text></g>')
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="1040" height="600">{"".join(groups)}</svg>'


def _ar(members: dict[str, bytes]) -> bytes:
    out = [b"!<arch>\n"]
    for name, data in members.items():
        out.append(f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{100644:<8}{len(data):<10}`\n".encode("ascii"))
        out.append(data + (b"\n" if len(data) % 2 else b""))
    return b"".join(out)


def _deb(stems: list[str]) -> bytes:
    """A package laid out as gnome-cards-data is: debian-binary, control.tar.xz, data.tar.xz with the decks."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:xz") as tar:
        for stem in stems:
            body = _deck_svg().encode()
            info = tarfile.TarInfo(f"./{CARDS_DIR}/{stem}.svgz")
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
        other = tarfile.TarInfo("./usr/share/doc/gnome-cards-data/changelog.gz")
        other.size = 3
        tar.addfile(other, io.BytesIO(b"abc"))
    return _ar({"debian-binary": b"2.0\n", "control.tar.xz": b"x" * 7, "data.tar.xz": data.getvalue()})


def test_an_ar_archive_is_read_member_by_member_and_anything_else_refused():
    members = ar_members(_ar({"debian-binary": b"2.0\n", "odd": b"abc", "last": b"z"}))
    assert members == {"debian-binary": b"2.0\n", "odd": b"abc", "last": b"z"}  # odd sizes padded to even
    with pytest.raises(ArtError, match="not a Debian package"):
        ar_members(b"PK\x03\x04 a zip file")
    with pytest.raises(ArtError, match="corrupt"):
        ar_members(b"!<arch>\n" + b"x" * 60)


def test_only_the_nine_decks_are_unpacked_and_named_for_the_command_line(tmp_path):
    designs = unpack_decks(_deb([*DECKS, "XSkat", "tarot"]), tmp_path)
    assert [d.source.stem for d in designs] == list(DECKS)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{s}.svgz" for s in DECKS)
    names = [d.name for d in designs]
    assert "trixie-l-h" in names and "trixie-minimum_dark" in names
    assert all(n.startswith("trixie-") and n.replace("-", "").replace("_", "").isalnum() for n in names)
    assert all(d.kind == "aisleriot" and d.cards == FRENCH_CARDS and "trixie" in d.licence for d in designs)


def test_fetch_takes_the_pinned_file_once_and_refuses_another(tmp_path, monkeypatch):
    deb = _deb(list(DECKS))
    monkeypatch.setattr(debian_decks, "SHA256", hashlib.sha256(deb).hexdigest())
    good, bad = tmp_path / "good.deb", tmp_path / "bad.deb"
    good.write_bytes(deb)
    bad.write_bytes(_deb(list(DECKS)[:3]))
    root = tmp_path / "cache" / "decks"
    with pytest.raises(ArtError, match="not the pinned file"):
        fetch_trixie_decks(root, urls=(bad.as_uri(),))
    assert not root.exists() or not any(root.iterdir())
    designs = fetch_trixie_decks(root, urls=(bad.as_uri(), good.as_uri()))  # the first that is the pinned file
    assert [d.source.stem for d in designs] == list(DECKS) and all(d.source.parent == root for d in designs)
    good.unlink()
    assert fetch_trixie_decks(root, urls=(good.as_uri(),)) == designs  # already there: nothing fetched
    assert trixie_designs(tmp_path / "elsewhere") == []


def test_an_unreachable_archive_is_a_clear_error_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_DEBIAN_MIRROR", raising=False)
    root = tmp_path / "decks"
    with pytest.raises(ArtError, match="Debian archive reachable.*gone.deb"):
        fetch_trixie_decks(root, urls=((tmp_path / "gone.deb").as_uri(),))
    assert not root.exists() or not any(root.iterdir())


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert (librsvg2-bin) is not installed")
def test_a_trixie_card_renders_like_any_aisleriot_card(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "cache"))
    design = unpack_decks(_deb(["minimum"]), tmp_path / "decks")[0]
    img = card_image(design, "QH")
    assert img.shape[0] == 360 and img.shape[2] == 4
    assert abs(img.shape[1] / img.shape[0] - 72 / 110) < 0.03


def test_builds_take_the_trixie_designs_only_for_training_and_only_when_asked(tmp_path, monkeypatch):
    from companion.synth import npm_decks

    train = [Design("d-train", "french", "aisleriot", tmp_path)]
    hold = [Design("d-hold", "french", "aisleriot", tmp_path)]
    npm = [Design("npm-x", "french", "npm-kennard", tmp_path)]
    trixie = [Design("trixie-x", "french", "aisleriot", tmp_path)]
    monkeypatch.setattr(build, "split_designs", lambda family: (train, hold))
    monkeypatch.setattr(npm_decks, "npm_designs", lambda root=None: npm)
    monkeypatch.setattr(debian_decks, "trixie_designs", lambda root=None: trixie)
    assert build._split_list("french", "train") == train
    assert build._split_list("french", "train", "trixie") == trixie
    assert build._split_list("french", "train", "all") == train + npm + trixie
    assert build._split_list("french", "val", "trixie") == hold
    with pytest.raises(ArtError, match="trixie decks are French"):
        build._split_list("spanish", "train", "trixie")


def test_the_build_command_refuses_trixie_designs_it_cannot_fetch(tmp_path, monkeypatch, capsys):
    from companion.cli import main

    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("COMPANION_DEBIAN_MIRROR", raising=False)
    monkeypatch.setattr(debian_decks, "URLS", ((tmp_path / "gone.deb").as_uri(),))
    code = main(["dataset", "build", "--family", "french", "--n", "2", "--split", "train", "--designs", "trixie",
                 "--out", str(tmp_path / "out")])
    assert code == 1
    assert "cannot fetch" in capsys.readouterr().err
    assert not list((tmp_path / "out").rglob("*.jpg"))

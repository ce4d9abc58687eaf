"""The npm deck source: file names, what counts as a design, fetching (with a stand-in npm), and builds that ask for it."""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import pytest

from companion.synth import build, npm_decks
from companion.synth.art import FRENCH_CARDS, ArtError, Design, card_image
from companion.synth.npm_decks import NPM_DECKS, NAMINGS, fetch_npm_decks, npm_designs

CARD_SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="250" height="350">
<rect width="250" height="350" rx="12" fill="white" stroke="black"/><text x="12" y="40" font-size="36">{label}</text></svg>"""


def _package_tree(root: Path, drop: str | None = None) -> None:
    """Every npm deck's card files (tiny SVGs) laid out as the unpacked packages are; ``drop``: one card left out."""
    for deck in NPM_DECKS:
        folder = npm_decks._package_dir(deck.package, root) / deck.folder
        folder.mkdir(parents=True, exist_ok=True)
        for card in (*FRENCH_CARDS, "back"):
            if card == drop:
                continue
            path = (folder / NAMINGS[deck.naming](card)).resolve()
            path.write_text(CARD_SVG.format(label=card))


def test_file_names_follow_each_package():
    assert NAMINGS["kennard"]("10D") == "TD.svg"
    assert NAMINGS["kennard"]("QH") == "QH.svg"
    assert NAMINGS["kennard"]("back") == "../back.svg"
    assert NAMINGS["responsive"]("QH") == "12h.svg"
    assert NAMINGS["responsive"]("AS") == "1s.svg"
    assert NAMINGS["responsive"]("10C") == "10c.svg"
    # every card of the deck gets its own file
    for naming in NAMINGS.values():
        assert len({naming(c) for c in FRENCH_CARDS}) == 52


def test_a_design_counts_only_when_every_card_is_there(tmp_path):
    assert npm_designs(tmp_path) == []
    _package_tree(tmp_path)
    designs = npm_designs(tmp_path)
    assert [d.name for d in designs] == [d.name for d in NPM_DECKS]
    assert all(d.family == "french" and d.cards == FRENCH_CARDS for d in designs)
    shutil.rmtree(tmp_path)
    _package_tree(tmp_path, drop="7S")
    assert npm_designs(tmp_path) == []


def test_without_npm_the_fetch_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(ArtError, match="npm not found"):
        fetch_npm_decks(tmp_path)


def _fake_npm(tmp_path: Path, body: str) -> str:
    exe = tmp_path / "npm"
    exe.write_text("#!/bin/sh\n" + body + "\n")
    exe.chmod(0o755)
    return str(exe)


def test_an_unreachable_registry_is_a_clear_error_and_leaves_nothing(tmp_path):
    npm = _fake_npm(tmp_path, 'echo "npm error code ENOTFOUND registry.npmjs.org" >&2; exit 1')
    root = tmp_path / "decks"
    with pytest.raises(ArtError, match="registry reachable.*ENOTFOUND"):
        fetch_npm_decks(root, npm=npm)
    assert not root.exists() or not any(root.iterdir())


def test_fetch_unpacks_each_package_once(tmp_path):
    staged = tmp_path / "staged"
    _package_tree(staged)
    tarballs = tmp_path / "tarballs"
    tarballs.mkdir()
    for package in {d.package for d in NPM_DECKS}:
        name = npm_decks._package_dir(package, staged).name
        with tarfile.open(tarballs / f"{name}.tgz", "w:gz") as tar:
            tar.add(staged / name / "package", arcname="package")
    log = tmp_path / "calls"
    # npm pack PACKAGE --silent --pack-destination DIR: copy the package's tarball into DIR
    npm = _fake_npm(tmp_path, f'echo "$2" >> {log}\n'
                              f'name=$(echo "$2" | sed -e "s/^@//" -e "s#/#__#" -e "s/@/-/")\n'
                              f'cp {tarballs}/$name.tgz "$5"/')
    root = tmp_path / "decks"
    designs = fetch_npm_decks(root, npm=npm)
    assert [d.name for d in designs] == [d.name for d in NPM_DECKS]
    assert sorted(log.read_text().split()) == sorted({d.package for d in NPM_DECKS})
    fetch_npm_decks(root, npm=npm)  # already there: npm is not asked again
    assert len(log.read_text().split()) == len({d.package for d in NPM_DECKS})


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert (librsvg2-bin) is not installed")
def test_an_npm_card_renders_like_any_other(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "cache"))
    _package_tree(tmp_path / "decks")
    design = npm_designs(tmp_path / "decks")[0]
    img = card_image(design, "10D")
    assert img.shape[0] == 360 and img.shape[2] == 4
    assert abs(img.shape[1] / img.shape[0] - 250 / 350) < 0.02  # the card's own aspect, trimmed to its edge


def test_builds_take_the_npm_designs_only_for_training_and_only_when_asked(tmp_path, monkeypatch):
    train = [Design("d-train", "french", "aisleriot", tmp_path)]
    hold = [Design("d-hold", "french", "aisleriot", tmp_path)]
    monkeypatch.setattr(build, "split_designs", lambda family: (train, hold))
    extra = [Design("npm-x", "french", "npm-kennard", tmp_path)]
    monkeypatch.setattr(npm_decks, "npm_designs", lambda root=None: extra)
    from companion.synth import debian_decks

    monkeypatch.setattr(debian_decks, "trixie_designs", lambda root=None: [])  # "all" takes them too, if fetched
    assert build._split_list("french", "train") == train
    assert build._split_list("french", "train", "npm") == extra
    assert build._split_list("french", "train", "all") == train + extra
    assert build._split_list("french", "val", "all") == hold  # validation keeps the held-back designs
    with pytest.raises(ValueError, match="design source"):
        build._split_list("french", "train", "web")
    monkeypatch.setattr(build, "split_designs", lambda family: (train, []))
    with pytest.raises(ArtError, match="French"):
        build._split_list("spanish", "train", "npm")


def test_the_build_command_refuses_npm_designs_it_cannot_fetch(tmp_path, monkeypatch, capsys):
    from companion.cli import main

    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    code = main(["dataset", "build", "--family", "french", "--n", "2", "--split", "train", "--designs", "npm",
                 "--out", str(tmp_path / "out")])
    assert code == 1
    assert "npm not found" in capsys.readouterr().err
    assert not list((tmp_path / "out").rglob("*.jpg"))


def test_the_command_offers_the_design_sources_the_builder_takes():
    from companion.commands import dataset

    assert dataset.DESIGN_SOURCES == build.DESIGN_SOURCES

"""``companion dataset``: build synthetic training data (see datasets/README.md)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable


def share(text: str) -> float:
    """An argparse type for a share in [0, 1].

    Why: a share out of range was silently clipped by the code that draws with it (a --hidden-share of 3 acted
    as 1), so a typo built a dataset other than the one asked for, and it only showed after training."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share in [0, 1], got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share in [0, 1], got {text}")
    return value


def _warn_fonts(redraws: bool) -> None:
    """Say on stderr when redrawn letterings will come from fewer typefaces than the recipe's."""
    if redraws:
        from companion.synth.reindex import font_shortfall

        warning = font_shortfall()
        if warning:
            print(warning, file=sys.stderr)


def _build(args: argparse.Namespace) -> int:
    from companion.synth.art import ArtError
    from companion.synth.build import build_crops, build_dataset, write_combined_yaml
    from companion.synth.photos import DEFAULT_DIRS, PhotoError

    _warn_fonts(args.reindex > 0)
    t0 = time.time()
    photo_dirs = tuple(args.photos or DEFAULT_DIRS) if args.photos is not None else ()
    try:
        for split in args.split:
            n = args.n if split == "train" else (args.n_val if args.n_val is not None else max(1, args.n // 8))
            if n > 0:
                build_dataset(args.family, n, args.out, split=split, seed=args.seed, workers=args.workers,
                              start=args.start, layouts=tuple(args.layouts) if args.layouts else None,
                              photo_dirs=photo_dirs, photo_share=args.photo_share, designs=args.designs,
                              reindex=args.reindex, index_styles=tuple(args.index_styles), big_pip=args.big_pip,
                              ink=args.ink, outline_labels=args.outline_labels, printed=args.printed,
                              random_backs=args.random_backs)
                print(f"{args.family} {split}: {n} scenes -> {args.out}", flush=True)
            if args.crops and split == "train":
                from pathlib import Path

                count = build_crops(args.family, args.crops, Path(args.out) / "cls", split=split, seed=args.seed,
                                    workers=args.workers)
                print(f"{args.family} {split}: {count} extra classifier crops from {args.crops} small scenes")
    except (ArtError, PhotoError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.combine:
        print(f"wrote {write_combined_yaml(args.combine)}")
    print(f"done in {time.time() - t0:.0f}s")
    return 0


LAYOUTS = ("table", "pile", "scatter", "closeup", "fan")  # companion.synth.layouts.LAYOUTS (not imported: keeps --help fast)
INDEX_STYLES = ("stacked", "single", "row", "row_single")  # companion.synth.reindex.INDEX_STYLES (same reason)
DESIGN_SOURCES = ("debian", "npm", "trixie", "all")  # companion.synth.build.DESIGN_SOURCES (same reason)


def _recrop(args: argparse.Namespace) -> int:
    from pathlib import Path

    from companion.synth.build import recrop_problem, recrop_dataset

    if problem := recrop_problem(args.edge_cut, args.edge_grown, args.upright_share):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    t0 = time.time()
    for split in args.split:
        if not (Path(args.data) / "scenes" / f"{split}-{args.family}.jsonl").is_file():
            print(f"error: no {split} scenes of {args.family} under {args.data} (build them first)", file=sys.stderr)
            return 1
        count = recrop_dataset(args.data, args.family, args.out, split=split, seed=args.seed, workers=args.workers,
                               backs=args.backs, covered=args.covered, edge_grown=args.edge_grown,
                               edge_cut=args.edge_cut, upright_share=args.upright_share)
        print(f"{args.family} {split}: {count} crops -> {args.out}/{split}", flush=True)
    print(f"done in {time.time() - t0:.0f}s")
    return 0


def _table_crops(args: argparse.Namespace) -> int:
    from companion.synth.art import ArtError
    from companion.synth.table_crops import build_table_crops

    def work() -> list[str]:
        counts = build_table_crops(args.family, args.sessions, args.out, seed=args.seed, every=args.every,
                                   hands=args.hands, workers=args.workers)
        return [f"{args.family}: {sum(counts.values())} crops of {len(counts)} cards from {args.sessions} "
                f"table sessions -> {args.out}"]

    return _timed(work, (ArtError, RuntimeError))


def _timed(work: Callable[[], list[str]], errors: tuple[type[Exception], ...]) -> int:
    """Run a data job: its report lines and the time taken, or one error line and exit code 1."""
    t0 = time.time()
    try:
        lines = work()
    except errors as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    print(f"done in {time.time() - t0:.0f}s")
    return 0


def _corners(args: argparse.Namespace) -> int:
    from companion.synth.build import build_corners

    def work() -> list[str]:
        counts = build_corners(args.crops, args.out)
        return [f"{split}: {count} corner images -> {args.out}/{split}" for split, count in counts.items()]

    return _timed(work, (FileNotFoundError,))


def _scene_corners(args: argparse.Namespace) -> int:
    from companion.synth.scene_corners import build_scene_corners

    def work() -> list[str]:
        count = build_scene_corners(args.scenes, args.out, family=args.family, split=args.split, reps=args.reps,
                                    full_share=args.full_share, back_share=args.back_share, seed=args.seed,
                                    workers=args.workers, hidden_share=args.hidden_share, own=not args.only_hidden,
                                    view=args.view, bare_share=args.bare_share, upright_share=args.upright_share)
        return [f"{count} {'band' if args.view == 'bands' else 'corner'} images -> {args.out}"]

    return _timed(work, (FileNotFoundError,))


def _outlines(args: argparse.Namespace) -> int:
    from companion.synth.outline_labels import OutlineDataError, write_outline_dataset

    def work() -> list[str]:
        count = write_outline_dataset(args.out, args.split, args.scenes)
        return [f"{count} {args.split} images with every card's outline -> {args.out} (data.yaml)"]

    return _timed(work, (OutlineDataError, ValueError))


def _glyphs(args: argparse.Namespace) -> int:
    from companion.synth.glyphs import build_glyph_corners

    _warn_fonts(True)

    def work() -> list[str]:
        count = build_glyph_corners(args.n, args.out, seed=args.seed, workers=args.workers, start=args.start,
                                    rank_size=tuple(args.rank_size),
                                    low_res=None if args.low_res is None else tuple(args.low_res),
                                    side=args.side, blank=args.blank)
        return [f"{count} glyph corners -> {args.out}"]

    return _timed(work, (RuntimeError, ValueError))


def _crops(args: argparse.Namespace) -> int:
    from companion.synth.art import ArtError
    from companion.synth.build import build_crops

    _warn_fonts(args.reindex > 0)

    def work() -> list[str]:
        count = build_crops(args.family, args.n, args.out, split=args.split, seed=args.seed, workers=args.workers,
                            start=args.start, figures=args.figures, face_mix=args.face_mix,
                            reindex=args.reindex, index_styles=tuple(args.index_styles), big_pip=args.big_pip,
                            ink=args.ink)
        return [f"{args.family} {args.split}: {count} classifier crops from {args.n} small scenes -> "
                f"{args.out}/{args.split}"]

    return _timed(work, (ArtError,))


def _redraw_options(parser: argparse.ArgumentParser, reindex_help: str) -> None:
    """--reindex, --index-styles and --big-pip, shared by `build` (per scene) and `crops` (per card)."""
    parser.add_argument("--reindex", type=share, default=0.0, metavar="P", help=reindex_help)
    parser.add_argument("--index-styles", nargs="+", default=["stacked"], choices=INDEX_STYLES, metavar="STYLE",
                        help="layouts of a redrawn index, one drawn per card: stacked (rank over suit, two corners), "
                             "single (one corner), row (rank and suit on one line, top and bottom), "
                             "row_single (top only)")
    parser.add_argument("--big-pip", type=share, default=0.0, metavar="P",
                        help="share of redrawn number cards whose body becomes one large suit sign (minimalist decks)")


def _ink_option(parser: argparse.ArgumentParser, what: str) -> None:
    """--ink, shared by `build` (per scene) and `crops` (per small scene)."""
    parser.add_argument("--ink", type=share, default=0.0, metavar="P",
                        help=f"{what}, one colour a suit (four-colour and pale-ink decks; companion.synth.ink)")


def _index_corners(args: argparse.Namespace) -> int:
    from companion.synth.index_corners import report

    return report(args.designs)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("dataset", help="build synthetic card datasets (YOLO format)")
    sub = p.add_subparsers(dest="dataset_command", required=True)
    b = sub.add_parser("build", help="render table scenes with labels")
    b.add_argument("--family", choices=("french", "spanish"), required=True)
    b.add_argument("--n", type=int, required=True, help="training scenes to render")
    b.add_argument("--n-val", type=int, default=None, help="validation scenes (default n/8; held-back designs)")
    b.add_argument("--out", required=True, help="output folder, e.g. /work/data/french")
    b.add_argument("--split", nargs="+", default=["train", "val"], choices=("train", "val"))
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--workers", type=int, default=1)
    b.add_argument("--start", type=int, default=0,
                   help="number (and seed) scenes from here: adds new scenes to an existing folder")
    b.add_argument("--layouts", nargs="+", default=None, choices=LAYOUTS,
                   help="only these layout kinds (default: the table mix), e.g. closeup fan pile")
    b.add_argument("--photos", nargs="*", default=None, metavar="DIR",
                   help="lay a share of the scenes on photographed surfaces among photographed objects, from "
                        "the images under DIR (no DIR: the Debian wallpaper folders, datasets/README.md)")
    b.add_argument("--photo-share", type=share, default=0.6,
                   help="share of the scenes drawn with --photos (default 0.6)")
    b.add_argument("--designs", choices=DESIGN_SOURCES, default="debian",
                   help="training designs: the Debian decks (default), the French decks fetched from npm "
                        "(companion.synth.npm_decks; needs npm and the registry once), the nine newer decks of "
                        "Debian trixie's gnome-cards-data (companion.synth.debian_decks; fetched once from the "
                        "Debian archive), or all three; validation always uses the held-back Debian designs")
    _redraw_options(b, "share of training scenes whose face-up cards all have their index corners redrawn in "
                       "another typeface (validation scenes never are)")
    _ink_option(b, "share of training scenes whose face-up cards are printed in other inks (validation scenes "
                   "never are)")
    b.add_argument("--printed", type=share, default=0.0, metavar="P",
                   help="share of training scenes with one to three printed things among the objects: pages of "
                        "text, a spiral notebook, a certificate, a card box, a business card, a book "
                        "(companion.synth.printed), which a detector may take for cards in real photos "
                        "(validation scenes never have them)")
    b.add_argument("--random-backs", type=share, default=0.0, metavar="P",
                   help="share of training scenes whose face-down cards show a back no deck has, drawn at random "
                        "(a lattice, dots, stripes, an ornament, a picture; companion.synth.backs), one a scene: a "
                        "back learned as a kind, not as the training decks' few (validation scenes never have them)")
    b.add_argument("--outline-labels", action="store_true",
                   help="detection labels give each card's outline (its corners, clipped to the image) as a polygon, "
                        "not its box: ultralytics' rotation augmentation then boxes the turned outline, not the "
                        "turned box's corners, which made the detectors' boxes too wide (session 95)")
    b.add_argument("--crops", type=int, default=0, metavar="N",
                   help="also render N small close-up scenes for extra classifier crops (cheaper per crop)")
    b.add_argument("--combine", metavar="ROOT", default=None,
                   help="also write ROOT/det.yaml joining ROOT/french and ROOT/spanish for the detector")
    b.set_defaults(func=_build)
    c = sub.add_parser("crops", help="render small close-up scenes straight into classifier crops")
    c.add_argument("--family", choices=("french", "spanish"), required=True)
    c.add_argument("--n", type=int, required=True, help="small scenes to render (1-4 cards each)")
    c.add_argument("--out", required=True, help="classifier folder, e.g. DATA/french/cls-v3 (crops go to OUT/SPLIT/CARD/)")
    c.add_argument("--split", default="train", choices=("train", "val"))
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--start", type=int, default=0, help="number scenes from here (adds to a folder without overwriting)")
    c.add_argument("--workers", type=int, default=1)
    c.add_argument("--figures", action="store_true", help="figure cards only (J, Q, K / sota, caballo, rey)")
    c.add_argument("--face-mix", type=share, default=0.0, metavar="P",
                   help="share of figures drawn with another figure's picture inside their own index corners")
    _redraw_options(c, "share of French cards whose index corners are redrawn in another typeface")
    _ink_option(c, "share of scenes whose faces are printed in other inks")
    c.set_defaults(func=_crops)
    r = sub.add_parser("recrop", help="cut the classifier crops again from rendered scenes (after a crop change)")
    r.add_argument("--family", choices=("french", "spanish"), required=True)
    r.add_argument("--data", required=True, help="a folder written by `dataset build`")
    r.add_argument("--out", required=True, help="classifier folder to write, e.g. DATA/cls-v2")
    r.add_argument("--split", nargs="+", default=["train", "val"], choices=("train", "val"))
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--workers", type=int, default=1)
    r.add_argument("--backs", action="store_true", help="also crop face-down cards, into a 'back' class")
    r.add_argument("--covered", action="store_true",
                   help="crop every card a detector is asked to box, however much of it another card covers "
                        "(default: only cards at least 60 %% visible)")
    r.add_argument("--edge-grown", action="store_true",
                   help="cut a card the frame cuts from its box grown past the frame to a card's shape, grey beyond "
                        "it, as the detector's edge_crops reads one (default: the box squashed square)")
    r.add_argument("--edge-cut", type=float, default=0.0, metavar="P",
                   help="with --edge-grown: also cut this share of the cards as if the frame's edge cut them "
                        "(a side and 15-50 %% of the card off), grown as the detector reads them (default 0)")
    r.add_argument("--upright-share", type=float, default=0.0, metavar="P",
                   help="also cut this share of the partly covered cards from the card turned upright by its true "
                        "outline, as `evaluate --whole-upright overlapped` reads them (default 0)")
    r.set_defaults(func=_recrop)
    g = sub.add_parser("glyphs", help="draw index corners from typefaces alone, for the corner classifier")
    g.add_argument("--n", type=int, required=True, help="corner images to draw")
    g.add_argument("--out", required=True, help="a classifier train folder, e.g. DATA/french/glyphs-v1/train")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--start", type=int, default=0, help="number (and seed) images from here")
    g.add_argument("--workers", type=int, default=1)
    g.add_argument("--rank-size", type=float, nargs=2, default=[0.14, 0.32], metavar=("LOW", "HIGH"),
                   help="the rank's type size, shares of the view (default: glyphs-v1's; 0.14 0.5 adds big letters)")
    g.add_argument("--low-res", type=int, nargs=2, default=None, metavar=("LOW", "HIGH"),
                   help="shrink each corner to this many pixels a side and enlarge it back (a table camera's "
                        "small cards; default: drawn sharp)")
    g.add_argument("--side", choices=("left", "right"), default="left",
                   help="the index in the view's top left (default) or top right, its letters as they read (a "
                        "card's top-right window, for decks printing their rank there)")
    g.add_argument("--blank", action="store_true",
                   help="draw the body alone, no index, labelled 'hidden' (a window showing no index)")
    g.set_defaults(func=_glyphs)
    tc = sub.add_parser("table-crops", help="classifier crops cut from rendered table sessions of the training "
                                             "designs (the table's small, blurred, tilted cards)")
    tc.add_argument("--family", choices=("french", "spanish"), required=True)
    tc.add_argument("--sessions", type=int, required=True, help="sessions to render (about 1,500 crops each)")
    tc.add_argument("--out", required=True, help="a classifier split folder, e.g. DATA/french/cls-table/train")
    tc.add_argument("--every", type=float, default=0.5, help="seconds between sampled frames (about)")
    tc.add_argument("--hands", type=int, default=3, help="hands a session")
    tc.add_argument("--seed", type=int, default=0)
    tc.add_argument("--workers", type=int, default=1)
    tc.set_defaults(func=_table_crops)
    k = sub.add_parser("corners", help="cut both index corners of classifier crops, for the corner classifier")
    k.add_argument("--crops", required=True, help="a classifier folder (SPLIT/CARD/*.jpg), e.g. DATA/french/cls-v5")
    k.add_argument("--out", required=True, help="folder to write, e.g. DATA/french/corners-v1")
    k.set_defaults(func=_corners)
    ic = sub.add_parser("index-corners", help="measure where each French deck on this machine prints its rank, "
                                              "against the table the scenes are labelled by")
    ic.add_argument("--designs", nargs="+", default=None, metavar="NAME", help="only these designs")
    ic.set_defaults(func=_index_corners)
    ol = sub.add_parser("outlines", help="every card's whole outline (oriented boxes, covered cards too) from "
                                          "rendered scenes, for an outline model")
    ol.add_argument("--scenes", nargs="+", required=True, metavar="DIR[:N]",
                    help="folders written by `dataset build` (DIR:N: its first N scenes)")
    ol.add_argument("--out", required=True, help="dataset folder to write (images linked, labels, data.yaml)")
    ol.add_argument("--split", choices=("train", "val"), default="train")
    ol.set_defaults(func=_outlines)
    sc = sub.add_parser("scene-corners", help="cut index corners from rendered scenes, each labelled only where it "
                                               "shows its own card's index (partly covered cards)")
    sc.add_argument("--scenes", nargs="+", required=True, help="dataset folders with scenes/<split>-<family>.jsonl, "
                                                              "e.g. DATA/french DATA/photo")
    sc.add_argument("--out", required=True, help="a classifier train folder, e.g. DATA/french/corners-cov/train")
    sc.add_argument("--family", choices=("french", "spanish"), default="french")
    sc.add_argument("--split", default="train")
    sc.add_argument("--reps", type=int, default=4, help="crops cut of each card (each with its own box jitter)")
    sc.add_argument("--full-share", type=share, default=0.4, help="share of the cards in full view cut at all")
    sc.add_argument("--back-share", type=share, default=0.3, help="share of the backs in full view cut")
    sc.add_argument("--seed", type=int, default=1000)
    sc.add_argument("--workers", type=int, default=1)
    sc.add_argument("--hidden-share", type=share, default=0.0,
                    help="share of the windows whose own index lies under another card kept, labelled 'hidden'")
    sc.add_argument("--only-hidden", action="store_true", help="write the 'hidden' windows alone")
    sc.add_argument("--view", choices=("corners", "bands"), default="corners",
                    help="cut the crop's index corners (the corner model's data) or its top and bottom bands "
                         "(the band model's)")
    sc.add_argument("--bare-share", type=share, default=0.0,
                    help="share of the windows holding no index of their card at all kept, labelled 'hidden'")
    sc.add_argument("--upright-share", type=share, default=0.0,
                    help="share of the cuts taken from the card turned upright by its true outline, not its box")
    sc.set_defaults(func=_scene_corners)

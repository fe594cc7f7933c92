#!/usr/bin/env python3
"""Does a rule's `may_match` ever keep a file from a finding? Scan a tree twice: as advisor does, and with the
named rules' `may_match` answering True everywhere (what they would find if they ran on every file that holds a
trigger), and compare the findings.

    python benchmarks/may_match_agreement.py TREE ADV716,ADV806 [advisor scan flags...]

Prints both counts and the findings only the second scan has (none: the cheap checks lost nothing on TREE).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

_FORCED = """
import sys
from advisor.analysis.registry import rule_by_code
for code in sys.argv[1].split(","):
    rule_by_code(code).may_match = classmethod(lambda cls, refs: True)
from advisor.__main__ import main
sys.argv = ["advisor", "scan", *sys.argv[2:]]
main()
"""


def _findings(cmd: list[str]) -> set[tuple]:
    out = os.path.join(tempfile.mkdtemp(prefix="may_match_"), "scan.json")
    flags = ["--format", "json", "-o", out, "--exit-zero", "--no-cache", "-q"]
    subprocess.run([*cmd, *flags], check=True, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return {(x["rule"], x["path"], x["line"], x["column"]) for x in json.load(f)["findings"]}


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tree, codes, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    usual = _findings([sys.executable, "-m", "advisor", "scan", tree, *extra])
    forced = _findings([sys.executable, "-c", _FORCED, codes, tree, *extra])
    print(f"{len(usual)} findings as advisor runs, {len(forced)} with {codes} asked everywhere")
    for item in sorted(forced - usual)[:20]:
        print("  only when forced:", *item)
    sys.exit(1 if forced - usual else 0)


if __name__ == "__main__":
    main()

"""The catalogue's coverage ledger: one triage entry per mined user-facing deprecation.

docs/coverage/ledger.json maps each item id of tools/mine_deprecations.py to one status:

* ``rule``             an ADV rule reports it. Never typed by hand: ``update`` writes it only when
                       ``advisor scan`` really reports that rule on a snippet that uses the API
                       (``probe_snippets``), and tests/miner/test_coverage_ledger.py re-checks every one.
* ``not-user-facing``  with a reason (e.g. build tooling, a name only a type checker sees);
* ``no-static-pattern`` with a reason (what would need run-time values);
* ``todo``             should get a rule; ``family`` proposes where.

Commands::

    python tools/coverage_ledger.py update MINED.json [MINED.json ...]   # add new items, re-probe rules
    python tools/coverage_ledger.py refresh                              # re-probe every entry (no mining)
    python tools/coverage_ledger.py summary                              # the coverage figure
    python tools/coverage_ledger.py todo [--dist torch]                  # the maintainer's to-do list

``update`` keeps every hand-written status (not-user-facing / no-static-pattern / todo with a
reason) and only (re)computes ``rule`` from the probe; an entry whose rule stopped firing goes
back to ``todo``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "docs" / "coverage" / "ledger.json"
STATUSES = ("rule", "not-user-facing", "no-static-pattern", "todo")
# Rules that report any dynamic torch access; they do not cover a specific deprecation.
GENERIC_RULES = {"ADV900"}
VERSION_RANGES = {"torch": ("2.0", "2.15"), "torchvision": ("0.15", "0.29"), "torchaudio": ("2.0", "2.11")}


def _vkey(v: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in v.split("+")[0].split("."))


# ----------------------------------------------------------------------------- file format


def load(path: Path = LEDGER) -> dict[str, dict]:
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))["items"]


def dump(items: dict[str, dict], path: Path = LEDGER) -> None:
    """One entry per line, sorted: a new release shows up as added lines in review."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        '{"_about": "Coverage ledger: one entry per mined user-facing deprecation. See docs/coverage.md.",',
        ' "items": {',
    ]
    keys = sorted(items)
    for i, k in enumerate(keys):
        sep = "," if i < len(keys) - 1 else ""
        lines.append(
            f"  {json.dumps(k, ensure_ascii=False)}: {json.dumps(items[k], sort_keys=True, ensure_ascii=False)}{sep}"
        )
    lines.append(" }}")
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- probing the rules

MISSING_ARG = re.compile(
    r"implicit|explicitly|without|not (?:passed|specified|set)|must (?:pass|specify)|should be passed|default value|default weight initialization",
    re.I,
)


def snippets(item: dict) -> list[str]:
    """Small programs that use the API the way user code does; a rule covers the item when it
    reports on one of them."""
    api = item["api"]
    base, _, param = api.partition("(")
    param = param.rstrip("=)")
    top = base.split(".")[0]
    mod, _, name = base.rpartition(".")
    # `probe_value` (set by hand in the ledger): a keyword that warns only for some values (`only_inputs=False`)
    args = f"x, {param}={item.get('probe_value', '1')}" if param else "x"
    if item.get("probe_code"):  # set by hand: the realistic call where the API is a base class nobody calls
        return [item["probe_code"]]
    out = []
    if base.startswith("torch.Tensor.") and base.count(".") == 2:
        return tensor_snippets(name, f"{param}={item.get('probe_value', '1')}" if param else "y")
    if item["kind"] == "removed" and item.get("message") == "module removed":
        out.append(f"import {base}\n")
        out.append(f"from {mod} import {name}\n" if mod else f"import {base}\n")
        return out
    out.append(f"import {top}\n{base}({args})\n")
    if param and MISSING_ARG.search(item.get("message", "")):
        # the warning is about leaving the argument out ("Implicit dimension choice", "should be
        # passed explicitly"): user code that triggers it does not pass it
        out.append(f"import {top}\n{base}(x)\n")
    if mod:
        out.append(f"from {mod} import {name}\n{name}({args})\n")
    # a method or attribute: user code reaches it through an instance, only (`torch.X.Owner.member(x)`, which the
    # mined family reports, is not what users write; a static method called on the class carries a `probe_code`)
    parts = base.split(".")
    if len(parts) >= 3 and parts[-2][:1].isupper():
        owner = ".".join(parts[:-1])
        if not parts[-1][:1].isupper():  # a nested class is still reached through its owner
            out = []
        out.append(f"import {top}\n\ndef f(obj: {owner}):\n    return obj.{parts[-1]}({args})\n")
        out.append(f"import {top}\n\nobj = {owner}(x)\nobj.{parts[-1]}({args})\n")  # made, then called
        out.append(f"def f(obj):\n    return obj.{parts[-1]}\n")
    if (
        item["kind"] == "warn"
        and not param
        and "." in base
        and base.count(".") >= 1
        and base.split(".")[-1][:1].islower()
        and item.get("message", "").startswith(("The module", "module"))
    ):
        out.append(f"import {base}\n")
    return out


def tensor_snippets(method: str, args: str) -> list[str]:
    """A Tensor method as people call it: on a tensor variable, never through `torch.Tensor.<method>`
    (which only the mined family's attribute rule sees, and nobody writes)."""
    return [
        f"import torch\n\nx = torch.zeros(2, 3)\ny = x.{method}({args})\n",
        f"import torch\n\n\ndef f(x: torch.Tensor, y):\n    return x.{method}({args})\n",
    ]


def probe(items: list[dict], advisor: str | None = None, target: str = "2.15") -> dict[str, set[str]]:
    """Run `advisor scan` over one snippet file per (item, variant); item id -> rules that fire.

    An item may carry `probe_target` (set by hand in the ledger): a deprecation that the library
    withdrew later (torchaudio 2.10 kept `forced_align`) is reported only on the versions where
    it warns, so it is probed there. One scan per distinct target.
    """
    groups: dict[str, list[dict]] = {}
    for it in items:
        groups.setdefault(it.get("probe_target") or target, []).append(it)
    fired: dict[str, set[str]] = {}
    for tgt, group in sorted(groups.items()):
        for iid, rules in _probe_at(group, advisor, tgt).items():
            fired.setdefault(iid, set()).update(rules)
    return fired


def _probe_at(items: list[dict], advisor: str | None, target: str) -> dict[str, set[str]]:
    return scan_snippets({it["id"]: snippets(it) for it in items}, advisor, target)


def scan_snippets(snips: dict[str, list[str]], advisor: str | None = None, target: str = "2.15") -> dict[str, set[str]]:
    """One `advisor scan` over every snippet (key -> its variants); key -> the rules reported on its snippets."""
    advisor = advisor or str(Path(sys.executable).with_name("advisor"))
    with tempfile.TemporaryDirectory(prefix="ledger-probe-") as tmp:
        index: dict[str, str] = {}
        for n, (key, texts) in enumerate(snips.items()):
            for v, text in enumerate(texts):
                p = Path(tmp) / f"p{n:05d}_{v}.py"
                p.write_text(text, encoding="utf-8")
                index[p.name] = key
        cmd = [advisor, "scan", tmp, "--format", "json", "--no-cache", "--exit-zero", "--target-version", target]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0 or not res.stdout.strip():
            raise RuntimeError(f"advisor scan failed ({res.returncode}): {res.stderr[-2000:]}")
        report = json.loads(res.stdout)
    fired: dict[str, set[str]] = {}
    for f in report["findings"]:
        key = index.get(Path(f["path"]).name)
        if key is not None and f["rule"] not in GENERIC_RULES:
            fired.setdefault(key, set()).add(f["rule"])
    return fired


# ----------------------------------------------------------------------------- triage proposals


def propose_family(item: dict) -> str:
    dist = item["dist"]
    if dist == "torchvision":
        return "ADV9xx torchvision (companion rules, issue #18 item 3)"
    if dist == "torchaudio":
        return "ADV9xx torchaudio (companion rules, issue #18 item 3)"
    first = item.get("first", "0")
    if _vkey(first) >= (2, 14):
        return "ADV7xx, torch 2.14/2.15 deprecations"
    return "ADV7xx deprecation catalogue (rules/catalogue.py row, or its own file for argument logic)"


# Reasons that hold for a whole namespace; each is a documented judgement, reviewed like code.
NOT_USER_FACING = (
    (
        re.compile(r"^torch\.utils\.hipify\b"),
        "hipify is build tooling run by cpp_extension/setup scripts, not library API called from model code",
    ),
    (re.compile(r"^torch\.utils\.benchmark\.utils\.valgrind_wrapper\b"), "internal helper of torch.utils.benchmark"),
)


_CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*")  # `STATE`, `HAS_SYMPY`: what the mined catalogue leaves out too


def triage_new(item: dict) -> dict:
    for pat, reason in NOT_USER_FACING:
        if pat.search(item["api"]):
            return {"status": "not-user-facing", "reason": reason}
    if item["kind"] == "removed" and _CONSTANT.fullmatch(item["api"].partition("(")[0].rpartition(".")[2]):
        return {"status": "not-user-facing", "reason": "a module-level constant: data, not an API user code calls"}
    return {"status": "todo", "family": propose_family(item)}


def entry_from(item: dict) -> dict:
    versions = item["versions"]
    return {
        "dist": item["dist"],
        "kind": item["kind"],
        "api": item["api"],
        "first": versions[0],
        "last": versions[-1],
        "kinds": item.get("kinds", [item["kind"]]),
        "message": item.get("message", ""),
        "evidence": item["evidence"][0] if item["evidence"] else "",
    }


def update(mined: list[dict], ledger: dict[str, dict], advisor: str | None = None) -> dict[str, dict]:
    items: dict[str, dict] = {}
    for m in mined:
        for it in m["items"]:
            prev = items.get(it["id"])
            if prev is None:
                items[it["id"]] = dict(it)
            else:  # the same id mined from two runs: merge the version lists
                prev["versions"] = sorted(set(prev["versions"]) | set(it["versions"]), key=_vkey)
    for iid, it in items.items():
        for hand in ("probe_target", "probe_value", "probe_code"):  # set by hand: kept across refreshes
            if ledger.get(iid, {}).get(hand):
                it[hand] = ledger[iid][hand]
    fired = probe(list(items.values()), advisor)
    out = dict(ledger)
    for iid, it in items.items():
        entry = dict(out.get(iid, {}))
        meta = entry_from(it)
        if entry:
            meta["first"] = min(entry.get("first", meta["first"]), meta["first"], key=_vkey)
            meta["last"] = max(entry.get("last", meta["last"]), meta["last"], key=_vkey)
        entry.update(meta)
        rules = sorted(fired.get(iid, ()))
        if rules:
            entry["status"] = "rule"
            entry["rule"] = rules[0] if len(rules) == 1 else rules
            entry.pop("reason", None)
            entry.pop("family", None)
        elif entry.get("status") == "rule" or "status" not in entry:
            entry.pop("rule", None)
            entry.update(triage_new({**it, "first": meta["first"]}))
        out[iid] = entry
    return out


def refresh(ledger: dict[str, dict], advisor: str | None = None) -> dict[str, dict]:
    """Re-probe every entry without mining: `todo` turns into `rule` where a rule now reports the API,
    `rule` back into `todo` where none does any more; hand-written statuses stay."""
    items = [
        {"id": iid, **e, "versions": [e.get("first", ""), e.get("last", "")]}
        for iid, e in ledger.items()
        if e["status"] in ("todo", "rule")
    ]
    fired = probe(items, advisor)
    out = dict(ledger)
    for it in items:
        entry = dict(out[it["id"]])
        rules = sorted(fired.get(it["id"], ()))
        if rules:
            entry.pop("family", None)
            entry.update(status="rule", rule=rules[0] if len(rules) == 1 else rules)
        elif entry["status"] == "rule":
            entry.pop("rule", None)
            entry.update(triage_new(it))
        out[it["id"]] = entry
    return out


# ----------------------------------------------------------------------------- reports


def figure(ledger: dict[str, dict], dist: str = "torch") -> tuple[int, int, dict[str, int]]:
    counts: dict[str, int] = {}
    for e in ledger.values():
        if e["dist"] == dist:
            counts[e["status"]] = counts.get(e["status"], 0) + 1
    user_facing = sum(n for s, n in counts.items() if s != "not-user-facing")
    return counts.get("rule", 0), user_facing, counts


def summary_text(ledger: dict[str, dict]) -> str:
    lines = []
    for dist, (lo, hi) in VERSION_RANGES.items():
        n, m, counts = figure(ledger, dist)
        if not counts:
            continue
        by_kind: dict[str, list[int]] = {}
        for e in ledger.values():
            if e["dist"] == dist and e["status"] != "not-user-facing":
                k = by_kind.setdefault("removed" if e["kind"] == "removed" else "deprecated", [0, 0])
                k[1] += 1
                k[0] += e["status"] == "rule"
        kinds = ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(by_kind.items()))
        lines.append(
            f"{n} of {m} user-facing deprecations of {dist} {lo}–{hi} have a rule ({kinds}); "
            + ", ".join(f"{s}: {counts.get(s, 0)}" for s in STATUSES)
        )
    return "\n".join(lines)


DOC = ROOT / "docs" / "coverage.md"
README = ROOT / "README.md"  # states the same figure, between the same markers
BEGIN, END = (
    "<!-- coverage-figure:begin (generated by tools/coverage_ledger.py summary --write-doc) -->",
    "<!-- coverage-figure:end -->",
)


def write_doc(figure: str, path: Path = DOC) -> None:
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition(BEGIN)
    _old, sep2, tail = rest.partition(END)
    if not (sep and sep2):
        raise SystemExit(f"{path}: the figure markers are missing")
    path.write_text(f"{head}{BEGIN}\n{figure}\n{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("update", help="add mined items to the ledger and re-probe the rules")
    up.add_argument("mined", nargs="+")
    up.add_argument("--advisor", help="advisor executable (default: next to this python)")
    rf = sub.add_parser("refresh", help="re-probe every todo/rule entry with the current rules (no mining)")
    rf.add_argument("--advisor", help="advisor executable (default: next to this python)")
    sm = sub.add_parser("summary", help="print the coverage figure")
    sm.add_argument("--write-doc", action="store_true", help="also put it into docs/coverage.md and README.md")
    td = sub.add_parser("todo", help="list the entries still to triage or to write rules for")
    td.add_argument("--dist")
    ap.add_argument("--ledger", default=str(LEDGER))
    args = ap.parse_args(argv)
    path = Path(args.ledger)
    ledger = load(path)
    if args.cmd == "refresh":
        ledger = refresh(ledger, args.advisor)
        dump(ledger, path)
        print(summary_text(ledger))
    elif args.cmd == "update":
        mined = [json.loads(Path(p).read_text(encoding="utf-8")) for p in args.mined]
        ledger = update(mined, ledger, args.advisor)
        dump(ledger, path)
        print(summary_text(ledger))
    elif args.cmd == "summary":
        print(summary_text(ledger))
        if args.write_doc:
            write_doc(summary_text(ledger))
            write_doc(summary_text(ledger), README)
    else:
        for iid, e in sorted(ledger.items(), key=lambda kv: (kv[1]["dist"], _vkey(kv[1]["first"]), kv[0])):
            if e["status"] == "todo" and (not args.dist or e["dist"] == args.dist):
                print(f"{e['first']:>8}  {iid}  [{e.get('family', '')}]  {e['message'][:80]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

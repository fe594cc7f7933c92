"""The ledger's items: each user-facing deprecation, keyed by id, over several releases."""

from __future__ import annotations

import time
from typing import Iterable

from .common import MINER_VERSION, _parse_version, fragment
from .model import Release, build_release, removals, sites_of
from .sites import Cache
from .wheels import Source


def item_id(dist: str, kind: str, api: str) -> str:
    """`warn` and `deprecated-decorator` share an id: torch 2.4 turned many warnings.warn calls into
    @deprecated, and that is still one deprecation to triage."""
    return f"{dist}:{'removed' if kind == 'removed' else 'deprecated'}:{api}"


def mine(sources: Iterable, cache: Cache, log=None, _prebuilt: dict | None = None) -> dict:
    """Items over several versions of one or more distributions, merged by id.

    `sources` holds Source objects or (dist, version, loader) triples, loaded one at a time."""
    by_dist: dict[str, list] = {}
    for s in sources:
        if isinstance(s, Source):
            s = (s.dist, s.version, (lambda s=s: s))
        by_dist.setdefault(s[0], []).append(s)
    items: dict[str, dict] = {}
    covered: dict[str, list[str]] = {}
    errors: dict[str, dict[str, str]] = {}
    for dist, srcs in sorted(by_dist.items()):
        srcs.sort(key=lambda s: _parse_version(s[1]))
        prev: Release | None = None
        covered[dist] = []
        for _d, _v, loader in srcs:
            t0 = time.perf_counter()
            s = loader()
            rel = (_prebuilt or {}).get(dist) or build_release(s, cache)
            s.files.clear()  # release the bytes early
            covered[dist].append(rel.version)
            if rel.errors:
                errors[f"{dist}=={rel.version}"] = rel.errors
            found = [dict(x, version=rel.version) for x in sites_of(rel)]
            if prev is not None:
                found += [dict(x, version=rel.version, evidence_version=prev.version) for x in removals(prev, rel)]
            for f in found:
                iid = item_id(dist, f["kind"], f["api"])
                it = items.get(iid)
                ev = f"{f['path']}:{f['line']}"
                if it is None:
                    it = items[iid] = {
                        "id": iid,
                        "dist": dist,
                        "kind": f["kind"],
                        "api": f["api"],
                        "version": f["version"],
                        "versions": [],
                        "message": fragment(f["message"]),  # the ledger keeps a short quote
                        "category": f.get("category", ""),
                        "evidence": [],
                        "via": f.get("via", ""),
                        "kinds": [],
                    }
                if f["version"] not in it["versions"]:
                    it["versions"].append(f["version"])
                if f["kind"] not in it["kinds"]:
                    it["kinds"].append(f["kind"])
                # newest evidence wins; several sites in one version are all kept
                tag = f"{f.get('evidence_version', f['version'])}:{ev}"
                if f["version"] == it["versions"][-1]:
                    if it.get("_ev_version") != f["version"]:
                        it["evidence"] = []
                        it["_ev_version"] = f["version"]
                        it["message"] = fragment(f["message"]) or it["message"]
                        it["category"] = f.get("category", "") or it["category"]
                        it["kind"] = f["kind"]  # the newest version's mechanism
                    if tag not in it["evidence"]:
                        it["evidence"].append(tag)
            if log:
                log(
                    f"{dist} {rel.version}: {len(rel.modules)} modules, {len(found)} sites, {time.perf_counter() - t0:.1f}s"
                )
            prev = rel
    out_items = []
    for iid in sorted(items):
        it = items[iid]
        it.pop("_ev_version", None)
        it["evidence"] = sorted(it["evidence"])
        out_items.append(it)
    return {"miner": MINER_VERSION, "covered": covered, "parse_errors": errors, "items": out_items}


def summary(result: dict) -> str:
    lines = []
    for dist, versions in result["covered"].items():
        lines.append(f"{dist}: {', '.join(versions)}")
    counts: dict[tuple[str, str, str], int] = {}
    for it in result["items"]:
        counts[(it["dist"], it["version"], it["kind"])] = counts.get((it["dist"], it["version"], it["kind"]), 0) + 1
    lines.append("new items per first-seen version (dist version kind count):")
    for (d, v, k), n in sorted(counts.items(), key=lambda x: (x[0][0], _parse_version(x[0][1]), x[0][2])):
        lines.append(f"  {d} {v} {k} {n}")
    return "\n".join(lines)


def mine_sites(src: Source, cache: Cache | None = None) -> dict:
    """One version's warn and decorator items, parsing only the files that can hold them (fast:
    what tests/miner/test_coverage_ledger.py runs over the installed torch)."""
    rel = build_release(src, cache or Cache(None), sites_only=True)
    return mine([Source(src.dist, src.version, src.origin)], Cache(None), _prebuilt={src.dist: rel})

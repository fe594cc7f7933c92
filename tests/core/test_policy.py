"""Release windows, finding kinds and the lower bound: the policy table, then the real CLI."""

from __future__ import annotations

import json
import os

import pytest

from advisor.analysis.analyse import analyse
from advisor.core import policy
from advisor.core.findings import Applicability, Kind, Severity, Window
from advisor.rule import SymbolRule, Symbol
from advisor.core.settings import settings_at
from tests.conftest import ROOT, run_cli

SAFE, UNSAFE, NONE = Applicability.SAFE, Applicability.UNSAFE, Applicability.NONE


def _decide(window, target, *, kind=None, severity=Severity.WARNING, fix=NONE, lowest=None, **kw):
    return policy.decide(window, kind, severity, fix, "msg", target, lowest, **kw)


# --- the table (issue 15 §2, CONTRACT.md) ---------------------------------------------------

USE_CUDA = Window(since="2.0", deprecated_in="2.13", removed_in="2.14")  # profiler use_cuda=: TypeError in 2.14


def test_warning_before_removal_error_from_it():
    d = _decide(USE_CUDA, (2, 13))
    assert (d.kind, d.severity, d.message) == (Kind.DEPRECATED, Severity.WARNING, "msg")
    for target in ((2, 14), (2, 15)):  # a removal is an error for every target at or after it
        d = _decide(USE_CUDA, target)
        assert (d.kind, d.severity) == (Kind.BREAKING, Severity.ERROR)
        assert d.message == "breaks in 2.14: msg"
    assert (d.warns_from, d.breaks_in) == ("2.13", "2.14")


def test_not_yet_deprecated_undeprecated_and_too_new_are_not_reported():
    assert _decide(USE_CUDA, (2, 12)) is None
    single = Window(since="2.13", deprecated_in="2.13", undeprecated_in="2.15")  # *_single advice
    assert _decide(single, (2, 14)).kind is Kind.DEPRECATED
    assert _decide(single, (2, 15)) is None
    assert _decide(Window(since="2.14"), (2, 13)) is None


def test_kind_without_window_follows_severity_or_declaration():
    plain = Window()
    assert _decide(plain, (2, 15), severity=Severity.ERROR).kind is Kind.BREAKING
    assert _decide(plain, (2, 15), severity=Severity.WARNING).kind is Kind.DEPRECATED
    assert _decide(plain, (2, 15), severity=Severity.INFO).kind is Kind.ADVICE
    d = _decide(plain, (2, 15), severity=Severity.WARNING, kind=Kind.ADVICE)
    assert (d.kind, d.severity) == (Kind.ADVICE, Severity.INFO)
    # A deprecation keeps a rule's lower default (private APIs are info).
    assert _decide(Window(deprecated_in="2.10"), (2, 15), severity=Severity.INFO).severity is Severity.INFO


def test_no_fix_where_the_lowest_supported_torch_lacks_the_replacement():
    # The rewrite would fail on a torch the project supports: not even --unsafe-fixes may apply it.
    w = Window(since="2.4", deprecated_in="2.4")
    d = _decide(w, (2, 15), fix=SAFE, lowest=(2, 1))
    assert d.applicability is NONE
    assert "no fix: the replacement does not exist before torch 2.4; your lowest supported torch is 2.1" in d.message
    assert _decide(w, (2, 15), fix=SAFE, lowest=(2, 4)).applicability is SAFE
    d = _decide(w, (2, 15), fix=UNSAFE, lowest=(2, 1))  # an unsafe fix is withdrawn too, and names the release
    assert d.applicability is NONE and "does not exist before torch 2.4" in d.message
    assert _decide(w, (2, 15), fix=UNSAFE, lowest=(2, 4)).message == "msg"


def test_fix_that_behaves_differently_below_a_release_says_what_differs():
    safety = policy.Safety("2.6", "True was not the default before")
    d = _decide(Window(), (2, 15), fix=SAFE, lowest=(2, 1), safety=safety)
    assert d.applicability is UNSAFE and d.message == (
        "msg (fix not safe: the new form behaves differently below torch 2.6 (True was not the default before); "
        "your lowest supported torch is 2.1)"
    )
    assert _decide(Window(), (2, 15), fix=SAFE, lowest=(2, 6), safety=safety).applicability is SAFE


def test_compat_branch_is_info_and_never_fixed():
    d = _decide(Window(since="2.4"), (2, 15), fix=SAFE, lowest=(2, 1), compat=True, compat_until="2.4")
    assert (d.kind, d.severity, d.applicability) == (Kind.COMPAT, Severity.INFO, NONE)
    assert d.message.startswith("compat fallback: delete this branch when your lowest supported torch is >= 2.4")
    assert "not fixed: this is a version-gated branch" in d.message


# --- through analysis: per-report windows override the rule's ---------------------------------


class _Windowed(SymbolRule):
    """Test rule: two names, each with its own window."""

    code, name, severity = "ADV999", "test-windowed", Severity.WARNING
    names = {
        "torch.old_gone": Symbol(
            "`{old}` old", "torch.new_gone", window=Window(deprecated_in="2.13", removed_in="2.14")
        ),
        "torch.old_back": Symbol("`{old}` old", window=Window(deprecated_in="2.13", undeprecated_in="2.15")),
    }
    fix = SAFE


def _run(code, target, lowest=None):
    result, _ = analyse(code.encode(), "m.py", [_Windowed], settings_at(target, lowest))
    return result.findings


def test_per_report_windows_decide_per_name():
    code = "import torch\ntorch.old_gone(x)\ntorch.old_back(x)\n"
    assert [(f.kind, f.severity) for f in _run(code, "2.13")] == [("deprecated", "warning")] * 2
    (gone,) = _run(code, "2.15")
    assert (gone.kind, gone.severity, gone.breaks_in, gone.warns_from) == ("breaking", "error", "2.14", "2.13")
    assert gone.message.startswith("breaks in 2.14: ") and gone.when == "warns from 2.13"
    assert _run(code, "2.12") == []


# --- the CLI ------------------------------------------------------------------------------


def _advisor(*args, cwd):
    return run_cli(*args, cwd=cwd)


@pytest.fixture
def proj(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\nversion = '0'\n")
    (tmp_path / "m.py").write_text(
        "import torch\n"
        "with torch.cuda.amp.autocast():\n    pass\n"  # ADV701: deprecated from 2.4, replacement from 2.0
        "scaler = torch.cuda.amp.GradScaler()\n"  # ADV702: deprecated from 2.4, replacement from 2.3
        "torch.export.export_for_training(m, a)\n"  # ADV404: removed in 2.11
    )
    return tmp_path


@pytest.mark.parametrize("bad", ["2.16", "3.0", "abc"])
def test_unknown_target_is_a_usage_error(proj, bad):
    for args in (["scan", ".", "--target-version", bad], ["rules", "--target-version", bad]):
        proc = _advisor(*args, cwd=proj)
        assert proc.returncode == 2 and "2.15" in proc.stderr and "2.0" in proc.stderr and bad in proc.stderr
    with open(proj / "pyproject.toml", "a") as f:
        f.write(f"[tool.advisor]\ntarget-version = '{bad}'\n")
    proc = _advisor("scan", ".", cwd=proj)
    assert proc.returncode == 2 and "the catalogue knows torch 2.0 to 2.15" in proc.stderr


def test_default_target_is_newest_and_lower_bound_is_conservative(proj):
    proc = _advisor("scan", ".", "--no-cache", "--format", "json", cwd=proj)
    data = json.loads(proc.stdout)
    assert data["target_version"] == "2.15"
    assert data["min_torch"] == "2.0" and data["min_torch_source"].startswith("default: no lower bound found")
    assert proc.stderr.count("no torch lower bound found") == 1 and "min-torch" in proc.stderr
    by_rule = {f["rule"]: f for f in data["findings"]}
    assert by_rule["ADV701"]["fix"]["applicability"] == "safe" and by_rule["ADV701"]["warns_from"] == "2.4"
    assert by_rule["ADV702"]["fix"] is None and by_rule["ADV702"]["warns_from"] == "2.4"
    assert "no fix: the replacement does not exist before torch 2.3" in by_rule["ADV702"]["message"]
    assert by_rule["ADV404"]["kind"] == "breaking" and by_rule["ADV404"]["breaks_in"] == "2.11"
    assert data["summary"]["by_kind"] == {"breaking": 1, "deprecated": 2, "advice": 0, "compat": 0}


def test_fix_rewrites_autocast_safely_without_a_pin(proj):
    """No pin: the lowest torch is 2.0, which has `torch.amp.autocast`, so the safe fix applies; GradScaler's waits."""
    proc = _advisor("fix", ".", cwd=proj)
    text = (proj / "m.py").read_text()
    assert 'with torch.amp.autocast("cuda"):' in text and "torch.cuda.amp.GradScaler()" in text, (
        proc.stdout + proc.stderr
    )


def test_min_torch_flag_and_config(proj):
    proc = _advisor("scan", ".", "--no-cache", "--format", "json", "--min-torch", "2.4", cwd=proj)
    assert proc.stderr == ""
    assert {f["rule"]: f["fix"]["applicability"] for f in json.loads(proc.stdout)["findings"]}["ADV702"] == "safe"
    with open(proj / "pyproject.toml", "a") as f:
        f.write("[tool.advisor]\nmin-torch = '2.4'\n")
    proc = _advisor("scan", ".", "--no-cache", cwd=proj)
    assert proc.stderr == "" and "[*] `torch.cuda.amp.autocast" in proc.stdout.replace("ADV701 ", "")
    assert "lowest supported torch 2.4" in proc.stdout
    (line,) = [x for x in proc.stdout.splitlines() if "lowest supported torch" in x]  # one line, with the target
    assert (
        line.startswith("Target torch 2.15 (")
        and "lowest supported torch 2.4 (min-torch (config or --min-torch))" in line
    )
    assert _advisor("scan", ".", "--min-torch", "2.16", cwd=proj).returncode == 2


def test_text_says_when_it_warns_and_breaks(tmp_path):
    (tmp_path / "m.py").write_text("import torch\ntorch.export.export_for_training(m, a)\n")
    out = _advisor(
        "scan",
        ".",
        "--no-cache",
        "--target-version",
        "2.10",
        "--min-torch",
        "2.0",
        "--output-format",
        "full",
        cwd=tmp_path,
    ).stdout
    assert "(warns from 2.9, breaks in 2.11)" in out and "1 deprecated" in out
    out = _advisor("scan", ".", "--no-cache", "--min-torch", "2.0", cwd=tmp_path).stdout
    assert "breaks in 2.11: `torch.export.export_for_training`" in out and "1 breaking" in out


def test_fail_on_kinds(proj):
    (proj / "m.py").write_text("import torch\nx = torch.cuda.has_magma\n")  # ADV202: advice
    assert (
        _advisor("scan", ".", "--no-cache", "--min-torch", "2.0", cwd=proj).returncode == 0
    )  # advice: shown, no failure
    assert _advisor("scan", ".", "--no-cache", "--fail-on", "advice", cwd=proj).returncode == 1
    assert _advisor("scan", ".", "--no-cache", "--fail-on", "info", cwd=proj).returncode == 1  # a severity still works
    assert _advisor("scan", ".", "--no-cache", "--fail-on", "nonsense", cwd=proj).returncode == 2
    with open(proj / "pyproject.toml", "a") as f:
        f.write("[tool.advisor]\nfail-on = ['breaking', 'advice']\n")
    assert _advisor("scan", ".", "--no-cache", cwd=proj).returncode == 1


def test_rules_for_a_target_lists_kind(proj):
    out = _advisor("rules", "--target-version", "2.6", cwd=proj).stdout
    lines = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert out.splitlines()[0].split()[:4] == ["code", "name", "kind", "severity"]
    assert lines["ADV404"][2:4] == ["deprecated", "warning"]  # capture_pre_autograd_graph: deprecated 2.4, gone 2.7
    out = _advisor("rules", "--target-version", "2.7", "--format", "json", cwd=proj).stdout
    rows = {r["code"]: r for r in json.loads(out)}
    assert rows["ADV404"]["kind"] == "breaking" and rows["ADV404"]["severity"] == "error"


# --- the upgrade path (report) ------------------------------------------------------------


def _finding(rule, line, *, warns=None, breaks=None, fix=None, validation=None, kind="deprecated"):
    from advisor.core.findings import Finding

    return Finding(
        rule,
        "n",
        "warning",
        "m.py",
        line,
        1,
        line,
        2,
        f"{rule} msg",
        fix,
        validation,
        kind=kind,
        warns_from=warns,
        breaks_in=breaks,
    )


def test_upgrade_path_hops():
    from advisor.report.upgrade_path import hops

    findings = [
        _finding("ADV1", 1, warns="2.13", breaks="2.14", fix="safe", validation="profiler_events", kind="breaking"),
        _finding("ADV2", 2, warns="2.10"),
        _finding("ADV3", 3, fix="unsafe", validation="amp_migration"),  # no window: the target
        _finding("ADV4", 4, kind="compat"),  # old-torch branch: not on the path
    ]
    path = hops(findings, "2.4", "2.15")
    assert [(h["from"], h["to"]) for h in path] == [("2.4", "2.10"), ("2.13", "2.14"), ("2.14", "2.15")]
    first, breaking, last = path
    assert [e["rule"] for e in first["warns"]] == ["ADV2"] and first["breaks"] == []
    assert [e["rule"] for e in breaking["breaks"]] == ["ADV1"]
    assert [e["rule"] for e in breaking["fix_before"]] == ["ADV1"] and breaking["checks"] == ["profiler_events"]
    assert [e["rule"] for e in last["review"]] == ["ADV3"] and last["fix_before"] == []


def test_report_shows_the_upgrade_path(tmp_path):
    demo = os.path.join(ROOT, "examples", "demo")
    out = tmp_path / "rep"
    proc = _advisor("scan", demo, "--no-cache", "--report", str(out), "--min-torch", "2.4", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    md = (out / "report.md").read_text()
    assert "## Upgrade path from 2.4 to 2.15" in md and "### 2.4 → 2.10" in md and "Starts warning at 2.10" in md
    assert "Upgrade path from 2.4 to 2.15" in (out / "report.html").read_text()
    assert "By kind:" in md


class _SymbolSince(SymbolRule):
    """Test rule: a symbol whose replacement is newer than the rule's `since`."""

    code, name, severity, fix = "ADV998", "test-symbol-since", Severity.WARNING, SAFE
    names = {"torch.old_fn": Symbol("`{old}` old", "torch.new_fn", since="2.6")}


def test_a_symbols_own_since_decides_fix_safety():
    code = b"import torch\ntorch.old_fn(x)\n"
    (f,) = analyse(code, "m.py", [_SymbolSince], settings_at("2.15", "2.4"))[0].findings
    assert f.fix is None and "no fix: the replacement does not exist before torch 2.6" in f.message
    (f,) = analyse(code, "m.py", [_SymbolSince], settings_at("2.15", "2.6"))[0].findings
    assert f.fix == "safe"
    (f,) = analyse(code, "m.py", [_SymbolSince], settings_at("2.5", "2.4"))[
        0
    ].findings  # replacement not in the target: no fix
    assert f.fix is None


def test_table_entries_carry_their_own_windows():
    from advisor.rule.table import Entry, Row, generate

    ns = {"__name__": "tests.core.test_policy"}
    generate(
        (
            Row(
                "ADV997",
                "test-table-windows",
                (
                    Entry("torch.gone_api", "torch.new_api", deprecated_in="2.13", removed_in="2.14"),
                    Entry("torch.back_api", "torch.new_api", deprecated_in="2.13", undeprecated_in="2.15"),
                ),
                why="test",
                since="2.13",
            ),
        ),
        ns,
    )
    rule = ns["test-table-windows"]
    assert [w.removed_in for w in rule.windows()] == ["2.14", None]
    code = b"import torch\ntorch.gone_api(x)\ntorch.back_api(x)\n"
    at = {
        t: [(f.line, f.kind) for f in analyse(code, "m.py", [rule], settings_at(t))[0].findings]
        for t in ("2.13", "2.14", "2.15")
    }
    assert at == {
        "2.13": [(2, "deprecated"), (3, "deprecated")],
        "2.14": [(2, "breaking"), (3, "deprecated")],
        "2.15": [(2, "breaking")],
    }
    assert policy.rule_kind(rule.windows(), rule.kind, rule.severity, (2, 12)) is None  # replacement from 2.13

"""Start-up: a run where no file passes the prefilter never imports LibCST (issue #29, item 16).

LibCST costs ~0.1 s to import; a rule module that subclasses `cst.CSTVisitor` at module level
(rules/catalogue/_pickled.py did) pays it on every run, even for an empty file.
"""

import os
import subprocess
import sys


def _imported(tmp_path, text):
    target = tmp_path / "plain.py"
    target.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "advisor", "scan", str(target), "--no-cache"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_a_file_no_trigger_matches_does_not_import_libcst(tmp_path):
    modules = _imported(tmp_path, "import os\n\nprint(os.getcwd())\n")
    assert "advisor.analysis.registry" in modules or any(
        m.startswith("rules") for m in modules
    )  # the rules were loaded
    assert not [m for m in modules if m.split(".")[0] == "libcst"]


def test_an_empty_file_does_not_import_libcst(tmp_path):
    modules = _imported(tmp_path, "")
    assert not [m for m in modules if m.split(".")[0] == "libcst"]


def test_a_file_a_rule_matches_does_import_it(tmp_path):
    # The check above can fail: a file that needs parsing imports LibCST.
    modules = _imported(tmp_path, "import torch\nobj = torch.load('m.pt')\n")
    assert [m for m in modules if m.split(".")[0] == "libcst"]


def test_a_command_builds_only_itself_and_help_sees_them_all():
    # Typer builds each command's parameters from its signature on every run: a scan builds the scan command only.
    from advisor.cli import app
    from advisor.cli import only_command

    only = only_command(app, ["scan", "x.py", "--no-cache"])
    assert [c.callback.__name__ for c in only.registered_commands] == ["scan"]
    assert only.registered_callback is app.registered_callback  # --version and the root options stay
    assert len(app.registered_commands) > 1  # the app itself is untouched
    for args in ([], ["--help"], ["--version"], ["scna"], ["-h", "scan"]):
        assert only_command(app, args) is app  # help, the version and a typo's suggestion see every command


_DATACLASSES_BUILT = """
import dataclasses, runpy, sys
sys.argv = ["advisor", "scan", "clean.py", "--no-cache"]
try:
    runpy.run_module("advisor", run_name="__main__")
except SystemExit:
    pass
print(sorted(
    f"{name}.{attr}" for name, module in list(sys.modules.items()) if name.split(".")[0] == "advisor"
    for attr, value in vars(module).items()
    if isinstance(value, type) and value.__module__ == name and dataclasses.is_dataclass(value)
))
print("signal" in sys.modules)
"""


def test_a_clean_file_scan_builds_two_dataclasses_and_imports_no_signal_module(tmp_path):
    # Each @dataclass compiles its methods with exec at import (~4M instructions on Python 3.11); the classes a
    # clean-file scan imports are plain ones (advisor.core.plain). Finding stays a dataclass (the analysis and the
    # fixer call dataclasses.replace on it); Discovered is advisor.run.discovery's. `signal` builds enums: the
    # interrupt handler uses the C module under it.
    (tmp_path / "clean.py").write_text("import torch\n\nx = torch.ones(3)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run(
        [sys.executable, "-c", _DATACLASSES_BUILT],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1", "PYTHONPATH": root},
        timeout=300,
    )
    assert "Found 0 findings in 1 file." in proc.stdout, proc.stderr
    built, signal_imported = proc.stdout.splitlines()[-2:]
    assert built == "['advisor.core.findings.Finding', 'advisor.run.discovery.Discovered']"
    assert signal_imported == "False"

"""Every option and argument of the `advisor` commands, declared once.

Ruff's names first, with advisor's older spellings kept as aliases. Options that several commands share
come first; those of one command follow, under its name.

The declarations are plain values, not Typer's: advisor.cli makes Typer's parameters from them, and the
common `advisor scan` command line is read from the same declarations without importing Typer
(advisor.cli_fast), Typer's import being most of a one-file scan's start-up.
"""

from __future__ import annotations

from typing import Any

from advisor.core.versions import NEWEST, RANGE


class Param:
    """An option (`decls`: its names, e.g. "--jobs", "-j"; "--a/--b": an on and an off flag) or an argument."""

    __slots__ = ("default", "decls", "help", "rich_help_panel", "hidden", "is_argument")

    def __init__(
        self,
        default: Any,
        *decls: str,
        help: str | None = None,
        rich_help_panel: str | None = None,
        hidden: bool = False,
        is_argument: bool = False,
    ) -> None:
        self.default, self.decls, self.help = default, decls, help
        self.rich_help_panel, self.hidden, self.is_argument = rich_help_panel, hidden, is_argument


# Typed `Any`, as typer.Option is: a declaration stands as a parameter's default, whatever the parameter's type.
def Option(default: Any, *decls: str, **info: Any) -> Any:  # noqa: N802 (typer.Option's name, for reading)
    return Param(default, *decls, **info)


def Argument(default: Any, help: str | None = None) -> Any:  # noqa: N802
    return Param(default, help=help, is_argument=True)


# Shared by several commands.
PATHS = Argument(None, help="Files or directories (default: the current directory); `-` reads one file from stdin.")
SELECT = Option(
    None,
    "--select",
    help="Rule codes or prefixes to run instead of the default set (e.g. ADV1,ADV201); ALL: every rule, opt-in ones too.",
    rich_help_panel="Rule selection",
)
EXTEND_SELECT = Option(
    None,
    "--extend-select",
    help="Rule codes or prefixes to run on top of the selection (e.g. opt-in rules).",
    rich_help_panel="Rule selection",
)
# --extend-ignore (Ruff's older spelling) is the same: --ignore adds to the config's `ignore`.
IGNORE = Option(
    None,
    "--ignore",
    "--extend-ignore",
    help="Rule codes or prefixes to skip (added to the config's).",
    rich_help_panel="Rule selection",
)
TARGET = Option(
    None,
    "--target-version",
    help=f"Torch release you upgrade to, {RANGE} (default: from the project's pin, else {NEWEST}).",
    rich_help_panel="Versions",
)
MIN_TORCH = Option(
    None,
    "--min-torch",
    help="The lowest torch the project supports (default: from its pins, else 2.0).",
    rich_help_panel="Versions",
)
FAIL_ON = Option(
    None,
    "--fail-on",
    help="Kinds that fail the run, comma-separated: breaking, deprecated, advice, compat (default breaking,deprecated); or a severity.",
    rich_help_panel="Rule selection",
)
TARGETS = Option(
    None,
    "--target",
    help="Per-library target, e.g. torchvision=0.29 (default: what the torch target brings).",
    rich_help_panel="Versions",
)
CACHE_DIR = Option(
    None,
    "--cache-dir",
    help="Cache directory (default .advisor_cache at the project root).",
    rich_help_panel="Cache and speed",
)
NO_CACHE = Option(False, "--no-cache", help="Do not read or write the cache.", rich_help_panel="Cache and speed")
JOBS = Option(None, "--jobs", "-j", help="Worker processes (default: one per CPU).", rich_help_panel="Cache and speed")
EXCLUDE = Option(None, "--exclude", help="Glob patterns of paths to skip (added to config).", rich_help_panel="Files")
FORCE_EXCLUDE = Option(
    False,
    "--force-exclude",
    help="Apply `exclude` to files named on the command line too, as Ruff does (the pre-commit hooks pass it).",
    rich_help_panel="Files",
)
EXTEND_INCLUDE = Option(
    None,
    "--extend-include",
    help="Glob patterns of extra files to scan as Python (e.g. '*.pyw').",
    rich_help_panel="Files",
)
DEVICE = Option(
    None,
    "--device",
    help="rocm, cuda, xpu or cpu: the device the code targets (default: detected from ROCm markers).",
    rich_help_panel="Versions",
)
CONFIG = Option(
    None,
    "--config",
    help=r"pyproject.toml to read \[tool.advisor] from (default: found from the paths upwards).",
    rich_help_panel="Files",
)
QUIET = Option(False, "--quiet", "-q", help="Print the findings and errors, nothing else.", rich_help_panel="Output")
STDIN_FILENAME = Option(
    None,
    "--stdin-filename",
    help="The path the text read from stdin stands for (config, per-file-ignores, messages); alone, it reads stdin.",
    rich_help_panel="Files",
)
# Ruff's name first; --format is kept for the scripts already written with it.
OUTPUT_FORMAT = Option(
    "text",
    "--output-format",
    "--format",
    help="text (= concise: one short line per finding), full (the whole message, release windows and source line), json, sarif, github or junit.",
    rich_help_panel="Output",
)
FORMATS = ("text", "concise", "full", "json", "sarif", "github", "junit")


# `advisor scan`.
OUTPUT = Option(
    None, "--output", "-o", "--output-file", help="Write the output to this file.", rich_help_panel="Output"
)
EXIT_ZERO = Option(False, "--exit-zero", help="Exit 0 even when there are findings.", rich_help_panel="Output")
STATISTICS = Option(
    False,
    "--statistics",
    help="Print only the count of findings per rule, the most frequent first.",
    rich_help_panel="Output",
)
REPORT = Option(
    None,
    "--report",
    help="Also write report.md, report.html and validation scripts to this directory.",
    rich_help_panel="Output",
)
BASELINE = Option(
    None,
    "--baseline",
    help="Report only findings not in this baseline (default: advisor-baseline.json at the project root, if present).",
    rich_help_panel="Baseline and suppressions",
)
NO_BASELINE = Option(
    False,
    "--no-baseline",
    help="Report every finding, ignoring any baseline.",
    rich_help_panel="Baseline and suppressions",
)
WRITE_BASELINE = Option(
    None,
    "--write-baseline",
    help="Record the current findings in this baseline file and exit 0.",
    rich_help_panel="Baseline and suppressions",
)
ADD_NOQA = Option(
    False,
    "--add-noqa",
    help="Add `# advisor: ignore[CODE]` to every line with a finding, and exit 0.",
    rich_help_panel="Baseline and suppressions",
)

SHOW_SETTINGS = Option(
    False,
    "--show-settings",
    help="Print the config, target, lowest torch and rules a scan would use, and where each comes from; scan nothing.",
    rich_help_panel="Output",
)
SHOW_FILES = Option(
    False, "--show-files", help="Print the files a scan would read, and scan nothing.", rich_help_panel="Output"
)

# `advisor fix`.
FIX_FLAG = Option(False, "--fix", hidden=True)
FIX_UNSAFE_FIXES = Option(
    None,
    "--unsafe-fixes/--no-unsafe-fixes",
    help="Also apply fixes that may change behaviour.",
    rich_help_panel="Output",
)
FIX_DIFF = Option(
    False, "--diff", help="Print a unified diff of what would change; write nothing.", rich_help_panel="Output"
)
FIX_SHOW_FIXES = Option(
    False,
    "--show-fixes",
    help="List each fix applied (or that --diff would apply), by file and rule.",
    rich_help_panel="Output",
)
FIX_STATISTICS = Option(
    False,
    "--statistics",
    help="Count the findings left per rule instead of listing them.",
    rich_help_panel="Output",
)
FIX_FIXABLE = Option(
    None,
    "--fixable",
    help="Only these codes or prefixes are fixed (others are reported).",
    rich_help_panel="Rule selection",
)
FIX_UNFIXABLE = Option(
    None, "--unfixable", help="Codes or prefixes reported but never fixed.", rich_help_panel="Rule selection"
)
FIX_EXIT_ZERO = Option(
    False,
    "--exit-zero",
    help="Exit 0 even when findings remain (or, with --diff, would change).",
    rich_help_panel="Output",
)

# `advisor rules`.
RULES_FORMAT = Option("table", "--output-format", "--format", help="table, json or markdown (the README's table).")
RULES_TARGET_VERSION = Option(
    None, "--target-version", help="List only what applies to this torch release, with its kind there."
)

# `advisor explain`.
EXPLAIN_CODE = Argument(None, help="A rule code (ADV701), a prefix (ADV7) or a name (amp-autocast).")
EXPLAIN_EVERY = Option(False, "--all", help="Every rule's documentation.")

# `advisor validate`.
VALIDATE_DIRECTORY = Argument(..., help="A report directory written by `advisor scan --report DIR`.")
VALIDATE_PYTHON = Option(None, "--python", help="Interpreter of the (upgraded) environment to validate in.")
VALIDATE_DEVICE = Option(None, "--device", help="cuda, xpu or cpu (default: what the scripts detect).")

# `advisor audit`.
AUDIT_MANIFEST = Argument(
    ..., help=r"TOML (\[\[repo]] path/name/owner/tags) or text (one path per line) list of checkouts."
)
AUDIT_OUT = Option(
    "advisor-audit", "--out", help="Directory for audit.json, audit.md, audit.html and per-repository reports."
)
AUDIT_EXECUTOR = Option("local", "--executor", help="local (a process pool here) or dask.")
AUDIT_SCHEDULER = Option(
    None, "--scheduler", help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (with --executor dask)."
)
AUDIT_TARGET_VERSION = Option(None, "--target-version", help="Override every repository's own target.")

# `advisor rehearse`.
REHEARSE_PATH = Argument(".", help="The project: its tests run from this directory (default: the current one).")
REHEARSE_PYTHON = Option(
    None,
    "--python",
    help="Interpreter that already has the target torch (default: an isolated environment with it, "
    "made with uv, else venv and pip, and kept in the cache).",
)
REHEARSE_COMMAND = Option(
    None, "--command", help="The tests' command (default: python -m pytest); `python` in it is --python's."
)
REHEARSE_TIMEOUT = Option(
    3600.0, "--timeout", help="Seconds before the tests are stopped, every process they started with them."
)
REHEARSE_BASELINE = Option(
    None,
    "--baseline-python",
    help="Interpreter with the project's lowest torch: the same tests run there too, and what they give there "
    "also is marked pre-existing (not missed). Runs the project's code a second time.",
)
REHEARSE_FORMAT = Option("text", "--output-format", "--format", help="text or json.")
REHEARSE_REPORT = Option(
    None, "--report", help="Add a 'Seen at run time' section to the report in this directory (written first if absent)."
)

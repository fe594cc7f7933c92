"""`advisor scan --add-noqa`: silence today's findings where they are, as Ruff's `--add-noqa`.

Each flagged line gets `# advisor: ignore[CODES]` at its end (advisor's own form, which
flake8 leaves alone). A line is only touched where a comment can go: never inside a
multi-line string, never after a backslash continuation; the node's last line is used
then, and if that is not safe either the finding is left as it is and counted.
Bytes outside the added comments, the encoding, BOM and line endings are kept, and the
write is atomic. In a notebook the comment goes into the cell's source (advisor.fix.noqa_cells).
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from dataclasses import dataclass, field

from advisor.analysis.analyse import SourceError, decode
from advisor.core.atomic import replace_file
from advisor.core.findings import Finding
from advisor.core.reading import read_bytes
from advisor.core.textlines import split_lines


@dataclass
class NoqaRun:
    added: int = 0  # comments added
    skipped: list[Finding] = field(default_factory=list)  # no safe place for a comment
    errors: list[tuple[str, str]] = field(default_factory=list)


def _unsafe_lines(text: str) -> set[int]:
    """Lines whose end lies inside a string (or f-string) token, or that continue with a backslash."""
    out: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.start[0] != tok.end[0] and tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                out.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError):
        return set(range(1, text.count("\n") + 2))  # cannot tell: touch nothing
    for n, line in enumerate(split_lines(text), 1):
        if line.rstrip().endswith("\\"):
            out.add(n)
    return out


def _add_to_file(path: str, findings: list[Finding], run: NoqaRun, root: str | None) -> None:
    data = read_bytes(path)
    text, encoding = decode(data)
    lines = split_lines(text, keepends=True)
    unsafe = _unsafe_lines(text)
    codes: dict[int, list[str]] = {}
    for f in findings:
        line = next((n for n in (f.line, f.end_line) if n not in unsafe and 0 < n <= len(lines)), None)
        if line is None:
            run.skipped.append(f)
        elif f.rule not in codes.setdefault(line, []):
            codes[line].append(f.rule)
    for n, rules in codes.items():
        body = lines[n - 1]
        stripped = body.rstrip("\r\n")
        lines[n - 1] = _with_codes(stripped, sorted(rules)) + body[len(stripped) :]
    if codes:
        new = "".join(lines).encode(encoding)
        replace_file(path, new, mode=os.stat(path).st_mode & 0o7777, durable=True, root=root)
        run.added += len(codes)  # counted once written: a refused file adds nothing


_NOQA_CODES = re.compile(r"#\s*noqa:\s*[A-Z]+\d*(?:[\s,]+[A-Z]+\d*)*", re.IGNORECASE)


def _with_codes(line: str, codes: list[str]) -> str:
    """`line` with a comment that silences `codes`: added to its `# noqa: CODES` when it has one (as Ruff's
    --add-noqa merges), else a new `# advisor: ignore[CODES]`."""
    found = None
    if "#" in line:
        comment_at = _comment_start(line)
        found = _NOQA_CODES.search(line, comment_at) if comment_at is not None else None
    if found is None:
        return f"{line}  # advisor: ignore[{', '.join(codes)}]"
    return line[: found.end()] + "".join(f", {c}" for c in codes) + line[found.end() :]


def _comment_start(line: str) -> int | None:
    """Where the line's comment starts (its `#` outside any string), or None."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line + "\n").readline):
            if tok.type == tokenize.COMMENT:
                return tok.start[1]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return None


def add_noqa(findings: list[Finding], root: str | None = None) -> NoqaRun:
    """Add a suppression comment for each finding, file by file (only to files inside `root`)."""
    run = NoqaRun()
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    for path, found in sorted(by_path.items()):
        try:
            if path.endswith(".ipynb"):
                from advisor.fix.noqa_cells import add_to_notebook  # its cells are JSON strings

                run.added += add_to_notebook(path, found, _unsafe_lines, run.skipped, root)
            else:
                _add_to_file(path, found, run, root)
        except (OSError, SourceError) as e:
            run.errors.append((path, str(e)))
    return run

"""JUnit XML: one test case per finding (a failure) and per unanalysable file (an error)."""

from __future__ import annotations

from typing import TextIO
from xml.sax.saxutils import escape, quoteattr

from advisor.core.findings import ScanResult


def render(result: ScanResult, stream: TextIO) -> None:
    findings, errors = result.findings, result.errors
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    stream.write(
        f'<testsuites name="advisor" tests="{len(findings) + len(errors)}" failures="{len(findings)}" errors="{len(errors)}">\n'
        f'<testsuite name="advisor" tests="{len(findings) + len(errors)}" failures="{len(findings)}" errors="{len(errors)}">\n'
    )
    for f in findings:
        name = quoteattr(f"{f.rule} {f.path}:{f.line}:{f.column}")
        stream.write(
            f"<testcase classname={quoteattr(f.path)} name={name}>"
            f"<failure type={quoteattr(f.rule)} message={quoteattr(f.message)}>{escape(f'{f.path}:{f.line}:{f.column}: {f.rule} {f.message}')}</failure>"
            "</testcase>\n"
        )
    for e in errors:
        stream.write(f"<testcase classname={quoteattr(e.path)} name={quoteattr('analysis')}><error message={quoteattr(e.message)}/></testcase>\n")
    stream.write("</testsuite>\n</testsuites>\n")

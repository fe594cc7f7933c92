"""JUnit XML: one test case per finding (a failure) and per unanalysable file (an error).

Names and messages come from the scanned tree: what XML 1.0 cannot hold (control characters,
the lone surrogates of a name that is not UTF-8) is written as a visible escape, so the
document always parses. A notebook finding's name carries its cell.
"""

from __future__ import annotations

import re
from typing import TextIO
from xml.sax.saxutils import escape, quoteattr

from advisor.core.findings import ScanResult
from advisor.report.output.printable import printable

# Outside XML 1.0's Char production (tab, newline and carriage return are allowed).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\x7f-\x9f]")


# A raw CR in element text rewrites a terminal line (`cat junit.xml` in a CI log); as a reference it stays one.
_CR = {"\r": "&#13;"}


def _clean(text: str) -> str:
    return _NOT_XML.sub(lambda m: printable(m.group()), text)


def _attr(text: str) -> str:
    return quoteattr(_clean(text))


def render(result: ScanResult, stream: TextIO) -> None:
    findings, errors = result.findings, result.errors
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    stream.write(
        f'<testsuites name="advisor" tests="{len(findings) + len(errors)}" failures="{len(findings)}" errors="{len(errors)}">\n'
        f'<testsuite name="advisor" tests="{len(findings) + len(errors)}" failures="{len(findings)}" errors="{len(errors)}">\n'
    )
    for f in findings:
        line = f.file_region[0]  # a notebook's: the line of the .ipynb file where its cell's line is written
        stream.write(
            f'<testcase classname={_attr(f.path)} name={_attr(f"{f.rule} {f.location}")} file={_attr(f.path)} line="{line}">'
            f"<failure type={_attr(f.rule)} message={_attr(f.message)}>{escape(_clean(f'{f.location}: {f.rule} {f.message}'), _CR)}</failure>"
            "</testcase>\n"
        )
    for e in errors:
        stream.write(
            f"<testcase classname={_attr(e.path)} name={quoteattr('analysis')}><error message={_attr(e.message)}/></testcase>\n"
        )
    stream.write("</testsuite>\n</testsuites>\n")

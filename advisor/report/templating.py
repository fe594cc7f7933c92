"""The Jinja environment for every template advisor writes: report, validation scripts, audit dashboard.

Scanned text reaches templates: the filters here make it inert in Markdown,
HTML (autoescape) and Python (repr), so it never becomes markup or code, while
what reads as code in a message (`torch.ger`) is rendered as code in both.
"""

from __future__ import annotations

import re
from typing import Any

import jinja2
from markupsafe import Markup, escape

# Bidi controls reorder the text after them (a file named `x\u202egnp.py` reads as `xyp.png`): shown visibly.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SPAN = re.compile(r"(`+)(.+?)\1")  # a Markdown code span in a message: `torch.ger`
# Other controls (ESC, BEL, C1) would drive a terminal that shows the raw file (`cat report.md`, OSC 52 writes
# the clipboard): written as escapes. Tabs stay; line breaks are each format's own business (below).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_BREAK = re.compile("\r\n|[\r\n\u2028\u2029]")


def visible_bidi(text: Any) -> str:
    s = _BIDI.sub(lambda m: f"\u27e8U+{ord(m.group()):04X}\u27e9", str(text))
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", s)


def _one_line(text: Any) -> str:
    """Scanned text on one line: a break in a file name must not start a line of its own in the raw file
    (where `::error ...` at a line's start is a CI workflow command)."""
    return _BREAK.sub(" ", visible_bidi(text))


def md_escape(text: Any) -> str:
    """Make scanned text inert in Markdown, one line, safe in a table cell; and readable in the raw file.

    Only what Markdown would act on is escaped: `<` starting a tag (as `&lt;`), `&` starting an entity,
    `|`, backticks, `*`, brackets, backslashes, `_` at a word's edge and a leading `#`.
    """
    s = _one_line(text)
    s = re.sub(r"([\\`*\[\]|])", r"\\\1", s)
    s = re.sub(r"&(?=#|\w+;)", r"\\&", s)
    s = re.sub(r"<(?=[A-Za-z/!?])", "&lt;", s)  # an entity, not `\<`: no raw `<tag` in the file at all
    s = re.sub(r"(?<!\w)_|_(?!\w)", r"\\_", s)
    return re.sub(r"^#", r"\\#", s)


def md_code(text: Any, table: bool = False) -> str:
    """A Markdown code span holding `text` verbatim, whatever backticks it contains (`table`: `|` escaped, as GFM needs)."""
    s = _one_line(text)
    if table:
        s = s.replace("|", "\\|")
    runs = [len(m) for m in re.findall(r"`+", s)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or runs else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def md_inline(text: Any, table: bool = False) -> str:
    """A message in Markdown: its `code` spans as code spans, the rest escaped."""
    s, out, at = str(text), [], 0
    for m in _SPAN.finditer(s):
        out += [md_escape(s[at : m.start()]), md_code(m.group(2), table)]
        at = m.end()
    return "".join(out) + md_escape(s[at:])


def md_fence(lines: Any) -> str:
    """A code fence longer than any run of backticks in `lines` (at least three)."""
    runs = [len(m) for line in lines for m in re.findall(r"`+", str(line))]
    return "`" * max(3, max(runs, default=0) + 1)


def html_inline(text: Any) -> Markup:
    """A message in HTML: escaped, its `code` spans as <code>."""
    s, out, at = str(text), [], 0
    for m in _SPAN.finditer(s):
        out += [str(escape(_one_line(s[at : m.start()]))), f"<code>{escape(_one_line(m.group(2)))}</code>"]
        at = m.end()
    return Markup("".join(out) + str(escape(_one_line(s[at:]))))


def html_where(text: Any) -> Markup:
    """A path (or path:line) in HTML: escaped, bidi controls shown, isolated so it cannot reorder what follows."""
    return Markup(f"<bdi>{escape(_one_line(text))}</bdi>")


def _inert(value: Any) -> Any:
    """Every value a template prints, filtered or not (a repository name in the audit, say): no raw ESC or BEL."""
    if isinstance(value, str) and not isinstance(value, Markup) and _CONTROL.search(value):
        return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", value)
    return value


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("advisor.report", "templates"),
        autoescape=lambda name: name is not None and name.endswith(".html.j2"),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        finalize=_inert,
    )
    env.filters["md"] = md_escape
    env.filters["mdcode"] = md_code
    env.filters["mdcell"] = lambda text: md_code(text, table=True)
    env.filters["mdinline"] = md_inline
    env.filters["mdfence"] = md_fence
    env.filters["bidi"] = visible_bidi
    env.filters["oneline"] = _one_line  # attribute values too: a break in a name must not start a raw line
    env.filters["inline"] = html_inline
    env.filters["where"] = html_where
    env.filters["pyrepr"] = repr  # a Python literal: scanned text never becomes code
    return env

"""The Jinja environment for every template advisor writes: report, validation scripts, audit dashboard.

Scanned text reaches templates: the filters here make it inert in Markdown,
HTML (autoescape) and Python (repr), so it never becomes markup or code.
"""

from __future__ import annotations

import re
from typing import Any

import jinja2


def md_escape(text: Any) -> str:
    """Make scanned text inert in Markdown: no raw HTML, no code-span or table breakage."""
    s = str(text)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_\[\]|#])", r"\\\1", s)


def md_code(text: Any) -> str:
    """A Markdown code span holding `text` verbatim, whatever backticks it contains."""
    s = str(text).replace("\n", " ")
    runs = [len(m) for m in re.findall(r"`+", s)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or runs else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("advisor.report", "templates"),
        autoescape=lambda name: bool(name) and name.endswith(".html.j2"),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["md"] = md_escape
    env.filters["mdcode"] = md_code
    env.filters["pyrepr"] = repr  # a Python literal: scanned text never becomes code
    return env

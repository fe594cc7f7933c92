"""The one short line of concise output: what is wrong and what to write instead, as Ruff's messages are.

A rule's message carries its evidence: the warning class, the release windows, why a fix is held back, notes
in parentheses. Those stay in `full`, JSON, SARIF, `explain` and the report; concise output keeps the first
statement and the action (`use ...`, `pass ...`), about 100 characters, never more than `LIMIT`.
"""

from __future__ import annotations

import re
from functools import lru_cache

LIMIT = 160
AIM = 100
# A clause that says what to do: the replacement or the change (compiled on first use, as `_PREFIX`: a run without
# a long message never needs them).
_ACTION = (
    r"(use|pass|switch|delete|drop|raise|replace|filter|call|compare|keep|move|set|add|remove|rename|"
    r"import|wrap|stack|migrate|install|pin|read|write)\b"
)


@lru_cache(maxsize=None)
def _cuts(separators: tuple[str, ...]) -> re.Pattern[str]:
    """A backtick, or one of the separators (the first that matches where several start at one place)."""
    return re.compile("`|" + "|".join(map(re.escape, separators)))


def _split(text: str, separators: tuple[str, ...]) -> list[str]:
    """`text` cut at the separators that stand outside backticks."""
    parts, start, quoted = [], 0, False
    for m in _cuts(separators).finditer(text):  # no separator holds a backtick: none hides one
        if m.group() == "`":
            quoted = not quoted
        elif not quoted:
            parts.append(text[start : m.start()])
            start = m.end()
    parts.append(text[start:])
    return [p for p in (p.strip() for p in parts) if p]


def _without_asides(text: str) -> str:
    """`text` less its parenthesised notes, those outside backticks (the code in backticks keeps its calls)."""
    if "(" not in text:
        return text.strip()
    out: list[str] = []
    depth, quoted = 0, False
    for ch in text:
        if ch == "`" and depth == 0:
            quoted = not quoted
        if not quoted and ch == "(":
            if depth == 0 and out and out[-1] == " ":
                out.pop()
            depth += 1
        elif not quoted and ch == ")" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip()


_PREFIX = r"^(breaks in [\d.]+: |compat fallback[^:]*: )"


def _forms(text: str) -> list[str]:
    """Ever shorter forms of `text`: its first statement with the action, then that statement cut shorter."""
    prefix = re.match(_PREFIX, text)
    head = prefix.group(0) if prefix else ""
    clauses = _split(text[len(head) :], ("; ",))
    first = _split(clauses[0], (". ",))[0]
    action = next((c for c in clauses[1:] if re.match(_ACTION, c)), None)
    tail = f"; {action}" if action else ""
    cuts = [first, _split(first, (", so ", ", which ", ", but ", ", and "))[0], _split(first, (": ",))[0]]
    return [head + cut + tail for cut in cuts] + [head + cut for cut in cuts]


@lru_cache(maxsize=4096)
def short(message: str) -> str:
    """The concise form of a finding's message (a tree's findings repeat their messages)."""
    text = _without_asides(message) or message
    if len(text) <= AIM:
        return text
    forms = _forms(text)
    text = next((f for f in forms if len(f) <= AIM + 20), min(forms, key=len))
    if len(text) > LIMIT:
        text = text[: LIMIT - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return text

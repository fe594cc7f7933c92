"""`json.dumps(obj, indent=n)`, byte for byte, in a fraction of its time.

On Python 3.11 and 3.12 an `indent` turns the C encoder off: `json` then walks the object with Python generators,
one `yield` per piece, which cost a warm scan's JSON output most of its time (torch's tree: 75 ms of 0.24 s).
Here each value is one call that returns its text, strings go through the C encoder's own escaping
(`encode_basestring_ascii`, as `ensure_ascii=True` does), and numbers through the same `repr`s `json` uses.
Keys, the handling of subclasses and the errors are `json`'s (tests/report/test_indented_json.py compares both
on real reports and on every kind of value); only a circular structure differs: RecursionError, not ValueError.
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii as _string
from typing import Any

_INF = float("inf")


def dumps(obj: Any, indent: int = 2) -> str:
    """`json.dumps(obj, indent=indent)`: the default separators with an indent (`,` and `: `), ASCII only."""
    return _Writer(" " * indent).value(obj, "\n")


def _float(o: float) -> str:
    if o != o:
        return "NaN"
    if o == _INF:
        return "Infinity"
    if o == -_INF:
        return "-Infinity"
    return float.__repr__(o)


class _Writer:
    """One document's writer: `newline` starts a line at a value's own depth; `step` is one level deeper."""

    def __init__(self, step: str) -> None:
        self.step = step
        self.keys: dict[str, str] = {}  # a str key's text with its separator: a report repeats a few keys

    def value(self, o: Any, newline: str) -> str:
        t = type(o)
        if t is str:  # the common cases first, by exact type; subclasses go through json's own order below
            return _string(o)
        if o is None:
            return "null"
        if t is int:
            return int.__repr__(o)
        if t is dict:
            return self.object(o, newline)
        if t is list:
            return self.array(o, newline)
        if isinstance(o, str):
            return _string(o)
        if o is True:
            return "true"
        if o is False:
            return "false"
        if isinstance(o, int):
            return int.__repr__(o)
        if isinstance(o, float):
            return _float(o)
        if isinstance(o, (list, tuple)):
            return self.array(o, newline)
        if isinstance(o, dict):
            return self.object(o, newline)
        raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")

    def array(self, o: Any, newline: str) -> str:
        if not o:
            return "[]"
        inner = newline + self.step
        value = self.value
        return "[" + inner + ("," + inner).join([value(v, inner) for v in o]) + newline + "]"

    def object(self, o: Any, newline: str) -> str:
        if not o:
            return "{}"
        inner = newline + self.step
        keys, value = self.keys, self.value
        items = []
        for k, v in o.items():
            key = keys.get(k) if type(k) is str else None  # only str keys: 1, 1.0 and True are one dict key
            if key is None:
                key = _string(k if type(k) is str else _key(k)) + ": "
                if type(k) is str:
                    keys[k] = key
            t = type(v)  # a finding's values, inline: a call per value is most of the time
            if t is str:
                items.append(key + _string(v))
            elif v is None:
                items.append(key + "null")
            elif t is int:
                items.append(key + int.__repr__(v))
            else:
                items.append(key + value(v, inner))
        return "{" + inner + ("," + inner).join(items) + newline + "}"


def _key(k: Any) -> str:
    """A key that is not a str, made one as `json` makes it, in `json`'s order of checks."""
    if isinstance(k, str):
        return k
    if isinstance(k, float):
        return _float(k)
    if k is True:
        return "true"
    if k is False:
        return "false"
    if k is None:
        return "null"
    if isinstance(k, int):
        return int.__repr__(k)
    raise TypeError(f"keys must be str, int, float, bool or None, not {k.__class__.__name__}")

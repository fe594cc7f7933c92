"""Code that probes for a keyword before passing it (ADV131, ADV132): those calls are the fallback, not a miss.

- `try: f(..., kw=v) except TypeError: f(...)` (and a bare `except:` or `except Exception:`): the handler
  runs where the keyword does not exist;
- a test that reads the signature: `"indexing" in torch.meshgrid.__kwdefaults__`,
  `inspect.signature(f).parameters`, or a name assigned such a test: both branches are chosen on purpose;
- an `if` (or `x if c else y`) one of whose branches passes the keyword to the same API: the other branch
  leaves it out on purpose, whatever the test (mmengine's `if _torch_version_meshgrid_indexing:` is an
  `and` of a torch version test and a non-torch test, which the generic compat gates do not read).
"""

from __future__ import annotations

from typing import Any, Callable

from advisor.rule import cst, get_arg, nodes_of

_CAUGHT = {"TypeError", "Exception", "BaseException"}


def _caught(handler: Any) -> bool:
    if handler.type is None:
        return True
    names = nodes_of(handler.type, cst.Name, cst.Attribute)
    return any((n.attr.value if isinstance(n, cst.Attribute) else n.value) in _CAUGHT for n in names)


def _probe(node: Any) -> bool:
    """`f.__kwdefaults__`, `f.__code__`, `inspect.signature(f).parameters` anywhere in `node`."""
    for n in nodes_of(node, cst.Attribute):
        attr = n.attr.value
        if attr in ("__kwdefaults__", "__code__"):
            return True
        if attr == "parameters" and isinstance(n.value, cst.Call):
            func = n.value.func
            if (func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")) == "signature":
                return True
    return False


def _reads_signature(node: Any, keyword: str, flags: set[str]) -> bool:
    if _probe(node):
        return True
    for n in nodes_of(node, cst.Name, cst.SimpleString):
        if isinstance(n, cst.Name) and n.value in flags:
            return True
        if isinstance(n, cst.SimpleString) and n.evaluated_value == keyword:
            return True
    return False


class Probes:
    """Counts how deep the walk is inside probing code; a rule forwards its visit/leave calls here."""

    def __init__(self, keyword: str, is_target: Callable[[Any], bool]) -> None:
        self.keyword = keyword
        self.is_target = is_target  # does this Call call the API the keyword belongs to?
        self.depth = 0
        self.handlers: set[int] = set()
        self.tests: set[int] = set()
        self.flags: set[str] = set()  # names assigned a signature test
        self.ifs: list[Any] = []  # the enclosing If / IfExp nodes

    def assign(self, node: Any) -> None:
        if _probe(node.value):
            self.flags.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))

    def enter_try(self, node: Any) -> None:
        tried = [c for c in nodes_of(node.body, cst.Call) if self.is_target(c) and get_arg(c, self.keyword)]
        if tried:
            self.handlers.update(id(h) for h in node.handlers if _caught(h))

    def enter(self, node: Any) -> None:
        """An ExceptHandler, If or IfExp."""
        if isinstance(node, (cst.If, cst.IfExp)):
            self.ifs.append(node)
        if id(node) in self.handlers:
            self.depth += 1
        elif isinstance(node, (cst.If, cst.IfExp)) and _reads_signature(node.test, self.keyword, self.flags):
            self.tests.add(id(node))
            self.depth += 1

    def leave(self, node: Any) -> None:
        if isinstance(node, (cst.If, cst.IfExp)):
            self.ifs.pop()
        if id(node) in self.handlers or id(node) in self.tests:
            self.depth -= 1

    def chosen(self) -> bool:
        """Is the call being visited under an `if` that passes the keyword in a branch? (Asked per finding only.)"""
        return any(
            self.is_target(c) and get_arg(c, self.keyword) is not None
            for branch in self.ifs
            for c in nodes_of(branch, cst.Call)
        )

"""Code that probes for a keyword before passing it (ADV131, ADV132): those calls are the fallback, not a miss.

- `try: f(..., kw=v) except TypeError: f(...)` (and a bare `except:` or `except Exception:`): the handler
  runs where the keyword does not exist;
- a test that reads the signature: `"indexing" in torch.meshgrid.__kwdefaults__`,
  `inspect.signature(f).parameters`, or a name assigned such a test: both branches are chosen on purpose;
- the innermost `if` (or `x if c else y`) around a call, one of whose branches passes the keyword to the same API: the other branch
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
    """The probing code around the node being visited; a rule forwards its visit/leave calls here and asks
    `around()` per finding only (the look at branches and try bodies costs a walk)."""

    def __init__(self, keyword: str, is_target: Callable[[Any], bool]) -> None:
        self.keyword = keyword
        self.is_target = is_target  # does this Call call the API the keyword belongs to?
        self.flags: set[str] = set()  # names assigned a signature test
        self.trys: list[Any] = []  # the enclosing Try nodes
        self.blocks: list[tuple[Any, Any]] = []  # enclosing If / IfExp (node, None) and handlers (handler, its Try)

    def assign(self, node: Any) -> None:
        if _probe(node.value):
            self.flags.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))

    def enter(self, node: Any) -> None:
        """A Try, ExceptHandler, If or IfExp."""
        if isinstance(node, cst.Try):
            self.trys.append(node)
        else:
            self.blocks.append((node, self.trys[-1] if isinstance(node, cst.ExceptHandler) and self.trys else None))

    def leave(self, node: Any) -> None:
        (self.trys if isinstance(node, cst.Try) else self.blocks).pop()

    def _passes(self, node: Any) -> bool:
        return any(self.is_target(c) and get_arg(c, self.keyword) is not None for c in nodes_of(node, cst.Call))

    def around(self) -> bool:
        """Is the node being visited the fallback of a `try` that passes the keyword, under a test that reads
        the signature, or in the innermost `if` one of whose branches passes the keyword?"""
        for node, tried in self.blocks:
            if tried is not None and _caught(node) and self._passes(tried.body):
                return True
            if tried is None and _reads_signature(node.test, self.keyword, self.flags):
                return True
        ifs = [node for node, tried in self.blocks if tried is None]
        return bool(ifs) and self._passes(_branches(ifs[-1]))


def _branches(node: Any) -> Any:
    """What to look for the keyword in: an IfExp whole; an If's own simple statements (not nested blocks)."""
    if isinstance(node, cst.IfExp):
        return node
    lines = []
    while isinstance(node, cst.If):
        lines += [s for s in getattr(node.body, "body", ()) if isinstance(s, cst.SimpleStatementLine)]
        node = node.orelse
    if isinstance(node, cst.Else):
        lines += [s for s in getattr(node.body, "body", ()) if isinstance(s, cst.SimpleStatementLine)]
    return cst.Module(body=lines)

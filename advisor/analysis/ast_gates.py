"""Version gates read off an `ast` tree: `advisor.analysis.compat.Gates`' answers, without LibCST (issue #35).

The gates recognised are compat.py's (its docstring lists them); so are the words, regexes and releases, imported
from there. What differs is only how the tree is read, and where `ast` and LibCST see code differently this reads
it as LibCST does, since the gates were written (and tested) against LibCST's tree:
- literals by their source text (`2.10` is "2.10", not the float 2.1), from `Source`;
- a string is LibCST's `SimpleString` when it is one literal token, whatever its prefix (bytes too), and not an
  f-string; the parts of an implicitly concatenated one are each one;
- `a and b and c` is `(a and b) and c`, as LibCST nests it;
- a search for LibCST's `Name` nodes meets every identifier: attribute names, keywords, parameters, imported names.
`benchmarks/compat_agreement.py` compares the two on whole trees.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Iterator

from advisor.analysis import project_flags
from advisor.analysis.compat import (
    _CALL_NEW,
    _CALL_OLD,
    _FLIP,
    _TORCH_VERSION_NAMES,
    _UNKNOWN,
    _VERSION_NAME,
    _next_minor,
    _until,
    spelled_call,
    spelled_flag,
)
from advisor.core.versions import parse_version
from advisor.syntax.ast_source import Source

_NEW_OPS = {ast.GtE: ">=", ast.Gt: ">"}
_OLD_OPS = {ast.Lt: "<", ast.LtE: "<="}


def identifiers(node: Any) -> Iterator[tuple[Any, str]]:
    """What a search of LibCST's tree for `Name` finds below `node`: (the `ast.Name`, or None, and the identifier)
    for names, attribute names, keywords, parameters, definitions, and each part of an imported dotted name."""
    n: Any
    for n in ast.walk(node):
        t = type(n)
        if t is ast.Name:
            yield n, n.id
        elif t is ast.Attribute:
            yield None, n.attr
        elif t is ast.keyword or t is ast.arg:
            name = n.arg
            if name:
                yield None, name
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            yield None, n.name
        elif t is ast.alias:
            for part in n.name.split("."):
                yield None, part
            if n.asname:
                yield None, n.asname
        elif t is ast.ImportFrom and n.module:
            for part in n.module.split("."):
                yield None, part
        elif t is ast.ExceptHandler and n.name:
            yield None, n.name
        elif t in (ast.Global, ast.Nonlocal):
            for name in n.names:
                yield None, name


def dotted(node: Any) -> str:
    """LibCST's `dotted_name`: `a.b.c`; "" for anything else, and `.c` for `f().c`."""
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute:
        return f"{dotted(node.value)}.{node.attr}"
    return ""


def assigned_values(small: Any) -> dict[str, Any]:
    """As compat.assigned_values: `a = e`, `a: T = e`, `major, minor = e` (and `*rest` in it)."""
    if type(small) is ast.AnnAssign:
        return {small.target.id: small.value} if small.value is not None and type(small.target) is ast.Name else {}
    if type(small) is not ast.Assign or len(small.targets) != 1:
        return {}
    target: Any = small.targets[0]
    if type(target) is ast.Name:
        return {target.id: small.value}
    if type(target) in (ast.Tuple, ast.List):
        names: list[Any] = [e.value if type(e) is ast.Starred else e for e in target.elts]
        if all(type(n) is ast.Name for n in names):
            return {n.id: small.value for n in names}
    return {}


def call_args(node: ast.Call) -> list[tuple[str | None, Any]]:
    """(keyword or None, value) of each argument, in source order (LibCST keeps one list)."""
    args: list[tuple[str | None, Any]] = [(None, a.value if type(a) is ast.Starred else a) for a in node.args]
    args += [(k.arg, k.value) for k in node.keywords]
    if node.keywords and node.args and _starts(node.keywords[0]) < _starts(node.args[-1]):
        order = [*node.args, *node.keywords]
        return [a for _, a in sorted(zip(order, args), key=lambda pair: _starts(pair[0]))]
    return args


def _starts(node: Any) -> tuple[int, int]:
    return node.lineno, node.col_offset


class AstGates:
    """compat.Gates on an `ast` tree: `test` and `old_when` of a test expression."""

    def __init__(self, tree: ast.Module, resolver: Any, source: Source, path: str | None = None, hops: int = 0):
        self.resolver, self.source, self.path, self.hops = resolver, source, path, hops
        self.defs: dict[str, Any] = {}
        for stmt in tree.body:
            self.defs.update(assigned_values(stmt))
        self.local: dict[str, Any] = {}  # the enclosing function's, set by the caller

    def _def(self, name: str) -> Any:
        return self.local.get(name, self.defs.get(name))

    def is_torch(self, node: Any, name: str | None = None) -> bool:
        """compat.Gates._is_torch; `name`: an identifier LibCST has as a `Name` and `ast` as a string."""
        if name is not None:
            return name == "torch"
        if type(node) not in (ast.Name, ast.Attribute):
            return False
        names = self.resolver.qualnames(node) or {dotted(node)}
        return any(q == "torch" or q.startswith("torch.") for q in names)

    def is_version_expr(self, node: Any, depth: int = 0) -> bool:
        for sub in ast.walk(node):
            if type(sub) is ast.Attribute and sub.attr == "__version__" and self.is_torch(sub.value):
                return True
        for name_node, name in identifiers(node):
            if name == "__version__":
                continue
            if _VERSION_NAME.search(name) and not _CALL_NEW.search(name) and not _CALL_OLD.search(name):
                return True
            if depth == 0 and self._def(name) is not None and self.is_version_expr(self._def(name), 1):
                return True
            if name_node is not None and _TORCH_VERSION_NAMES & self.resolver.qualnames(name_node):
                return True
        return False

    def version_text(self, node: Any) -> str | None:
        """compat._version_text: "2.4" from "2.4.0a0", (2, 4, 0), Version("2.4") ..., by their source text."""
        if type(node) is ast.Constant and type(node.value) is float:
            m = re.match(r"(\d+)\.(\d+)", self.source.segment(node))
            return f"{m.group(1)}.{m.group(2)}" if m else None
        if type(node) in (ast.Tuple, ast.List):
            ints = [self.source.segment(e) for e in node.elts if _is_int(e)]
            return f"{ints[0]}.{ints[1]}" if len(ints) >= 2 else None
        for raw in reversed(self._strings(node)):  # LibCST's search meets the last one first
            m = re.match(r"[\"']?(\d+)\.(\d+)", raw.lstrip("rRbBuU"))
            if m:
                return f"{m.group(1)}.{m.group(2)}"
        return None

    def _strings(self, node: Any) -> list[str]:
        """The raw STRING tokens below `node` in source order, f-strings' own text left out (not SimpleStrings)."""
        out: list[str] = []
        stack = [node]
        while stack:
            n = stack.pop()
            if type(n) is ast.JoinedStr:
                stack.extend(v.value for v in reversed(n.values) if type(v) is ast.FormattedValue)
                continue
            if type(n) is ast.Constant:
                out.extend(reversed(self.source.string_tokens(n)))
                continue
            stack.extend(ast.iter_child_nodes(n))
        out.reverse()
        return out

    def _compare(self, left: Any, ops: list, comparators: list) -> tuple[str, str | None] | None:
        if len(ops) == 2:  # `"1.5" <= v < "1.10"` (mmengine): true only below the upper bound
            parts = [
                self._compare(left, ops[:1], comparators[:1]),
                self._compare(comparators[0], ops[1:], comparators[1:]),
            ]
            old = [p for p in parts if p is not None and p[0] == "old"]
            return old[0] if old and all(p is not None for p in parts) else None
        if len(ops) != 1:
            return None
        op = _NEW_OPS.get(type(ops[0])) or _OLD_OPS.get(type(ops[0]))
        if op is None:
            return None
        right = comparators[0]
        part = self._version_part(left) if _is_int(right) else None
        if part is not None:  # `int(torch.__version__.split(".")[1]) >= 4` (PyG's typing.py): 2.x is assumed
            value = self.source.segment(right)
            return _until(op, f"{value}.0" if part == 0 else f"2.{value}")
        if self.is_version_expr(left) and not self.is_version_expr(right):
            v = self.version_text(right)
        elif self.is_version_expr(right) and not self.is_version_expr(left):
            op, v = _FLIP[op], self.version_text(left)
        else:
            return None
        return _until(op, v) if v else None

    def _version_part(self, node: Any) -> int | None:
        """compat._version_part: 0 or 1 for `int(<torch version>.split(".")[0 or 1])`."""
        if not (type(node) is ast.Call and dotted(node.func) == "int" and len(node.args) + len(node.keywords) == 1):
            return None
        sub = call_args(node)[0][1]
        if type(sub) is not ast.Subscript or type(sub.slice) in (ast.Tuple, ast.Slice):
            return None
        index, call = sub.slice, sub.value
        if not (_is_int(index) and self.source.segment(index) in ("0", "1") and type(call) is ast.Call):
            return None
        func = call.func
        if not (type(func) is ast.Attribute and func.attr == "split" and self.is_version_expr(func.value)):
            return None
        return int(self.source.segment(index))

    def _call(self, node: ast.Call) -> tuple[str, Any] | None:
        name = dotted(node.func).rsplit(".", 1)[-1]
        pairs = call_args(node)
        args = [v for _, v in pairs]
        simple = self.source.simple_string
        if name == "startswith" and len(args) == 1 and type(node.func) is ast.Attribute:
            if self.is_version_expr(node.func.value):
                raw = simple(args[0])
                v = self.version_text(args[0]) if raw is not None else None
                return ("old", _next_minor(v)) if v else None  # `torch.__version__.startswith("2.3")`: 2.3.x only
        if name == "hasattr" and len(args) == 2 and self.is_torch(args[0]) and simple(args[1]) is not None:
            return "new", _UNKNOWN
        if "torch" not in name.lower() or not args:
            return None
        bounds = {k: v for k, v in pairs if k is not None}
        if "version" in name.lower() and set(bounds) & {"min_version", "max_version"} and len(bounds) == 1:
            ((key, value),) = bounds.items()
            v = self.version_text(value)
            return _until(">=" if key == "min_version" else "<=", v) if v else None
        if re.fullmatch(r"_?is_torch_version", name, re.I) and len(args) >= 2 and simple(args[0]) is not None:
            op = (simple(args[0]) or "").strip("\"'")
            v = self.version_text(args[1])
            return _until(op, v) if op in _FLIP and v else None
        return spelled_call(name, self.version_text(args[0]))

    def _flag(self, node: Any, depth: int) -> tuple[str, Any] | None:
        name = node.id if type(node) is ast.Name else node.attr
        if type(node) is ast.Name and depth == 0 and self._def(name) is not None:
            found = self.test(self._def(name), depth + 1)
            if found is not None:
                return found
        for q in sorted(self.resolver.qualnames(node)) if depth == 0 and self.hops < 3 else ():
            flag = project_flags.ast_definition(self.path, q)  # `from .typing import WITH_PT24`: its assignment
            if flag is not None:
                value, (tree, source), resolver, path = flag
                gate = AstGates(tree, resolver, source, path, self.hops + 1).test(value)
                if gate is not None:
                    return gate
        return spelled_flag(name)

    def test(self, node: Any, depth: int = 0) -> tuple[str, Any] | None:
        """How a test expression gates torch: ('new', until), ('old', until), or None (compat.Gates.test)."""
        t = type(node)
        if t is ast.UnaryOp and type(node.op) is ast.Not:
            inner = self.test(node.operand, depth)
            return None if inner is None else ({"new": "old", "old": "new"}[inner[0]], inner[1])
        if t is ast.Compare:
            return self._compare(node.left, node.ops, node.comparators)
        if t is ast.Call:
            return self._call(node)
        if t is ast.Name or t is ast.Attribute:
            return self._flag(node, depth)
        if t is ast.BoolOp:
            return self._both(node, depth)
        return None

    def _both(self, node: ast.BoolOp, depth: int) -> tuple[str, Any] | None:
        left, right = self.test(_left(node), depth), self.test(node.values[-1], depth)
        if left is None or right is None or left[0] != right[0] or _UNKNOWN in (left[1], right[1]):
            return None
        later = max(left[1], right[1], key=parse_version)
        earlier = min(left[1], right[1], key=parse_version)
        is_and = type(node.op) is ast.And
        return left[0], (later if is_and == (left[0] == "new") else earlier)

    def old_when(self, node: Any, outcome: bool) -> Any:
        """The release from which the code run when `node` is `outcome` is dead (or _UNKNOWN); None: not a gate."""
        if type(node) is ast.BoolOp:
            parts = [self.old_when(_left(node), outcome), self.old_when(node.values[-1], outcome)]
            any_enough = (type(node.op) is ast.And) == outcome
            known = [p for p in parts if p is not None]
            if any_enough and known:
                return known[0]
            return known[0] if len(known) == 2 else None
        if type(node) is ast.UnaryOp and type(node.op) is ast.Not:
            return self.old_when(node.operand, not outcome)
        found = self.test(node)
        if found is None:
            return None
        side, until = found
        return until if (side == "old") == outcome else None


def _left(node: ast.BoolOp) -> Any:
    """The left operand of LibCST's binary, left-nested form of `a and b and c`: `a and b`."""
    if len(node.values) == 2:
        return node.values[0]
    return ast.BoolOp(op=node.op, values=node.values[:-1])


def _is_int(node: Any) -> bool:
    return type(node) is ast.Constant and type(node.value) is int

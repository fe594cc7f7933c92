"""Compat branches: code that runs only on an older torch, found once for every rule.

A report whose node sits in the old-torch branch of a version gate is a *compat
fallback*: the old API is there on purpose, for the torch releases the project
still supports, so it is never migrated (a "fix" would break exactly those
releases). `advisor.analysis.compat_marks.mark` sets `Report.compat` / `Report.compat_until` on such reports;
`advisor.core.policy` turns them into kind `compat` findings with no fix (and words the message).

Gates recognised (statically, from the test expression alone):

- comparisons of a torch version expression with a version literal:
  `torch.__version__ >= "2.4"`, `version.parse(torch.__version__) < Version("2.4")`,
  `TORCH_VERSION >= (2, 4)`, `torch_version() >= (2, 4, 0)`, `[major, minor] < [2, 4]`; a name
  defined from such an expression (at module level, unpacked as `major, minor = ...`, or in the
  enclosing function) counts as a torch version expression, and so does `__version__` imported from torch;
- `torch.__version__.startswith("2.3")`: true on 2.3.x only, so its branch is dead from 2.4;
- flags: a module-level name assigned such a comparison, or a name spelled like one
  (`_TORCH_GREATER_EQUAL_2_4`, `TORCH_VERSION_AT_LEAST_2_4`, `_TORCH_LESS_EQUAL_2_6`):
  the spelling is how an imported flag is read without opening the module that defines it;
- calls spelled like a version test: `is_torch_version(">=", "2.4")`,
  `is_torch_min_version("2.4.0")`, `torch_version_at_least("2.4")`, `is_torch_greater_than("2.4")`;
- `hasattr(<torch object>, "name")` (the release is unknown: `compat_until` None);
- flags imported from the project's own modules (`from .typing import WITH_PT24`), read from
  their assignment there (`advisor.analysis.project_flags`), including PyG's
  `int(torch.__version__.split(".")[1]) >= 4` (a 2.x release assumed) and `and`/`or` of gates;
- `try: <torch import or attribute> except (ImportError | ModuleNotFoundError | AttributeError | TypeError): <fallback>`,
  and a bare `except:` after such a short `try`; `except (AttributeError, TypeError)` after any short
  `try` (`try: new() except (AttributeError, TypeError): old()`);
- from a block's shape (`advisor.analysis.compat_blocks`): statements after `if new_gate: return ...`,
  a name assigned before `if new_gate: name = ...`, and `elif hasattr(obj, "_old"):` after a gate or probe.

`not`, `and`, `or` combine them: the body of `if old_test and x:` is old-only, the
`else` of `if new_test or x:` is old-only; anything else is not a gate.
"""

from __future__ import annotations

import re
from typing import Any

from advisor.analysis import project_flags
from advisor.core.lazy import cst
from advisor.core.versions import parse_version
from advisor.syntax.names import dotted_name
from advisor.syntax.walk import nodes_of

_UNKNOWN = object()  # "old-only, release unknown" (hasattr, try/except)
_MISSING = object()
_NEW_OPS = {"GreaterThanEqual": ">=", "GreaterThan": ">"}
_OLD_OPS = {"LessThan": "<", "LessThanEqual": "<="}
_FLIP = {">=": "<=", ">": "<", "<": ">", "<=": ">="}
_VERSION_NAME = re.compile(r"torch_?ver", re.I)
_FLAG = re.compile(
    r"torch.*?(greater_equal|greater|at_least|atleast|_ge|geq|gte|min|newer|less_equal|less|_lt|below|older)_?(\d+)_(\d+)",
    re.I,
)
_CALL_NEW = re.compile(r"torch.*(at_least|atleast|min_version|greater|_ge$|_ge_|geq|gte|newer)", re.I)
_CALL_OLD = re.compile(r"torch.*(less|older|_lt$|below|before)", re.I)
# TypeError: an old torch rejecting a new keyword (`try: torch.load(f, weights_only=w) except TypeError: torch.load(f)`)
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "AttributeError", "TypeError"}
_API_ERRORS = {"AttributeError", "TypeError"}
_MAX_TRY_STATEMENTS = 6  # a longer try body is not an import fallback
_TORCH_VERSION_NAMES = frozenset({"torch.__version__", "torch.version.__version__"})


def assigned_values(small: Any) -> dict[str, Any]:
    """name -> the expression a simple statement assigns it: `a = e`, `a: T = e`, and `major, minor = e`
    (each name of an unpacking gets the whole `e`: enough to know it is read from a torch version)."""
    if isinstance(small, cst.AnnAssign):
        return (
            {small.target.value: small.value} if small.value is not None and isinstance(small.target, cst.Name) else {}
        )
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return {}
    target = small.targets[0].target
    if isinstance(target, cst.Name):
        return {target.value: small.value}
    if isinstance(target, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Name) for e in target.elements):
        return {e.value.value: small.value for e in target.elements}  # type: ignore[attr-defined]  # Names, checked above
    return {}


def _version_text(node: Any) -> str | None:
    """ "2.4" from "2.4.0a0", (2, 4, 0), Version("2.4") ..., or None."""
    if isinstance(node, cst.Float):  # `min_version=2.1` (DeepSpeed's required_torch_version)
        m = re.match(r"(\d+)\.(\d+)", node.value)
        return f"{m.group(1)}.{m.group(2)}" if m else None
    if isinstance(node, (cst.Tuple, cst.List)):  # (2, 4, 0), [2, 4]
        ints = [e.value.value for e in node.elements if isinstance(e.value, cst.Integer)]
        return f"{ints[0]}.{ints[1]}" if len(ints) >= 2 else None
    for s in nodes_of(node, cst.SimpleString):
        m = re.match(r"[\"']?(\d+)\.(\d+)", s.value.lstrip("rRbBuU"))
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return None


def _next_minor(v: str) -> str:
    major, minor = v.split(".")
    return f"{major}.{int(minor) + 1}"


def _until(op: str, v: str | None) -> tuple[str, str | None]:
    """('new'|'old', release from which the old side is dead) for `torch_version <op> v`."""
    if op in (">=", "<"):
        return ("new" if op == ">=" else "old"), v
    return ("new" if op == ">" else "old"), (_next_minor(v) if v else None)


def spelled_call(name: str, version: str | None) -> tuple[str, str] | None:
    """The gate a call's name spells about the release it is given (`is_torch_min_version("2.4")`: true from 2.4)."""
    if version is None:
        return None
    if _CALL_NEW.search(name):
        return "new", version
    if _CALL_OLD.search(name):
        return "old", version
    return None


def spelled_flag(name: str) -> tuple[str, str | None] | None:
    """The gate a flag's name spells (`_TORCH_GREATER_EQUAL_2_4`: true from 2.4), read without its definition."""
    m = _FLAG.search(name)
    if m is None:
        return None
    word, v = m.group(1).lower(), f"{int(m.group(2))}.{int(m.group(3))}"
    if word in ("less_equal", "less", "_lt", "below", "older"):
        return _until("<=" if word == "less_equal" else "<", v)
    return _until(">" if word == "greater" else ">=", v)


class Gates:
    """Classifies test expressions of one module (module-level definitions resolved once)."""

    def __init__(self, module: Any, resolver: Any, path: str | None = None, hops: int = 0) -> None:
        self.resolver = resolver
        self.hops = hops  # modules followed to get here (flags defined from flags of a third module)
        self.path = path  # the module's file: flags imported from the project's own modules are read there
        self.defs: dict[str, Any] = {}
        for stmt in module.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self.defs.update(assigned_values(small))
        # The enclosing function's own assignments (`v = tuple(map(int, torch.__version__...))` in a function),
        # set by the caller for the test it asks about; they shadow the module's.
        self.local: dict[str, Any] = {}

    def _def(self, name: str) -> Any:
        return self.local.get(name, self.defs.get(name))

    # -- torch version expressions ---------------------------------------------------

    def _is_torch(self, node: Any) -> bool:
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return False
        names = self.resolver.qualnames(node) or {dotted_name(node) or ""}
        return any(q == "torch" or q.startswith("torch.") for q in names)

    def is_version_expr(self, node: Any, depth: int = 0) -> bool:
        for n in nodes_of(node, cst.Attribute, cst.Name):
            if isinstance(n, cst.Attribute) and n.attr.value == "__version__" and self._is_torch(n.value):
                return True
            if isinstance(n, cst.Name) and n.value != "__version__":
                if _VERSION_NAME.search(n.value) and not _CALL_NEW.search(n.value) and not _CALL_OLD.search(n.value):
                    return True
                if depth == 0 and self._def(n.value) is not None and self.is_version_expr(self._def(n.value), 1):
                    return True
                if _TORCH_VERSION_NAMES & self.resolver.qualnames(n):  # `from torch import __version__ as tv`
                    return True
        return False

    # -- single tests: ('new'|'old', until) or None ----------------------------------

    def _compare(self, node: Any) -> tuple[str, str | None] | None:
        if len(node.comparisons) == 2:  # `"1.5" <= v < "1.10"` (mmengine): true only below the upper bound
            first, second = node.comparisons
            parts = [
                self._compare(cst.Comparison(left=node.left, comparisons=[first])),
                self._compare(cst.Comparison(left=first.comparator, comparisons=[second])),
            ]
            old = [p for p in parts if p is not None and p[0] == "old"]
            return old[0] if old and all(p is not None for p in parts) else None
        if len(node.comparisons) != 1:
            return None
        target = node.comparisons[0]
        op = _NEW_OPS.get(type(target.operator).__name__) or _OLD_OPS.get(type(target.operator).__name__)
        if op is None:
            return None
        left, right = node.left, target.comparator
        part = _version_part(left, self) if isinstance(right, cst.Integer) else None
        if part is not None:  # `int(torch.__version__.split(".")[1]) >= 4` (PyG's typing.py): 2.x is assumed
            return _until(op, f"{right.value}.0" if part == 0 else f"2.{right.value}")
        if self.is_version_expr(left) and not self.is_version_expr(right):
            v = _version_text(right)
        elif self.is_version_expr(right) and not self.is_version_expr(left):
            op, v = _FLIP[op], _version_text(left)
        else:
            return None
        return _until(op, v) if v else None

    def _call(self, node: Any) -> tuple[str, Any] | None:
        name = (dotted_name(node.func) or "").rsplit(".", 1)[-1]
        args = [a.value for a in node.args]
        if name == "startswith" and len(args) == 1 and self.is_version_expr(node.func.value):
            v = _version_text(args[0]) if isinstance(args[0], cst.SimpleString) else None
            return ("old", _next_minor(v)) if v else None  # `torch.__version__.startswith("2.3")`: 2.3.x only
        if name == "hasattr" and len(args) == 2 and self._is_torch(args[0]) and isinstance(args[1], cst.SimpleString):
            return "new", _UNKNOWN
        if "torch" not in name.lower() or not args:
            return None
        bounds = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if "version" in name.lower() and set(bounds) & {"min_version", "max_version"} and len(bounds) == 1:
            # `required_torch_version(min_version=2.1)`: true from 2.1; `(max_version=0.4)`: true up to 0.4
            ((key, value),) = bounds.items()
            v = _version_text(value)
            return _until(">=" if key == "min_version" else "<=", v) if v else None
        if re.fullmatch(r"_?is_torch_version", name, re.I) and len(args) >= 2 and isinstance(args[0], cst.SimpleString):
            op = args[0].value.strip("\"'")
            v = _version_text(args[1])
            return _until(op, v) if op in _FLIP and v else None
        return spelled_call(name, _version_text(args[0]))

    def _flag(self, node: Any, depth: int) -> tuple[str, Any] | None:
        name = node.value if isinstance(node, cst.Name) else node.attr.value
        if isinstance(node, cst.Name) and depth == 0 and self._def(name) is not None:
            found = self.test(self._def(name), depth + 1)
            if found is not None:
                return found
        for q in sorted(self.resolver.qualnames(node)) if depth == 0 and self.hops < 3 else ():
            flag = project_flags.definition(self.path, q)  # `from .typing import WITH_PT24`: read its assignment
            if flag is not None:
                value, module, resolver, path = flag
                gate = Gates(module, resolver, path, self.hops + 1).test(value)
                if gate is not None:
                    return gate
        return spelled_flag(name)

    def test(self, node: Any, depth: int = 0) -> tuple[str, Any] | None:
        """How a test expression gates torch: ('new', until) true only on new torch, ('old', until) true only on old."""
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.test(node.expression, depth)
            return None if inner is None else ({"new": "old", "old": "new"}[inner[0]], inner[1])
        if isinstance(node, cst.Comparison):
            return self._compare(node)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, (cst.Name, cst.Attribute)):
            return self._flag(node, depth)
        if isinstance(node, cst.BooleanOperation):
            return self._both(node, depth)
        return None

    def _both(self, node: Any, depth: int) -> tuple[str, Any] | None:
        """`WITH_PT20 and minor >= 4`: two gates of one side; `and` of new-side tests holds from the later release."""
        left, right = self.test(node.left, depth), self.test(node.right, depth)
        if left is None or right is None or left[0] != right[0] or _UNKNOWN in (left[1], right[1]):
            return None
        later = max(left[1], right[1], key=parse_version)
        earlier = min(left[1], right[1], key=parse_version)
        is_and = isinstance(node.operator, cst.And)
        return left[0], (later if is_and == (left[0] == "new") else earlier)

    def old_when(self, node: Any, outcome: bool) -> Any:
        """The release from which the code run when `node` is `outcome` is dead (or _UNKNOWN); None: not a gate."""
        if isinstance(node, cst.BooleanOperation):
            parts = [self.old_when(node.left, outcome), self.old_when(node.right, outcome)]
            # `a and b` true needs both true: one old-only conjunct is enough; false needs both (and dually for `or`)
            any_enough = isinstance(node.operator, cst.And) == outcome
            known = [p for p in parts if p is not None]
            if any_enough and known:
                return known[0]
            return known[0] if len(known) == 2 else None
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return self.old_when(node.expression, not outcome)
        found = self.test(node)
        if found is None:
            return None
        side, until = found
        return until if (side == "old") == outcome else None


def _version_part(node: Any, gates: Gates) -> int | None:
    """0 or 1 for `int(<torch version>.split(".")[0 or 1])`, else None."""
    if not (isinstance(node, cst.Call) and dotted_name(node.func) == "int" and len(node.args) == 1):
        return None
    sub = node.args[0].value
    if not (isinstance(sub, cst.Subscript) and len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index)):
        return None
    index = sub.slice[0].slice.value
    call = sub.value
    if not (isinstance(index, cst.Integer) and index.value in ("0", "1") and isinstance(call, cst.Call)):
        return None
    if not (
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "split"
        and gates.is_version_expr(call.func.value)
    ):
        return None
    return int(index.value)


def _try_fallbacks(node: Any, gates: Gates) -> list[Any]:
    """The handlers of an import / attribute fallback `try` on torch."""
    if len(node.body.body) > _MAX_TRY_STATEMENTS:
        return []
    mentions = any(
        isinstance(n, cst.ImportFrom)
        and n.module is not None
        and (dotted_name(n.module) or "").split(".")[0] == "torch"
        or isinstance(n, (cst.Attribute, cst.Name))
        and gates._is_torch(n)
        for n in nodes_of(node.body, cst.ImportFrom, cst.Attribute, cst.Name)
    )
    caught = []
    for h in node.handlers:
        if h.type is None:  # a bare `except:` after a short torch try: the fallback path (Megatron's layers.py)
            caught += [h.body] if mentions else []
            continue
        kinds = h.type.elements if isinstance(h.type, cst.Tuple) else [h.type]
        names = {(dotted_name(k.value if isinstance(k, cst.Element) else k) or "").rsplit(".", 1)[-1] for k in kinds}
        # `except (AttributeError, TypeError)`: the call of a newer API failed, the handler is the old way;
        # an ImportError alone says that only when the try imports from torch
        if names and names <= _IMPORT_ERRORS and (mentions or names <= _API_ERRORS):
            caught.append(h.body)
    return caught

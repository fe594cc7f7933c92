"""Names bound, in the current function (or module) scope, to the result of a call of a qualified name.

A rule that must know what a receiver is (a profiler, a green context, a process group
backend) without type inference mixes this in: `x = torch.profiler.profile(...)` or
`with torch.profiler.profile(...) as x:` binds `x` in this scope; any other assignment
to `x` in the scope unbinds it. Only the innermost scope is consulted, so a name from an
enclosing function is not trusted.
"""

from __future__ import annotations

from typing import Any, ClassVar

from advisor.rule import Rule, cst


class BoundNames(Rule):
    bound_calls: ClassVar[tuple[str, ...]] = ()  # qualified callables whose results are tracked

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self._frames: list[dict[str, tuple[str, Any]]] = [{}]

    def visit_FunctionDef(self, node: Any) -> None:
        self._frames.append({})

    def leave_FunctionDef(self, node: Any) -> None:
        self._frames.pop()

    def visit_Assign(self, node: Any) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Name):
                self._bind(t.target.value, node.value)

    def visit_WithItem(self, node: Any) -> None:
        if node.asname is not None and isinstance(node.asname.name, cst.Name):
            self._bind(node.asname.name.value, node.item)

    def _bind(self, name: str, value: Any) -> None:
        qualname = self.bound_call(value)
        if qualname is None:
            self._frames[-1].pop(name, None)
        else:
            self._frames[-1][name] = (qualname, value)

    def bound_call(self, value: Any) -> str | None:
        """The tracked callable `value` calls (override to accept more shapes)."""
        if isinstance(value, cst.Call):
            return self.match(value.func, self.bound_calls)
        return None

    def bound(self, node: Any) -> tuple[str, Any] | None:
        """(qualified callable, call node) that the Name `node` was bound to in this scope."""
        if isinstance(node, cst.Name):
            return self._frames[-1].get(node.value)
        return None

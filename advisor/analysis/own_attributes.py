"""Attribute-name rules meet the user's own classes: drop reports on attributes a class in the file defines.

Rules that match an attribute by name (`attribute_targets`, e.g. `.cuda_time_total`,
`.sample_n`) cannot know the receiver's type. When the receiver is provably an
instance of a class defined in the same file, and that class defines the attribute
(a method, a class-level field, or a `self.x = ...` assignment), the attribute is
the user's, not torch's. Provably: `self` / `cls` inside that class, or a name the
module binds only to `ThatClass(...)` calls.
"""

from __future__ import annotations

from typing import Any

from advisor.core.lazy import cst
from advisor.syntax.walk import nodes_of

_RECEIVERS = ("self", "cls")


def _defined(cls: Any) -> set[str]:
    """Attribute names a class body defines: methods, fields, and `self.x = ...` anywhere in it."""
    names: set[str] = set()
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef):
            names.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                targets = (
                    [t.target for t in small.targets]
                    if isinstance(small, cst.Assign)
                    else ([small.target] if isinstance(small, cst.AnnAssign) else [])
                )
                names.update(t.value for t in targets if isinstance(t, cst.Name))
    for node in nodes_of(cls.body, cst.AssignTarget, cst.AnnAssign, cst.AugAssign):
        target = node.target
        if (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value in _RECEIVERS
        ):
            names.add(target.attr.value)
    return names


class _Classes:
    """The module's classes by name (the first one left wins, as the whole-tree pass had it), read on demand."""

    def __init__(self, facts: Any) -> None:
        self.facts = facts
        self._by_name: dict[str, Any] = {}
        for cls in reversed(facts.class_defs):  # right to left, parents first: the last one listed wins
            self._by_name[cls.name.value] = cls
        self._defined: dict[str, set[str]] = {}
        self._instances: dict[str, set[str]] | None = None

    def get(self, name: str) -> set[str] | None:
        """The attributes the class called `name` defines (one set object per name), or None."""
        if name not in self._by_name:
            return None
        if name not in self._defined:
            self._defined[name] = _defined(self._by_name[name])
        return self._defined[name]

    def any_defines(self, wanted: set[str]) -> bool:
        return any((self.get(name) or set()) & wanted for name in self._by_name)

    def instances(self) -> dict[str, set[str]]:
        """Module-wide names bound only to calls of a local class: name -> that class's attributes."""
        if self._instances is None:
            bound: dict[str, set[str] | None] = {}
            for node in reversed(self.facts.assigns):
                for t in node.targets:
                    if not isinstance(t.target, cst.Name):
                        continue
                    value = node.value
                    cls = value.func.value if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) else None
                    attrs = self.get(cls) if cls else None
                    name = t.target.value
                    # a name bound to anything else anywhere is not provably our instance
                    bound[name] = attrs if attrs is not None and bound.get(name, attrs) is attrs else None
            self._instances = {n: a for n, a in bound.items() if a is not None}
        return self._instances


def _is_own(node: Any, wanted: set[str], classes: _Classes) -> bool:
    """`node` is an Attribute whose receiver is an instance of a local class that defines it."""
    if not isinstance(node, cst.Attribute) or not isinstance(node.value, cst.Name):
        return False
    attr, receiver = node.attr.value, node.value.value
    if receiver in _RECEIVERS and attr in wanted:
        for owner, child in classes.facts.up(node):
            if (
                isinstance(owner, cst.ClassDef)
                and child is owner.body
                and attr in (classes.get(owner.name.value) or ())
            ):
                return True
    if attr in classes.instances().get(receiver, ()):
        return attr in wanted or classes.any_defines(wanted)
    return False


def drop(reports: list[Any], facts: Any) -> list[Any]:
    """`reports` less those an attribute-name rule made on the user's own attribute (found upward, `facts`)."""
    by_name = [r for r in reports if type(r.rule).attribute_targets]
    if not by_name:
        return reports
    wanted = {a for r in by_name for a in type(r.rule).attribute_targets}
    classes = _Classes(facts)

    def is_own(rep: Any) -> bool:
        if not type(rep.rule).attribute_targets:
            return False
        return _is_own(rep.node.func if isinstance(rep.node, cst.Call) else rep.node, wanted, classes)

    return [r for r in reports if not is_own(r)]

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


def _instances(module: Any, classes: dict[str, set[str]]) -> dict[str, set[str]]:
    """Module-wide names bound only to calls of a local class: name -> that class's attributes."""
    bound: dict[str, set[str] | None] = {}
    for node in nodes_of(module, cst.Assign):
        for t in node.targets:
            if not isinstance(t.target, cst.Name):
                continue
            value = node.value
            cls = value.func.value if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) else None
            attrs = classes.get(cls) if cls else None
            name = t.target.value
            # a name bound to anything else anywhere is not provably our instance
            bound[name] = attrs if attrs is not None and bound.get(name, attrs) is attrs else None
    return {n: a for n, a in bound.items() if a is not None}


def own_attribute_nodes(module: Any, wanted: set[str]) -> set[int]:
    """ids of Attribute nodes named in `wanted` whose receiver is a local class defining that name."""
    classes = {c.name.value: _defined(c) for c in nodes_of(module, cst.ClassDef)}
    if not any(attrs & wanted for attrs in classes.values()):
        return set()
    own: set[int] = set()
    for cls in nodes_of(module, cst.ClassDef):
        attrs = classes[cls.name.value] & wanted
        for node in nodes_of(cls.body, cst.Attribute) if attrs else ():
            if node.attr.value in attrs and isinstance(node.value, cst.Name) and node.value.value in _RECEIVERS:
                own.add(id(node))
    instances = _instances(module, classes)
    for node in nodes_of(module, cst.Attribute) if instances else ():
        if isinstance(node.value, cst.Name) and node.attr.value in instances.get(node.value.value, ()):
            own.add(id(node))
    return own


def drop(module: Any, reports: list[Any]) -> list[Any]:
    """`reports` less those an attribute-name rule made on the user's own attribute."""
    by_name = [r for r in reports if type(r.rule).attribute_targets]
    if not by_name:
        return reports
    wanted = {a for r in by_name for a in type(r.rule).attribute_targets}
    own = own_attribute_nodes(module, wanted)
    if not own:
        return reports

    def is_own(rep: Any) -> bool:
        if not type(rep.rule).attribute_targets:
            return False
        node = rep.node.func if isinstance(rep.node, cst.Call) else rep.node
        return id(node) in own

    return [r for r in reports if not is_own(r)]

"""What the one walk over a file's tree records for the passes that run after the rules.

The rules' walk (advisor.analysis.analyse.run_rules) also records every node's parent and,
in the order they are left, the few node kinds the later passes look at module-wide
(classes, assignments, import aliases and assignment targets). Compat gates, sites and own
attributes then go *upward* from a report's node through its parents, never over the whole
tree again.

Order: those passes were written over `nodes_of`, which visits right to left, parents first.
That is exactly the reverse of the left-to-right order in which nodes are *left*, so the
lists here are kept in leave order and read reversed where the first or last one wins.
"""

from __future__ import annotations

from typing import Any, Iterator


class Facts:
    __slots__ = ("parents", "class_defs", "assigns", "bindings", "current")

    def __init__(self) -> None:
        self.parents: dict[int, Any] = {}  # id(node) -> its parent (the module has none)
        # The node whose visitors run now, where the walk tells (`entering`): a node a visitor asks about below it
        # has no parent recorded yet (a node's children get theirs after its visitors).
        self.current: Any = None
        self.class_defs: list[Any] = []  # cst.ClassDef, in leave order
        self.assigns: list[Any] = []  # cst.Assign, in leave order
        self.bindings: list[Any] = []  # cst.ImportAlias and cst.AssignTarget, in leave order

    def get_visitors(self) -> dict:
        return {
            "leave_ClassDef": self.class_defs.append,
            "leave_Assign": self.assigns.append,
            "leave_ImportAlias": self.bindings.append,
            "leave_AssignTarget": self.bindings.append,
        }

    def entering(self, node: Any) -> bool:
        """A walk's `before_visit`: `current` is `node` (False: nothing to do after it is left)."""
        self.current = node
        return False

    def parent(self, node: Any) -> Any:
        return self.parents.get(id(node))

    def up(self, node: Any) -> Iterator[tuple[Any, Any]]:
        """(ancestor, its child on the way to `node`), from `node`'s parent to the module."""
        child = node
        parent = self.parents.get(id(child))
        while parent is not None:
            yield parent, child
            child = parent
            parent = self.parents.get(id(child))

    def path(self, node: Any) -> list[Any]:
        """`node` and its ancestors, the module last."""
        out = [node]
        parent = self.parents.get(id(node))
        while parent is not None:
            out.append(parent)
            parent = self.parents.get(id(parent))
        return out

"""Is the receiver of a method call a module (`np.add`, `torch.Tensor.add`, or `aten` after
`aten = torch.ops.aten`) rather than a value that may be a tensor? (ADV134, ADV135)

The resolver follows imports, not assignments: a name assigned an imported module or one of its attributes
resolves to a local name. Rules forward `visit_Assign` here to remember such names.
"""

from __future__ import annotations

from typing import Any, Callable

from advisor.rule import cst


class Receivers:
    def __init__(self, qualnames: Callable[[Any], set[str]]) -> None:
        self.qualnames = qualnames
        self.aliases: set[str] = set()  # names assigned an imported thing: `aten = torch.ops.aten`

    def assign(self, node: Any) -> None:
        if isinstance(node.value, (cst.Name, cst.Attribute)) and self._imported(node.value):
            self.aliases.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))

    def _imported(self, node: Any) -> bool:
        return any(not q.startswith("<local>") for q in self.qualnames(node))

    def is_module(self, node: Any) -> bool:
        """An imported module or class, or a name assigned one (or an attribute of either)."""
        if self._imported(node):
            return True
        while isinstance(node, cst.Attribute):
            node = node.value
        return isinstance(node, cst.Name) and node.value in self.aliases

"""A base for rules about calls of a few qualified names.

Calls go to `on_call(node, qualname)`; any other reference to the same names
(passed as a callback, stored, isinstance-checked) goes to `on_reference`,
which by default reports it without a fix.
"""

from __future__ import annotations

from typing import ClassVar

from advisor.rule import Rule


class CallRule(Rule):
    names: ClassVar[object] = ()  # qualified names (a set, or a dict keyed by them)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._seen: set = set()

    def visit_Call(self, node) -> None:
        qualname = self.match(node.func, self.names)
        if qualname is not None:
            self._seen.add(node.func)
            self.on_call(node, qualname)

    def on_call(self, node, qualname: str) -> None:
        self.report(node)

    def on_reference(self, node, qualname: str) -> None:
        self.report(node)

    def visit_Attribute(self, node) -> None:
        self._reference(node)

    def visit_Name(self, node) -> None:
        self._reference(node)

    def _reference(self, node) -> None:
        if node in self._seen:
            return
        qualname = self.match(node, self.names)
        if qualname is not None:
            self._seen.add(node)
            self.on_reference(node, qualname)

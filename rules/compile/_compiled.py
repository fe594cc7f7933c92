"""Which functions of a module are compiled, for rules about compiled code.

A function counts as compiled when it is decorated with `torch.compile` (bare
or called) or passed to `torch.compile(fn, ...)` by name in the same module.
"""

from __future__ import annotations

from advisor.rule import Rule, cst, get_arg, string_value

COMPILE = {"torch.compile"}


def compile_mode(call) -> str | None:
    arg = get_arg(call, "mode")
    return string_value(arg.value) if arg is not None else None


class CompiledFunctions(Rule):
    """Base for rules: tracks the enclosing function and which functions are compiled.

    Subclasses record `self.defer(node)` for nodes inside functions;
    `deferred_in_compiled(mode)` at module end says which deferred nodes sit in
    compiled functions.
    """

    @classmethod
    def needs_whole_module(cls, refs) -> bool:
        # A decorated function holds the trigger in its decorator, so a slice keeps it; only a function of this
        # file compiled by name (`fast = torch.compile(train_step)`) may hold none.
        calls = refs.calls_of(COMPILE)
        return not refs.renamed.isdisjoint(COMPILE) or any(
            c.args and type(c.args[0]).__name__ == "Name" and c.args[0].id in refs.defs for c in calls
        )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._func_stack: list = []
        self._compiled_names: dict[str, set] = {}  # function name -> compile modes seen
        self._deferred: list = []  # (function name, node, payload)

    def _decorator_modes(self, node) -> set | None:
        modes: set = set()
        found = False
        for dec in node.decorators:
            d = dec.decorator
            if isinstance(d, cst.Call) and self.match(d.func, COMPILE):
                found = True
                modes.add(compile_mode(d))
            elif self.match(d, COMPILE):
                found = True
                modes.add(None)
        return modes if found else None

    def enter_function(self, node) -> None:
        self._func_stack.append(node.name.value)
        modes = self._decorator_modes(node)
        if modes is not None:
            self._compiled_names.setdefault(node.name.value, set()).update(modes)

    def leave_function(self) -> None:
        self._func_stack.pop()

    def note_compile_call(self, node) -> None:
        """Record `torch.compile(fn, mode=...)` calls naming a function."""
        if not self.match(node.func, COMPILE) or not node.args:
            return
        first = node.args[0].value
        if isinstance(first, cst.Name):
            self._compiled_names.setdefault(first.value, set()).add(compile_mode(node))

    def defer(self, node, payload=None) -> None:
        if self._func_stack:
            self._deferred.append((self._func_stack[-1], node, payload))

    def deferred_in_compiled(self, mode: str | None = None):
        """(node, payload) for deferred nodes inside compiled functions (of `mode`, if given)."""
        for fname, node, payload in self._deferred:
            modes = self._compiled_names.get(fname)
            if modes is None:
                continue
            if mode is None or mode in modes:
                yield node, payload

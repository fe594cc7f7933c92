"""Shared by the config-key rules (ADV752, ADV759): one key of a torch config module, with its own window.

A key is found as a qualified attribute (`torch._inductor.config.K`, through any alias,
read or assigned), as a keyword of the module's `patch(K=...)`, as the first string of
`patch("K", ...)`, as a string key of `patch({"K": ...})`, and (inductor only) as a
string key of `torch.compile(..., options={"K": ...})` given as a dict literal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from advisor.rule import Rule, Window, cst, get_arg, string_value


@dataclass(frozen=True)
class Key:
    window: Window
    message: str  # {name}: the qualified key
    new: str | None = None  # a drop-in new key name (same module), for a rename fix
    only_true: bool = False  # only `= True` assignments are reported


class ConfigKeys(Rule):
    module: ClassVar[str] = ""
    keys: ClassVar[dict[str, Key]] = {}
    compile_options: ClassVar[bool] = False  # also `torch.compile(options={...})` string keys
    reports_at_references = True  # each form above refers to the module (its targets) or to `torch.compile`
    statement_local = True  # an attribute, an assignment of True, a patch's or compile's arguments
    may_match_refers = True  # each form refers to a target: Rule.may_match's gate holds

    @classmethod
    def text_gate(cls) -> Any:
        # A qualified key referred to, or the module's `patch` (or `torch.compile`, for the options): not the module
        # alone, which torch's own modules import to read other keys
        targets = {f"{cls.module}.{key}" for key in cls.keys} | {f"{cls.module}.patch"}
        return tuple(sorted(targets | ({"torch.compile"} if cls.compile_options else set()))), (), (), (), ()

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        # A key as a qualified attribute (`References.referenced` has every dotted name through the imports, as
        # `match` resolves it), or a key named (a keyword, a string) where the module's `patch` or, for the options,
        # `torch.compile` is referred to. A file that only refers to the module (torch's own `from . import config`
        # reads, a `torch.compile` call without options) has none of these.
        referenced = refs.referenced
        if any(f"{cls.module}.{key}" in referenced for key in cls.keys):
            return True
        if not any(key in refs.strings or key in refs.names for key in cls.keys):
            return False
        return f"{cls.module}.patch" in referenced or (cls.compile_options and "torch.compile" in referenced)

    def visit_Attribute(self, node: Any) -> None:
        for key, spec in self.keys.items():
            if (
                not spec.only_true
                and node.attr.value == key.rpartition(".")[2]
                and self.match(node, (f"{self.module}.{key}",))
            ):
                new = node.attr.with_changes(value=spec.new) if spec.new else None
                self._report(node, key, replacement=new, fix_node=node.attr if new else None)
                return

    def visit_Assign(self, node: Any) -> None:
        value = node.value
        if not (isinstance(value, cst.Name) and value.value == "True"):
            return
        for t in node.targets:
            for key, spec in self.keys.items():
                if spec.only_true and self.match(t.target, (f"{self.module}.{key}",)):
                    self._report(t.target, key)

    def visit_Call(self, node: Any) -> None:
        if self.match(node.func, (f"{self.module}.patch",)):
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value in self.keys:
                    spec = self.keys[arg.keyword.value]
                    new = arg.with_changes(keyword=cst.Name(spec.new)) if spec.new else None
                    self._report(arg, arg.keyword.value, replacement=new)
            first = get_arg(node, None, 0)
            if first is not None:
                self._strings(first.value)
        elif self.compile_options and self.match(node.func, ("torch.compile",)):
            options = get_arg(node, "options")
            if options is not None:
                self._strings(options.value)

    def _strings(self, value: Any) -> None:
        """A key named by a string, or by the string keys of a dict literal."""
        nodes = (
            [e.key for e in value.elements if isinstance(e, cst.DictElement)]
            if isinstance(value, cst.Dict)
            else [value]
        )
        for s in nodes:
            key = string_value(s)
            if key in self.keys and not self.keys[key].only_true:
                spec = self.keys[key]
                new = (
                    s.with_changes(value=s.value.replace(key, spec.new))
                    if spec.new and isinstance(s, cst.SimpleString)
                    else None
                )
                self._report(s, key, replacement=new)

    def _report(self, node: Any, key: str, replacement: Any = None, fix_node: Any = None) -> None:
        spec = self.keys[key]
        message = spec.message.format(name=f"{self.module}.{key}", new=spec.new)
        self.report(node, message, replacement=replacement, fix_node=fix_node, window=spec.window)

"""Shared matching for the log1p / expm1 rules: `1 + x`, `x + 1`, `e - 1` with a literal one."""

from __future__ import annotations

from typing import Any

from advisor.rule import CODE_ONLY, TEXT_GAPS, cst, getattr_called

_G = TEXT_GAPS
# A number literal's text (`1`, `1.`, `.5e1`, `1e+0`, `0x1`): where a sum's literal one may be.
_NUMBER = r"\.?\d[\w.]*+(?:(?<=[eE])[+-]\d++)?"
_PLAIN = r"[^()\"'#]"  # what a call's argument holds outside brackets and strings, where the text reads it
_STRING = r"\"[^\"\\\r\n]*\"|'[^'\\\r\n]*'"  # a string on one line without an escape (`"a(b"` holds no bracket)
_TWO = rf"(?:{_PLAIN}|{_STRING}|\((?:{_PLAIN}|{_STRING}|\((?:{_PLAIN}|{_STRING})*\))*\))"  # and brackets two deep
# The same, outside brackets no comma (a sole argument's, `sole`); a `[` or `{` holding only plain text read as one
# (`x[i, j]`), where it holds more the text does not read on
_FLAT = rf"(?:[^()\[\]{{}}\"'#]|{_STRING})"
_INDEX = rf"\[(?:{_FLAT}|\[{_FLAT}*\])*\]"  # `x[i, j]`, `d["k"]`, `x[y[0]]`
_SOLE = rf"(?:[^()\"'#,\[{{]|{_STRING}|\((?:{_PLAIN}|{_STRING}|\((?:{_PLAIN}|{_STRING})*\))*\)|{_INDEX}|\{{{_FLAT}*\}})"


def plus_one_call(name: str) -> tuple[str, ...]:
    """A gate's patterns, one of which matches wherever `name` is called with `1 + x` or `x + 1`, a literal one
    (`plus_one_operand`) and nothing else (`sole`): `number +` first in its argument, or `+ number` last; or an
    argument the text does not read (a string, a comment, brackets three deep, a `[` or `{`); or `name` renamed (`log as ln`), or a getattr's name called
    (`getattr(torch, "log")(1 + x)`)."""
    first = rf"{_G}(?:(?:\({_G})+{_NUMBER}(?:{_G}\))+|{_NUMBER}){_G}\+"  # `(1) +`; not `log(2) + 1`
    last = rf"{_SOLE}*?\+{_G}(?:\({_G})*{_NUMBER}(?:{_G}\))*{_G}(?:,{_G})?\)"
    return _needed(name, first, last, top=_SOLE, unread="\"'#\\[{")


def minus_one_call(name: str) -> tuple[str, ...]:
    """As `plus_one_call`, for `name(...) - 1` (`References.minus_one`): the call's closing bracket (and any around
    it), then `- number`."""
    return _needed(name, rf"{_TWO}*+\)(?:{_G}\))*{_G}-{_G}(?:\({_G})*\.?\d")


def _needed(name: str, *after_bracket: str, top: str = _TWO, unread: str = "\"'#") -> tuple[str, ...]:
    """Each starts with `name` itself, a literal `re` looks for at C speed (a word boundary first is ten times
    slower); the shapes of the call's argument (`after_bracket`) in one pattern, and where the text read as `top`
    goes on to what it does not read (a character of `unread`, brackets three deep)."""
    unread = rf"{top}*+(?:[{unread}]|\((?:{_PLAIN}|{_STRING}|\((?:{_PLAIN}|{_STRING})*\))*[(\"'#])"
    shapes = "|".join((*after_bracket, unread))
    call = rf"{name}(?<=\b{name}){_G}(?:\((?:{shapes})|as\b)"
    return CODE_ONLY + call, getattr_called(name)  # `getattr(torch, "name")(`


# A `getattr(...)` call's result called (`getattr(torch, op)(x)`), or a getattr whose arguments the text does not read,
# as a call's first argument (`log(getattr(torch, op)(`): where a callee of `log`'s argument, or its first, is.
GETATTR_CALLED = rf"\((?:{_G}\()*{_G}getattr{_G}\({_TWO}*+(?:\){_G}\(|[\"'#(])"


def sole(call: Any) -> bool:
    """Is the `ast` call given exactly one argument, positional, not starred (`References.sole_args`)?"""
    return len(call.args) == 1 and not call.keywords and type(call.args[0]).__name__ != "Starred"


def is_one(node: Any) -> bool:
    """A literal 1 or 1.0 (not `1j`, not a name that happens to hold one)."""
    if isinstance(node, cst.Integer):
        return node.evaluated_value == 1
    if isinstance(node, cst.Float):
        return node.evaluated_value == 1.0
    return False


def plus_one_operand(node: Any) -> Any:
    """`x` for `1 + x` or `x + 1` (parentheses kept off), else None."""
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add)):
        return None
    if is_one(node.left):
        return node.right
    if is_one(node.right):
        return node.left
    return None


def bare(node: Any) -> Any:
    """`node` without its own parentheses (it becomes a call argument)."""
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node

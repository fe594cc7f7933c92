"""The code of a fixed module's top-level statements, generating only what a fix changed.

A fix swaps a node deep inside a statement, and `advisor.fix.replace.replaced` rebuilds only that node's
ancestors: every other node of the fixed module is the original's own object. The import steps add, remove or
rebuild a few top-level statements (advisor.fix.parking rebuilds those whose leading lines it parks, their
children unchanged). `statement_codes` gives each new top-level statement's code, as `Module.code_for_node` gives
it, from the old statements' code:

- a statement whose fields are the old one's (the same objects) has the old one's code;
- a changed statement gets the code of the smallest node that holds all of its changes and is generated the same
  on its own (a statement of a block's body, with the indentation of the blocks it is in; an expression), written
  over that node's old code in the old statement's code, where that old code occurs exactly once: it occurs
  there, so once is its place for certain; elsewhere the next larger such node is tried;
- anything else is generated whole, as before: a statement added, one whose changes only the statement itself
  holds (two methods of a class), and every statement where a LibCST codemod rebuilt the whole module (an import
  placed where the file has no import block, an import removal LibCST's scope analysis decides).
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
from enum import Enum
from typing import Any, Sequence

from advisor.core.lazy import cst

_FIELDS: dict[type, tuple[str, ...]] = {}


def statement_codes(old: Any, old_codes: Sequence[str], new: Any) -> list[str]:
    """`new.code_for_node(s)` for each statement `s` of `new.body`, `old_codes` being that of `old.body`'s."""
    if (new.default_indent, new.default_newline) != (old.default_indent, old.default_newline):
        return [new.code_for_node(s) for s in new.body]
    a, b = old.body, new.body
    first = 0
    while first < min(len(a), len(b)) and a[first] is b[first]:
        first += 1
    last = 0
    while last < min(len(a), len(b)) - first and a[len(a) - 1 - last] is b[len(b) - 1 - last]:
        last += 1
    out = list(old_codes[:first])
    # Between the two ends, statements whose fields are the same objects have the same code: a parked
    # statement's, an added import's neighbours.
    old_keys = [_key(s) for s in a[first : len(a) - last]]
    new_keys = [_key(s) for s in b[first : len(b) - last]]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_keys, new_keys, autojunk=False).get_opcodes():
        i1, i2, j1, j2 = i1 + first, i2 + first, j1 + first, j2 + first
        if tag == "equal":
            out += old_codes[i1:i2]
        elif i2 - i1 == j2 - j1:  # changed in place
            out += [_changed(new, a[i], old_codes[i], b[j]) for i, j in zip(range(i1, i2), range(j1, j2))]
        else:
            out += [new.code_for_node(s) for s in b[j1:j2]]
    return out + list(old_codes[len(a) - last :])


def _changed(module: Any, old: Any, old_code: str, new: Any) -> str:
    """`new`'s code, `old_code` being that of `old`, the top-level statement it replaces."""
    for before, after, indents in reversed(_inner_changes(module, old, new)):
        part = _code_in_blocks(module, before, indents)
        at = old_code.find(part)
        if at >= 0 and old_code.find(part, at + 1) < 0:
            return old_code[:at] + _code_in_blocks(module, after, indents) + old_code[at + len(part) :]
    return module.code_for_node(new)


def _inner_changes(module: Any, old: Any, new: Any) -> list[tuple[Any, Any, tuple[str, ...]]]:
    """(old, new, the indentation of the blocks they are in) of each pair of nodes, from the outermost in, that
    holds all of what differs between `old` and `new` (two top-level statements) and whose code can be generated
    on its own: statements of a block's body, or expressions (`_alone`).

    The way down goes through nodes of the same type in `old` and `new` that differ in one field only (each other
    field the same object, or an equal value), a sequence of the same length differing in one item: there LibCST's
    codegen of each ancestor emits the same tokens around the one child, which it looks into only for its
    presence, its type (never to tell one expression from another) or the length of a sequence (`With` looks
    into its items' commas, `Lambda` into its parameters: the same objects or of the same types and lengths)."""
    found: list[tuple[Any, Any, tuple[str, ...]]] = []
    indents: tuple[str, ...] = ()
    while type(old) is type(new):
        names = [name for name in _fields(type(old)) if not same(getattr(old, name), getattr(new, name))]
        if len(names) != 1:
            break
        x, y = getattr(old, names[0]), getattr(new, names[0])
        if isinstance(x, cst.CSTNode) and isinstance(y, cst.CSTNode):
            old, new = x, y
            if _alone(old) and _alone(new):
                found.append((old, new, indents))
            continue
        if not (isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)) and len(x) == len(y)):
            break
        pairs = [(p, q) for p, q in zip(x, y) if p is not q]
        if len(pairs) != 1:
            break
        # An IndentedBlock indents its body, a Match its cases: LibCST's only codegen that pushes an indentation.
        in_block = isinstance(old, cst.IndentedBlock) and names[0] == "body"
        if in_block or isinstance(old, cst.Match) and names[0] == "cases":
            indents += (module.default_indent if old.indent is None else old.indent,)
        old, new = pairs[0]
        if in_block or _alone(old) and _alone(new):  # a block generates each statement of its body with no argument
            found.append((old, new, indents))
    return found


def _code_in_blocks(module: Any, node: Any, indents: tuple[str, ...]) -> str:
    """`node`'s code as `module`'s codegen writes it inside blocks indented by `indents` (outermost first): as
    advisor.analysis.positions does it, without the positions."""
    from libcst._nodes.internal import CodegenState

    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens.extend(indents)
    node._codegen(state)
    return "".join(state.tokens)


def _key(stmt: Any) -> tuple:
    """Equal for two statements whose fields are the same objects or equal values (so the same code)."""
    return (type(stmt), *(_field_key(getattr(stmt, name)) for name in _fields(type(stmt))))


def _field_key(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(map(id, value))
    if isinstance(value, (str, int, Enum)) or value is None:
        return type(value), value
    return id(value)  # a node


def same(x: Any, y: Any) -> bool:
    """Whether two values of a node's fields are the same for its code: the same node, the same nodes in a list or a
    tuple alike (a transform may give a list where the parser gave a tuple), or equal values."""
    if x is y:
        return True
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(p is q for p, q in zip(x, y))
    return not isinstance(x, cst.CSTNode) and type(x) is type(y) and x == y


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


_ALONE: dict[type, bool] = {}


def _alone(node: Any) -> bool:
    """Whether `node` is an expression generated the same wherever it is, given the indentation of the blocks it
    is in: one whose codegen takes no argument from its parent (a `StarredElement`'s takes whether to write a
    default comma)."""
    kind = type(node)
    alone = _ALONE.get(kind)
    if alone is None:
        impl = kind._codegen_impl
        alone = _ALONE[kind] = issubclass(kind, cst.BaseExpression) and len(inspect.signature(impl).parameters) == 2
    return alone

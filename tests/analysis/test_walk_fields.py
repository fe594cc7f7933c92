"""The walk skips the fields that hold only tokens and whitespace (advisor.syntax.walk._node_fields): LibCST's own
annotations must say that every such field, in every node class that has it, holds nothing else."""

from __future__ import annotations

import dataclasses
import inspect
import typing

import libcst as cst

from advisor.syntax import walk
from advisor.syntax.walk import _is_token, _node_fields

NODES = [c for c in vars(cst).values() if inspect.isclass(c) and issubclass(c, cst.CSTNode)]


def _leaves(annotation: typing.Any) -> list[typing.Any]:
    if typing.get_origin(annotation) is None:
        return [annotation]
    return [leaf for arg in typing.get_args(annotation) for leaf in _leaves(arg)]


def _can_hold_a_node(annotation: typing.Any) -> bool:
    """Can a value of this annotation be (or hold) a LibCST node that is not a token or whitespace?"""
    for leaf in _leaves(annotation):
        if inspect.isclass(leaf) and issubclass(leaf, cst.CSTNode):
            concrete = [c for c in NODES if issubclass(c, leaf) and not inspect.isabstract(c)] or [leaf]
            if not all(_is_token(c) for c in concrete):
                return True
    return False


def test_every_skipped_field_holds_only_tokens_and_whitespace():
    checked = 0
    for cls in NODES:
        if inspect.isabstract(cls) or not dataclasses.is_dataclass(cls):
            continue
        hints = typing.get_type_hints(cls)
        kept = set(_node_fields(cls))
        for field in dataclasses.fields(cls):
            if field.name not in kept:
                checked += 1
                assert not _can_hold_a_node(hints[field.name]), f"{cls.__name__}.{field.name}"
    assert checked > 100


def test_a_walk_subscribed_to_a_token_still_enters_it():
    module = cst.parse_module("x = f(a,  # why\n      b)\n")
    seen: list[str] = []

    class Commas:
        def get_visitors(self):
            return {"visit_Comma": lambda node: seen.append(type(node).__name__)}

    walk.walk(module, [Commas()])
    assert seen == ["Comma"]
    assert walk.nodes_of(module, cst.Comment)[0].value == "# why"

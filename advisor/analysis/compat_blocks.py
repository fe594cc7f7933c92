"""Compat gates read from a block's shape, not from one `if`'s branches (used by `advisor.analysis.compat`).

- An early return: `if new_gate: return new(...)` followed by `return old(...)`. The
  statements after an `if` whose body always leaves the block (return, raise, break,
  continue) run only when the test is false: on old torch, for a new-side gate. A body
  that ends in `try: ... return new(...)` / `except ...: pass` (or a `with` that returns)
  counts too: what follows is the old path, and on new torch only the fallback of a
  failed new path; either way it is there for the old releases.
- A name assigned and then reassigned under a version test:
  `fwd = torch.cuda.amp.custom_fwd` then `if new_gate: fwd = torch.amp.custom_fwd`.
  The first assignment's value survives only where the test is false.
- A use of `X.name` under `if hasattr(X, "name"):`: the code checks that the old API is there.
- An `elif hasattr(obj, "_old_method"):` on any object, after a first test that is a gate
  or probes an attribute too: the elif is the fallback for objects (releases) that have
  only the old attribute.
"""

from __future__ import annotations

from typing import Any

from advisor.core.lazy import cst
from advisor.syntax.names import dotted_name
from advisor.syntax.walk import nodes_of

_LEAVES = ("Return", "Raise", "Break", "Continue")


def _leaves(block: Any) -> bool:
    """The block always leaves: its last statement returns, raises, breaks or continues."""
    body: Any = getattr(block, "body", ())
    if isinstance(block, cst.SimpleStatementSuite):
        return bool(body) and type(body[-1]).__name__ in _LEAVES
    if not body or not isinstance(body[-1], cst.SimpleStatementLine):
        return False
    return type(body[-1].body[-1]).__name__ in _LEAVES


def _leaves_or_falls_back(block: Any) -> bool:
    """The block leaves, or ends in a `try` / `with` whose own body leaves (the rest is the fallback)."""
    if _leaves(block):
        return True
    last = list(block.body[-1:]) if isinstance(block, cst.IndentedBlock) else []
    return bool(last) and isinstance(last[0], (cst.Try, cst.With)) and _leaves_or_falls_back(last[0].body)


def _assigned(stmt: Any) -> set[str]:
    """Names a simple statement line binds by `=` or import (not in nested scopes)."""
    if not isinstance(stmt, cst.SimpleStatementLine):
        return set()
    out: set[str] = set()
    for small in stmt.body:
        if isinstance(small, cst.Assign):
            out.update(t.target.value for t in small.targets if isinstance(t.target, cst.Name))
        elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                bound = alias.asname.name if alias.asname is not None else alias.name
                out.add(bound.value if isinstance(bound, cst.Name) else (dotted_name(bound) or "").split(".")[0])
    return out


def _branch_assigns(block: Any) -> set[str]:
    """Names the branch rebinds without reading them (`x = x.contiguous()` keeps the earlier value alive)."""
    stmts = block.body if isinstance(block, cst.IndentedBlock) else [cst.SimpleStatementLine(body=block.body)]
    read = {
        n.value
        for s in stmts
        if isinstance(s, cst.SimpleStatementLine)
        for small in s.body
        if isinstance(small, cst.Assign)
        for n in nodes_of(small.value, cst.Name)
    }
    return set().union(*(_assigned(s) for s in stmts)) - read if stmts else set()


class BlockGates:
    """One block's gate `if`s (an `if` with no `else` whose false side is old-only), read once per block."""

    def __init__(self, owner: Any, gates: Any) -> None:
        self.index = {id(stmt): i for i, stmt in enumerate(owner.body)}
        self.gates: list[tuple[int, Any, bool, set[str]]] = []  # (index, until, body leaves, names it reassigns)
        for i, other in enumerate(owner.body):
            if not isinstance(other, cst.If) or other.orelse is not None:
                continue
            until = gates.old_when(other.test, False)  # what runs when the test is false is old-only
            if until is not None:
                self.gates.append((i, until, _leaves_or_falls_back(other.body), _branch_assigns(other.body)))

    def until(self, stmt: Any) -> Any:
        """The release from which `stmt` (a statement of the block) is dead by its place in the block, or None.

        The first `if` of the block that decides it wins: one before it that always leaves when its
        test is true, or one after it that reassigns what `stmt` assigns.
        """
        j = self.index.get(id(stmt))
        return None if j is None else decided(self.gates, j, _assigned(stmt))


def decided(gates: list[tuple[int, Any, bool, set[str]]], j: int, assigned: set[str]) -> Any:
    """The release the first of a block's gate `if`s decides for its statement `j` (which binds `assigned`), or None:
    one before it that always leaves when its test is true, or one after it that reassigns what it assigns."""
    for i, until, leaves, names in gates:
        if i < j and leaves:
            return until
        if i > j and names and assigned & names:
            return until
    return None


def is_probe(test: Any) -> bool:
    """`hasattr(anything, "name")`."""
    return (
        isinstance(test, cst.Call)
        and dotted_name(test.func) == "hasattr"
        and len(test.args) == 2
        and isinstance(test.args[1].value, cst.SimpleString)
    )


def elif_probe(node: Any, gates: Any) -> bool:
    """`node` is `if <gate or probe>: ... elif hasattr(obj, "old"): ...`: its elif body is old-only."""
    nxt = node.orelse
    if not isinstance(nxt, cst.If) or not is_probe(nxt.test):
        return False
    return is_probe(node.test) or gates.test(node.test) is not None


def probed(node: Any, below: list[Any]) -> bool:
    """`node` is `if hasattr(X, "name"):` and one of `below` (the path down from its body to a report's node)
    is a use of `X.name` (any X): the code checks that the old API still exists.

    `if hasattr(torchaudio, "list_audio_backends"): torchaudio.list_audio_backends()` (SpeechBrain)
    runs only on releases that still have it; the call (and the attribute) are old-only.
    """
    if not isinstance(node, cst.If) or not is_probe(node.test) or not isinstance(node.test, cst.Call):
        return False
    owner = dotted_name(node.test.args[0].value)
    name = node.test.args[1].value.value.strip("\"'")  # type: ignore[attr-defined]  # is_probe: a string literal
    if not owner:
        return False
    for n in below:
        ref = n.func if isinstance(n, cst.Call) else n if isinstance(n, cst.Attribute) else None
        if isinstance(ref, cst.Attribute) and ref.attr.value == name and dotted_name(ref.value) == owner:
            return True
    return False

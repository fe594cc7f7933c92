"""A rule's `may_match` answered from the file's text, where the text can say "no" without a parse.

Most files the prefilter lets through are kept by no rule once `ast.parse` and `collect` have run (torch's own tree:
1,584 of 1,856; Megatron-LM: 923 of 1,020), because a trigger word is common ("range", "graph", "log") while the
rule asks for a reference to `torch.range`. A rule that can say what its `may_match` needs of the text
(`Rule.text_gate`: a reference to a target, an attribute, a pattern, a call by a name, a name imported) is asked
here first, and a file no rule is left for is never parsed, as a file without a trigger word never is.

It must never say "no" where `may_match` would say "yes" (tests/analysis/test_text_gate.py, and
`benchmarks/text_gate_agreement.py` over whole trees). So it over-approximates `References.refers_to_any` and
`imports`: the file's import statements (`import` where a statement starts) are read with `ast` for what they bind,
as `collect` reads them; a target `a.b.c` may be referred to where an import binds `c` to it, or names it or a
module below it, or where `.c` ends a dotted name whose head an import binds to what, with its parts, makes the
target (`x.b.c` with `import a as x`); or where `.c` follows something the text cannot tell from a dotted name
(`(a).c`, a line break: a comment may sit there), or `c` or the whole dotted name is a string constant (a
`getattr`'s name, `patch("a.b.c")`). A dotted name, an attribute or a call counts only in code: not in a comment
or a string (a docstring names most of what its module uses), which `text_code.Code` tells by reading the file as
the tokenizer does, only as far as asked. A star import binds every name to its module's (and `torch` to torch, as
`collect` has it). Anything may be where the file binds a name to an import by a call with a string constant (`m =
import_module("a")`, in code), has an import statement in code that does not parse alone, or one continued from the
line above.

A gate's fields are ways through ("or"); its patterns may say where a match counts (advisor.rule.gates: in code, after
an operand), and a pattern marked `ALSO_NEEDED` is a condition besides them ("and": a reference to an optimizer, and
a set where its parameters go).
"""

from __future__ import annotations

import ast
import codecs
import re
from functools import lru_cache
from typing import Container, Iterable

from advisor.analysis.text_code import (
    Code,
    after_operand,
    attribute_at,
    binding_call,
    call,
    chains_to,
    defined,
    getattr_call,
    getattr_names,
    importing,
    line_start,
    occurrences,
)
from advisor.rule.gates import AFTER_OPERAND, ALSO_NEEDED, CODE_ONLY
from advisor.rule.gates import TextGate as Gate  # (targets, attributes, patterns, calls, imports): Rule.text_gate
from advisor.syntax.references import STAR_MODULES

_FROM = re.compile(rb"from[ \t]+[.\w]+")  # what may come before `import` in a statement: `from a.b`, `from .`
_STAR_MODULES = frozenset(m.encode() for m in STAR_MODULES)
_STARS = b" *"  # FileText.bound's key of the modules imported with `*` (no name has a space)
_QUOTED = re.compile(rb"""(["'])([\w.]+)\1""")  # a string constant that may be a (dotted) name


class FileText:
    """One file's bytes, and what every gate asks of them, found once: what its import statements bind. `words`:
    which of the gates' words the file holds (the prefilter's split of it into words)."""

    def __init__(self, data: bytes, words: Container[bytes], importing_calls: Iterable[str]) -> None:
        data = data[3:] if data.startswith(codecs.BOM_UTF8) else data  # `import` at the start is a statement's
        self.data, self.words = data, words
        self._importing = importing_calls
        self._bound: dict[bytes, set[bytes]] | None = None
        self._chains: dict[bytes, list[tuple[int, list[bytes] | None]]] = {}  # a word -> `chains_to` it
        self._modules: set[bytes] | None = None
        self.code = Code(data)  # `pos in self.code`: is it code, not a comment or a string?
        self._quoted: set[bytes] | None = None
        self._getattrs: set[bytes] | None = None

    @property
    def bound(self) -> dict[bytes, set[bytes]]:
        """Each name an import binds -> what it may be bound to (`import a.b as c`: c -> a.b), and the modules the
        imports name under b"" (`from a.b import c`: a.b.c), every word of an import statement under b".", the
        modules imported with `*` under `_STARS`; b"*" in it where any name may be bound to anything (an import by a
        call, an import statement the text does not show plainly)."""
        if self._bound is None:
            self._bound = _bindings(self.data, self._importing, self.code)
        return self._bound

    @property
    def modules(self) -> set[bytes]:
        """The names the imports name (`import a.b.c`: a.b.c), and every dotted name above one (a, a.b)."""
        if self._modules is None:
            self._modules = set()
            for name in self.bound[b""]:
                parts = name.split(b".")
                self._modules.update(b".".join(parts[:i]) for i in range(1, len(parts) + 1))
        return self._modules

    @property
    def quoted(self) -> set[bytes]:
        """The string constants that are a name or a dotted name (`"torch.compile"`, `getattr(m, "compile")`)."""
        if self._quoted is None:
            self._quoted = {m.group(2) for m in _QUOTED.finditer(self.data)}
        return self._quoted

    @property
    def getattrs(self) -> set[bytes]:
        """The names `getattr(a.b, "name")` calls get (`text_code.getattr_names`)."""
        if self._getattrs is None:
            self._getattrs = getattr_names(self.data, self.code)
        return self._getattrs

    def passes(self, gate: Gate) -> bool:
        targets, attributes, patterns, calls, imported, needed, strings = _encoded(gate)
        if needed and not any(self._found(p, in_code) for p, in_code in needed):
            return False  # a condition besides the rest (advisor.rule.ALSO_NEEDED)
        if needed and not (targets or attributes or patterns or calls or imported):
            return True
        data, present = self.data, self.words
        if any(self._found(p, in_code) for p, in_code in patterns):
            return True
        if any(a in present and attribute_at(data, a, self.code) for a in attributes):
            return True
        if any(n in present and self.may_call(n) for n in calls):
            return True
        if imported and (b"*" in self.bound or not self.bound[b"."].isdisjoint(imported)):
            return True
        return any(last in present and self.may_refer(dotted, last, strings) for dotted, last in targets)

    def _found(self, pattern: re.Pattern[bytes], in_code: int) -> bool:
        """Does `pattern` match (`in_code`: where its match starts in code, not in a comment or a string; 2: and
        after an operand, `text_code.after_operand`)? A match that does not count is looked past by one byte, not to
        its end: it may hold one that does."""
        data, code = self.data, self.code
        m = pattern.search(data)
        while (
            m is not None
            and in_code
            and (m.start() not in code or (in_code == 2 and not after_operand(data, m.start(), code)))
        ):
            m = pattern.search(data, m.start() + 1)
        return m is not None

    def may_call(self, name: bytes) -> bool:
        """May the file call something by `name` (`References.calls` by the last name called, `calls_of` also by a
        name an import binds it to)? Where `name(` or `name  #` is in code (not `def name(`), `getattr(m, "name")(`
        is, or an import statement names it."""
        if b"*" in self.bound or name in self.bound[b"."]:
            return True
        data = self.data
        if name in self.quoted and getattr_call(name).search(data):
            return True
        called = call(name)
        return any(
            called.match(data, pos) and pos in self.code and not defined(data, pos) for pos in occurrences(data, name)
        )

    def may_refer(self, dotted: bytes, last: bytes, strings: bool = True) -> bool:
        """May the file refer to `dotted` (whose last part, `last`, it holds as a word), as `References.referenced`
        or `imports` would have it (`strings`: or a string constant naming it, `References.strings`)?"""
        bound = self.bound
        if last == dotted or b"*" in bound or dotted in bound.get(last, ()):
            return True  # anything may be bound, or the name imported (`from a.b import c`)
        if any(star + b"." + last == dotted for star in bound.get(_STARS, ())):
            return True  # `from a.b import *`, and `c` anywhere
        if dotted in self.modules:
            return True  # a module named by an import, or one above it (`import a.b.c.d`)
        chains = self._chains.get(last)
        if chains is None:
            chains = self._chains[last] = chains_to(self.data, last, self.code)
        for pos, chain in chains:  # a dotted name that may be `dotted`, where it is code (not in a docstring)
            if chain is not None:
                rest = b"".join(b"." + p for p in (*chain[1:], last))
                if not any(base + rest == dotted for base in self._bases(chain[0])):
                    continue
            if pos in self.code:
                return True
        if strings and dotted in self.quoted:
            return True  # a string constant naming it (`patch("a.b.c")`)
        return last in self.quoted and last in self.getattrs  # getattr(a.b, "c")

    def _bases(self, head: bytes) -> set[bytes]:
        """What the name `head` may be bound to, as `references.name_bases` has it."""
        bound = self.bound
        bases = bound.get(head, set())
        stars = bound.get(_STARS)
        if stars:
            bases = bases | {star + b"." + head for star in stars}
            if head in _STAR_MODULES and head not in bound:  # torch through a star import is torch
                bases.add(head)
        return bases


@lru_cache(maxsize=None)
def _encoded(
    gate: Gate,
) -> tuple[
    tuple[tuple[bytes, bytes], ...],
    tuple[bytes, ...],
    tuple[tuple[re.Pattern[bytes], int], ...],
    tuple[bytes, ...],
    frozenset[bytes],
    tuple[tuple[re.Pattern[bytes], int], ...],
    bool,
]:
    """A gate as the text is read: each target with its last part, in bytes; the patterns compiled (once a gate),
    each with whether it counts in code only (it starts with the regular expression comment `CODE_ONLY`), those
    that are a condition besides the rest (`ALSO_NEEDED`) apart; whether a string naming a target counts."""
    targets, attributes, patterns, calls, imported = gate[:5]
    pairs = tuple((t.encode(), t.rpartition(".")[2].encode()) for t in targets)
    compiled = [(re.compile(p.encode()), _reading(p.removeprefix(ALSO_NEEDED))) for p in patterns]
    needed = tuple(c for c, p in zip(compiled, patterns) if p.startswith(ALSO_NEEDED))
    return (
        pairs,
        tuple(a.encode() for a in attributes),
        tuple(c for c, p in zip(compiled, patterns) if not p.startswith(ALSO_NEEDED)),
        tuple(c.encode() for c in calls),
        frozenset(i.encode() for i in imported),
        needed,
        len(gate) < 6 or bool(gate[5]),
    )


def _reading(pattern: str) -> int:
    """Where a pattern's match counts: 0 anywhere, 1 in code (CODE_ONLY), 2 in code after an operand (AFTER_OPERAND)."""
    if not pattern.startswith(CODE_ONLY):
        return 0
    return 2 if pattern[len(CODE_ONLY) :].startswith(AFTER_OPERAND) else 1


def _words_of(alias: ast.alias) -> list[str]:
    return [*alias.name.split("."), *([alias.asname] if alias.asname else [])]


def _bindings(data: bytes, importing_calls: Iterable[str], code: Code) -> dict[bytes, set[bytes]]:
    """FileText.bound: the import statements read by `ast` as `collect` reads them (advisor.syntax.ast_parts); one
    that does not parse is prose in a docstring or a comment (left out), or the text does not show it plainly."""
    everything: dict[bytes, set[bytes]] = {b"*": set(), b"": set(), b".": set()}
    by_calls: list[tuple[bytes, bytes]] = []  # (name, module) of `name = import_module("module")`
    for c in importing_calls:
        word = c.encode()
        if word not in data:
            continue
        for pos in occurrences(data, word):
            if importing(c).match(data, pos) and pos in code and binding_call(data, pos, code):
                plain = _plain_binding(data, pos, word)
                if plain is None:
                    return everything
                by_calls.append(plain)
    statements = _import_statements(data, code)
    if statements is None:
        return everything
    try:  # all at once; one by one only where they do not parse together (one is prose in a docstring)
        nodes = ast.parse(b"\n".join(text for _, text in statements)).body
    except (SyntaxError, ValueError):
        nodes = []
        for pos, statement in statements:
            try:
                nodes += ast.parse(statement).body
            except (SyntaxError, ValueError):
                if pos in code:
                    return everything
    bound: dict[bytes, set[bytes]] = {b"": set(), b".": set()}
    for name, module in by_calls:  # as `collect` binds them (ast_parts.imported_module)
        bound[b""].add(module)
        bound.setdefault(name, set()).add(module)
        bound[b"."].update({name, *module.split(b".")})
    for node in nodes:
        bound[b"."].update(w.encode() for a in getattr(node, "names", ()) for w in _words_of(a))
        bound[b"."].update(w.encode() for w in (getattr(node, "module", None) or "").split(".") if w)
        if isinstance(node, ast.Import):
            for a in node.names:
                name = a.name.encode()
                bound[b""].add(name)
                key = a.asname.encode() if a.asname else name.split(b".")[0]
                bound.setdefault(key, set()).add(name if a.asname else key)
        elif isinstance(node, ast.ImportFrom):
            if any(a.name == "*" for a in node.names):  # each name may be the module's (ast_parts.record_import)
                star = b"." * node.level + (node.module or "").encode()
                bound.setdefault(_STARS, set()).add(star)
                bound[b""].add(star)
                continue
            if node.level or not node.module:
                continue  # a relative import binds nothing `collect` resolves
            for a in node.names:
                full = f"{node.module}.{a.name}".encode()
                bound[b""].add(full)
                bound.setdefault((a.asname or a.name).encode(), set()).add(full)
        else:
            return everything
    return bound


_ASSIGNED = re.compile(rb"[ \t]*+(\w++)[ \t]*+=[ \t]*+(?:\w++[ \t]*+\.[ \t]*+)*+")  # `m = `, `m = importlib.`
_ONE_STRING = re.compile(rb"[ \t]*+\([ \t]*+[rRuU]?([\"'])([\w.]++)\1[ \t]*+\)")  # `("a.b")` and nothing else


def _plain_binding(data: bytes, pos: int, word: bytes) -> tuple[bytes, bytes] | None:
    """(name, module) where the importing call whose name starts at `pos` is the whole value of a one-name assignment
    on its own line and is given one string and nothing else (`m = import_module("a.b")`), as `collect` binds m to
    a.b; None for any other shape (the text cannot tell what it binds)."""
    head = _ASSIGNED.fullmatch(data, line_start(data, pos), pos)
    call = _ONE_STRING.match(data, pos + len(word))
    if head is None or call is None:
        return None
    return head.group(1), call.group(2)


def _import_statements(data: bytes, code: Code) -> list[tuple[int, bytes]] | None:
    """The text of each statement that may be an import (`import` where a statement starts: a line's start, after
    `;` or `:`, after `from m`), to its end (a closing parenthesis, or the line with its continuations); None where
    one in code continues a line above (`from m \\`), which the text alone does not read (one in a string whose
    first line ends with a backslash is no import). Each with where it starts."""
    out = []
    for pos in occurrences(data, b"import"):
        line = line_start(data, pos)
        head = data[line:pos]
        cut = max(head.rfind(b";"), head.rfind(b":")) + 1
        prefix = head[cut:].strip()
        if not prefix or _FROM.fullmatch(prefix):
            if not prefix and not cut and _continued(data, line):
                if pos in code:
                    return None
                continue
            out.append((pos, data[line + cut : _statement_end(data, pos + 6)].strip()))
    return out


def _continued(data: bytes, line: int) -> bool:
    """Does a backslash end the text before `line` (past its line breaks)?"""
    j = line
    while j and data[j - 1] in b"\r\n":
        j -= 1
    return j > 0 and data[j - 1] == 92


def _statement_end(data: bytes, pos: int) -> int:
    """Where the import statement whose `import` ends at `pos` ends."""
    i = pos
    while i < len(data) and data[i] in b" \t":
        i += 1
    if i < len(data) and data[i] == 40:  # "(": to its closing one, past comments (`# (Dict, List)`)
        close = data.find(b")", i)
        comment = data.find(b"#", i, close)
        while close != -1 and comment != -1:
            end = data.find(b"\n", comment)
            if end == -1:
                return len(data)
            close = data.find(b")", end)
            comment = data.find(b"#", end, close)
        return len(data) if close == -1 else close + 1
    while True:  # to the end of the line (a `;` or `#` before it), or of the lines a backslash continues
        stop = data.find(b"\n", i)
        stop = len(data) if stop == -1 else stop
        for c in (b"\r", b";", b"#"):
            k = data.find(c, i, stop)
            if k != -1:
                stop = k
        if stop < len(data) and data[stop] in b"\r\n" and stop and data[stop - 1] == 92:  # a continued line
            i = stop + 1
            continue
        return stop

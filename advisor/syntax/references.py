"""A cheap superset of the qualified names a module refers to, from `ast`.

The text prefilter lets through every file that merely contains a trigger word ("jit", "graph", "eigh"...).
Before paying for a LibCST parse (~10x slower than `ast.parse`, which the parse guard runs anyway), we check
that the file really refers to something a candidate rule looks for.

This must never drop a file a rule would flag, so it over-approximates: every import binding anywhere in the
file applies everywhere (no scopes), and string constants count as references (rules also match
`mock.patch("torch.x.y")`), kept apart (`strings`, `referenced`) for the rules that report at names only. The
precise, scope-aware answer comes later from `advisor.syntax.names`.
"""

from __future__ import annotations

import ast
import re
from typing import Iterable

from advisor.core.textlines import lines_of
from advisor.syntax import ast_parts
from advisor.syntax.ast_parts import IMPORTING_CALLS

# Unbound names that a star import is taken to bind to the module of the same name (advisor.syntax.names).
STAR_MODULES = frozenset({"torch"})

_AST = ast.AST
_TRANSPOSES = frozenset({"T", "H", "mT", "mH"})


class References:
    def __init__(self) -> None:
        self._qualnames: set[str] | None = None  # `qualnames`, once asked for
        self._prefixes: set[str] | None = None  # `dotted_prefixes`, once asked for
        self.referenced: set[str] = set()  # the resolved dotted references (no string constant)
        self.strings: set[str] = set()  # the string constants (shorter than 200 characters)
        self.attributes: set[str] = set()  # every attribute name used (`x.attr`)
        self.names: set[str] = set()  # every bare name and keyword-argument name (`x`, `f(k=...)`)
        self._guards: list[ast.expr] = []  # tests and decorators: `guard_identifiers` walks them if asked
        self.ifs: list[ast.If] = []  # every `if` statement (the ROCm rules' guards); dropped with `calls`
        self._guard_identifiers: set[str] | None = None
        self.imports: set[str] = set()  # every imported module/symbol
        self.max_depth = 0  # deepest expression nesting
        # ADV130, a list index that may warn: a subscript by a list display holding a slice, None, `...` or a
        # sequence (`ast_parts.warning_list`), or by a name (`index_names`) a list holding a `slice(...)` is bound or
        # stored to (`slice_list_indexed`); the values bound or stored to names (`list_values`) go with `calls`.
        self.index_lists = False
        self.index_names: set[str] = set()
        self.list_values: dict[str, list[ast.expr]] = {}
        # Every call, by the last part of what it calls (`F.softmax(x)` under "softmax"; `getattr(m, "f")(x)`
        # under "f"), for rules that can tell from a call's shape that nothing here is theirs. Dropped
        # (`forget_calls`) before the LibCST parse, so the `ast` tree is not kept alive beside it.
        self.calls: dict[str, list[ast.Call]] = {}
        self.defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}  # by name; dropped with `calls`
        self.classes: list[ast.ClassDef] = []  # every class statement; dropped with `calls`
        # For ADV139, dropped with `calls`: (attribute, receiver) of `x.T`, `f(...).mT` (the receiver a name or a
        # call), and the calls assigned to each name (`x = f(...)`, `x: T = f(...)`).
        self.transposed: list[tuple[str, ast.Name | ast.Call]] = []
        self.assigned: dict[str, list[ast.Call]] = {}
        self.minus_one: dict[
            str, list[ast.Call]
        ] = {}  # calls a literal one is subtracted from (`exp(x) - 1`), by last name
        self.renamed: set[str] = set()  # imported names bound under another name (`import softmax as sm`)
        self.asnames: dict[str, set[str]] = {}  # those other names: "sm" -> {"torch.nn.functional.softmax"}
        self.long_strings: list[str] = []  # string constants too long for `qualnames`
        self.bindings: dict[str, set[str]] = {}  # name -> what the file's imports bind it to (no scopes)
        self.stars: list[str] = []  # modules imported with `*`
        self.text: str | None = None  # the module's source, where the caller knows it (`lines_matching`)

    @property
    def qualnames(self) -> set[str]:
        """The resolved dotted references and the string constants (made on first use: most files' rules need only
        `refers_to_any`, which looks in each set)."""
        if self._qualnames is None:
            self._qualnames = self.referenced | self.strings if self.strings else self.referenced
        return self._qualnames

    @property
    def guard_identifiers(self) -> set[str]:
        """The names and attributes in `if`/`while` tests, conditional expressions and decorators (two rule families
        ask: walking every test of every file again cost a tenth of `collect`)."""
        if self._guard_identifiers is None:
            self._guard_identifiers, found = set(), self._guards
            for node in found:
                _identifiers_into(node, self._guard_identifiers)
            self._guards = []
        return self._guard_identifiers

    def identifiers(self) -> set[str]:
        """Every name, keyword and attribute identifier, and the last part of every import."""
        return self.names | self.attributes | {q.rsplit(".", 1)[-1] for q in self.imports}

    def alias_names(self) -> frozenset[str]:
        """The names an import binds, in any scope, to something of another name (`import softmax as sm`: `sm`;
        `m = import_module("torch.cuda")`: `m`). Any other name refers, through imports, only to things of its own
        name (`from m import f`, a star import), or to nothing absolute (a local, a relative import)."""
        return frozenset(n for n, qs in self.bindings.items() if any(q.rpartition(".")[2] != n for q in qs))

    def dotted_prefixes(self) -> set[str]:
        """Every dotted prefix, of two parts at least, of what the module refers to or imports (`torch.a.b.c`:
        `torch.a`, `torch.a.b`, `torch.a.b.c`); made once, for the three mined families."""
        if self._prefixes is None:
            self._prefixes = {p for q in self.referenced | self.imports for p in prefixes_of(q)}
        return self._prefixes

    def has_string_containing(self, fragment: str) -> bool:
        return any(fragment in q for q in self.qualnames) or any(fragment in s for s in self.long_strings)

    def calls_of(self, qualified: Iterable[str]) -> list[ast.Call]:
        """The calls that may call one of `qualified`: by its last part, or by a name an import binds it to
        (`from torch.optim import SGD as Opt`: `Opt(...)`)."""
        names: set[str] = set()
        for q in qualified:
            if q in self.renamed:
                names.update(n for n, bound in self.asnames.items() if q in bound)
            names.add(q.rsplit(".", 1)[-1])
        return [call for name in names for call in self.calls.get(name, ())]

    def sole_args(self, qualified: Iterable[str]) -> list[ast.expr]:
        """The argument of each call of `qualified` given exactly one, positional, not starred."""
        calls = self.calls_of(qualified)
        return [c.args[0] for c in calls if len(c.args) == 1 and not c.keywords and type(c.args[0]) is not ast.Starred]

    def resolve(self, node: ast.AST) -> set[str] | None:
        """What a dotted name (`F.softmax`, `torch`) may refer to through the file's imports, as `qualnames`
        has it (no scopes): empty for a name no import binds, None for anything else (a call, a subscript)."""
        chain = ast_parts.chain(node)
        if chain is None:
            return None
        rest = "".join(f".{part}" for part in chain[1:])
        return {base + rest for base in name_bases(chain[0], self.bindings, self.stars)}

    def lines_matching(self, pattern: str) -> tuple[int, ...]:
        """The lines (1-based, as `ast` numbers them, in order, each once) where `pattern` matches in the module's
        text, none where the text is not known: evidence for a rule's `kept_lines` that the `ast` pass does not place."""
        if self.text is None:
            return ()
        return tuple(sorted(set(lines_of(self.text, [m.start() for m in re.finditer(pattern, self.text)]))))

    def lines_naming(self, qualified: tuple[str, ...], also: str) -> tuple[int, ...]:
        """`lines_matching` a name the module may use for one of `qualified` or something inside one (their last
        names, and the names its imports bind to anything whose name starts with one: `from m import f as g`,
        `import a.b as c`), or `also`."""
        bound = {n for n, qs in self.bindings.items() if any(q.startswith(qualified) for q in qs)}
        words = {q.rpartition(".")[2] for q in qualified} | bound
        return self.lines_matching(rf"{also}|\b(?:{'|'.join(map(re.escape, sorted(words)))})\b")

    def lines_writing(self, *attributes: str) -> tuple[int, ...]:
        """`lines_matching` where an attribute of one of these names may be written: its dot, then the name (spaces,
        line breaks and comments may come between them inside brackets)."""
        return self.lines_matching(rf"\.(?:[ \t\f\r\n\\]++|#[^\r\n]*+)*+(?:{'|'.join(map(re.escape, attributes))})\b")

    def forget_calls(self) -> None:
        self.guard_identifiers  # noqa: B018  # walked now, while the tree is there
        self.calls, self.defs, self.classes, self.transposed, self.assigned = {}, {}, [], [], {}
        self.list_values, self.ifs, self.minus_one = {}, [], {}

    def slice_list_indexed(self) -> bool:
        """Is a name used as an index (`index_names`) one a list holding a `slice(...)` may be bound or stored to
        (ADV130's `name_info`)? Asked before `forget_calls`."""
        return ast_parts.slice_list_indexed(self.index_names, self.list_values, self.calls)

    def refers_to_any(self, targets: Iterable[str], strings: bool = True) -> bool:
        """`strings`: a string constant equal to one of `targets` counts (`mock.patch("torch.x.y")`)."""
        if not isinstance(targets, (tuple, list, set, frozenset)):
            targets = tuple(targets)  # looked for in two sets
        return not self.referenced.isdisjoint(targets) or (strings and not self.strings.isdisjoint(targets))

    @property
    def imports_torch(self) -> bool:
        return any(q == "torch" or q.startswith("torch.") for q in self.imports)


def collect(tree: ast.AST, depth_limit: int, importing_calls: tuple[str, ...] = IMPORTING_CALLS) -> References:
    refs = References()
    aliases: dict[str, set[str]] = {}
    stars: list[str] = []
    chains: list[list[str]] = []  # dotted names (`a.b.c`), resolved at the end
    bare: set[str] = set()  # plain names (`a`): each resolved once however often it is used
    attributes, strings, calls = refs.attributes, refs.strings, refs.calls
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    push, shapes, AST, max_depth = stack.append, _SHAPES, _AST, 0
    while stack:
        node, depth = stack.pop()
        t = type(node)
        is_expr, fields, kind = shapes.get(t) or _shape(t)
        d = depth + 1 if is_expr else 0
        if d > max_depth:
            max_depth = d
            if d > depth_limit:
                refs.max_depth = d
                return refs  # the caller rejects the file
        if kind:  # one of the nodes this walk reads (the kinds below); most are not
            if kind == _NAME:
                bare.add(node.id)  # type: ignore[attr-defined]
                continue
            if kind == _ATTRIBUTE:
                attributes.add(node.attr)  # type: ignore[attr-defined]
                if node.attr in _TRANSPOSES and type(node.value) in (ast.Name, ast.Call):  # type: ignore[attr-defined]
                    refs.transposed.append((node.attr, node.value))  # type: ignore[attr-defined]
                chain = ast_parts.chain(node)
                if chain is not None:  # a plain dotted name: nothing below it but its own parts
                    chains.append(chain)
                    refs.names.add(chain[0])
                    attributes.update(chain[1:])
                    max_depth = max(max_depth, d + len(chain))
                    continue
            elif kind == _CONSTANT:
                value = node.value  # type: ignore[attr-defined]
                if isinstance(value, str):
                    if len(value) < 200:
                        strings.add(value)
                    else:
                        refs.long_strings.append(value)
                continue
            elif kind == _SUBSCRIPT:
                index = node.slice  # type: ignore[attr-defined]
                if type(index) is ast.Name:
                    refs.index_names.add(index.id)
                elif not refs.index_lists and type(index) in ast_parts.LISTY:
                    refs.index_lists = ast_parts.warning_list(index, refs.index_names)
            elif kind == _CALL:
                # ast_parts.record_call, its common cases inlined (most nodes read are calls)
                func, ft = node.func, type(node.func)  # type: ignore[attr-defined]
                if ft is ast.Name and func.id == "getattr":  # `getattr(torch.cuda, "memory_cached")` refers
                    ast_parts.getattr_chain(node, chains)  # type: ignore[arg-type]
                if ft is ast.Attribute or ft is ast.Name:
                    calls.setdefault(func.attr if ft is ast.Attribute else func.id, []).append(node)  # type: ignore[arg-type]
                else:
                    ast_parts.record_call(node, calls)  # type: ignore[arg-type]
            elif kind == _KEYWORD:
                if node.arg:  # type: ignore[attr-defined]
                    refs.names.add(node.arg)  # type: ignore[attr-defined]
            elif _read_rarer(kind, node, refs, aliases, stars, importing_calls):
                continue  # an import: nothing below it refers
        # ast.iter_child_nodes, inlined and without the fields that never hold a node this walk reads.
        for name in fields:
            value = getattr(node, name, None)
            if isinstance(value, AST):
                push((value, d))
            elif type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push((item, d))
    refs.max_depth = max_depth
    return _resolve(chains, bare, aliases, stars, refs)


def _read_rarer(kind: int, node: ast.AST, refs: References, aliases: dict, stars: list, importing: tuple) -> bool:
    """`collect`'s reading of the kinds of node rarer than names, attributes, constants, subscripts, calls and
    keywords (mostly statements); True where nothing below `node` is to be walked (an import)."""
    if kind == _IMPORT:
        ast_parts.record_import(node, refs, aliases, stars)  # type: ignore[arg-type]
        return True
    if kind == _TEST:  # if, while, a conditional expression
        refs._guards.append(node.test)  # type: ignore[attr-defined]
        if type(node) is ast.If:
            refs.ifs.append(node)
    elif kind == _SCOPE:  # def, async def, class
        _scope(node, refs)  # type: ignore[arg-type]
    elif kind == _BINOP:
        if type(node.op) is ast.Sub and type(node.left) is ast.Call and ast_parts.is_one(node.right):  # type: ignore[attr-defined]
            ast_parts.record_call(node.left, refs.calls, refs.minus_one)  # type: ignore[attr-defined]
    else:  # an assignment
        value_type = type(node.value)  # type: ignore[attr-defined]
        if value_type is ast.Call:
            _assignment(node, refs, aliases, importing)  # type: ignore[arg-type]
        if value_type is not ast.Name and value_type is not ast.Constant:  # may hold a call (ADV130)
            ast_parts.list_value(node, refs.list_values)  # type: ignore[arg-type]
    return False


# Fields `collect` never descends into: operators and contexts (`Load()`, `Add()`) are nodes but say nothing,
# and the rest hold strings or numbers. Skipping them is a third of the walk's nodes.
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "kind", "type_comment", "level", "module"})
# The node kinds `collect` reads (0: any other node, whose children it only walks).
_NAME, _ATTRIBUTE, _CONSTANT, _SUBSCRIPT, _CALL, _KEYWORD, _IMPORT, _TEST, _SCOPE, _BINOP, _ASSIGN = range(1, 12)
_KINDS = {
    ast.Name: _NAME,
    ast.Attribute: _ATTRIBUTE,
    ast.Constant: _CONSTANT,
    ast.Subscript: _SUBSCRIPT,
    ast.Call: _CALL,
    ast.keyword: _KEYWORD,
    **dict.fromkeys((ast.Import, ast.ImportFrom), _IMPORT),
    **dict.fromkeys((ast.If, ast.IfExp, ast.While), _TEST),
    **dict.fromkeys((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef), _SCOPE),
    ast.BinOp: _BINOP,
    **dict.fromkeys((ast.Assign, ast.AnnAssign), _ASSIGN),
}
# Per node type: (is it an expression, the fields to descend into, its kind), filled on first sight.
_SHAPES: dict[type, tuple[bool, tuple[str, ...], int]] = {}


def _shape(t: type) -> tuple[bool, tuple[str, ...], int]:
    fields = tuple(f for f in t._fields if f not in _LEAF_FIELDS)  # type: ignore[attr-defined]
    shape = _SHAPES[t] = (issubclass(t, ast.expr), fields, _KINDS.get(t, 0))
    return shape


def _scope(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, refs: References) -> None:
    """A function by its name (`defs`) or a class (`classes`), and its decorators (for `guard_identifiers`)."""
    if type(node) is not ast.ClassDef:
        refs.defs.setdefault(node.name, []).append(node)  # type: ignore[arg-type]
    else:
        refs.classes.append(node)  # type: ignore[arg-type]
    refs._guards += node.decorator_list


def _assignment(
    node: ast.Assign | ast.AnnAssign, refs: References, aliases: dict[str, set[str]], importing_calls: tuple[str, ...]
) -> None:
    """A call assigned to a name (`x = f(...)`, `x: T = f(...)`: ADV139), or an importing call's module bound to a
    name (`mod, ok = optional_import("m")`)."""
    call = node.value
    targets = node.targets if type(node) is ast.Assign else [node.target]  # type: ignore[union-attr]
    if len(targets) == 1 and type(targets[0]) is ast.Name:
        refs.assigned.setdefault(targets[0].id, []).append(call)  # type: ignore[arg-type, attr-defined]
    if type(node) is not ast.Assign:
        return
    mod = ast_parts.imported_module(call, importing_calls)  # type: ignore[arg-type]
    if mod:
        for t in targets:
            if isinstance(t, ast.Tuple) and t.elts:
                t = t.elts[0]
            if isinstance(t, ast.Name):
                aliases.setdefault(t.id, set()).add(mod)
                refs.imports.add(mod)


def _resolve(
    chains: list[list[str]], bare: set[str], aliases: dict[str, set[str]], stars: list[str], refs: References
) -> References:
    """`refs`, with every dotted reference and plain name, through the file's import aliases and star imports, in
    `refs.referenced` (and with the string constants in `refs.qualnames`), and the names and bindings."""
    refs.names |= bare
    refs.bindings, refs.stars = aliases, stars
    qualnames = refs.referenced
    bases_of: dict[str, set[str]] = {}
    for name in bare:
        bases_of[name] = name_bases(name, aliases, stars)
        qualnames.update(bases_of[name])
    bases: set[str] | None
    for chain in chains:
        head = chain[0]
        bases = bases_of.get(head)
        if bases is None:
            bases = bases_of[head] = name_bases(head, aliases, stars)
        if not bases:
            continue
        rest = chain[1:]
        for base in bases:
            q = base
            qualnames.add(q)
            for part in rest:
                q = f"{q}.{part}"
                qualnames.add(q)
    return refs


def prefixes_of(dotted: str) -> list[str]:
    """`a.b.c`: `a.b`, `a.b.c`, shortest first (two parts at least: `torch` alone names no API)."""
    parts = dotted.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts) + 1)]


def name_bases(name: str, aliases: dict[str, set[str]], stars: list[str]) -> set[str]:
    bases = aliases.get(name, set()) | {f"{m}.{name}" for m in stars}
    if stars and name in STAR_MODULES and name not in aliases:  # as names.NameResolver.lookup
        bases.add(name)
    return bases


def children_into(node: ast.AST, stack: list[ast.AST]) -> None:
    """`node`'s children onto `stack`: `ast.iter_child_nodes` without the fields that never hold a name."""
    t = type(node)
    for name in (_SHAPES.get(t) or _shape(t))[1]:
        value = getattr(node, name, None)
        if isinstance(value, _AST):
            stack.append(value)
        elif type(value) is list:
            stack.extend(v for v in value if isinstance(v, _AST))


def _identifiers_into(node: ast.AST, out: set[str]) -> None:
    stack = [node]  # ast.walk, without its generator and the nodes that hold no name
    while stack:
        sub = stack.pop()
        t = type(sub)
        if t is ast.Name:
            out.add(sub.id)  # type: ignore[attr-defined]
            continue
        if t is ast.Attribute:
            out.add(sub.attr)  # type: ignore[attr-defined]
        children_into(sub, stack)

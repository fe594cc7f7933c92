from __future__ import annotations

import ast
from types import MethodType
from typing import Any

from advisor.rule import (
    Applicability,
    Example,
    Rule,
    Safety,
    Severity,
    Window,
    append_args,
    calls_to,
    cst,
    explode_args,
    get_arg,
    has_star_args,
    kwarg,
    line_length,
    longest_line,
    nodes_of,
    uses_magic_commas,
)

from ._pickled import ALLOW_LIST_NAMES, Finder, found

LOAD = {"torch.load", "torch.serialization.load"}


class TorchLoadWeightsOnly(Rule):
    """`torch.load(...)` without `weights_only=`: the default flipped to True in 2.6.

    What it finds: `torch.load` calls that do not pass `weights_only` (TorchFix TOR102).

    Why: since 2.6 the default is effectively `weights_only=True` (the signature
    default None resolves to True unless `pickle_module` is given;
    serialization.py in 2.12 and 2.13). Loading a checkpoint that pickles custom
    objects then fails with "UnpicklingError: Weights only load failed". Code
    written for older torch silently changed meaning; say which one you want.

    Example:
        state = torch.load(path)
        # becomes
        state = torch.load(path, weights_only=True)

    Fix safety: safe: it adds `weights_only=True`, which is what the call already
    does on torch >= 2.6. On a project that still supports torch < 2.6 the fix is
    unsafe, and the message says why: `weights_only=` exists since 1.13, but below
    2.6 the default is False, so True makes loads of pickled objects fail there.
    On a project whose lowest torch is >= 2.6 a plain load gets no fix: True
    is already the default, and writing it only disables the
    `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` escape hatch. Pass `weights_only=False`
    instead only for trusted files that really hold pickled objects. Calls
    passing `pickle_module` (whose default stays False), and loads under a test
    of the caller's own `weights_only` (`if not weights_only: torch.load(f)`),
    are reported without a fix.
    The added keyword keeps the line within the project's configured line
    length (`[tool.ruff]` / `[tool.black]` `line-length`, flake8's
    `max-line-length`); a call is wrapped one argument a line only past it.

    Whole pickled objects: a load whose value is used like a module or
    optimizer (called, `.state_dict()`, `.eval()`, `.parameters()`, ...), or
    whose path this file `torch.save`s an object (`self`, an `nn`/`optim`
    object, a `Namespace`, an instance of a class of the file) to, loads more
    than tensors and containers; `weights_only=True` would break it. Such a load
    is reported as breaking from 2.6 (the default flip makes it fail there), and
    its only fix is unsafe: `weights_only=False`, which is the default below 2.6
    and keeps what the load did on every release, but runs the file's pickle
    (for files you trust; else allow-list the classes with
    `torch.serialization.add_safe_globals`). It is offered only on this strong
    evidence, which is local and conservative (see `rules/catalogue/_pickled.py`):
    a value indexed or iterated like a dict, or a name bound twice, is never
    called a whole object, and `.to()`/`.cuda()` are not evidence (a loaded
    tensor has them).

    Items used as more than tensors: where an item of the loaded checkpoint is
    assigned to an attribute (`self.args = ckpt["args"]`) or passed to a call
    that builds something (`build_model(ckpt["cfg"])`, `Net(**ckpt["config"])`;
    not `load_state_dict`, builtins or torch functions), that item may be a
    pickled object, so no `weights_only=True` is written, not even with
    `--unsafe-fixes`: the load is reported without a fix (nor `False`: the
    evidence is too weak to run a pickle). Other checkpoint dicts still get
    `weights_only=True`; review loads of checkpoints you did not write as plain
    `state_dict`s.

    Validation: none; load each of your checkpoints once under the new torch.
    """

    code = "ADV716"
    name = "torch-load-weights-only"
    message = "`torch.load` without `weights_only=`: since torch 2.6 it defaults to True; pass it explicitly (False only for trusted files)"
    severity = Severity.INFO
    since = "2.6"  # reported from the default flip; the keyword itself is older (`safety.exists_from`)
    fix = Applicability.SAFE
    # Unsafe where torch < 2.6 is supported, and not for a missing API: there the default is False.
    safety = Safety(
        "2.6",
        "the default is False there: `weights_only=True` makes loads of anything but tensors and containers fail",
        exists_from="2.0",
    )
    triggers = ("load",)
    targets = tuple(LOAD)
    may_match_refers = True  # its may_match asks Rule.may_match first
    # The evidence sits in the load's own scope: a function with a trigger is kept whole, and the module's
    # own statements all are. Only a `save` to a path some load reads, and an allow-list call, are file-wide:
    # a slice keeps the statements that hold them (`kept_lines`).
    module_level = True

    @classmethod
    def may_match(cls, refs) -> bool:
        # A load that does not pass `weights_only=` (torch's own pass it).
        calls = calls_to(refs, LOAD)  # not `json.load(f)`, `self.load(p)`
        return super().may_match(refs) and any(all(k.arg != "weights_only" for k in c.keywords) for c in calls)

    @classmethod
    def needs_whole_module(cls, refs) -> bool:
        # An allow-list name used other than by a call (`allow = add_safe_globals`) has no line to keep.
        names = ALLOW_LIST_NAMES.intersection(refs.identifiers())
        if any(not refs.calls.get(name) for name in names):
            return True
        return bool(refs.calls.get("save")) and not refs.renamed.isdisjoint(LOAD)  # a renamed load

    @classmethod
    def kept_lines(cls, refs) -> tuple[int, ...]:
        allow_lists = [c.lineno for name in ALLOW_LIST_NAMES for c in refs.calls.get(name, ())]
        saves, loads = refs.calls.get("save", ()), refs.calls_of(LOAD)
        read = {ast.dump(p[0]) for p in map(_positional, loads) if p}
        same_path = [c.lineno for c in saves if len(p := _positional(c)) > 1 and ast.dump(p[1]) in read]
        return tuple(allow_lists + same_path)

    valid = [
        "import torch\nsd = torch.load(p, weights_only=True)",
        "import torch\nsd = torch.load(p, weights_only=False)",
        "import json\nd = json.load(f)",
        "def f(torch):\n    return torch.load(p)",
    ]
    invalid = [
        Example("import torch\nsd = torch.load(p)\n", fixed="import torch\nsd = torch.load(p, weights_only=True)\n"),
        Example(
            "from torch import load\nsd = load(p, map_location='cpu',)\n",
            fixed="from torch import load\nsd = load(p, map_location='cpu', weights_only=True)\n",
        ),
        Example("import torch\nimport dill\nsd = torch.load(p, pickle_module=dill)\n"),
        # Whole pickled objects (modelled on diffusers' convert_models_diffuser_to_diffusers.py
        # and apex's sparsity checkpoint tests): breaking, no fix.
        Example(
            "import torch\nmodel = torch.load(f'unet-{hor}.torch')\nstate_dict = model.state_dict()\n",
            message="loads a whole pickled object",
            line=2,
            column=9,
        ),
        Example("import torch\nnet = torch.load(path, map_location='cpu').eval()\n", message="`.eval()`"),
        Example("import torch\ndef f(p, x):\n    m = torch.load(p)\n    return m(x)\n", message="called"),
        Example(
            "import torch\nclass Net(torch.nn.Module):\n    pass\n"
            "torch.save(Net(), 'net.pt')\nnet = torch.load('net.pt')\n",
            message="`torch.save`s an object to the same path",
            line=5,
        ),
        Example(
            "import argparse\nimport torch\nargs = argparse.Namespace(lr=1)\n"
            "torch.save(args, ARGS)\nargs2 = torch.load(ARGS)\n",
            message="add_safe_globals",
        ),
        # The strong evidence gets the behaviour-preserving unsafe edit.
        Example(
            "import torch\nmodel = torch.load(path)\nmodel.eval()\n",
            fixed="import torch\nmodel = torch.load(path, weights_only=False)\nmodel.eval()\n",
            message="unsafe fix: `weights_only=False`",
        ),
        # Checkpoint items that feed a builder or an attribute (modelled on detection and GAN training
        # scripts): no `weights_only=True`, and no fix at all.
        Example(
            "import torch\nckpt = torch.load(path, map_location='cpu')\nmodel = build_model(ckpt['args'])\n"
            "model.load_state_dict(ckpt['model'])\n",
            fixed="import torch\nckpt = torch.load(path, map_location='cpu')\nmodel = build_model(ckpt['args'])\n"
            "model.load_state_dict(ckpt['model'])\n",
            message="`ckpt['args']` passed to `build_model(...)`",
        ),
        Example(
            "import torch\nclass Trainer:\n    def resume(self, p):\n        state = torch.load(p)\n"
            "        self.net.load_state_dict(state['net'])\n        self.opts = state['opts']\n",
            message="`state['opts']` assigned to an attribute",
        ),
        Example(
            "import torch\ncfg = torch.load(p)['config']\nnet = Net(**cfg)\n",
            fixed="import torch\ncfg = torch.load(p)['config']\nnet = Net(**cfg)\n",
            message="`cfg` passed to `Net(...)`",
        ),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._finder = Finder(self.qualnames, self._is_load)
        self._checked: dict[int, bool] = {}

    def get_visitors(self) -> dict:
        """The rule's hooks and its evidence finder's (advisor's one walk of the module): the finder's after the
        rule's, which notes each load for it, but before them at the module's end, where its evidence is closed.
        Each is a method of the rule, so that an error in the finder is the rule's."""
        hooks = super().get_visitors()
        for name, theirs in self._finder.get_visitors().items():
            mine = hooks.get(name)
            order = (theirs,) if mine is None else (theirs, mine) if name == "leave_Module" else (mine, theirs)
            hooks[name] = MethodType(_calling(order), self)
        return hooks

    def visit_Module(self, node) -> None:
        self._loads: list = []  # (call, its statement line or None, that line's indentation)
        self._blocks: list[str] = []
        self._stmt = None
        self._default_indent = node.default_indent
        self._chosen = 0  # inside `if ... weights_only ...:`

    def visit_IndentedBlock(self, node) -> None:
        self._blocks.append(self._default_indent if node.indent is None else node.indent)

    def leave_IndentedBlock(self, node) -> None:
        self._blocks.pop()

    def visit_If(self, node) -> None:
        # `if not weights_only: return torch.load(f)`: the caller chose; True would invert that choice
        if any(n.value == "weights_only" for n in nodes_of(node.test, cst.Name)):
            self._chosen += 1

    def leave_If(self, node) -> None:
        if any(n.value == "weights_only" for n in nodes_of(node.test, cst.Name)):
            self._chosen -= 1

    def visit_SimpleStatementLine(self, node) -> None:
        self._stmt = node

    def leave_SimpleStatementLine(self, node) -> None:
        self._stmt = None

    def _is_load(self, node) -> bool:
        """A call of `torch.load` without `weights_only=` (asked once a call: the finder meets some first)."""
        known = self._checked.get(id(node))
        if known is None:
            known = self._checked[id(node)] = (
                isinstance(node, cst.Call)
                and self.match(node.func, LOAD) is not None
                and get_arg(node, "weights_only") is None
            )
        return known

    def visit_Call(self, node) -> None:
        if self._is_load(node):
            self._loads.append((node, self._stmt, "".join(self._blocks), self._chosen > 0))

    def leave_Module(self, node) -> None:
        if not self._loads:
            return
        whole, items = found(self._finder)
        code = self.ctx.text  # the whole file's, where `node` is a slice of it
        magic = uses_magic_commas(code)
        # A line the fix makes too long is wrapped as a formatter would: one argument a line, with a
        # trailing comma (which Black and Ruff keep at any line length). Too long: over the project's
        # configured line length; without one, over 88 (their default) in a file that writes trailing
        # commas the way they do, else over the file's longest line.
        limit = line_length(self.ctx.path) or (88 if magic else max(88, longest_line(code)))
        lowest = self.ctx.lowest
        for call, stmt, indent, chosen in self._loads:
            if call in whole:
                self.report(
                    call,
                    WHOLE_OBJECT.format(why=whole[call]),
                    window=BREAKS_IN_2_6,
                    replacement=append_args(call, [kwarg("weights_only", "False")], magic),
                    applicability=Applicability.UNSAFE,
                    safety=SAME_EVERYWHERE,
                )
            elif call in items:
                self.report(call, self.message + ITEMS_NO_FIX.format(why=items[call]))
            elif lowest is not None and lowest >= (2, 6):
                self.report(call, self.message + AT_LEAST_2_6)  # no fix: True is the default on every supported torch
            elif get_arg(call, "pickle_module") is not None or has_star_args(call) or chosen:
                self.report(call)
            else:
                self.report(call, replacement=self._with_weights_only(call, stmt, indent, magic, limit))

    def _with_weights_only(self, call, stmt, indent: str, magic: bool, limit: int):
        new_args = [kwarg("weights_only", "True")]
        new = append_args(call, new_args, magic)
        # Only a call that is its statement's value (`x = torch.load(...)`, `return torch.load(p)["sd"]`):
        # a formatter wraps `a if c else torch.load(...)` or `f(torch.load(...))` another way.
        if stmt is not None and _value_call(stmt) is call:
            line = self.ctx.code_for(stmt.deep_replace(call, new))
            if longest_line(line.strip("\n"), indent) > limit:
                return explode_args(call, new_args)
        return new


def _positional(call) -> list:
    """An `ast` call's positional arguments, stars left out."""
    return [a for a in call.args if not isinstance(a, ast.Starred)]


def _value_call(stmt):
    """The call a one-statement line's value is, through subscripts (`torch.load(p)["model"]`), or None."""
    if len(stmt.body) != 1 or not isinstance(stmt.body[0], (cst.Assign, cst.AnnAssign, cst.Return, cst.Expr)):
        return None
    node = stmt.body[0].value
    while isinstance(node, cst.Subscript):
        node = node.value
    return node


AT_LEAST_2_6 = (
    " (no fix: on your lowest supported torch, >= 2.6, True is already the default; writing it would only "
    "disable the `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` escape hatch)"
)
# The default flip makes a whole-object load fail from 2.6 on (kind breaking there).
BREAKS_IN_2_6 = Window(since="2.0", removed_in="2.6")
WHOLE_OBJECT = (
    "`torch.load` loads a whole pickled object ({why}): since torch 2.6 (default `weights_only=True`) it fails "
    "unless you pass `weights_only=False` (trusted files only) or allow-list the object's classes with "
    "`torch.serialization.add_safe_globals`; unsafe fix: `weights_only=False`, what the load did before 2.6 "
    "(it runs the file's pickle: only for files you trust)"
)
# `weights_only=False` is the default below 2.6 and the old behaviour after: the same on every release.
SAME_EVERYWHERE = Safety("2.0", "", exists_from="2.0")
ITEMS_NO_FIX = (
    " (no fix: an item of the loaded value is used as more than a tensor ({why}); if it is a pickled object "
    "(a Namespace, a config class) `weights_only=True` fails: pass `weights_only=False` for files you trust)"
)


def _calling(hooks: tuple) -> Any:
    def both(self, node) -> None:  # `self`: the rule, for the walk's error report
        for hook in hooks:
            hook(node)

    return both

"""Which `torch.load` calls load whole pickled objects (ADV716).

`weights_only=True` (the default since torch 2.6) loads tensors, dicts, lists,
tuples and primitive types; a pickled `nn.Module`, optimizer, `Namespace` or
other class instance fails with "Weights only load failed". This module says,
for one file, which loads certainly need the full unpickler. It is
conservative: a load is a whole-object load only on positive evidence, and any
sign of a plain container (the value indexed or iterated like a dict) wins.

Evidence, in the load's own scope (function or module):
- the loaded value is called (`torch.load(p)(x)`, `m = torch.load(p); m(x)`), or
  one of the methods that only modules and optimizers have is called on it
  (`.state_dict()`, `.eval()`, `.parameters()`, ...). `.to()`, `.cuda()` and
  `.float()` are not evidence: a loaded tensor has them and loads fine;
- the same file `torch.save`s, to the same path expression, an object: `self`,
  a call of `torch.nn.*`, `torch.optim.*`, `argparse.Namespace`,
  `parse_args()` or a class defined in the file, or a name bound to one;
- the same function `torch.save`s one of its own parameters (whatever the
  caller passes) into an `io.BytesIO()` and loads that buffer back: a round
  trip of arbitrary objects, as in Lightning's XLA `broadcast`.
- an entry of the loaded value is read by attribute (`ckpt["cfg"].model`, other than a
  tensor's own attributes such as `.shape`), or has a module method called
  (`ckpt["model"].eval()`): a checkpoint dict that holds a pickled object.
A name assigned more than once in the scope (but where its other bindings are new objects:
`model = torch.load(p)` / `else: model = Net(cfg)`, or the same object again: `model = model.cuda()`),
or (but for the entry evidence) a value that is
subscripted, `.items()`/`.keys()`/`.values()`/`.get()`-ed, is never a whole-object load.

Weaker evidence (`item_use_loads`): an item of the loaded value (`ckpt["args"]`, `ckpt.get("cfg")`, or a
name bound to one) is used as more than a tensor: assigned to an attribute (`self.args = ckpt["args"]`)
or passed to a call that builds something (`build_model(ckpt["cfg"])`, `Net(**ckpt["config"])`), other
than `load_state_dict`, a builtin or a torch/numpy/math function. It may be a pickled object (a
`Namespace`, a config class) or plain data; ADV716 then writes no `weights_only=True`.
"""

from __future__ import annotations

import builtins
import sys
from typing import Any

from advisor.rule import cst

# Methods only modules / optimizers / schedulers have (not tensors, not dicts).
OBJECT_METHODS = frozenset(
    {
        "state_dict",
        "load_state_dict",
        "eval",
        "train",
        "parameters",
        "named_parameters",
        "buffers",
        "named_buffers",
        "modules",
        "named_modules",
        "children",
        "named_children",
        "forward",
        "zero_grad",
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_buffer",
        "add_module",
        "requires_grad_",
    }
)
DICT_METHODS = frozenset({"items", "keys", "values", "get", "pop", "update", "setdefault", "__getitem__"})
# Attributes a loaded tensor has without a call: reading one is no evidence of a pickled object.
TENSOR_ATTRIBUTES = frozenset(
    {
        "shape",
        "dtype",
        "device",
        "data",
        "grad",
        "requires_grad",
        "ndim",
        "T",
        "mT",
        "H",
        "mH",
        "layout",
        "names",
        "real",
        "imag",
        "is_cuda",
        "is_leaf",
        "is_sparse",
        "is_quantized",
        "is_meta",
        "itemsize",
        "nbytes",
        "grad_fn",
    }
)
OBJECT_FACTORIES = ("torch.nn.", "torch.optim.", "argparse.Namespace")
# Calls an item of a checkpoint may go to without saying it is more than tensors and plain data.
ITEM_SINKS = frozenset({"load_state_dict", "copy_", "to", "append", "extend", "info", "debug", "warning", "log"})
BUILTINS = frozenset(dir(builtins))
SAVE = {"torch.save", "torch.serialization.save"}
BYTES_IO = {"io.BytesIO"}


class _Scope:
    def __init__(self) -> None:
        self.assigned: dict[str, int] = {}  # name -> number of bindings
        self.load_of: dict[str, Any] = {}  # name -> the load call assigned to it
        self.object_use: dict[str, str] = {}  # name -> first evidence ("called", ".eval()")
        self.dict_use: set[str] = set()
        self.object_bindings: dict[str, int] = {}  # name -> bindings to a new object (`SNLIClassifier(cfg)`)
        self.entry_object_use: dict[str, str] = {}  # name -> `ckpt["cfg"].model`: an entry read like an object
        self.object_names: set[str] = set()  # names bound to an object (for torch.save)
        self.params: set[str] = set()
        self.buffers: set[str] = set()  # names bound to io.BytesIO(...)
        self.roundtrips: set[str] = set()  # buffer names a parameter was saved into
        self.loads: list[tuple[str, Any]] = []  # (first argument text, load call)
        self.item_of: dict[str, Any] = {}  # name -> the load call whose item it is bound to (`cfg = ckpt["cfg"]`)


def found(finder: Finder) -> tuple[dict[Any, str], dict[Any, str]]:
    """({load call: why it loads a whole object}, {load call: how an item of its value is used as more than a
    tensor}), once the walk has left the module: the certain evidence, and the weaker one (see the module doc)."""
    # A file that allow-lists classes (`torch.serialization.add_safe_globals` / `safe_globals`) has
    # taken one of the two ways out: its loads of those objects work on >= 2.6.
    return ({}, {}) if finder.allow_lists else (finder.result, finder.item_use)


def _rebinds_itself(value: Any, name: str) -> bool:
    """`model = model.cuda()` / `model = model.to(device)`: the same object again, not another value."""
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and isinstance(value.func.value, cst.Name)
        and value.func.value.value == name
    )


def _first_arg_text(call: Any) -> str | None:
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return cst.Module([]).code_for_node(arg.value)
        return None
    return None


ALLOW_LISTS = frozenset({"torch.serialization.add_safe_globals", "torch.serialization.safe_globals"})
ALLOW_LIST_NAMES = frozenset(q.rsplit(".", 1)[1] for q in ALLOW_LISTS)


class Finder:
    """A visitor that gathers, in the rule's own walk of the module, the evidence about the calls `is_load(call)`
    says are the rule's loads; `found` reads it at the module's end. `qualnames(node)` resolves a name to its
    qualified names (the file's resolver)."""

    def __init__(self, qualnames: Any, is_load: Any) -> None:
        self.qualnames = qualnames
        self.is_load = is_load  # met before its call is (`m = torch.load(p)`): a question, not a list
        self.stack = [_Scope()]
        self.classes: set[str] = set()
        self.result: dict[Any, str] = {}
        self.saved_objects: dict[str, str] = {}  # path text -> what was saved
        self.loads_by_path: list[tuple[str, Any]] = []
        self.called: set[int] = set()  # ids of the nodes that are called (`x.f` in `x.f()`)
        self.allow_lists = False  # the file calls torch.serialization.add_safe_globals / safe_globals
        self.item_use: dict[Any, str] = {}  # load call -> an item used as more than a tensor

    def get_visitors(self) -> dict[str, Any]:
        return {n: getattr(self, n) for n in dir(type(self)) if n.startswith(("visit_", "leave_"))}

    # -- scopes ----------------------------------------------------------

    def visit_ClassDef(self, node: Any) -> None:
        self.classes.add(node.name.value)

    def visit_FunctionDef(self, node: Any) -> None:
        scope = _Scope()
        p = node.params
        for param in [*p.posonly_params, *p.params, *p.kwonly_params]:
            scope.params.add(param.name.value)
        scope.params.discard("self")
        self.stack.append(scope)

    def leave_FunctionDef(self, node: Any) -> None:
        self._close(self.stack.pop())

    def leave_Module(self, node: Any) -> None:
        self._close(self.stack.pop())
        for path, call in self.loads_by_path:
            what = self.saved_objects.get(path)
            if what and call not in self.result:
                self.result[call] = f"this file `torch.save`s {what} to the same path"

    def _close(self, scope: _Scope) -> None:
        for path, call in scope.loads:
            base = path.split("(", 1)[1].rstrip(")") if path.startswith(("io.BytesIO(", "BytesIO(")) else path
            if base in scope.roundtrips or path in scope.roundtrips:
                self.result.setdefault(
                    call, "this function `torch.save`s its argument, whatever the caller passes, into this buffer"
                )
        for name, call in scope.load_of.items():
            why = scope.object_use.get(name)
            # bound once, or else only to new objects (`model = torch.load(p)` / `else: model = Net(cfg)`)
            once = scope.assigned.get(name, 0) - scope.object_bindings.get(name, 0) == 1
            if why and once and name not in scope.dict_use:
                self.result[call] = f"the loaded value is used like a module or optimizer: {why}"
            entry = scope.entry_object_use.get(name)
            if entry and scope.assigned.get(name) == 1 and call not in self.result:
                self.result[call] = f"an entry of the loaded value is read like an object: {entry}"

    # -- bindings and uses -------------------------------------------------

    def visit_Assign(self, node: Any) -> None:
        scope = self.stack[-1]
        load = self._item_load(node.value)
        if load is not None:
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    scope.item_of[t.target.value] = load
                elif isinstance(t.target, cst.Attribute):
                    self._item_used(load, node.value, "assigned to an attribute")
        for t in node.targets:
            for name in _bound_names(t.target):
                scope.assigned[name] = scope.assigned.get(name, 0) + 1
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            name = node.targets[0].target.value
            if isinstance(node.value, cst.Call) and self.is_load(node.value):
                scope.load_of[name] = node.value
            elif self._is_object(node.value):
                scope.object_names.add(name)
                scope.object_bindings[name] = scope.object_bindings.get(name, 0) + 1
            elif self._is_instance(node.value) or _rebinds_itself(node.value, name):
                scope.object_bindings[name] = scope.object_bindings.get(name, 0) + 1
            elif isinstance(node.value, cst.Call) and self.qualnames(node.value.func) & BYTES_IO:
                scope.buffers.add(name)

    def visit_AnnAssign(self, node: Any) -> None:
        for name in _bound_names(node.target):
            self.stack[-1].assigned[name] = self.stack[-1].assigned.get(name, 0) + 2  # never "once"

    def visit_AugAssign(self, node: Any) -> None:
        self.visit_AnnAssign(node)

    def visit_For(self, node: Any) -> None:
        self.visit_AnnAssign(node)
        if isinstance(node.iter, cst.Name):
            self.stack[-1].dict_use.add(node.iter.value)  # iterated: a container

    def visit_Attribute(self, node: Any) -> None:
        """`ckpt["cfg"].model` / `ckpt["model"].eval()`: that entry is a pickled object, not a tensor or container."""
        owner, attr = node.value, node.attr.value
        called = id(node) in self.called
        if isinstance(owner, cst.Subscript) and isinstance(owner.value, cst.Name):
            if attr in OBJECT_METHODS if called else attr not in TENSOR_ATTRIBUTES | DICT_METHODS:
                shown = cst.Module([]).code_for_node(node)
                self.stack[-1].entry_object_use.setdefault(owner.value.value, f"`{shown}{'()' if called else ''}`")

    def visit_Subscript(self, node: Any) -> None:
        if isinstance(node.value, cst.Name):
            self.stack[-1].dict_use.add(node.value.value)

    def visit_Call(self, node: Any) -> None:
        scope = self.stack[-1]
        func = node.func
        self.called.add(id(func))
        if self.is_load(node):
            path = _first_arg_text(node)
            if path is not None:
                self.loads_by_path.append((path, node))
                scope.loads.append((path, node))
        if isinstance(func, cst.Name):
            scope.object_use.setdefault(func.value, "called")
        elif isinstance(func, cst.Call) and self.is_load(func):
            self.result.setdefault(func, "the loaded value is called")
        elif isinstance(func, cst.Attribute):
            self._method_call(scope, func)
        names = self.qualnames(func)
        self._item_args(node, names)
        if names & SAVE:
            self._save(node)
        if names & ALLOW_LISTS:
            self.allow_lists = True

    def _item_load(self, value: Any) -> Any:
        """The load call whose item `value` is (`ckpt["k"]`, `ckpt.get("k")`, `torch.load(p)["k"]`, `cfg` bound
        to one), or None."""
        scope = self.stack[-1]
        if isinstance(value, cst.Name):
            return scope.item_of.get(value.value)
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "get":
            value = value.func.value
        elif isinstance(value, cst.Subscript):
            value = value.value
        else:
            return None
        if isinstance(value, cst.Call) and self.is_load(value):
            return value
        return scope.load_of.get(value.value) if isinstance(value, cst.Name) else None

    def _item_args(self, call: Any, names: set[str]) -> None:
        """An item passed to a call that builds something (not a sink of tensors or plain data)."""
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in ITEM_SINKS:
            return
        if isinstance(func, cst.Name) and func.value in BUILTINS:
            return
        if any(q.startswith(("torch.", "numpy.", "math.", "logging.")) for q in names) or self.is_load(call):
            return
        for arg in call.args:
            load = self._item_load(arg.value)
            if load is not None:
                shown = cst.Module([]).code_for_node(func)
                self._item_used(load, arg.value, f"passed to `{shown}(...)`")

    def _item_used(self, load: Any, value: Any, how: str) -> None:
        self.item_use.setdefault(load, f"`{cst.Module([]).code_for_node(value)}` {how}")

    def _method_call(self, scope: _Scope, func: Any) -> None:
        method, owner = func.attr.value, func.value
        if isinstance(owner, cst.Name):
            if method in OBJECT_METHODS:
                scope.object_use.setdefault(owner.value, f"`.{method}()`")
            elif method in DICT_METHODS:
                scope.dict_use.add(owner.value)
        elif isinstance(owner, cst.Call) and self.is_load(owner) and method in OBJECT_METHODS:
            self.result.setdefault(owner, f"the loaded value is used like a module or optimizer: `.{method}()`")

    def _save(self, call: Any) -> None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) < 2:
            return
        obj, path = positional[0].value, cst.Module([]).code_for_node(positional[1].value)
        scope = self.stack[-1]
        if isinstance(obj, cst.Name) and obj.value in scope.params and path in scope.buffers:
            scope.roundtrips.add(path)
        if isinstance(obj, cst.Name) and obj.value == "self":
            self.saved_objects.setdefault(path, "`self`")
        elif isinstance(obj, cst.Name) and obj.value in self.stack[-1].object_names:
            self.saved_objects.setdefault(path, f"`{obj.value}`, an object,")
        elif self._is_object(obj):
            self.saved_objects.setdefault(path, "an object")

    def _is_instance(self, value: Any) -> bool:
        """`Net(cfg)`, `models.Net(cfg)`: a CapWords call of the project's (not torch's, not the standard library's)."""
        if not isinstance(value, cst.Call) or not isinstance(value.func, (cst.Name, cst.Attribute)):
            return False
        last = value.func.value if isinstance(value.func, cst.Name) else value.func.attr.value
        quals = self.qualnames(value.func)
        foreign = any(q.split(".")[0] in sys.stdlib_module_names or q.startswith(("torch", "numpy")) for q in quals)
        return last[:1].isupper() and not last.isupper() and bool(quals) and not foreign

    def _is_object(self, value: Any) -> bool:
        """A call that certainly builds a module, optimizer, Namespace or instance of a class of this file."""
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        if isinstance(func, cst.Name) and func.value in self.classes:
            return True
        if isinstance(func, cst.Attribute) and func.attr.value == "parse_args":
            return True
        quals = self.qualnames(func)
        return any(q.startswith(OBJECT_FACTORIES) and q.rpartition(".")[2][:1].isupper() for q in quals)


def _bound_names(target: Any) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _bound_names(el.value)]
    return []

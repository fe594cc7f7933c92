from __future__ import annotations

from advisor.rule import CODE_ONLY, TEXT_GAPS, Applicability, Example, Kind, ReferenceRule, Severity, Window, cst

_TYPES = (
    "Byte",
    "Double",
    "Float",
    "Half",
    "Long",
    "Int",
    "Short",
    "Char",
    "Bool",
    "BFloat16",
    "ComplexDouble",
    "ComplexFloat",
)
_QUANTIZED = ("QUInt8", "QInt8", "QInt32", "QUInt4x2", "QUInt2x4")
CLASSES = {"torch.TypedStorage", "torch.storage.TypedStorage"}
CLASSES |= {f"torch.{t}Storage" for t in _TYPES + _QUANTIZED} | {f"torch.cuda.{t}Storage" for t in _TYPES}
# `x.storage().<method>()` that means the same on an untyped storage: an address, a size in bytes.
SAME_ON_UNTYPED = ("data_ptr", "nbytes")
_UNKNOWN_RECEIVER = Window(since="2.0")  # the receiver may not be a tensor: advice, no window


class TypedStorage(ReferenceRule):
    """`Tensor.storage()`, `TypedStorage` and `torch.FloatStorage` & co are deprecated: use `untyped_storage()`.

    What it finds: calls of `.storage()` and `.storage_type()` in files that import
    torch (unless the receiver is a module or an imported object, or `self`), and
    references to `torch.TypedStorage` and the typed storage classes
    (`torch.FloatStorage`, `torch.cuda.HalfStorage`, ...; 29 names).

    Why: UserWarning in every 2.x, the first time a typed storage is made in a
    process: "TypedStorage is deprecated. It will be removed in the future and
    UntypedStorage will be the only storage class. This should only matter to you if
    you are using storages directly.  To access UntypedStorage directly, use
    tensor.untyped_storage() instead of tensor.storage()". Constructing a class
    (`torch.FloatStorage(3)`, `torch.ByteStorage.from_buffer(b)`) warns; an
    `isinstance` check, an annotation or a private classmethod does not, so those are
    advice: `torch.ByteStorage._from_buffer(b, "native")` is silent (it never calls
    `_warn_typed_storage_removal`: `2.0.0 storage.py:779`, `2.15.0 storage.py:1295`; run on 2.13).

    Example:
        same = a.storage().data_ptr() == b.storage().data_ptr()
        # becomes
        same = a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()

    Fix safety: only `x.storage().data_ptr()` and `x.storage().nbytes()` are rewritten:
    the untyped storage has the same address and the same size in bytes (2.13 runtime).
    Anything else is reported without a fix: an untyped storage counts bytes, not
    elements (`size()`, indexing, `tolist()` differ). The fix is safe when the receiver
    is certainly a tensor (the result of a `torch.*` call), and unsafe otherwise (the
    receiver's type cannot be known statically, so such a finding is advice).

    Verified: `_warn_typed_storage_removal` with this text is in torch/storage.py of
    every wheel from 2.0.0 to 2.15.0, and `Tensor.untyped_storage` in each wheel's
    torch/_C/__init__.pyi. Truth: K-777/storage, K-777/FloatStorage, K-777/same-pointer.

    Validation: none.

    Window: the warning goes through the helper `_warn_typed_storage_removal` (`2.0.0 torch/storage.py:309-311`),
    called from the classes' constructors, which the API index does not follow.
    """

    code = "ADV777"
    name = "typed-storage"
    message = "`{what}` is deprecated (TypedStorage, UserWarning in every 2.x); use `{new}`"
    severity = Severity.WARNING
    deprecated_in = "2.0"
    window_exceptions = {
        "deprecated_in": "the warning goes through the helper `_warn_typed_storage_removal` (`2.0.0 torch/storage.py:309-311`),\ncalled from the classes' constructors, which the API index does not follow.",
    }
    fix = Applicability.SAFE
    names = CLASSES
    triggers = ("storage", "storage_type", "TypedStorage", *sorted({c.rpartition(".")[2] for c in CLASSES}))
    attribute_targets = ("storage", "storage_type")
    may_match_refers = True  # its may_match needs a reference to a class or one of those attributes: the gate holds
    statement_local = True  # a call and its receiver, in one statement

    valid = [
        "import torch\np = t.untyped_storage().data_ptr()\n",
        "import torch\ns = torch.UntypedStorage(8)\n",
        "p = t.storage().data_ptr()\n",  # no torch in this file
        "import torch\nimport boto3\nb = boto3.storage()\n",  # an imported object's own `storage()`
        "import torch\nclass Cache:\n    def get(self):\n        return self.storage()\n",
        "import tensorflow as tf\nx = tf.FloatStorage\n",
    ]
    invalid = [
        Example(
            "import torch\nsame = a.storage().data_ptr() == b.storage().data_ptr()\n",
            fixed="import torch\nsame = a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()\n",
            count=2,
            message="if `a` is a tensor",
            line=2,
            column=8,
        ),
        Example(
            "import torch\nn = torch.ones(3).storage().nbytes()\n",
            fixed="import torch\nn = torch.ones(3).untyped_storage().nbytes()\n",
            message="`Tensor.storage()` is deprecated",
        ),
        Example("import torch\nn = len(torch.ones(3).storage())\n", message="counts bytes"),
        Example("import torch\ns = torch.FloatStorage(3)\n", message="`torch.FloatStorage(...)` is deprecated"),
        Example("from torch import ByteStorage\ns = ByteStorage.from_buffer(b'ab')\n"),
        Example("import torch\nok = isinstance(s, torch.cuda.HalfStorage)\n", message="does not warn"),
        Example("import torch\ns = torch.ByteStorage._from_buffer(b, 'native')\n", message="private classmethod"),
        Example("import torch\nkind = torch.ones(2).storage_type()\n", message="use `tensor.dtype`"),
        Example(
            "import torch\nif torch.__version__ < '2.0':\n    p = t.storage().data_ptr()\n",
            message="compat fallback",
            line=3,
        ),
    ]

    @classmethod
    def text_gate(cls):
        # Rule.may_match's gate, and, besides, a class's name (`...Storage`, a getattr's in quotes too) or `.storage()`
        # / `.storage_type()` called with no argument
        called = CODE_ONLY + rf"storage(?<=\bstorage)(?:_type)?{TEXT_GAPS}\({TEXT_GAPS}\)"
        return cls.text_gate_with(r"Storage\b", called)

    @classmethod
    def may_match(cls, refs) -> bool:
        # A class referred to, or, in a file that imports torch, `.storage()` or `.storage_type()` called with no
        # argument on something other than `self` or `cls` (`_receiver_ok`; an attribute only read is none)
        if refs.refers_to_any(cls.targets, strings=False):
            return True
        return refs.imports_torch and any(
            type(call.func).__name__ == "Attribute"
            and not call.args
            and not call.keywords
            and getattr(call.func.value, "id", None) not in ("self", "cls")
            for name in cls.attribute_targets
            for call in refs.calls.get(name, ())
        )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._done: set = set()

    def visit_Call(self, node) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, (cst.Name, cst.Attribute)):
            owner = self.match(func.value, self.names)
            private = func.attr.value.startswith("_") and not func.attr.value.startswith("__")
            if owner is not None and not private:  # `torch.ByteStorage.from_buffer(...)`: makes a typed storage
                self._seen.add(func.value)
                self.report(
                    node, self.message.format(what=f"{owner}.{func.attr.value}(...)", new="torch.UntypedStorage")
                )
                return
        super().visit_Call(node)
        if node in self._done or not isinstance(func, cst.Attribute):
            return
        if func.attr.value in SAME_ON_UNTYPED and not node.args and self._storage_call(func.value):
            inner = func.value
            self._done.add(inner)
            new = inner.with_changes(func=inner.func.with_changes(attr=cst.Name("untyped_storage")))
            self._method(
                inner,
                "Tensor.storage()",
                "use `tensor.untyped_storage()` (same address and byte size)",
                replacement=new,
            )
        elif func.attr.value == "storage" and self._storage_call(node):
            self._method(
                node,
                "Tensor.storage()",
                "use `tensor.untyped_storage()`, which counts bytes, not elements (check sizes and indexing)",
            )
        elif func.attr.value == "storage_type" and not node.args and self._receiver_ok(func.value):
            self._method(node, "Tensor.storage_type()", "use `tensor.dtype` (the typed storage classes go away)")

    def on_call(self, node, qualname) -> None:
        self.report(node, self.message.format(what=f"{qualname}(...)", new="torch.UntypedStorage"))

    def on_reference(self, node, qualname) -> None:
        message = (
            f"`{qualname}` is a deprecated TypedStorage class; an `isinstance` check, an annotation or a private "
            "classmethod (`_from_buffer`) does not warn, but making one does (use `torch.UntypedStorage` / "
            "`tensor.untyped_storage()`)"
        )
        self.report(node, message, kind=Kind.ADVICE, window=_UNKNOWN_RECEIVER)

    def _storage_call(self, node) -> bool:
        return (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "storage"
            and not node.args
            and node not in self._done
            and self._receiver_ok(node.func.value)
        )

    def _receiver_ok(self, receiver) -> bool:
        """A possible tensor: not a module or an imported object, not `self`, in a file that imports torch."""
        if isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"):
            return False
        if isinstance(receiver, (cst.Name, cst.Attribute)) and any(
            not q.startswith("<") for q in self.qualnames(receiver)
        ):
            return False
        return self.imports_torch()

    def _method(self, call, what: str, advice: str, replacement=None) -> None:
        self._done.add(call)
        receiver = call.func.value
        message = f"`{what}` is deprecated (TypedStorage, UserWarning in every 2.x); {advice}"
        if isinstance(receiver, cst.Call) and any(q.startswith("torch.") for q in self.qualnames(receiver.func)):
            self.report(call, message, replacement=replacement)
            return
        recv = self.ctx.code_for(receiver)
        message += f" (if `{recv if len(recv) <= 30 else 'the receiver'}` is a tensor)"
        self.report(
            call,
            message,
            replacement=replacement,
            applicability=Applicability.UNSAFE,
            kind=Kind.ADVICE,
            window=_UNKNOWN_RECEIVER,
        )

"""A stand-in for `libcst` that imports it on first use.

Rule modules are imported for every run (to read their codes and triggers), but
libcst costs ~0.4 s to import. Rules write `from advisor.rule import cst` and use
`cst.Call` inside their visit methods, so a run where no file passes the
prefilter never pays for libcst.

Imports made mid-run (LibCST, the rule modules: `import_module`) keep a Ctrl-C a KeyboardInterrupt, which Python
3.11 hands on as a RuntimeError when it lands while a class is being defined (`reraise_interrupt`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any


def reraise_interrupt(error: BaseException) -> None:
    """Raise the Ctrl-C inside `error`, if it is one in another form (Python wraps a KeyboardInterrupt raised in
    `__set_name__`, as a module defines its classes: LibCST's nodes, a dataclass's fields, in a RuntimeError): for a
    catch-all that stands for a bug, or for a failure the run gets over, where an interrupt must still end the run."""
    cause = error.__cause__
    if isinstance(error, RuntimeError) and isinstance(cause, KeyboardInterrupt):
        raise cause from None


def import_module(name: str) -> Any:
    """`importlib.import_module`, where a Ctrl-C during the import stays a KeyboardInterrupt (`reraise_interrupt`)."""
    try:
        return importlib.import_module(name)
    except RuntimeError as e:
        reraise_interrupt(e)
        raise


class _LazyModule:
    def __init__(self, name: str) -> None:
        self._name = name
        self._module: Any = None

    def __getattr__(self, attr: str) -> Any:
        # Called only for a name not yet looked up: each is then kept on the stand-in, so that the rules'
        # millions of `cst.Name` lookups a run are plain attribute reads, not a Python call each.
        if self._module is None:
            self._module = import_module(self._name)
        value = getattr(self._module, attr)
        setattr(self, attr, value)
        return value


if TYPE_CHECKING:  # the checker sees libcst's real types; a run imports it only when used
    import libcst as cst
else:
    cst = _LazyModule("libcst")

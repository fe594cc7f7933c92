"""A Ctrl-C that Python hands on in another form is still an interrupt: one line, exit 130 (advisor.interrupt).

A KeyboardInterrupt raised in `__set_name__`, as a module defines its classes (LibCST's nodes when it is imported
mid-run), reaches the caller as a RuntimeError whose cause it is; a run reported it as an internal error (exit 2)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from advisor.core import lazy

BOMB = "class Bomb:\n    def __set_name__(self, owner, name):\n        raise KeyboardInterrupt\n\n\nclass C:\n    x = Bomb()\n"


def test_python_wraps_it_and_the_lazy_import_unwraps_it(tmp_path, monkeypatch):
    (tmp_path / "bomb_plain.py").write_text(BOMB)
    (tmp_path / "bomb_lazy.py").write_text(BOMB)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    with pytest.raises(RuntimeError) as wrapped:
        importlib.import_module("bomb_plain")
    assert isinstance(wrapped.value.__cause__, KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        lazy.import_module("bomb_lazy")


@pytest.mark.parametrize("where", ["the command", "a rule's visit"])
def test_a_wrapped_interrupt_is_one_line_and_exit_130(where):
    if where == "the command":
        body = "raise RuntimeError('Error calling __set_name__') from KeyboardInterrupt()"
    else:  # a rule's error loses one node, except this one
        body = (
            "from advisor.analysis.analyse import _rule_failed\n"
            "    try:\n        raise RuntimeError('x') from KeyboardInterrupt()\n"
            "    except RuntimeError as e:\n        _rule_failed(None, None, None, e)"
        )
    code = (
        "import time\nfrom advisor import interrupt\nfrom advisor.cli_fast import guarded\n"
        "interrupt.install()\ninterrupt._first_at = time.monotonic()  # as the handler sets it\n"
        f"def run():\n    {body}\n"
        "guarded(run)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "advisor: interrupted\n"


def test_only_a_wrapped_interrupt_is_raised_again():
    def wrapped(cause):
        try:
            raise RuntimeError("Error calling __set_name__") from cause
        except RuntimeError as e:
            return e

    lazy.reraise_interrupt(ValueError("a bug"))  # nothing to raise: the catch-all goes on
    lazy.reraise_interrupt(wrapped(ValueError("a bug")))
    with pytest.raises(KeyboardInterrupt):
        lazy.reraise_interrupt(wrapped(KeyboardInterrupt()))

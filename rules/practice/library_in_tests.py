from __future__ import annotations

import os
import re

from advisor.rule import Applicability, Example, Rule, Severity

_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$|(^|/)tests?/")


class LibraryInTests(Rule):
    """`torch.library.Library(...)` in a test: its registrations outlive the test.

    What it finds: calls to `torch.library.Library(...)` in test files (`test_*.py`,
    `*_test.py`, files under a `test/` or `tests/` directory, and modules that import
    `pytest` or `unittest`) (TorchFix TOR901, a PyTorch-internal rule).

    Why: a `Library` object keeps its operator registrations for as long as it is
    alive, so one test's registrations can leak into the next. PyTorch's own tests
    use the context manager `torch.library._scoped_library(...)`, which removes them
    on exit (it is private API: this rule is opt-in, `--select ADV991`).

    Fix safety: no automatic fix: the call has to become a `with` block.

    Validation: none.
    """

    code = "ADV991"
    name = "library-in-tests"
    message = "`torch.library.Library(...)` in a test keeps its registrations after the test; use `with torch.library._scoped_library(...)`"
    severity = Severity.INFO
    since = "2.0"
    fix = Applicability.NONE
    default_enabled = False
    triggers = ("Library",)
    targets = ("torch.library.Library",)

    valid = [
        "import torch\nimport unittest\nlib = torch.library._scoped_library('mylib', 'FRAGMENT')",
        "import torch\nlib = torch.library.Library('mylib', 'DEF')  # a library module, not a test",
    ]
    invalid = [
        Example("import torch\nimport unittest\nlib = torch.library.Library('mylib', 'DEF')\n", line=3, column=7),
        Example(
            "import pytest\nfrom torch.library import Library\n\ndef test_op():\n    lib = Library('m', 'FRAGMENT')\n"
        ),
    ]

    def visit_Call(self, node) -> None:
        path = self.ctx.path.replace(os.sep, "/")
        if self.match(node.func, self.targets) is None:
            return
        imports = self.ctx.resolver.module_imports()
        if _TEST_FILE.search(path) or any(q.split(".")[0] in ("pytest", "unittest") for q in imports):
            self.report(node)

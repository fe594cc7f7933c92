from __future__ import annotations

from advisor.rule import (
    ALSO_NEEDED,
    CODE_ONLY,
    TEXT_GAPS,
    Applicability,
    Example,
    Rule,
    Severity,
    append_args,
    bool_value,
    calls_to,
    cst,
    get_arg,
    kwarg,
)

PROFILERS = ("torch.profiler.profile", "torch.profiler.profiler.profile", "torch.autograd.profiler.profile")


class KeyAveragesPythonFunctions(Rule):
    """`key_averages()` after `with_stack=True` profiling: 2.14 leaves out the Python-function rows.

    What it finds: a `.key_averages()` call without `include_python_functions=`
    in a function (or module) that constructs `torch.profiler.profile` /
    `torch.autograd.profiler.profile` with the literal `with_stack=True`.

    Why: up to 2.13 `key_averages()` of a `with_stack=True` profile held the
    Python-function events (`file.py(N): fn` rows); from 2.14 it leaves them out
    unless `include_python_functions=True` (a keyword new in 2.14, a TypeError on
    2.13). `prof.events()` still has them. No warning: a silent change of the
    table. Verified on the wheels: tests/truth B14-1/key_averages-python-events,
    B14-1/include_python_functions.

    Example:
        with torch.profiler.profile(with_stack=True) as p:
            step()
        rows = p.key_averages()
        # becomes, to keep the 2.13 rows
        rows = p.key_averages(include_python_functions=True)

    Fix safety: adding `include_python_functions=True` restores the 2.13 output;
    it needs torch 2.14 (a TypeError before), so it is unsafe while the project
    supports older torch (decided centrally from `since`).

    Validation: none.
    """

    code = "ADV762"
    name = "key-averages-python-functions"
    message = (
        "since 2.14 `key_averages()` leaves out Python-function events (`file.py(N): fn` rows) unless "
        "`include_python_functions=True` (new in 2.14); `prof.events()` still has them"
    )
    severity = Severity.INFO
    since = "2.14"
    fix = Applicability.SAFE
    # Evidence and calls meet per scope: a function with a trigger is kept whole; the module's own scope is
    # every statement outside functions and classes.
    whole_module = False
    module_level = True
    triggers = ("key_averages",)
    targets = PROFILERS
    valid = [
        "import torch\nfrom torch.profiler import profile\nwith profile(with_stack=True) as p:\n    f()\n"
        "rows = p.key_averages(include_python_functions=True)\n",
        "import torch\nfrom torch.profiler import profile\nwith profile() as p:\n    f()\nrows = p.key_averages()\n",
    ]
    invalid = [
        Example(
            "import torch\nwith torch.profiler.profile(with_stack=True) as p:\n    f()\nrows = p.key_averages()\n",
            fixed="import torch\nwith torch.profiler.profile(with_stack=True) as p:\n    f()\n"
            "rows = p.key_averages(include_python_functions=True)\n",
            line=4,
            column=8,
            target="2.14",
        ),
        Example(
            "import torch\ndef run():\n    with torch.autograd.profiler.profile(with_stack=True) as p:\n        f()\n"
            "    return p.key_averages(group_by_stack_n=5)\n",
            fixed="import torch\ndef run():\n    with torch.autograd.profiler.profile(with_stack=True) as p:\n        f()\n"
            "    return p.key_averages(group_by_stack_n=5, include_python_functions=True)\n",
            target="2.14",
        ),
    ]

    @classmethod
    def text_gate(cls):
        # A call of `key_averages` (References.calls, by that name), and a `with_stack=` keyword in code besides.
        keyword = ALSO_NEEDED + CODE_ONLY + rf"with_stack(?<![\w.]with_stack){TEXT_GAPS}=(?!=)"
        return (), (), (keyword,), ("key_averages",), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # A `.key_averages()` call, and a profiler built with `with_stack=` (torch's own utilities build one without).
        if not refs.calls.get("key_averages"):
            return False
        calls = calls_to(refs, PROFILERS)
        return any(k.arg == "with_stack" for c in calls for k in c.keywords)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._frames: list[list] = [[False, []]]  # per scope: stack profiling seen, key_averages calls

    def visit_FunctionDef(self, node) -> None:
        self._frames.append([False, []])

    def leave_FunctionDef(self, node) -> None:
        self._flush(self._frames.pop())

    def leave_Module(self, node) -> None:
        self._flush(self._frames.pop())

    def visit_Call(self, node) -> None:
        frame = self._frames[-1]
        if self.match(node.func, PROFILERS):
            arg = get_arg(node, "with_stack")
            if arg is not None and bool_value(arg.value) is True:
                frame[0] = True
        elif (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "key_averages"
            and get_arg(node, "include_python_functions") is None
            and not any(a.star for a in node.args)
        ):
            frame[1].append(node)

    def _flush(self, frame) -> None:
        if frame[0]:
            for call in frame[1]:
                self.report(call, replacement=append_args(call, [kwarg("include_python_functions", "True")]))

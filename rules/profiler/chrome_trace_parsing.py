from __future__ import annotations

import os
import re

from advisor.rule import ALSO_NEEDED, CODE_ONLY, TEXT_GAPS, Applicability, Example, Rule, Severity, cst

JSON_LOAD = {"json.load", "json.loads"}
_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test|conftest)\.py$|(^|/)tests?/")


class ChromeTraceParsing(Rule):
    """Parsing an exported Chrome trace with `json.load`, where 2.12's event API gives the same data.

    What it finds: a function (or module) that calls `export_chrome_trace(...)`
    and then `json.load` / `json.loads`. Not in tests (`test_*` functions, test
    files): a test that exports a trace and reads it back is checking the trace
    file itself, which `prof.events()` cannot stand in for.

    Why: 2.12 exposes on `prof.events()` the fields people used to dig out of
    the trace JSON: `activity_type`, `flow_id` / `flow_type` / `flow_start`,
    `external_id`, `linked_correlation_id`, and the event metadata
    (`event_metadata`, deprecated in 2.15 in favour of the `metadata` dict, new
    in 2.14: kernel launch data, memory bandwidth, NCCL fields such as `seq`). Reading them
    directly avoids writing and re-parsing a large file. Note that with
    `with_stack=True`, `events()` also holds Python-function events (filter on
    `e.activity_type == "cpu_op"`). From 2.14 `key_averages()` leaves them out
    unless `include_python_functions=True` (verified: tests/truth B14-1/*).

    Example:
        prof.export_chrome_trace("t.json"); trace = json.load(open("t.json"))
        # becomes
        kernels = [e for e in prof.events() if e.activity_type == "kernel"]

    Fix safety: no automatic fix.

    Validation: `profiler_events` checks the fields exist on your build.
    """

    code = "ADV602"
    name = "chrome-trace-parsing"
    message = "the exported Chrome trace is parsed back with `{call}`; `prof.events()` exposes `activity_type`, `flow_id` and the event metadata (`metadata` from 2.14, `event_metadata` before; e.g. NCCL `seq`) directly"
    severity = Severity.INFO
    since = "2.12"
    fix = Applicability.NONE
    validation = "profiler_events"
    # Evidence and calls meet per scope: a function with a trigger is kept whole; the module's own scope is
    # every statement outside functions and classes.
    whole_module = False
    module_level = True
    triggers = ("export_chrome_trace",)
    attribute_targets = ("export_chrome_trace",)

    valid = [
        "import json\nprof.export_chrome_trace('t.json')\n",
        "import json\ndef test_trace_has_kernels(prof):\n    prof.export_chrome_trace('t.json')\n    assert json.load(open('t.json'))['traceEvents']\n",
        "import json\ndef f():\n    prof.export_chrome_trace('t.json')\ndef g():\n    return json.load(open('other.json'))\n",
    ]
    invalid = [
        Example(
            "import json\ndef dump(prof):\n    prof.export_chrome_trace('t.json')\n    with open('t.json') as f:\n        return json.load(f)\n"
        ),
        Example("from json import loads\nprof.export_chrome_trace(p)\nevents = loads(open(p).read())['traceEvents']\n"),
    ]

    @classmethod
    def text_gate(cls):
        # A JSON load referred to, and besides a call of `export_chrome_trace` (by that name in code, or a getattr's).
        called = ALSO_NEEDED + CODE_ONLY + rf"export_chrome_trace(?<!\wexport_chrome_trace){TEXT_GAPS}\("
        quoted = ALSO_NEEDED + r"[\"']export_chrome_trace[\"']"
        return tuple(sorted(JSON_LOAD)), (), (called, quoted), (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # An export and a JSON load (by name, never a string): a file that only exports has nothing to report.
        return bool(refs.calls.get("export_chrome_trace")) and refs.refers_to_any(JSON_LOAD, strings=False)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._scopes: list = [[False, []]]  # [exports seen, json loads] per function

    def visit_FunctionDef(self, node) -> None:
        self._scopes.append([False, []])
        if node.name.value.startswith("test"):
            self._tests += 1

    def visit_Module(self, node) -> None:
        self._tests = 1 if _TEST_FILE.search(self.ctx.path.replace(os.sep, "/")) else 0

    def leave_FunctionDef(self, node) -> None:
        scope = self._scopes.pop()
        if not self._tests:
            self._flush(scope)
        if node.name.value.startswith("test"):
            self._tests -= 1

    def leave_Module(self, node) -> None:
        scope = self._scopes.pop()
        if not self._tests:
            self._flush(scope)

    def _flush(self, scope) -> None:
        exported, loads = scope
        if exported:
            for call, name in loads:
                self.report(call, self.message.format(call=name))

    def visit_Call(self, node) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "export_chrome_trace":
            self._scopes[-1][0] = True
            return
        name = self.match(func, JSON_LOAD)
        if name:
            self._scopes[-1][1].append((node, name))

"""A scan's table rules reported from the `ast` tree (advisor.analysis.ast_reports) give the findings LibCST gives.

Each case is analysed twice as a scan analyses it (`sliced=True`): as is, and with every rule left to LibCST; the
findings must be the same, field for field (their data too), and so must the suppressed count. The whole-tree check is
`/tmp`-free: the JSON of torch's tree, Megatron-LM and the example, before and after (docs/speed.md).
"""

from __future__ import annotations

import textwrap

import pytest

from advisor.analysis import analyse as analyse_module
from advisor.analysis import ast_reports
from advisor.analysis.analyse import analyse
from advisor.analysis.registry import all_rules, rule_by_code
from advisor.core.settings import settings_at

CASES = {
    "renames, called and not": """
        import torch
        from torch._library.opaque_object import register_opaque_type
        register_opaque_type(int)
        table = {"f": torch._library.opaque_object.is_opaque_type}
        x = (torch._library.opaque_object.is_opaque_type)(1)
        y = f((torch._library.opaque_object.is_opaque_type))
        z = f(torch._library.opaque_object.is_opaque_type)
        class B(torch._opaque_base.OpaqueBase): ...
        class D((torch._opaque_base.OpaqueBase)): ...
        w = [(torch._library.opaque_object.is_opaque_type), ((torch._opaque_base.OpaqueBase))]
        """,
    "compat gates and fallbacks": """
        import torch
        if hasattr(torch._library.opaque_object, "register_custom_class"):
            reg = torch._library.opaque_object.register_custom_class
        else:
            reg = torch._library.opaque_object.register_opaque_type
        try:
            from torch._custom_class_base import CustomClassBase as Base
        except ImportError:
            from torch._opaque_base import OpaqueBase as Base
        def f():
            if torch.__version__ < "2.14":
                return torch._library.opaque_object.is_opaque_value(1)
            return None
        """,
    "annotations, patches, assignments": """
        import torch
        import torch.nn.functional as F
        def f(x: torch._opaque_base.OpaqueBase) -> torch._opaque_base.OpaqueBase:
            y: torch._opaque_base.OpaqueBase = x
            return y
        torch._library.opaque_object.is_opaque_type = wrap(torch._library.opaque_object.is_opaque_type)
        torch._library.opaque_object.is_opaque_value += 1
        """,
    "decorators and suppressions": """
        import torch
        @torch._library.opaque_object.register_opaque_type
        class A: ...
        x = torch._library.opaque_object.is_opaque_type(1)  # noqa: ADV755
        y = torch._library.opaque_object.is_opaque_type(  # a comment
            1
        )
        """,
    "comment lines between": """
        import torch
        x = {
            # a comment
            torch._library.opaque_object.is_opaque_type: 1,
        }
        y = (
            # a comment

            torch._library.opaque_object.is_opaque_type  # another
            # and another
        )
        """,
    "the mined catalogue, a silent deprecation too": """
        import torch
        import torch.distributed as dist
        from torch.fx.experimental.symbolic_shapes import guard_size_oblivious
        dist.all_reduce_coalesced([t])
        guard_size_oblivious(x)
        p = torch.autograd.profiler_legacy.profile
        if hasattr(dist, "all_gather_coalesced"):
            dist.all_gather_coalesced([t], [t])
        """,
    "parentheses a comment may hide (left to LibCST)": """
        import torch
        z = (  # a comment
            torch._library.opaque_object.is_opaque_type
        )
        """,
    "scopes": """
        import torch
        def f(torch):
            return torch._library.opaque_object.is_opaque_type(1)
        class C:
            torch = None
            def g(self):
                return torch._library.opaque_object.is_opaque_type(1)
        def h():
            global torch
            return torch._library.opaque_object.is_opaque_type(1)
        s = "é"; t = torch._library.opaque_object.is_opaque_type(1)
        """,
}


def _findings(code: str, target: str, lowest: str | None, monkeypatch=None):
    settings = settings_at(target, lowest)
    result, _ = analyse(textwrap.dedent(code).encode(), "m.py", all_rules(), settings, sliced=True)
    assert not result.errors, result.errors
    return result


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("versions", [("2.15", "2.0"), ("2.15", "2.14"), ("2.13", "2.0")])
def test_the_same_findings_as_libcst(name: str, versions: tuple[str, str], monkeypatch) -> None:
    ours = _findings(CASES[name], *versions)
    with monkeypatch.context() as m:
        m.setattr(ast_reports, "eligible", lambda rule: False)
        theirs = _findings(CASES[name], *versions)
    assert ours.findings == theirs.findings
    assert [f.data for f in ours.findings] == [f.data for f in theirs.findings]
    assert [f.snippet for f in ours.findings] == [f.snippet for f in theirs.findings]
    assert ours.suppressed == theirs.suppressed


def test_a_file_of_table_rules_only_is_not_parsed_by_libcst(monkeypatch) -> None:
    code = "import torch\nx = torch._library.opaque_object.is_opaque_type(1)\n"

    def refuse(data):
        raise AssertionError("LibCST parsed a file the ast path reported")

    monkeypatch.setattr(analyse_module, "parse_cst", refuse)
    rule = rule_by_code("ADV755")
    result, _ = analyse(code.encode(), "m.py", [rule], settings_at("2.15", "2.0"), sliced=True)
    assert [f.rule for f in result.findings] == ["ADV755"]
    assert result.findings[0].fix is None


def test_a_fix_leaves_the_rule_to_libcst(monkeypatch) -> None:
    """Where the project's lowest torch has the new name, the policy offers the fix: LibCST writes it."""
    code = "import torch\nx = torch._library.opaque_object.is_opaque_type(1)\n"
    parsed = []
    real = analyse_module.parse_cst
    monkeypatch.setattr(analyse_module, "parse_cst", lambda data: parsed.append(data) or real(data))
    result, _ = analyse(code.encode(), "m.py", [rule_by_code("ADV755")], settings_at("2.15", "2.14"), sliced=True)
    assert parsed and result.findings[0].fix is not None and result.findings[0].replacement


def test_which_rules_are_eligible() -> None:
    assert ast_reports.eligible(rule_by_code("ADV755"))  # a rename row
    assert not ast_reports.eligible(rule_by_code("ADV406"))  # a SymbolRule with a visit_Call of its own
    assert not ast_reports.eligible(rule_by_code("ADV206"))  # reports imports too (leave_Module)
    assert ast_reports.detection_of(rule_by_code("ADV002")) == "mined"


def test_a_mined_removal_reported_at_its_import_is_left_to_libcst(monkeypatch) -> None:
    from advisor.analysis.ast_detect import Detection, Unsupported

    rule = rule_by_code("ADV001")
    removed = next(q for q in sorted(rule.names) if q.count(".") >= 2)
    module, _, name = removed.rpartition(".")
    real = Detection._imports_listed
    seen: list[bool] = []
    monkeypatch.setattr(Detection, "_imports_listed", lambda self, node: seen.append(real(self, node)) or seen[-1])
    for code in (f"from {module} import {name}\n", f"import {removed}\n"):
        seen.clear()
        result, _ = analyse(code.encode(), "m.py", [rule], settings_at("2.15", "2.0"), sliced=True)
        assert True in seen and [f.rule for f in result.findings] == ["ADV001"]  # LibCST reported it at the import
    assert issubclass(Unsupported, Exception)


def test_the_trees_go_with_the_analysis_without_the_collector() -> None:
    """No cycle keeps a file's `ast` tree and what was built on it alive after its analysis: the young-generation
    collection after each file (advisor.run.engine) would walk all of it."""
    import gc

    from advisor.analysis.ast_compat import AstCompat

    code = textwrap.dedent(CASES["compat gates and fallbacks"]).encode()
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        analyse(code, "m.py", all_rules(), settings_at("2.15", "2.0"), sliced=True)
        alive = [o for o in gc.get_objects() if isinstance(o, AstCompat)]
    finally:
        if enabled:
            gc.enable()
    assert not alive

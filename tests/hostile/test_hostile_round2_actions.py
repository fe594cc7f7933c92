"""A hostile pull request, round two (issue 41), item 7: a whole-document code action without resolve support.

A client that cannot resolve an action's edit later gets every edit in the reply. One fixer run per action (an
analysis each) made a whole-document request on a 673-line buffer with 457 findings take 297 s, holding the one
analysis worker. Now one analysis serves every edit of a request (`fix_each`), at most EAGER_MAX quick fixes
get one ("apply all safe fixes" covers the rest), and a buffer version's edits are reused. Speed is measured by
hand (CPU seconds, docs/security.md), not here: these tests check that the edits are right and few.
"""

from __future__ import annotations

import sys

import pytest

from advisor.server import actions, adapter

LINE = "a{i} = torch.cuda.memory_cached() + torch.cuda.max_memory_cached()"  # two ADV713 findings a line
CACHED = "_cached()"  # what each of the two fixes renames


def _buffer(lines: int) -> str:
    return "import torch\n\n" + "".join(LINE.format(i=i) + "\n" for i in range(lines))


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\ndependencies = ["torch>=2.4"]\n')
    return tmp_path


def test_one_analysis_serves_every_quick_fix_and_each_edit_is_fix_ones(project, monkeypatch):
    import advisor.fix.fixer as fixer

    text, path = _buffer(120), str(project / "big.py")
    settings = adapter.settings_for(path)
    issues = [i for i in adapter.analyse_buffer(text, path, settings).issues if i.fix == "safe"]
    assert len(issues) == 240
    keys = [i.key for i in issues][: actions.EAGER_MAX]
    analyses = []
    real = fixer.analyse_source
    monkeypatch.setattr(fixer, "analyse_source", lambda *a, **k: analyses.append(1) or real(*a, **k))
    edits = adapter.fix_each(text, path, settings, keys)
    assert len(analyses) == 1 and set(edits) == {tuple(k) for k in keys}
    for key in keys[:3]:
        assert edits[tuple(key)] == adapter.fix_one(text, path, settings, key)  # the same edit as one at a time
    for new in edits.values():  # each fixes its one finding, and nothing else
        assert len([a for a, b in zip(text.splitlines(), new.splitlines()) if a != b]) == 1
        assert new.count(CACHED) == text.count(CACHED) - 1


pygls = pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "advisor", "server"]))
async def plain(lsp_client: LanguageClient, project):
    """A client without codeAction/resolve support: it needs every edit in the reply."""
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=project.as_uri(),
            initialization_options={"debounceMs": 50},
        )
    )
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_a_whole_document_request_without_resolve_answers_few_right_edits(plain: LanguageClient, project):
    text = _buffer(150)
    uri = (project / "big.py").as_uri()
    plain.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    published = await plain.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert len(published.diagnostics) == 300
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=len(text), character=0))
    request = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=whole,
        context=types.CodeActionContext(diagnostics=[]),
    )
    answer = await plain.text_document_code_action_async(request)
    quick = [a for a in answer if a.kind == types.CodeActionKind.QuickFix]
    (fix_all,) = [a for a in answer if a.kind == actions.FIX_ALL]
    assert len(quick) == actions.EAGER_MAX and all(a.edit is not None for a in answer)
    for action in quick:
        assert _apply(text, action.edit).count(CACHED) == text.count(CACHED) - 1
    assert CACHED not in _apply(text, fix_all.edit)
    again = await plain.text_document_code_action_async(request)  # the same version: the edits are reused
    assert [a.title for a in again] == [a.title for a in answer]


def _apply(text: str, edit: types.WorkspaceEdit) -> str:
    """Apply a one-document WorkspaceEdit as a client would (ASCII text: UTF-16 units are characters)."""
    (change,) = edit.document_changes
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(pos: types.Position) -> int:
        return min(starts[min(pos.line, len(starts) - 1)] + pos.character, len(text))

    for e in sorted(change.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text

"""`advisor server` end to end: a real LSP client (pytest-lsp) drives the server over stdio.

Needs the `server` extra (pygls) and pytest-lsp; skipped without them.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tests.conftest import REPO

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from advisor.core.docs_url import rule_docs_url  # noqa: E402
from advisor.server.adapter import SettingsError  # noqa: E402

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "advisor", "server"])

OLD = textwrap.dedent(
    """\
    import torch

    def step(model, x):
        with torch.cuda.amp.autocast(dtype=torch.bfloat16):
            return model(x)
    """
)
NEW = OLD.replace("torch.cuda.amp.autocast(dtype=torch.bfloat16)", 'torch.amp.autocast("cuda", dtype=torch.bfloat16)')


async def _start(client: LanguageClient, root: Path, options: dict | None = None, capabilities=None) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities or types.ClientCapabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="project")],
            initialization_options=options or {"debounceMs": 50},
        )
    )


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\ndependencies = ["torch>=2.4"]\n')
    await _start(lsp_client, tmp_path)
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )
    return uri


def _replace_all(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def _diagnostics(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The next diagnostics published for `uri`."""
    while True:
        params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri:
            return list(params.diagnostics)


def _apply(text: str, edit: types.WorkspaceEdit) -> str:
    """Apply a one-document WorkspaceEdit as a client would (positions in UTF-16 units)."""
    (change,) = edit.document_changes
    lines = text.splitlines(keepends=True) or [""]

    def offset(pos: types.Position) -> int:
        before = sum(len(line) for line in lines[: pos.line])
        line = lines[pos.line] if pos.line < len(lines) else ""
        units, index = 0, 0
        while units < pos.character and index < len(line):
            units += 2 if ord(line[index]) > 0xFFFF else 1
            index += 1
        return before + index

    for e in sorted(change.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text


@pytest.mark.asyncio
async def test_diagnostics_quick_fix_and_clear(client: LanguageClient, tmp_path):
    path = tmp_path / "train.py"
    path.write_text("")  # what is on disk must not matter: the buffer is analysed
    uri = _open(client, path, OLD)
    (diag,) = await _diagnostics(client, uri)
    assert diag.code == "ADV701"
    assert diag.source == "advisor"
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.code_description.href == _docs_page("ADV701")
    assert diag.range.start == types.Position(line=3, character=9)
    assert diag.data["fix"] == "safe"
    assert "torch.amp.autocast" in diag.message

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    quick = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    assert len(quick) == 1 and "ADV701" in quick[0].title and "(safe fix)" in quick[0].title
    fixed = _apply(OLD, quick[0].edit)
    assert fixed == NEW

    _replace_all(client, uri, fixed, 2)
    assert await _diagnostics(client, uri) == []


@pytest_lsp.fixture(config=SERVER)
async def nopin(lsp_client: LanguageClient, tmp_path):
    # No torch pin: the lowest supported torch is the oldest release the catalogue covers (2.0).
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    await _start(lsp_client, tmp_path)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_autocast_quick_fix_is_safe_without_a_pin(nopin: LanguageClient, tmp_path):
    """`torch.amp.autocast` exists from 2.0, so the fix is offered without unsafe-fixes; `torch.amp.GradScaler`
    first exists in 2.3, so on the assumed lowest torch (2.0) its rewrite would break: no fix at all."""
    client = nopin
    text = OLD + "scaler = torch.cuda.amp.GradScaler()\n"
    uri = _open(client, tmp_path / "train.py", text)
    diags = {d.code: d for d in await _diagnostics(client, uri)}
    assert diags["ADV701"].data["fix"] == "safe" and diags["ADV702"].data["fix"] is None
    assert "no fix: the replacement does not exist before torch 2.3" in diags["ADV702"].message
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diags["ADV701"].range,
            context=types.CodeActionContext(diagnostics=[diags["ADV701"]], only=[types.CodeActionKind.QuickFix]),
        )
    )
    (quick,) = [a for a in actions if "ADV701" in a.title]
    assert "(safe fix)" in quick.title and _apply(text, quick.edit) == NEW + "scaler = torch.cuda.amp.GradScaler()\n"


@pytest_lsp.fixture(config=SERVER)
async def vscode(lsp_client: LanguageClient, tmp_path):
    # VS Code's recorded capabilities: it resolves a code action's edit lazily (codeAction/resolve),
    # and lets servers register file watchers.
    lsp_client.registrations = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(client: LanguageClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    # torch>=2.4: the amp fixes are safe only where the lowest supported torch has torch.amp
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\ndependencies = ["torch>=2.4"]\n')
    await _start(lsp_client, tmp_path, capabilities=pytest_lsp.client_capabilities("visual-studio-code"))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_quick_fix_resolved_lazily_for_vscode(vscode: LanguageClient, tmp_path):
    client = vscode
    uri = _open(client, tmp_path / "train.py", OLD)
    (diag,) = await _diagnostics(client, uri)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag], only=[types.CodeActionKind.QuickFix]),
        )
    )
    (action,) = actions
    assert action.edit is None  # computed only when the user picks it
    resolved = await client.code_action_resolve_async(action)
    assert _apply(OLD, resolved.edit) == NEW
    # the config and pin files are watched
    assert [r.method for r in client.registrations] == [types.WORKSPACE_DID_CHANGE_WATCHED_FILES]


@pytest.mark.asyncio
async def test_fix_all_applies_safe_fixes_and_hover_explains(client: LanguageClient, tmp_path):
    text = OLD + "scaler = torch.cuda.amp.GradScaler()\n"
    uri = _open(client, tmp_path / "two.py", text)
    diags = await _diagnostics(client, uri)
    assert sorted(d.code for d in diags) == ["ADV701", "ADV702"]

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=3, character=20)
        )
    )
    assert "ADV701 amp-autocast" in hover.contents.value
    assert "Fix safety" in hover.contents.value  # the rule's documentation
    assert "`amp_migration` validation check" in hover.contents.value

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
        )
    )
    (fix_all,) = actions
    assert fix_all.kind == "source.fixAll.advisor"
    fixed = _apply(text, fix_all.edit)
    assert "torch.cuda.amp" not in fixed
    _replace_all(client, uri, fixed, 2)
    assert await _diagnostics(client, uri) == []


def _docs_page(code: str) -> str:
    """The rule's default documentation link, checked to name its page in this repository (docs/rules/<CODE>.md)."""
    from advisor.core.docs_url import REPOSITORY_URL

    base = f"{REPOSITORY_URL}/blob/main/"
    href = rule_docs_url(code)
    assert href.startswith(base) and (REPO / href[len(base) :]).is_file(), href
    return href


def test_the_projects_docs_url_sets_the_editors_link(tmp_path):
    from advisor.server.adapter import analyse_buffer, settings_for

    (tmp_path / "pyproject.toml").write_text(
        '[tool.advisor]\ndocs-url = "https://docs.example.org/{code}-{name}.html"\n'
    )
    (issue,) = analyse_buffer(OLD, str(tmp_path / "train.py"), settings_for(str(tmp_path))).issues
    assert issue.docs_url == "https://docs.example.org/ADV701-amp-autocast.html"
    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\ndocs-url = "https://docs.example.org/"\n')
    with pytest.raises(SettingsError, match="docs-url: expected a template with [{]code[}]"):
        settings_for(str(tmp_path))


@pytest.mark.asyncio
async def test_a_syntax_error_is_shown_and_unchanged_lines_keep_their_findings(client: LanguageClient, tmp_path):
    text = OLD + "scaler = torch.cuda.amp.GradScaler()\n"
    uri = _open(client, tmp_path / "broken.py", text)
    assert sorted(d.code for d in await _diagnostics(client, uri)) == ["ADV701", "ADV702"]
    # Typing on the GradScaler line breaks the file: that line's finding goes, the autocast one stays.
    broken = "# a comment\n" + text.replace(
        "scaler = torch.cuda.amp.GradScaler()", "scaler = torch.cuda.amp.GradScaler("
    )
    _replace_all(client, uri, broken, 2)
    diags = await _diagnostics(client, uri)
    error, *kept = diags
    assert error.severity == types.DiagnosticSeverity.Error and "syntax error" in error.message
    assert (error.range.start.line, error.range.start.character) == (6, 34), (
        error
    )  # the unclosed "(", where Python says
    assert [(d.code, d.range.start.line) for d in kept] == [("ADV701", 4)]  # moved one line down with the comment
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=4, character=20)
        )
    )
    assert "ADV701 amp-autocast" in hover.contents.value
    _replace_all(client, uri, broken + "x = (\n", 3)  # still broken: still the last good findings
    assert [d.code for d in (await _diagnostics(client, uri))[1:]] == ["ADV701"]
    _replace_all(client, uri, text, 4)
    assert sorted(d.code for d in await _diagnostics(client, uri)) == ["ADV701", "ADV702"]


@pytest.mark.asyncio
async def test_hover_header_says_the_fix_the_policy_decided(client: LanguageClient, tmp_path):
    """ADV707's fix is unsafe and ADV206's safe by default; here ADV206's call (`torch.qr` with a non-literal flag)
    has no fix at all. The header read the rule's default, "fix: safe", for the one with none."""
    text = "import torch\nvalue = torch.testing.assert_allclose(a, b)\nq, r = torch.qr(a, flag)\n"
    uri = _open(client, tmp_path / "policy.py", text)
    diags = sorted(await _diagnostics(client, uri), key=lambda d: d.range.start.line)
    assert [(d.code, d.data["fix"]) for d in diags] == [("ADV707", "unsafe"), ("ADV206", None)]
    heads = []
    for line in (1, 2):
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=12)
            )
        )
        heads.append(hover.contents.value.split("\n", 1)[0])
    assert "fix: unsafe" in heads[0] and "no automatic fix here" in heads[1], heads
    assert "safe" not in heads[0].replace("unsafe", ""), heads


@pytest.mark.asyncio
async def test_suppressions_and_non_ascii_columns(client: LanguageClient, tmp_path):
    text = (
        "import torch\n"
        "a = torch.cuda.amp.autocast()  # advisor: ignore[ADV701]\n"
        "é = '😀'; b = torch.cuda.amp.autocast()\n"
    )
    uri = _open(client, tmp_path / "u.py", text)
    (diag,) = await _diagnostics(client, uri)
    # "é = '😀'; b = " is 13 code points, 14 UTF-16 units (the emoji takes two).
    assert diag.range.start == types.Position(line=2, character=14)


@pytest.mark.asyncio
async def test_unsafe_fix_needs_config(client: LanguageClient, tmp_path):
    # ADV707's fix is unsafe (assert_close is stricter) and its replacement exists on the project's lowest torch.
    text = "import torch\ntorch.testing.assert_allclose(a, b)\n"
    uri = _open(client, tmp_path / "capture.py", text)
    (diag,) = await _diagnostics(client, uri)
    assert diag.code == "ADV707" and diag.data["fix"] == "unsafe"
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    assert not actions  # unsafe-fixes is off in this project


@pytest_lsp.fixture(config=SERVER)
async def configured(lsp_client: LanguageClient, tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.advisor]\ntarget-version = "2.12"\nmin-torch = "2.12"\nignore = ["ADV702"]\nunsafe-fixes = true\n'
    )
    await _start(lsp_client, tmp_path)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_workspace_config_is_honoured(configured: LanguageClient, tmp_path):
    client = configured
    text = (
        "import torch\n"
        "scaler = torch.cuda.amp.GradScaler()\n"  # ADV702: ignored by the config
        "ok = torch.cuda.is_current_stream_capturing()\n"  # ADV101: unsafe fix, allowed by the config
    )
    uri = _open(client, tmp_path / "pkg" / "mod.py", text)
    (diag,) = await _diagnostics(client, uri)
    assert diag.code == "ADV101"
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    (action,) = actions
    assert "unsafe fix" in action.title and not action.is_preferred
    assert "is_current_stream_capturing" not in _apply(text, action.edit)

    # The same text on disk, scanned by `advisor scan`, gives the same findings.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(text)
    scan = subprocess.run(
        [sys.executable, "-m", "advisor", "scan", "--no-cache", "--format", "json", str(tmp_path / "pkg" / "mod.py")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    import json

    found = json.loads(scan.stdout)["findings"]
    assert [(f["rule"], f["line"] - 1, f["column"] - 1) for f in found] == [
        (diag.code, diag.range.start.line, diag.range.start.character)
    ]


@pytest.mark.asyncio
async def test_config_change_reanalyses_open_buffers(client: LanguageClient, tmp_path):
    uri = _open(client, tmp_path / "a.py", OLD)
    assert [d.code for d in await _diagnostics(client, uri)] == ["ADV701"]
    config = tmp_path / "pyproject.toml"
    config.write_text('[project]\nname = "demo"\n\n[tool.advisor]\nignore = ["ADV701"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    assert await _diagnostics(client, uri) == []


@pytest.mark.asyncio
async def test_invalid_config_is_shown_and_nothing_stale(client: LanguageClient, tmp_path):
    uri = _open(client, tmp_path / "a.py", OLD)
    assert len(await _diagnostics(client, uri)) == 1
    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\nfail-on = "sometimes"\n')
    _replace_all(client, uri, OLD + "\n", 2)
    assert await _diagnostics(client, uri) == []
    assert any("fail-on" in m.message for m in client.messages)


@pytest_lsp.fixture(config=SERVER)
async def bare(lsp_client: LanguageClient, tmp_path):
    await _start(lsp_client, tmp_path)
    yield  # the test shuts the server down itself


@pytest.mark.asyncio
async def test_shutdown_and_exit(bare: LanguageClient, tmp_path):
    client = bare
    try:
        uri = _open(client, tmp_path / "a.py", OLD)
        await _diagnostics(client, uri)
        for version in range(2, 42):  # what the server keeps does not grow with edits
            _replace_all(client, uri, OLD + "\n" * (version % 2), version)
            await _diagnostics(client, uri)
        status = await client.protocol.send_request_async("advisor/status", None)
        assert status.held == 1
        assert status.futures < 5
    finally:
        await client.shutdown_session()  # shutdown, then exit; waits for the process
    assert client._server.returncode == 0


def test_startup_imports_nothing_a_scan_does_not_need():
    code = (
        "import sys, advisor.server.lsp\n"
        "heavy = {'torch', 'libcst', 'jinja2', 'rich', 'nbformat', 'distributed', 'dask', 'numpy'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _raw_server():
    """The real server over stdio, spoken to in raw JSON-RPC (a typed client would refuse to send bad params)."""
    import json
    import queue
    import threading

    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor", "server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    replies: queue.Queue = queue.Queue()

    def read():
        while True:
            length = None
            while (header := proc.stdout.readline()) not in (b"\r\n", b""):
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            if length is None:
                return
            replies.put(json.loads(proc.stdout.read(length)))

    threading.Thread(target=read, daemon=True).start()

    def send(message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        proc.stdin.flush()

    def reply(request_id: int, timeout: float = 60) -> dict:
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = replies.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if message.get("id") == request_id:
                return message
        pytest.fail(f"no reply to request {request_id} within {timeout} s")

    return proc, send, reply


BAD_PARAMS = [
    ("textDocument/hover", {"textDocument": 5, "position": {"line": 0, "character": 0}}),
    ("textDocument/hover", {"textDocument": {"uri": "file:///a.py"}, "position": {"line": -5, "character": 0}}),
    ("textDocument/codeAction", {"textDocument": {"uri": "file:///a.py"}}),
    ("codeAction/resolve", {}),  # no title
]


def test_requests_with_invalid_params_get_an_error_reply_and_exit_without_shutdown_is_1(tmp_path):
    proc, send, reply = _raw_server()
    try:
        send({"id": 1, "method": "initialize", "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()}})
        assert "capabilities" in reply(1)["result"]
        send({"method": "initialized", "params": {}})
        for n, (method, params) in enumerate(BAD_PARAMS, 2):
            send({"id": n, "method": method, "params": params})
            answer = reply(n)
            assert "error" in answer, (method, params, answer)
            error = answer["error"]
            assert error["code"] == -32602 and method in error["message"], error
        send({"id": 99, "method": "advisor/status", "params": None})  # and it still answers
        assert reply(99)["result"]["open"] == 0
        send({"method": "exit"})
        assert proc.wait(timeout=60) == 1  # LSP: exit without a shutdown request first
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()

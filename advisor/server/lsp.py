"""The language server: pygls over stdio. Protocol only; advisor itself is reached through `adapter`.

Each open buffer is analysed on open, on save and, debounced, after edits stop; only that buffer. Analyses
run one at a time in a worker thread, so the server keeps answering while a big file is analysed, and a result
for an outdated version of a buffer is dropped rather than published. Per buffer the server keeps only its last
findings, so memory does not grow with edits.
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from advisor import __version__
from advisor.interrupt import exit_on_first_signal
from advisor.server import actions, adapter, convert
from advisor.server.protocol import AdvisorProtocol, ParseErrorReply

DEBOUNCE_S = 0.25  # after the last keystroke; `initializationOptions.debounceMs` changes it
FIX_ALL = actions.FIX_ALL
EDITS = actions.Edits()  # the edits computed for clients without codeAction/resolve, per buffer version
STATUS = "advisor/status"  # a custom request: what the server holds (for benchmarks and debugging)
PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")

log = logging.getLogger(__name__)


@dataclass
class _State:
    version: int | None
    analysis: adapter.Analysis
    good: tuple[str, list] | None = None  # (text, issues) of the last analysis that succeeded


class AdvisorServer(ParseErrorReply, LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "advisor",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=AdvisorProtocol,
        )  # answers a request with invalid params (-32602)
        self.debounce = DEBOUNCE_S
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="advisor")
        self.state: dict[str, _State] = {}  # uri -> last published analysis
        self.pending: dict[str, asyncio.Task] = {}  # uri -> debounced analysis
        self.analyses: dict[str, int] = {}  # uri -> analyses run (advisor/status)
        self.shown: set[str] = set()  # config errors already shown to the user
        self.shut_down = False  # `shutdown` came before `exit`: the exit status is 0, else 1 (LSP)

    async def run(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.worker, fn, *args)

    def forget_finished(self) -> None:
        """Drop pygls's futures of handled notifications.

        pygls 2.1 files every handler it runs under a fresh id and removes the entry only when it answers a
        request, so each notification (every keystroke's didChange) would stay there for good. A finished
        request has already been answered, so dropping what is done is safe.
        """
        futures = getattr(self.protocol, "_request_futures", None)
        if isinstance(futures, dict):
            for key in [k for k, f in futures.items() if f.done()]:
                futures.pop(key, None)


server = AdvisorServer()


def _path(uri: str) -> str | None:
    """The file a buffer stands for; None for what we do not analyse (notebook cells, other schemes)."""
    if uri.startswith("file:"):
        return to_fs_path(uri)
    if uri.startswith("untitled:"):  # a new buffer: scanned with the config of the workspace root
        root = server.workspace.root_path or os.getcwd()
        return os.path.join(root, "untitled.py")
    return None


def _wanted(doc) -> bool:
    path = _path(doc.uri)
    return path is not None and (doc.language_id == "python" or path.endswith(PYTHON_SUFFIXES))


def _lines(text: str) -> convert.Lines:
    return convert.Lines(text, server.workspace.position_encoding)


def _log(message: str, kind=types.MessageType.Log) -> None:
    server.window_log_message(types.LogMessageParams(type=kind, message=f"advisor: {message}"))


# -- diagnostics ------------------------------------------------------------


def _analyse(text: str, path: str) -> adapter.Analysis:
    """Runs in the worker thread. Never raises: a failure is this buffer's error."""
    try:
        return adapter.analyse_buffer(text, path, adapter.settings_for(path))
    except adapter.SettingsError as e:
        return adapter.Analysis(error=f"config: {e}")
    except Exception as e:  # a bug of ours must not end the server
        log.exception("analysis failed")
        return adapter.Analysis(error=f"internal error ({type(e).__name__}: {e}); please report it")


async def _refresh(uri: str) -> None:
    """Analyse the buffer's current text and publish its diagnostics, unless it changed meanwhile."""
    doc = server.workspace.text_documents.get(uri)
    if doc is None or not _wanted(doc):
        return
    version, text = doc.version, doc.source
    analysis = await server.run(_analyse, text, _path(uri))
    current = server.workspace.text_documents.get(uri)
    if current is None:
        return
    server.analyses[uri] = server.analyses.get(uri, 0) + 1
    if current.version != version:
        return  # edited meanwhile: a newer analysis is on its way
    lines = _lines(text)
    previous = server.state.get(uri)
    good: tuple[str, list] | None = (text, analysis.issues)
    shown: list[types.Diagnostic] = []
    if analysis.error and not analysis.error.startswith("config:"):
        # A syntax error while typing: say so where it is, and keep the last good findings on the
        # lines that did not change since (they are still true there), rather than clearing them all.
        good = previous.good if previous else None
        kept = analysis.issues or (convert.carry_over(good[0], good[1], text) if good else [])
        shown = [convert.error_diagnostic(lines, analysis.error)]
        analysis = adapter.Analysis(issues=kept, error=analysis.error)
    if analysis.error:
        # A config error leaves no stale squiggles: nothing here can be trusted.
        _log(f"{uri}: not analysed: {analysis.error}", types.MessageType.Info)
        if analysis.error.startswith("config:") and analysis.error not in server.shown:
            server.shown.add(analysis.error)  # say it once, not at every keystroke
            server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=f"advisor: {analysis.error}")
            )
    server.state[uri] = _State(version, analysis, good)
    server.forget_finished()
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(
            uri=uri,
            version=version,
            diagnostics=shown + [convert.diagnostic(lines, i) for i in analysis.issues],
        )
    )


def _schedule(uri: str, delay: float) -> None:
    old = server.pending.pop(uri, None)
    if old is not None:
        old.cancel()

    async def later():
        try:
            if delay:
                await asyncio.sleep(delay)
            await _refresh(uri)
        finally:
            if server.pending.get(uri) is task:
                del server.pending[uri]

    task = asyncio.ensure_future(later())
    server.pending[uri] = task


@server.feature(types.INITIALIZE)
def initialize(ls: AdvisorServer, params: types.InitializeParams) -> None:
    options = params.initialization_options or {}
    if isinstance(options, dict) and isinstance(options.get("debounceMs"), (int, float)):
        ls.debounce = max(0.0, options["debounceMs"] / 1000)


@server.feature(types.INITIALIZED)
def initialized(ls: AdvisorServer, params: types.InitializedParams) -> None:
    # libcst and the rules load in the worker now, before the first buffer needs them.
    ls.worker.submit(adapter.warm)
    # Re-analyse open buffers when the config, pins or baseline change (where the client can watch files).
    caps = ls.client_capabilities.workspace
    if caps and caps.did_change_watched_files and caps.did_change_watched_files.dynamic_registration:
        watchers = [types.FileSystemWatcher(glob_pattern=adapter.WATCHED)]
        ls.client_register_capability(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="advisor-settings-files",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
                    )
                ]
            )
        )


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: AdvisorServer, params: types.DidOpenTextDocumentParams) -> None:
    _schedule(params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: AdvisorServer, params: types.DidChangeTextDocumentParams) -> None:
    _schedule(params.text_document.uri, ls.debounce)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
def did_save(ls: AdvisorServer, params: types.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    if not uri.endswith(".py"):  # pyproject.toml, requirements, a baseline: settings may have changed
        adapter.forget_settings()
        for open_uri in list(ls.state):
            _schedule(open_uri, 0)
        return
    _schedule(uri, 0)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched(ls: AdvisorServer, params: types.DidChangeWatchedFilesParams) -> None:
    adapter.forget_settings()
    for uri in list(ls.state):
        _schedule(uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: AdvisorServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.analyses.pop(uri, None)
    EDITS.forget(uri)
    if ls.state.pop(uri, None) is not None:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


# -- code actions -----------------------------------------------------------


async def _current(uri: str) -> tuple[Any, adapter.Analysis] | None:
    """The buffer and its analysis, for its current version (analysed now if the last one is stale)."""
    doc = server.workspace.text_documents.get(uri)
    if doc is None or not _wanted(doc):
        return None
    version = doc.version
    state = server.state.get(uri)
    if state is not None and state.version == version:
        return doc, state.analysis
    analysis = await server.run(_analyse, doc.source, _path(uri))
    if server.workspace.text_documents.get(uri) is not doc or doc.version != version:
        return None
    return doc, analysis


def _lazy(ls: AdvisorServer) -> bool:
    """Does the client resolve an action's edit later (codeAction/resolve)? Then edits are computed on demand."""
    caps = ls.client_capabilities.text_document
    support = caps and caps.code_action and caps.code_action.resolve_support
    return bool(support and "edit" in support.properties)


async def _fix_edit(ls: AdvisorServer, uri: str, data: dict) -> types.WorkspaceEdit | None:
    doc = ls.workspace.text_documents.get(uri)
    if doc is None or doc.version != data.get("version"):
        return None  # the buffer changed since the action was offered
    path = _path(uri)
    if path is None:
        return None  # not a buffer advisor analyses
    try:
        settings = adapter.settings_for(path)
    except adapter.SettingsError:
        return None
    text = doc.source
    if data.get("all"):
        new = await ls.run(adapter.fix_all, text, path, settings)
    else:
        new = await ls.run(adapter.fix_one, text, path, settings, data["key"])
    if new is None or ls.workspace.text_documents.get(uri) is not doc or doc.version != data["version"]:
        return None
    return convert.workspace_edit(uri, doc.version, text, new, server.workspace.position_encoding)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True),
)
async def code_action(ls: AdvisorServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    current = await _current(uri)
    if current is None:
        return None
    doc, analysis = current
    path = _path(uri)
    if path is None:
        return None  # not a buffer advisor analyses
    try:
        settings = adapter.settings_for(path)
    except adapter.SettingsError:
        return None
    offered = actions.offers(analysis, settings, _lines(doc.source), params, doc.version)
    if _lazy(ls):
        for action, data in offered:
            action.data = data
        return [action for action, _ in offered]
    return await _eager(ls, doc, path, settings, actions.eager(offered))


async def _eager(ls: AdvisorServer, doc, path: str, settings, chosen: list) -> list[types.CodeAction]:
    """Every edit in the reply (a client without codeAction/resolve): from one fixer run, kept for this version."""
    uri, version, text = doc.uri, doc.version, doc.source
    known = EDITS.of(uri, version)
    keys, everything = actions.missing(known, chosen)
    if keys:
        known.update(await ls.run(adapter.fix_each, text, path, settings, keys))
    if everything:
        known["all"] = await ls.run(adapter.fix_all, text, path, settings)
    if ls.workspace.text_documents.get(uri) is not doc or doc.version != version:
        return []  # the buffer changed meanwhile
    return actions.with_edits(chosen, known, uri, version, text, server.workspace.position_encoding or "utf-16")


@server.feature(types.CODE_ACTION_RESOLVE)
async def resolve_code_action(ls: AdvisorServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    if "uri" in data:
        action.edit = await _fix_edit(ls, data["uri"], data)
    return action


# -- hover ------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: AdvisorServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    state = ls.state.get(uri)
    doc = ls.workspace.text_documents.get(uri)
    if state is None or doc is None or state.version != doc.version:
        return None
    lines = _lines(doc.source)
    line, col = lines.from_client(params.position)
    hits = [i for i in state.analysis.issues if (i.line, i.column) <= (line, col) <= (i.end_line, i.end_column)]
    if not hits:
        return None
    return types.Hover(
        contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(convert.hover_text(i) for i in hits)
        ),
        range=convert.to_range(lines, hits[0]),
    )


@server.feature(STATUS)
def status(ls: AdvisorServer, params: Any) -> dict:
    return {
        "open": len(ls.workspace.text_documents),
        "held": len(ls.state),
        "pending": len(ls.pending),
        "futures": len(getattr(ls.protocol, "_request_futures", ())),  # pygls's bookkeeping: must not grow with edits
        "analyses": sorted([uri, n] for uri, n in ls.analyses.items()),  # a list: URIs are not identifiers
    }


@server.feature(types.SHUTDOWN)
def shutdown(ls: AdvisorServer, params: Any) -> None:
    ls.shut_down = True
    for task in ls.pending.values():
        task.cancel()
    ls.pending.clear()
    ls.worker.shutdown(wait=False, cancel_futures=True)


def serve() -> int:
    """Serve stdio until `exit` (or the client's end of the pipe closes); the exit status LSP asks for."""
    exit_on_first_signal()
    server.start_io()  # pygls swallows the SystemExit its own `exit` handler raises
    return 0 if server.shut_down else 1

"""What runs inside the rehearsed test process: records every warning torch, torchvision or torchaudio gives.

This file is copied next to a `sitecustomize.py` shim into a private folder put first on the tests'
PYTHONPATH, under the name `advisor_rehearse_hook`. It runs in the project's interpreter, which may not
have advisor installed: it imports the standard library only (torch only when the project already has).

- Warnings: `warnings._showwarnmsg` is wrapped. Both Python's `warnings.warn` and torch's C++ `TORCH_WARN`
  (CPython's `PyErr_WarnEx`) end there, and `catch_warnings(record=True)` (pytest wraps every test in one)
  swaps what it calls, never it. Filter actions other than "error" become "always", so warnings the project
  or Python would show once (or hide) are all seen, and a test that expects an error still gets it.
- Once per process: torch's C++ `TORCH_WARN_ONCE` fires once per process; `torch.set_warn_always(True)`,
  called as torch finishes importing, makes it fire at every call site.
- Coverage: only of the lines advisor has findings on (sys.monitoring, each line reported once; else
  sys.settrace on the files with findings).
- Errors (`record_error`, from the pytest plugin): an exception a test ends with, when torch raised it, or an
  AttributeError/ImportError for a torch, torchvision or torchaudio API that is not there (a removed API).
- Output: one JSON-lines file per process in ADVISOR_REHEARSE_OUT; each distinct warning is written when
  first seen (a killed run keeps it), counts and covered lines at exit.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading
import types
import warnings

OUT = os.environ.get("ADVISOR_REHEARSE_OUT", "")
ROOT = os.environ.get("ADVISOR_REHEARSE_ROOT", "")
LINES = os.environ.get("ADVISOR_REHEARSE_LINES", "")
HOOK_DIR = os.path.dirname(os.path.abspath(__file__))
TORCH_PACKAGES = ("torch", "torchvision", "torchaudio")
CPP_MARK = " (Triggered internally at "
_VENDORED = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)

_SKIPPED = {__file__, os.path.abspath(__file__), warnings.__file__}  # frames of the hook and of `warnings`
_started = False
_lock = threading.RLock()
_counts: dict = {}
_hits: set = set()
_wanted: dict = {}
_project_file: dict = {}
_torch_dirs: list = []
_out = None


def start() -> None:
    """Install the hooks once per process; nothing when advisor did not ask for it (no ADVISOR_REHEARSE_OUT)."""
    global _started, _out
    if _started or not OUT or not os.path.isdir(OUT):
        return
    _started = True
    _open_own_file()
    # warnings._showwarnmsg is where every warning is shown, C++ ones (TORCH_WARN) included; a test that
    # replaces showwarning still goes through it. Private, but in every CPython 3.x.
    _original = warnings._showwarnmsg  # type: ignore[attr-defined]

    def _showwarnmsg(msg):
        try:
            _record_warning(msg)
        except Exception:  # recording must never change what the tests see
            pass
        return _original(msg)

    warnings._showwarnmsg = _showwarnmsg  # type: ignore[attr-defined]
    see_all()
    sys.meta_path.insert(0, _TorchWatcher())
    if "torch" in sys.modules:
        _torch_imported(sys.modules["torch"])
    _start_coverage()
    atexit.register(finish)
    if hasattr(os, "register_at_fork"):  # a forked worker (multiprocessing) writes its own file
        os.register_at_fork(after_in_child=_after_fork)


def _open_own_file() -> None:
    global _out
    _out = open(os.path.join(OUT, f"{os.getpid()}.jsonl"), "a", encoding="utf-8")  # noqa: SIM115 (the process's)
    _write({"event": "start", "pid": os.getpid(), "python": sys.executable, "argv": sys.argv[:8]})


def _after_fork() -> None:
    global _lock
    _lock = threading.RLock()  # another thread may have held it at the fork
    if _out is not None:
        _out.close()  # the child's copy only (its buffer is empty: every write flushes); no ResourceWarning
    _counts.clear()  # the parent counts what it saw; the child starts afresh
    _open_own_file()


def see_all() -> None:
    """Every filter action but "error" becomes "always": once-only and ignored warnings are all seen."""
    catch_all = ("always", None, Warning, None, 0)
    filters = [("always" if f[0] != "error" else "error",) + tuple(f[1:]) for f in warnings.filters]
    warnings.filters[:] = [f for f in filters if f != catch_all] + [catch_all]  # type: ignore[index]
    warnings._filters_mutated()  # type: ignore[attr-defined]  # what warnings.filterwarnings calls


class _TorchWatcher:
    """A meta-path finder that only watches for `import torch`, to call set_warn_always as it completes."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        import importlib.util

        sys.meta_path.remove(self)  # once: the next finders find torch itself
        spec = importlib.util.find_spec(name)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        execute = loader.exec_module

        def exec_module(module):
            tracer = sys.gettrace()
            sys.settrace(None)  # torch's import runs no project code: untraced, it is several times faster
            try:
                execute(module)
            finally:
                sys.settrace(tracer)
            _torch_imported(module)

        loader.exec_module = exec_module
        return spec

    def invalidate_caches(self):
        pass


def _torch_imported(torch) -> None:
    try:
        torch.set_warn_always(True)
        _write({"event": "torch", "version": str(torch.__version__)})
    except Exception:
        pass


def _packages_dirs() -> list:
    for name in TORCH_PACKAGES:
        module = sys.modules.get(name)
        folder = os.path.dirname(os.path.abspath(getattr(module, "__file__", None) or "")) if module else ""
        if folder and folder + os.sep not in _torch_dirs:
            _torch_dirs.append(folder + os.sep)
    return _torch_dirs


def _in_torch(filename: str) -> bool:
    return filename.startswith(tuple(_packages_dirs()))


def _in_project(filename: str) -> bool:
    known = _project_file.get(filename)
    if known is None and filename.startswith("<"):  # <frozen importlib._bootstrap>, <string>: no file
        known = _project_file[filename] = False
    if known is None:
        path = os.path.abspath(filename)
        known = (
            bool(ROOT)
            and path.startswith(ROOT + os.sep)
            and not any(v in path for v in _VENDORED)
            and not path.startswith(HOOK_DIR + os.sep)
        )
        _project_file[filename] = known
    return known


def _deprecates_torch(frame) -> bool:
    """typing_extensions.deprecated (warnings.deprecated from 3.13) warns from its own wrapper, which torch
    uses on many APIs: the object it wraps, `arg` in that wrapper's closure, says whose API it is."""
    if os.path.basename(frame.f_code.co_filename) not in ("typing_extensions.py", "warnings.py"):
        return False
    owner = getattr(frame.f_locals.get("arg"), "__module__", None)
    return isinstance(owner, str) and owner.split(".")[0] in TORCH_PACKAGES


def _site():
    """(path, line, torch frame on the way, torch import on the way) for the innermost project frame.

    The last: a torch module's own top-level code, being imported, called what warned (`import torch.x` in
    the project ran torch code that uses a deprecated torch API). A warning written in that top-level code
    itself (a deprecated module) is the import's own, and does not count."""
    frame = sys._getframe(1)
    through_torch = in_torch_import = False
    warner = True  # the first frame outside the hook and `warnings`: the one that warned
    while frame is not None:
        name = frame.f_code.co_filename
        if name in _SKIPPED:
            frame = frame.f_back
            continue
        if _in_project(name):
            return os.path.abspath(name), frame.f_lineno, through_torch, in_torch_import
        torch_frame = _in_torch(name)
        in_torch_import = in_torch_import or (torch_frame and not warner and frame.f_code.co_name == "<module>")
        through_torch = through_torch or torch_frame or _deprecates_torch(frame)
        warner = False
        frame = frame.f_back
    return None, None, through_torch, in_torch_import


def _record_warning(msg) -> None:
    if issubclass(msg.category, ResourceWarning):
        return  # given wherever the garbage collector happens to run: its stack says nothing of who caused it
    text = str(msg.message)
    path, line, through_torch, in_torch_import = _site()
    # A category torch defines (the tracer's TracerWarning, raised from C++ with no "Triggered" suffix) is torch's.
    own_category = str(getattr(msg.category, "__module__", "")).split(".")[0] in TORCH_PACKAGES
    if not (through_torch or own_category or _in_torch(str(msg.filename)) or CPP_MARK in text):
        return  # not torch's: the project's own warnings, or another library's
    origin = None
    if CPP_MARK in text:
        text, _, origin = text.partition(CPP_MARK)
        origin = origin.rstrip(".)").strip()
    category = getattr(msg.category, "__name__", str(msg.category))
    _note("warning", category, text.strip(), path, line, origin, in_torch_import)


def _gone_from_torch(exc) -> bool:
    """`torchaudio.list_audio_backends()` or `from torch.x import y` after the API's removal: Python raises the
    AttributeError or ImportError in the project's frame, but what is missing is torch's (not a torch that is
    not installed: its package must be imported)."""
    if isinstance(exc, AttributeError):
        owner = getattr(exc, "obj", None)
        name = getattr(owner, "__name__", None) if isinstance(owner, types.ModuleType) else None
    elif isinstance(exc, ImportError):
        name = exc.name
    else:
        return False
    return isinstance(name, str) and name.split(".")[0] in TORCH_PACKAGES and name.split(".")[0] in sys.modules


def record_error(exc, traceback) -> None:
    """An exception a test ended with, when torch raised it (its innermost frame is torch's)."""
    frames = []
    while traceback is not None:
        frames.append((traceback.tb_frame.f_code.co_filename, traceback.tb_lineno))
        traceback = traceback.tb_next
    if not frames or not (
        _in_torch(frames[-1][0]) or type(exc).__module__.split(".")[0] in TORCH_PACKAGES or _gone_from_torch(exc)
    ):
        return
    site = next(((os.path.abspath(f), n) for f, n in reversed(frames) if _in_project(f)), (None, None))
    _note("error", type(exc).__name__, str(exc).split("\n", 1)[0][:2000], site[0], site[1], None, False)


def _note(kind, category, text, path, line, origin, in_torch_import) -> None:
    key = (kind, category, text, path, line)
    with _lock:
        _counts[key] = _counts.get(key, 0) + 1
        if _counts[key] == 1:
            _write(
                {
                    "event": kind,
                    "category": category,
                    "message": text,
                    "path": path,
                    "line": line,
                    "origin": origin,
                    "from_cpp": origin is not None,
                    "in_torch_import": in_torch_import,
                }
            )


def _write(record: dict) -> None:
    if _out is None:
        return
    with _lock:
        _out.write(json.dumps(record) + "\n")
        _out.flush()


def _start_coverage() -> None:
    if not LINES:
        return
    with open(LINES, encoding="utf-8") as f:
        _wanted.update({path: set(lines) for path, lines in json.load(f).items()})
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        for tool in (3, 4, 2):
            try:
                monitoring.use_tool_id(tool, "advisor-rehearse")
            except ValueError:
                continue
            monitoring.register_callback(tool, monitoring.events.LINE, _on_line)
            monitoring.set_events(tool, monitoring.events.LINE)
            return
    threading.settrace(_on_call)
    sys.settrace(_on_call)


def _lines_of(filename: str):
    lines = _wanted.get(filename)
    if lines is None and not os.path.isabs(filename):
        lines = _wanted.get(os.path.abspath(filename))
    return lines


def _on_line(code, line):
    lines = _lines_of(code.co_filename)
    if lines and line in lines:
        _hit(os.path.abspath(code.co_filename), line)
    return sys.monitoring.DISABLE  # each line once: the cost is one call per line of the whole run


def _on_call(frame, event, arg):
    lines = _lines_of(frame.f_code.co_filename)
    if not lines:
        return None
    path = os.path.abspath(frame.f_code.co_filename)

    def _on_line_event(frame, event, arg):
        if event == "line" and frame.f_lineno in lines:
            _hit(path, frame.f_lineno)
        return _on_line_event

    return _on_line_event


def _hit(path: str, line: int) -> None:
    """A finding line ran: written at once (once per process), so a killed or forked process keeps it."""
    if (path, line) not in _hits:
        _hits.add((path, line))
        _write({"event": "hit", "path": path, "line": line})


def finish() -> None:
    """At exit: how often each warning fired, and the finding lines that ran."""
    with _lock:
        counts = [[list(key), n] for key, n in _counts.items()]
    _write({"event": "end", "counts": counts})

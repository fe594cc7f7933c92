"""`advisor scan [PATHS] [FLAGS]` read and run without Typer, whose import alone is most of a one-file scan.

The flags are those `advisor.cli_scan.scan` declares (advisor.cli_options), read as Click reads them: `--name
VALUE`, `--name=VALUE`, `-j VALUE`, flags, a repeatable option's values in order, a single option's last value,
paths anywhere. Anything else (help, an unknown or malformed flag, `--`, grouped short flags, a value that looks
like a flag, shell completion) is left to Typer, so its errors and help read as they always did. A test holds
both readings equal, flag by flag (tests/cli/test_fast_path.py).
"""

from __future__ import annotations

import os
import sys
import typing
from typing import Any, Callable

from advisor.cli_options import Param
from advisor.cli_show import echo

FLAG, ONE, MANY = "flag", "one", "many"  # how an option takes its value


def _kind(annotation: Any) -> tuple[str, Callable[[str], Any]] | None:
    """How a parameter of this annotation reads its value, and the conversion Click applies; None: not known here."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) is typing.Union and len(args) == 1:
        annotation = args[0]
    if typing.get_origin(annotation) is list and typing.get_args(annotation) == (str,):
        return MANY, str
    if annotation is bool:
        return FLAG, bool
    if annotation in (str, int):
        return ONE, annotation
    return None


def command_line(function: Callable) -> tuple[dict[str, tuple], str | None, dict[str, Any]] | None:
    """What `function`'s declarations make of a command line: each option name -> (parameter, kind, conversion
    or a flag's value); the parameter taking the positional arguments; the defaults. None: a parameter of a type
    this reader does not know."""
    code = function.__code__
    names, declared = code.co_varnames[: code.co_argcount], function.__defaults__ or ()
    if code.co_kwonlyargcount or len(declared) != len(names):
        return None  # every parameter is declared, with a default
    options: dict[str, tuple] = {}
    positional, defaults = None, {}
    for name, param in zip(names, declared):
        kind = _kind(function.__annotations__.get(name))
        if not isinstance(param, Param) or kind is None:
            return None
        defaults[name] = param.default
        if param.is_argument:
            if kind[0] != MANY or positional is not None:
                return None
            positional = name
            continue
        for decl in param.decls:
            if "/" in decl:  # "--on/--off"
                on, off = decl.split("/", 1)
                options[on], options[off] = (name, FLAG, True), (name, FLAG, False)
            else:
                options[decl] = (name, kind[0], True if kind[0] == FLAG else kind[1])
    return options, positional, defaults


def read(function: Callable, args: list[str]) -> dict[str, Any] | None:
    """The keyword arguments Typer calls `function` with for `args`, or None where this reader might differ."""
    table = command_line(function)
    if table is None:
        return None
    options, positional, values = table
    paths: list[str] = []
    repeated: set[str] = set()  # the repeatable options given so far
    rest = iter(args)
    for arg in rest:
        if arg[:1] != "-" or arg == "-":
            paths.append(arg)
            continue
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name not in options:
            return None
        param, kind, convert = options[name]
        if kind == FLAG:
            if eq:
                return None
            values[param] = convert
            continue
        if not eq:
            following = next(rest, None)
            if following is None or (following[:1] == "-" and following != "-"):
                return None
            value = following
        try:
            value = convert(value)
        except ValueError:
            return None
        # Click: a repeatable option's values in order; a single option's last value
        if kind == MANY:
            values[param] = [*values[param], value] if param in repeated else [value]
            repeated.add(param)
        else:
            values[param] = value
    if positional is not None:
        values[positional] = paths or None
    elif paths:
        return None
    return values


def scan_call(args: list[str]) -> Callable[[], None] | None:
    """`advisor ARGS` run without Typer when ARGS are a scan this module reads as Typer would; else None."""
    if args[:1] != ["scan"] or os.name == "nt" or "_ADVISOR_COMPLETE" in os.environ:
        return None  # Windows: Click expands wildcards itself; the variable asks for shell completion
    from advisor.cli_scan import scan

    kwargs = read(scan, args[1:])
    if kwargs is None:
        return None
    return lambda: guarded(lambda: _as_click_runs(scan, kwargs))


def _as_click_runs(command: Callable, kwargs: dict[str, Any]) -> None:
    """Run `command` and exit as Typer's main does: a return is exit 0, Ctrl-C exit 130, a closed pipe exit 1."""
    from advisor.interrupt import install, interrupted, leave, leave_if_interrupted

    install()
    try:
        command(**kwargs)
    except KeyboardInterrupt:  # Typer makes it Exit(130), which advisor.interrupt.run_cli meets
        if interrupted():
            leave()
        sys.exit(130)
    except OSError as e:
        import errno

        if e.errno != errno.EPIPE:
            raise
        sys.stdout, sys.stderr = _Pacified(sys.stdout), _Pacified(sys.stderr)  # type: ignore[assignment]
        sys.exit(1)
    except SystemExit:
        leave_if_interrupted()
        raise
    sys.exit(0)


class _Pacified:
    """Click's PacifyFlushWrapper: after a closed pipe, the interpreter's last flush says nothing."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as e:
            import errno

            if e.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.wrapped, attr)


def guarded(run: Callable[[], None]) -> None:
    """Run a command line; an exception of ours is exit 2 with "internal error" (never 1, which means findings)."""
    try:
        run()  # Ctrl-C/SIGTERM: one line, exit 130, workers stopped
    except KeyboardInterrupt:
        echo("advisor: interrupted", err=True)
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as e:  # a bug of ours: say so, and exit 2, never 1 (which means "findings")
        from advisor.interrupt import leave_if_interrupted

        leave_if_interrupted()  # unless it is the interrupt in another form (both command paths end here)
        import traceback

        traceback.print_exc()
        echo(f"advisor: internal error: {type(e).__name__}: {e}", err=True)
        sys.exit(2)

"""The pytest side of the rehearsal, loaded through PYTEST_PLUGINS as `advisor_rehearse_plugin`.

pytest wraps collection and every test in `catch_warnings`, which restores the filter list it found and
then applies the project's `filterwarnings`; these wrappers run inside it and widen the filters again
(advisor_rehearse_hook.see_all). A test that ends with an exception torch raised is recorded as an error.
Like the hook, it is copied into the tests' environment and imports no advisor module.
"""

from __future__ import annotations

import importlib

import pytest

hook = importlib.import_module("advisor_rehearse_hook")
hook.start()


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    hook.see_all()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    hook.see_all()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield
    info = call.excinfo
    if info is not None and not isinstance(info.value, (pytest.skip.Exception, pytest.xfail.Exception)):
        try:
            hook.record_error(info.value, info.tb)
        except Exception:  # recording never changes the test's outcome
            pass

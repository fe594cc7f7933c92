import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_cli(*args, cwd=None, env=None, input=None):
    """Run the real `advisor` CLI in a subprocess, as a user would; `input`: the text piped to its stdin."""
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "advisor", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=600,
        input=input,
    )


@pytest.fixture
def cli():
    return run_cli

from __future__ import annotations

import re

from advisor.rule import Example, Rule, Severity

# `python -m torch.distributed.launch` (a Dockerfile's exec form `"-m", "torch.distributed.launch"` too) and the
# script's path; not `torch.distributed.launcher` nor `torch.distributed.run` (what torchrun runs).
LAUNCH = re.compile(r"-m[\"',\s]+torch\.distributed\.launch\b(?![.\w])|\btorch/distributed/launch\.py\b")
_MODULE = "torch.distributed.launch"


class DistributedLaunch(Rule):
    """`python -m torch.distributed.launch` is deprecated: use `torchrun` (it reads LOCAL_RANK from the env).

    What it finds: the launcher started as a module or by its path, in shell scripts, Dockerfiles,
    Makefiles and `.env` files (`python -m torch.distributed.launch --nproc_per_node 2 train.py`,
    `torch/distributed/launch.py`, a Dockerfile's `CMD ["python", "-m", "torch.distributed.launch", ...]`),
    and in Python: a command string (`os.system("python -m torch.distributed.launch ...")`), a command
    list (`[sys.executable, "-m", "torch.distributed.launch", ...]`), and a call of
    `torch.distributed.launch.main`. Comment lines are skipped; `torch.distributed.run` and
    `torch.distributed.launcher` (torchrun's own modules) are not matched.

    Why: the launcher warns FutureWarning "The module torch.distributed.launch is deprecated and will
    be removed in future. Use torchrun. Note that --use-env is set by default in torchrun. If your
    script expects `--local-rank` argument to be set, please change it to read from
    `os.environ['LOCAL_RANK']` instead." in every 2.x release (`warnings.warn(..., FutureWarning)` in
    `main` up to 2.3, `@deprecated(..., category=FutureWarning)` from 2.4: `2.15.0
    distributed/launch.py:191-201`).

    Example:
        python -m torch.distributed.launch --nproc_per_node 8 train.py
        # becomes (by hand)
        torchrun --nproc_per_node 8 train.py   # and train.py reads os.environ["LOCAL_RANK"]

    Fix safety: none: torchrun passes the local rank in the environment, not as `--local-rank`, so the
    training script changes too.
    Verified: torch/distributed/launch.py of the 2.0.0, 2.3.0, 2.4.0 and 2.15.0 wheels; torch 2.13.0 CPU at
    run time. Truth: K-154/launch.
    Validation: none.
    """

    code = "ADV154"
    name = "distributed-launch"
    message = (
        "`torch.distributed.launch` is deprecated (FutureWarning); use `torchrun` (the script then reads "
        "`os.environ['LOCAL_RANK']`, not `--local-rank`)"
    )
    severity = Severity.WARNING
    deprecated_in = "2.0"
    triggers = ("torch.distributed.launch", "torch/distributed/launch.py")
    window_apis = {"old": ("torch.distributed.launch.main",)}

    valid = [
        "import os\nos.system('torchrun --nproc_per_node 2 train.py')\n",
        "import subprocess\nsubprocess.run(['python', '-m', 'torch.distributed.run', 'train.py'])\n",
        "from torch.distributed.launcher.api import elastic_launch\n",
        "# python -m torch.distributed.launch train.py  (the old way, in a comment)\nx = 1\n",
        "import torch.distributed.launch as L\nif L.__doc__:\n    pass\n",
        '"""Run with torchrun; torch.distributed.launch, its predecessor, also works."""\nimport torch\n',
    ]
    invalid = [
        Example(
            "import os\nos.system('python -m torch.distributed.launch --nproc_per_node 2 train.py')\n",
            message="use `torchrun`",
            line=2,
            column=11,
        ),
        Example("import sys\ncmd = [sys.executable, '-m', 'torch.distributed.launch', '--nproc_per_node=2', 'a.py']\n"),
        Example("import torch.distributed.launch as launch\nlaunch.main(['--nproc_per_node', '2', 'train.py'])\n"),
        Example("cmd = 'python /opt/conda/lib/python3.11/site-packages/torch/distributed/launch.py train.py'\n"),
    ]

    @classmethod
    def may_match(cls, refs) -> bool:
        # What the visitor reports: a string naming the launcher as a command or a path, the module's name as a
        # word of a command list, or its `main` (a docstring mentioning the module is none of them).
        return (
            refs.refers_to_any((_MODULE, f"{_MODULE}.main"))
            or any(LAUNCH.search(s) for s in refs.strings)
            or any(LAUNCH.search(s) for s in refs.long_strings)
        )

    def visit_SimpleString(self, node) -> None:
        value = node.evaluated_value
        if isinstance(value, str) and LAUNCH.search(value):
            self.report(node)

    def visit_List(self, node) -> None:
        self._command(node)

    def visit_Tuple(self, node) -> None:
        self._command(node)

    def visit_Call(self, node) -> None:
        if self.match(node.func, (f"{_MODULE}.main",)):
            self.report(node)

    def _command(self, node) -> None:
        """`["python", "-m", "torch.distributed.launch", ...]`: the module as its own item after "-m"."""
        words = [getattr(e.value, "evaluated_value", None) for e in node.elements]
        for i, word in enumerate(words[1:], 1):
            if word == _MODULE and words[i - 1] == "-m":
                self.report(node.elements[i].value)

    @classmethod
    def check_text(cls, path, text, target, lowest=None):
        for lineno, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            for m in LAUNCH.finditer(line):
                start = (
                    m.start() if m.group(0).startswith("torch/") else line.index("torch.distributed.launch", m.start())
                )
                yield lineno, start + 1, m.end() - start, cls.message, cls.window()

from __future__ import annotations

import re
from typing import Any

from advisor.rule import Applicability, Example, Rule, Severity, cst

_VARS = ("TORCH_HUB", "TORCH_MODEL_ZOO")
_HOME = {"TORCH_HUB": "`$TORCH_HOME/hub`", "TORCH_MODEL_ZOO": "`$TORCH_HOME/hub/checkpoints`"}
# `export TORCH_HUB=...`, `TORCH_HUB=... python x.py`, `docker run -e TORCH_HUB=...`, Dockerfile `ENV TORCH_HUB /p`.
_TEXT = re.compile(r"(?<![\w$])(TORCH_HUB|TORCH_MODEL_ZOO)=|^\s*ENV\s+(TORCH_HUB|TORCH_MODEL_ZOO)\s")


def _name(node: Any) -> str | None:
    value = getattr(node, "evaluated_value", None) if isinstance(node, cst.SimpleString) else None
    return value if value in _VARS else None


class HubEnvVars(Rule):
    """`TORCH_HUB` / `TORCH_MODEL_ZOO` are ignored: torch only warns; set `TORCH_HOME` instead.

    What it finds: the environment variable set in Python (`os.environ["TORCH_HUB"] = ...`,
    `os.environ.setdefault("TORCH_MODEL_ZOO", ...)`, `os.putenv(...)`, `os.environ.update(TORCH_HUB=...)`)
    and in shell scripts, Dockerfiles, Makefiles and `.env` files (`export TORCH_HUB=...`,
    `TORCH_HUB=... python train.py`, `ENV TORCH_HUB /cache`). Reading the variable is not reported.

    Why: `torch.hub.get_dir()` warns UserWarning "TORCH_HUB is deprecated, please use env TORCH_HOME
    instead" and `torch.hub.load_state_dict_from_url` warns "TORCH_MODEL_ZOO is deprecated, please use
    env TORCH_HOME instead" whenever the variable is set, in every 2.x release, and neither uses its value:
    the hub directory is `$TORCH_HOME/hub` (or `torch.hub.set_dir`), checkpoints go to
    `$TORCH_HOME/hub/checkpoints` (`2.0.0 torch/hub.py`, `2.15.0 torch/hub.py:438-445,871-879`). Code that
    sets them believes it moved the cache, and it did not.

    Example:
        os.environ["TORCH_HUB"] = "/data/hub"
        # becomes
        os.environ["TORCH_HOME"] = "/data"   # the hub is /data/hub

    Fix safety: none: the directory layout under `TORCH_HOME` differs (`hub/`, `hub/checkpoints/`).
    Verified: torch 2.13.0 CPU and 2.15.0 at run time. Truth: K-162/torch-hub-env.
    Validation: none.
    """

    code = "ADV162"
    name = "hub-env-vars"
    message = "`{var}` is ignored by torch.hub (it only warns, UserWarning); set `TORCH_HOME` instead (the directory is {home})"
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.NONE
    triggers = _VARS
    window_apis = {"old": ("torch.hub.get_dir", "torch.hub.load_state_dict_from_url")}

    valid = [
        "import os\nos.environ['TORCH_HOME'] = '/data'\n",
        "import os\nhub = os.environ.get('TORCH_HUB')\n",
        "import os\nif 'TORCH_HUB' in os.environ:\n    pass\n",
        "env = {}\nenv['TORCH_HUB'] = '/x'\n",
    ]
    invalid = [
        Example(
            "import os\nos.environ['TORCH_HUB'] = '/data/hub'\n",
            message="`TORCH_HUB` is ignored by torch.hub",
            line=2,
            column=1,
        ),
        Example("import os\nos.environ.setdefault('TORCH_MODEL_ZOO', '/models')\n", message="`TORCH_MODEL_ZOO`"),
        Example("from os import environ\nenviron.update(TORCH_HUB='/h')\n"),
        Example("import os\nos.putenv('TORCH_HUB', '/h')\n"),
    ]

    def visit_Assign(self, node: Any) -> None:
        for target in node.targets:
            sub = target.target
            if not isinstance(sub, cst.Subscript) or self.match(sub.value, ("os.environ",)) is None:
                continue
            for element in sub.slice:
                var = _name(getattr(element.slice, "value", None))
                if var:
                    self.report(node, self.message.format(var=var, home=_HOME[var]))

    def visit_Call(self, node: Any) -> None:
        func = self.match(node.func, ("os.environ.setdefault", "os.putenv", "os.environ.update"))
        if func is None:
            return
        if func.endswith("update"):
            names = [a.keyword.value for a in node.args if a.keyword is not None]
            if node.args and isinstance(node.args[0].value, cst.Dict):
                names += [_name(e.key) or "" for e in node.args[0].value.elements if isinstance(e, cst.DictElement)]
        else:
            names = [_name(node.args[0].value) or ""] if node.args else []
        for var in names:
            if var in _VARS:
                self.report(node, self.message.format(var=var, home=_HOME[var]))

    @classmethod
    def check_text(cls, path, text, target, lowest=None):
        for lineno, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            for m in _TEXT.finditer(line):
                var = m.group(1) or m.group(2)
                start = m.start(1) if m.group(1) else m.start(2)
                yield lineno, start + 1, len(var), cls.message.format(var=var, home=_HOME[var]), cls.window()

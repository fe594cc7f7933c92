from typing import Any

from advisor.rule import Applicability, Example, Rule, Severity, cst, dotted_name

MODULES = ("torchvision.models", "torchvision.datasets", "torchvision.transforms")


class TorchvisionSingletonImport(Rule):
    """`import torchvision.models as models` → `from torchvision import models` (style, off by default).

    What it finds: `import torchvision.<m> as <m>` for `models`, `datasets`, `transforms`, the
    imports TorchFix's TOR203 rewrites, so that a project moving from TorchFix keeps it.

    Why: style only; both spellings bind the same module. Not a deprecation, so the rule is
    off unless selected (`--select ADV918`).

    Fix safety: safe: the statement binds the same name to the same module object.
    """

    code = "ADV918"
    name = "torchvision-singleton-import"
    message = "use `from torchvision import {m}`"
    library = "torchvision"
    severity = Severity.INFO
    since = "0.15"
    fix = Applicability.SAFE
    default_enabled = False
    triggers = ("torchvision",)
    targets = MODULES
    valid = ["from torchvision import models\n", "import torchvision.models as tvm\n", "import torchvision.models\n"]
    invalid = [
        Example("import torchvision.models as models\n", fixed="from torchvision import models\n", line=1, column=1),
        Example("import torchvision.transforms as transforms\n", fixed="from torchvision import transforms\n"),
    ]

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        return any(m in refs.imports for m in MODULES)

    def visit_Import(self, node: Any) -> None:
        if len(node.names) != 1:
            return
        alias = node.names[0]
        module = dotted_name(alias.name)
        short = module.rsplit(".", 1)[-1]
        if module not in MODULES or alias.asname is None or dotted_name(alias.asname.name) != short:
            return
        new = cst.ImportFrom(module=cst.Name("torchvision"), names=[cst.ImportAlias(name=cst.Name(short))])
        self.report(node, self.message.format(m=short), replacement=new)

from __future__ import annotations

from advisor.rule import Example, Severity

from advisor.rules.mined._catalogue import DATA, MinedKeywords, triggers


class MinedDeprecatedKeyword(MinedKeywords):
    """A deprecated keyword argument of a user-facing torch function (mined from the wheels).

    What it finds: calls that pass a keyword which `rules/mined/catalogue.json` ("keywords")
    lists for the function, resolved through aliases and `from` imports; the finding is on the
    keyword. A class's constructor is also called from its subclasses: `super().__init__(...)`
    in a class whose first base is the listed class, and `Base.__init__(self, ...)`. Where a
    listed parameter is also passed by position (`Sampler(data_source)`, which warns the same in
    2.1-2.9 and raises TypeError from 2.10, since `Sampler` has no `__init__` of its own), that
    position is reported too. Listed are warnings whose text names the keyword as deprecated, renamed, ignored or
    removed; not the ones about leaving an argument out, which passing it silences. The catalogue
    is generated from the wheels' API index and the coverage ledger (docs/coverage.md), never
    typed by hand; functions a hand rule checks are left to it.

    Why: the message quotes the wheel's own warning (which names the replacement where there is
    one); kind and severity follow the window for the target.

    Fix safety: no automatic fix. Ignore the family with `--ignore ADV0`.
    """

    code = "ADV003"
    name = "mined-deprecated-keyword"
    message = "deprecated keyword argument"
    severity = Severity.WARNING
    calls = {
        a: params for func, params in DATA["keywords"].items() for a in (func, *next(iter(params.values()))["aka"])
    }
    targets = tuple(sorted(calls))
    triggers = triggers(calls)
    valid = [
        "import torch\ny = torch.nn.functional.gumbel_softmax(logits, tau=0.5)\n",
        "def f(torch):\n    return torch.nn.functional.gumbel_softmax(logits, eps=1e-10)\n",
        "from torch.utils.data import Sampler\nclass S(Sampler[int]):\n    def __init__(self, ds):\n"
        "        super().__init__()\n",
        # super() is the mixin's here, not Sampler's
        "from torch.utils.data import Sampler\nclass S(Mixin, Sampler):\n    def __init__(self, ds):\n"
        "        super().__init__(ds)\n",
    ]
    invalid = [
        Example(
            "import torch\ny = torch.nn.functional.gumbel_softmax(logits, eps=1e-10)\n",
            message="`eps=` of `torch.nn.functional.gumbel_softmax` is deprecated",
            line=2,
            column=48,
            target="2.15",
        ),
        Example(
            "from torch.nn.functional import gumbel_softmax as gs\ny = gs(logits, eps=1e-10)\n",
            message="`eps=`",
            target="2.15",
        ),
        Example(  # a custom sampler forwarding the argument its base no longer takes
            "from torch.utils.data import Sampler\nclass S(Sampler[int]):\n    def __init__(self, ds):\n"
            "        super().__init__(ds)\n",
            message="breaks in 2.10: `data_source` (passed by position) of `torch.utils.data.Sampler` is deprecated",
            line=4,
            column=26,
            target="2.15",
        ),
        Example(
            "import torch.utils.data.sampler as s\nclass S(s.Sampler):\n    def __init__(self, ds):\n"
            "        super(S, self).__init__(data_source=ds)\n",
            message="from torch 2.10 it raises (TypeError",
            target="2.15",
        ),
        Example(
            "from torch.utils.data import Sampler\nclass S(Sampler):\n    def __init__(self, ds):\n"
            "        Sampler.__init__(self, ds)\n",
            message="`data_source` (passed by position)",
            target="2.9",
        ),
    ]

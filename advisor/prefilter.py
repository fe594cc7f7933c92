"""One pass over a file's bytes decides which rules can possibly match it.

Each rule declares `triggers`: names or strings that must appear in any file it
can flag, matched as whole words. Aliases do not hide them: `import torch.cuda as tc;
tc.is_current_stream_capturing()` still contains the final name. Files with no
trigger are never parsed, and libcst is never imported for them.
"""

from __future__ import annotations

import re
from typing import Sequence

from advisor.rule import Rule


def _bounded(trigger: bytes) -> bytes:
    word = re.compile(rb"\w")
    start = rb"\b" if word.match(trigger[:1]) else b""
    end = rb"\b" if word.match(trigger[-1:]) else b""
    return start + re.escape(trigger) + end


class Prefilter:
    def __init__(self, rules: Sequence[type[Rule]]) -> None:
        self._by_trigger: dict[bytes, list[type[Rule]]] = {}
        for rule in rules:
            if not rule.triggers:
                raise ValueError(f"{rule.code} declares no prefilter triggers")
            for t in rule.triggers:
                self._by_trigger.setdefault(t.encode(), []).append(rule)
        # Longest first, so a trigger that is a prefix of another still lets the longer one be seen.
        # Word boundaries keep "eig" from matching inside "weight".
        alternatives = sorted(self._by_trigger, key=len, reverse=True)
        self._pattern = re.compile(b"|".join(_bounded(t) for t in alternatives)) if alternatives else None

    def candidates(self, data: bytes) -> list[type[Rule]]:
        """The rules whose triggers occur in `data`, in code order."""
        if self._pattern is None:
            return []
        hits = set(self._pattern.findall(data))
        if not hits:
            return []
        rules: dict[str, type[Rule]] = {}
        for h in hits:
            for r in self._by_trigger[h]:
                rules[r.code] = r
        return [rules[c] for c in sorted(rules)]

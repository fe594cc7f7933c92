"""One pass over a file's bytes decides which rules can possibly match it.

Each rule declares `triggers`: names or strings that must appear in any file it
can flag, matched as whole words. Aliases do not hide them: `import torch.cuda as tc;
tc.is_current_stream_capturing()` still contains the final name. Files with no
trigger are never parsed, and libcst is never imported for them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from advisor.analysis.rule_index import AnyRule  # a rule's class, or its index entry


_WORD = re.compile(rb"\w+")
# Every byte that is not a word character (`\w` of a bytes pattern: ASCII letters, digits, `_`) made a space:
# `data.translate(_SPACES).split()` is `_WORD.findall(data)`, in half the time.
_SPACES = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == 95) else 32 for c in range(256))


def _bounded(trigger: bytes) -> bytes:
    word = re.compile(rb"\w")
    start = rb"\b" if word.match(trigger[:1]) else b""
    end = rb"\b" if word.match(trigger[-1:]) else b""
    return start + re.escape(trigger) + end


@lru_cache(maxsize=None)
def _pattern(trigger: bytes) -> re.Pattern[bytes]:
    return re.compile(_bounded(trigger))


_EVERYWHERE = frozenset({b"torch"})  # in nearly every file a run reads: a call shape is grouped by another word


def _longest_word(trigger: bytes) -> bytes | None:
    """The longest word of a call-shape trigger (`add_` in `.add_(-`; `add` in `torch.add(`, not `torch`), or None.
    Wherever the trigger's bounded pattern matches, each of its words is a whole word of the text: the trigger's own
    non-word characters end it inside, and `\b` at either end."""
    return max(_WORD.findall(trigger), key=lambda w: (w not in _EVERYWHERE, len(w)), default=None)


_FEW = 64  # a needle found this often or less: its shapes are tried where it is, not each over the whole file


def _occurring(data: bytes, needle: bytes, shapes: list[bytes]) -> list[bytes]:
    """The call shapes that occur in `data` (their bounded patterns), each of which starts with `needle`, which
    `data` holds. Where the needle is rare, each shape is tried only where the needle is (`.add(` has eleven shapes:
    eleven scans of the file, a fifth of the prefilter, for a call that is in few files and rare in them)."""
    if len(shapes) == 1 or data.count(needle) > _FEW:
        return [t for t in shapes if t in data and _pattern(t).search(data)]
    found: list[bytes] = []
    left, pos = list(shapes), data.find(needle)
    while pos != -1 and left:
        here = [t for t in left if data.startswith(t, pos) and _pattern(t).match(data, pos)]
        if here:
            found += here
            left = [t for t in left if t not in here]
        pos = data.find(needle, pos + 1)
    return found


class Prefilter:
    def __init__(self, rules: Sequence[AnyRule]) -> None:
        self._by_trigger: dict[bytes, list[AnyRule]] = {}
        for rule in rules:
            if not rule.triggers:
                raise ValueError(f"{rule.code} declares no prefilter triggers")
            for t in rule.triggers:
                self._by_trigger.setdefault(t.encode(), []).append(rule)
        # Whole-word triggers are looked up in the file's set of words: splitting into words is
        # 3x faster than one big alternation regex, and "eig" still never matches inside "weight".
        self._words = frozenset(t for t in self._by_trigger if _WORD.fullmatch(t))
        # The others (call shapes such as `.add_(-`, `[[`) one by one: a plain substring test first (C speed),
        # the bounded pattern only where it is there. One alternation of them all cost ~7x the whole word test.
        # Each is looked for on its own, so overlapping triggers are all found: a superset of the alternation's.
        # A call shape holding a word (`.add_(-` holds `add_`) is looked for only in a file with that word, so
        # that an entry costs a file that does not use it one set lookup, however many entries there are.
        # Their patterns are compiled on first use: most runs meet few of them, and compiling all ~80 cost a
        # one-file run more than its whole prefilter.
        # Grouped by that word, so a file is looked at only for the call shapes of the words it has, and within it
        # by a shared start (`.add(` of `.add(0` ... `.add(9`), looked for once.
        self._shapes: dict[bytes | None, dict[bytes, list[bytes]]] = {}
        for shape in sorted(s for s in self._by_trigger if s not in self._words):
            word = _longest_word(shape)
            needle = shape[: shape.index(word) + len(word) + 1] if word else shape[:2]
            self._shapes.setdefault(word, {}).setdefault(needle, []).append(shape)
        self._ungated = self._shapes.pop(None, {})  # no word (`[[(`): looked for in every file
        self._gates = frozenset(w for w in self._shapes if w is not None)
        # The words the rules' text gates ask about (advisor.analysis.text_gate): a target's last part, an attribute.
        self._text_gates = {r.code: r.text_gate() for r in rules}  # asked once a rule (a class builds it each time)
        gated = [g for g in self._text_gates.values() if g is not None]
        asked = {t.rpartition(".")[2].encode() for g in gated for t in (*g[0], *g[1], *g[3])}
        self._lookup = self._words | self._gates | asked  # the file's words are looked up once, in all three
        # How often each rule's gate has let a file through, this run: asked first, a file that passes stops at the
        # first gate (one passing gate is enough, whichever it is), and most files that pass one pass the same few.
        self._passed: dict[str, int] = {}

    def candidates(self, data: bytes, importing_calls: Sequence[str] | None = None) -> list[AnyRule]:
        """The rules whose triggers occur in `data`, in code order. `importing_calls` (the file's, for a whole file):
        none of them where the text shows that no rule's `may_match` can hold (advisor.analysis.text_gate)."""
        # The file's words are not made a set: the few trigger words among them are found by looking each word up
        # in the (much smaller) sets of triggers, which allocates nothing per word.
        found = self._lookup.intersection(data.translate(_SPACES).split()) if self._lookup else frozenset()
        hits = set(found & self._words)
        groups = [self._shapes[word] for word in found & self._gates]
        for group in (*groups, self._ungated):
            for needle, shapes in group.items():
                if needle in data:
                    hits.update(_occurring(data, needle, shapes))
        if not hits:
            return []
        rules: dict[str, AnyRule] = {}
        for h in hits:
            for r in self._by_trigger[h]:
                rules[r.code] = r
        found_rules = [rules[c] for c in sorted(rules)]
        # A binary file (a NUL byte) is not read as text: it goes on, to be reported as one (analyse.decode).
        if (
            importing_calls is not None
            and b"\x00" not in data
            and not self._may_match(found_rules, data, found, importing_calls)
        ):
            return []
        return found_rules

    def _may_match(
        self, rules: list[AnyRule], data: bytes, words: frozenset[bytes], importing_calls: Sequence[str]
    ) -> bool:
        """Whether the text leaves one of the candidates a file it may match: the first that may, or has no gate
        (None), says yes; the gates that have let most files through are asked first."""
        gates = []
        for rule in rules:
            gate = self._text_gates[rule.code]
            if gate is None:
                return True
            gates.append((rule.code, gate))
        from advisor.analysis.text_gate import FileText  # only where every candidate has a gate

        text = FileText(data, words, importing_calls)
        passed = self._passed
        for code, gate in sorted(gates, key=lambda g: -passed.get(g[0], 0)):
            if text.passes(gate):
                passed[code] = passed.get(code, 0) + 1
                return True
        return False


@lru_cache(maxsize=32)
def reference_gate(rules: tuple[AnyRule, ...]) -> tuple[frozenset[str], frozenset[str]] | None:
    """(targets, attribute targets) of `rules`, where every one of them reports only at references
    (`Rule.reports_at_references`): a statement holding only their triggers counts where it refers to one of those.
    None where one of them does not."""
    if not all(r.reports_at_references for r in rules):
        return None
    return frozenset(t for r in rules for t in r.targets), frozenset(a for r in rules for a in r.attribute_targets)

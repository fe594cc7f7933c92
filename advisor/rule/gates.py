"""What a rule's text gate (`Rule.text_gate`) is written with: the file's text asked, before any parse, whether the
rule's `may_match` can hold (advisor.analysis.text_gate reads the gates; advisor.analysis.text_code the text)."""

from __future__ import annotations

import re
from typing import Union

# What `may_match` needs the file's text to hold (`Rule.text_gate`): targets, attribute targets, patterns, called
# names, imported names (advisor.analysis.text_gate reads it); and a sixth item, False, where a string constant
# naming a target is no reference to it (`Rule.strings_name_targets`: `patch("torch.x")` counts only where it is).
_Fields = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]
TextGate = Union[
    _Fields, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...], bool]
]
# What may come between two tokens in a gate's pattern: spaces, a line break, a backslash that continues a line.
TEXT_GAP = r"[ \t\f\\\r\n]"
# The same with comments (each to its line's end): possessive, so that a comment of many `#` is not split every way
# when what follows does not match.
TEXT_GAPS = rf"(?:{TEXT_GAP}|#[^\r\n]*+)*+"
# A gate's pattern that starts with this (a regular expression's comment: it matches nothing) counts only where its
# match starts in code, not in a comment or a string (advisor.analysis.text_code): `x[[None]]` in a docstring is no
# index. A pattern for something a string holds (an architecture's name) must not start with it.
CODE_ONLY = "(?#code)"
# A gate's pattern whose CODE_ONLY is followed by this counts only where its match comes after what may end an
# operand (a name, a closing bracket, a string; past spaces, line breaks and comments): a `[` there may be a
# subscript's, a `*` a product's (not `= [`, `return [`, `f(*[`).
AFTER_OPERAND = "(?#operand)"
# A gate's pattern that starts with this (before CODE_ONLY, where both) is a condition besides the rest, not one more
# way through: the gate passes only where one such pattern matches too. For a rule whose `may_match` asks for a
# reference and a shape (an optimizer given a set, a `.T` where a factory's tensor may be): the gate's tuple is an
# "or" of its fields.
ALSO_NEEDED = "(?#and)"


def two_deep(opening: str) -> str:
    """A pattern for a group in brackets (`opening`: "(" or "[") that holds no string and no comment, and groups of its
    kind one level inside it: what a gate reads of an argument or a list's items without a parse (where the text
    holds more, the pattern does not match, and the gate says the text cannot tell)."""
    o, c = re.escape(opening), re.escape({"(": ")", "[": "]"}[opening])
    flat = rf"[^{o}{c}\"'#]"
    return rf"{o}(?:{flat}|{o}{flat}*+{c})*+{c}"


def keyword_calls(name: str, keyword: str, given: bool, suffix: str = "") -> tuple[str, str, str]:
    """A text gate's patterns for a call of `name` (`suffix` a pattern after it: `_?`) that passes (`given`) or does
    not pass `keyword=`, read among its arguments two brackets deep (a string, a comment, a third bracket: the text
    cannot tell, and the call counts); a getattr's name called (`getattr(m, "name")(`); the name renamed by an import
    (`name as n`: any call may be it). Each starts with `name`, a literal `re` looks for at C speed. `keyword` is a
    pattern (it may say what it is not followed by: `indexing(?!...None)`)."""
    gaps, keyword = TEXT_GAPS, rf"\b{keyword}{TEXT_GAP}*=(?!=)"
    inner = r"[^()\"'#]"  # inside brackets: another call's keywords
    plain = inner if given else rf"(?:(?!{keyword}){inner})"
    unread = rf"[\"'#]|\((?:{inner}|\({inner}*\))*[(\"'#]"
    two = rf"(?:{plain}|\((?:{inner}|\({inner}*\))*\))"
    end = rf"{two}*?(?:{keyword}|{unread})" if given else rf"{two}*+(?:\)|{unread})"
    return (
        CODE_ONLY + rf"{name}(?<=\b{name}){suffix}{gaps}\({end}",
        getattr_called(name, suffix),
        CODE_ONLY + rf"{name}(?<=\b{name}){suffix}(?=[ \t\f\\\r\n#]){gaps}as\b",
    )


def getattr_called(name: str, suffix: str = "") -> str:
    """A gate's pattern for a getattr's name called (`getattr(torch, "name")(`: `References.calls` has it under
    `name`), `suffix` a pattern after the name; it starts with `name`, a literal `re` looks for at C speed."""
    return rf"{name}(?<=[\"']{name}){suffix}[\"']{TEXT_GAPS},?{TEXT_GAPS}\){TEXT_GAPS}\("

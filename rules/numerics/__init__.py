"""ADV11x: numerically better spellings of the same math (TorchFix TOR106/TOR107); advice, never a failure."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Numerically better spellings"
CODES = ("ADV110-ADV119",)

"""ADV990-ADV991: TorchFix's opt-in practice checks (TOR401, TOR901): off unless selected (`--select ADV99`)."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Practice checks (opt-in)"
CODES = ("ADV990-ADV999",)

"""ADV9xx: the limits of static analysis (off by default)."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Limits of static analysis"
CODES = ("ADV900-ADV909",)

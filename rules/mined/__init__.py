"""ADV001-ADV003: the long tail of torch's deprecations, mined from the wheels (catalogue.json)."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Mined deprecations"
CODES = ("ADV001-ADV099",)

"""ADV7xx: the deprecation catalogue since torch 2.0: table rows (renames.py, keywords.py) and rules that need argument logic."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Deprecation catalogue"
CODES = ("ADV700-ADV799",)

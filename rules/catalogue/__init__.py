"""ADV7xx (and ADV150-ADV169 once ADV7xx filled up): the deprecation catalogue since torch 2.0: table rows
(renames.py, keywords.py) and rules that need argument logic."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Deprecation catalogue"
CODES = ("ADV700-ADV799", "ADV150-ADV169")

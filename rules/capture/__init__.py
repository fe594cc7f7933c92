"""ADV1xx / ADV3xx: stream and graph capture (superseded capture queries, device-specific graph APIs, host syncs in captured code)."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Graph capture"
# ADV753, ADV756: catalogue deprecations of capture APIs, kept with the capture rules.
CODES = ("ADV100-ADV109", "ADV300-ADV399", "ADV753", "ADV756")

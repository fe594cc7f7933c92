"""ADV6xx: the profiler (renamed event attributes, Chrome-trace parsing)."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Profiler"
# ADV749, ADV762: catalogue deprecations of profiler APIs, kept with the profiler rules.
CODES = ("ADV600-ADV699", "ADV749", "ADV762")

"""ADV5xx: numerics of compiled code."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Compiled numerics"
# ADV752, ADV759: catalogue deprecations of compiler settings, kept with the compile rules.
CODES = ("ADV500-ADV599", "ADV752", "ADV759")

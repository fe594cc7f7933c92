"""ADV2xx: linear algebra (the MAGMA backend, eigh on cuSOLVER, legacy linalg entry points)."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Linear algebra: MAGMA and cuSOLVER"
# ADV757: a catalogue deprecation of a linalg entry point, kept with the linalg rules.
CODES = ("ADV200-ADV299", "ADV757")

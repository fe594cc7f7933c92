"""ADV8xx: ROCm (allocator configuration, hip-guarded branches, extension builds, amdsmi)."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "ROCm"
CODES = ("ADV800-ADV899",)

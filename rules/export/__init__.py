"""ADV4xx: export and serialization (MX dtypes through torch.export, removed export entry points, TorchScript)."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Export and serialization"
CODES = ("ADV400-ADV499",)

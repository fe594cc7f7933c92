"""ADV4xx: export and serialization (MX dtypes through torch.export, removed export entry points, TorchScript)."""

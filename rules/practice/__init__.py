"""ADV990-ADV991: TorchFix's opt-in practice checks (TOR401, TOR901): off unless selected (`--select ADV99`)."""

"""ADV11x: numerically better spellings of the same math (TorchFix TOR106/TOR107); advice, never a failure."""

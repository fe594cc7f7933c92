"""torch-upgrade-advisor: find and fix what the PyTorch 2.12 upgrade touches."""

__version__ = "0.1.0"

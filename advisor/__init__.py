"""torch-upgrade-advisor: find and fix what a PyTorch upgrade, and every deprecation on the way, touches."""

__version__ = "0.1.0"

"""ADV9xx: the limits of static analysis (off by default)."""

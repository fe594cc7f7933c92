"""ADV5xx: numerics of compiled code."""

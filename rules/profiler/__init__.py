"""ADV6xx: the profiler (renamed event attributes, Chrome-trace parsing)."""

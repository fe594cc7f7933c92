"""A project's run: discovery, the engine and its worker pool, the cache, and the one post-processing step."""

"""Output formats. Each module renders a finished scan; none of them analyses anything."""

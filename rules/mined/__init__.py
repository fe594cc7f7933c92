"""ADV001-ADV003: the long tail of torch's deprecations, mined from the wheels (catalogue.json)."""

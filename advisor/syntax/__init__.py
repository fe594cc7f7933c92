"""Name resolution and tree helpers (scopes, imports, references) that the rule world builds on."""

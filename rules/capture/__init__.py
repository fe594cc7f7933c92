"""ADV1xx / ADV3xx: stream and graph capture (superseded capture queries, device-specific graph APIs, host syncs in captured code)."""

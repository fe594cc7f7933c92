"""Plain data and settings: findings, config, versions, markers, jobs, atomic writes. Imports nothing above it."""

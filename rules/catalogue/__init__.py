"""ADV7xx: the deprecation catalogue since torch 2.0: table rows (renames.py, keywords.py) and rules that need argument logic."""

"""Per-ruleset article files (``<ruleset>.yaml``); a package so they ship as package data."""

"""Ruleset parameter files (``<id>.yaml``), read with ``game_rules.params.load_params``."""

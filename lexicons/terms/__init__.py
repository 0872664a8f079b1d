"""Lexicon term files, one ``<category>.tsv`` per category (a package so they ship)."""

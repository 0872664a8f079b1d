"""The ``bansha`` command line: one entry point that hands each subcommand to the package that owns it."""

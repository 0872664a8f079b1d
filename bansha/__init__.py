"""The ``bansha`` command line: one entry point handing each subcommand to the package owning it."""

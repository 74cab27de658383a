"""The ``assay`` command line: one module per command, each thin (parse, call, print)."""

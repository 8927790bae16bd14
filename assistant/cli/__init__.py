"""The `assistant` command line: thin over the core, one module per command group."""

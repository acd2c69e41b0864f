"""The wave-lsp command line and its subcommands."""

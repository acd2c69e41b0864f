"""The language server (pygls): one small module per LSP feature."""

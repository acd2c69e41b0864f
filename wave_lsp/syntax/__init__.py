"""Syntax layer: the Parsimonious line grammar, the syntax tree, the document model, and the one
grammar of wave-lsp's tool comments (`; wave-lsp run:` launch lines, `; wave-lsp expect:` lines:
`tool_comments.py`)."""

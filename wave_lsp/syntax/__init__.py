"""Syntax layer: the Parsimonious line grammar, the syntax tree and the document model."""

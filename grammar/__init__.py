"""The grammar file, shipped as package data of wave_lsp (see pyproject.toml)."""

"""wave-lsp: editor tooling for WAVE GPU assembly (language server, assembler, emulator, lint)."""

__version__ = "0.1.0"

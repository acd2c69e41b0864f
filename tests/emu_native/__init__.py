"""Tests of the native emulator core (wave_lsp/emu/native)."""

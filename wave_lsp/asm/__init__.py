"""Encoding layer: encoder, .wbin reader and writer, disassembler, encoding view."""

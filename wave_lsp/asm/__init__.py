"""Encoding layer: encoder, .wbin reader and writer, disassembler, encoding view.

`assemble(source, compat=False)` turns source into an `Assembly` (kernels of encoded
instructions, `.wbin()` bytes); `read_wbin` / `write_wbin` handle the container; `decode_words`
and `disassemble` go back to instructions and text; `encoding_view` explains one instruction's
bits for the editor.
"""

from importlib import import_module

# Loaded on first use, so that reading a `.wbin` never loads the assembler and its grammar.
_EXPORTS = {
    "Assembly": "assembler", "AssemblyError": "assembler", "assemble": "assembler",
    "DecodeError": "decoder", "decode_words": "decoder",
    "DecodedInstruction": "ir", "KernelCode": "ir",
    "WbinError": "wbin", "WbinFile": "wbin", "read_wbin": "wbin", "write_wbin": "wbin",
}


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = ["Assembly", "AssemblyError", "assemble", "DecodeError", "decode_words",
           "DecodedInstruction", "KernelCode", "WbinError", "WbinFile", "read_wbin",
           "write_wbin"]

"""Encoding layer: encoder, .wbin reader and writer, disassembler, encoding view.

`assemble(source, compat=False)` turns source into an `Assembly` (kernels of encoded
instructions, `.wbin()` bytes); `read_wbin` / `write_wbin` handle the container; `decode_words`
and `disassemble` go back to instructions and text; `encoding_view` explains one instruction's
bits for the editor.
"""

from .. import lazy_attributes

# Loaded on first use, so that reading a `.wbin` never loads the assembler and its grammar.
_EXPORTS = {
    "Assembly": "assembler", "AssemblyError": "assembler", "assemble": "assembler",
    "DecodeError": "decoder", "decode_words": "decoder",
    "DecodedInstruction": "ir", "KernelCode": "ir",
    "WbinError": "wbin", "WbinFile": "wbin", "read_wbin": "wbin", "write_wbin": "wbin",
}


__getattr__ = lazy_attributes(__name__, _EXPORTS)

__all__ = ["Assembly", "AssemblyError", "assemble", "DecodeError", "decode_words",
           "DecodedInstruction", "KernelCode", "WbinError", "WbinFile", "read_wbin",
           "write_wbin"]

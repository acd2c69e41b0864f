"""Encoding layer: encoder, .wbin reader and writer, disassembler, encoding view.

`assemble(source, compat=False)` turns source into an `Assembly` (kernels of encoded
instructions, `.wbin()` bytes); `read_wbin` / `write_wbin` handle the container; `decode_words`
and `disassemble` go back to instructions and text; `encoding_view` explains one instruction's
bits for the editor.
"""

from .assembler import Assembly, AssemblyError, assemble
from .decoder import DecodeError, decode_words
from .ir import DecodedInstruction, KernelCode
from .wbin import WbinError, WbinFile, read_wbin, write_wbin

__all__ = ["Assembly", "AssemblyError", "assemble", "DecodeError", "decode_words",
           "DecodedInstruction", "KernelCode", "WbinError", "WbinFile", "read_wbin",
           "write_wbin"]

"""The `.wbin` container (reference §3.5): a byte-exact writer and a validating reader.

Layout: a 32-byte header (`WAVE`, u16 version 1, u16 flags 0, then offset/size pairs of the
code, symbol and metadata sections), the code at 0x20, the NUL-terminated kernel names, then the
metadata (u32 kernel count and one 32-byte record per kernel). Little-endian, no padding.

`read_wbin` checks everything and raises `WbinError` with a clear message for any bad input,
never another exception.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Sequence

from .decoder import DecodeError, decode_words
from .ir import KernelCode

MAGIC = b"WAVE"
VERSION = 1
HEADER = struct.Struct("<4sHHIIIIII")      # magic, version, flags, 3 x (offset, size)
RECORD = struct.Struct("<8I")              # name, regs, local, wg x/y/z, code offset/size
COUNT = struct.Struct("<I")
HEADER_SIZE = HEADER.size                  # 32
CODE_OFFSET = HEADER_SIZE
_U32 = 0xFFFFFFFF


class WbinError(ValueError):
    """A `.wbin` that cannot be read, with the reason."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class WbinFile:
    """A parsed `.wbin`: the header fields, the whole code section and the kernels."""

    version: int
    flags: int
    code_offset: int
    code_size: int
    symbol_offset: int
    symbol_size: int
    metadata_offset: int
    metadata_size: int
    code: bytes
    kernels: list[KernelCode]

    @property
    def has_symbols(self) -> bool:
        return self.symbol_size > 0


def write_wbin(kernels: Sequence[KernelCode], no_symbols: bool = False) -> bytes:
    """The `.wbin` bytes of kernels laid out one after the other, in order (as wave-asm writes
    them). With `no_symbols` the names are left out, name offsets are 0 and — unlike upstream's
    `--no-symbols` — the metadata offset is still correct."""
    code = b"".join(k.code for k in kernels)
    code_size = len(code)
    names = [k.name.encode("utf-8") for k in kernels]
    if no_symbols:
        symbol_offset = symbol_size = 0
        symbols = b""
        metadata_offset = CODE_OFFSET + code_size
    else:
        symbol_offset = CODE_OFFSET + code_size
        symbols = b"".join(n + b"\0" for n in names)
        symbol_size = len(symbols)
        metadata_offset = symbol_offset + symbol_size
    first_name_at: dict[bytes, int] = {}
    position = 0
    for name in names:
        first_name_at.setdefault(name, symbol_offset + position)
        position += len(name) + 1
    records = [COUNT.pack(len(kernels))]
    cursor = 0
    for kernel, name in zip(kernels, names):
        x, y, z = kernel.workgroup_size
        name_offset = 0 if no_symbols else first_name_at[name]
        records.append(RECORD.pack(name_offset, kernel.register_count & _U32,
                                   kernel.local_memory & _U32, x & _U32, y & _U32, z & _U32,
                                   cursor, len(kernel.code)))
        cursor += len(kernel.code)
    metadata = b"".join(records)
    header = HEADER.pack(MAGIC, VERSION, 0, CODE_OFFSET, code_size, symbol_offset, symbol_size,
                         metadata_offset, len(metadata))
    return header + code + symbols + metadata


def read_wbin(data: bytes) -> WbinFile:
    """Parse and validate a `.wbin`. Raises `WbinError` (only) for anything wrong with it."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise WbinError(f"expected bytes, got {type(data).__name__}")
    data = bytes(data)
    try:
        return _read(data)
    except WbinError:
        raise
    except (struct.error, ValueError, IndexError, OverflowError) as err:  # pragma: no cover
        raise WbinError(f"malformed .wbin: {err}") from None


def _read(data: bytes) -> WbinFile:
    size = len(data)
    if size < HEADER_SIZE:
        raise WbinError(f"file too short: {size} bytes, a .wbin header needs {HEADER_SIZE}")
    (magic, version, flags, code_off, code_size, sym_off, sym_size, meta_off,
     meta_size) = HEADER.unpack_from(data, 0)
    if magic != MAGIC:
        raise WbinError(f"not a .wbin file: magic is {magic!r}, expected b'WAVE'")
    if version != VERSION:
        raise WbinError(f"unsupported .wbin version {version} (only version {VERSION} exists)")
    if flags:
        raise WbinError(f"unsupported header flags 0x{flags:04X} (no flags are defined)")
    if meta_off == 0:
        raise WbinError("metadata offset is 0: the kernel table is missing (a file written "
                        "by `wave-asm --no-symbols`?)")
    sections = [("code", code_off, code_size), ("symbol", sym_off, sym_size),
                ("metadata", meta_off, meta_size)]
    for name, offset, length in sections:
        if length and offset < HEADER_SIZE:
            raise WbinError(f"{name} section at 0x{offset:X} overlaps the {HEADER_SIZE}-byte "
                            "header")
        if offset + length > size:
            raise WbinError(f"{name} section 0x{offset:X}+{length} runs past the end of the "
                            f"file ({size} bytes)")
    present = sorted((o, o + n, name) for name, o, n in sections if n)
    for (_, end_a, a), (start_b, _, b) in zip(present, present[1:]):
        if start_b < end_a:
            raise WbinError(f"{a} and {b} sections overlap")
    if code_size % 4:
        raise WbinError(f"code size {code_size} is not a multiple of 4")
    if meta_size < COUNT.size:
        raise WbinError(f"metadata section of {meta_size} bytes has no kernel count")
    count = COUNT.unpack_from(data, meta_off)[0]
    expected = COUNT.size + RECORD.size * count
    if expected != meta_size:
        raise WbinError(f"invalid kernel count {count}: metadata of {meta_size} bytes holds "
                        f"{(meta_size - COUNT.size) // RECORD.size} kernel records")
    code = data[code_off:code_off + code_size]
    symbols = (sym_off, sym_size)
    kernels = [_kernel(data, meta_off + COUNT.size + i * RECORD.size, i, code, symbols)
               for i in range(count)]
    return WbinFile(version, flags, code_off, code_size, sym_off, sym_size, meta_off, meta_size,
                    code, kernels)


def _name(data: bytes, name_offset: int, index: int, symbols: tuple[int, int]) -> str:
    if name_offset == 0:
        return ""
    sym_off, sym_size = symbols
    if not sym_off <= name_offset < sym_off + sym_size:
        raise WbinError(f"kernel #{index}: name offset 0x{name_offset:X} lies outside the "
                        "symbol section")
    end = data.find(b"\0", name_offset, sym_off + sym_size)
    if end < 0:
        raise WbinError(f"kernel #{index}: name at 0x{name_offset:X} is not NUL-terminated "
                        "inside the symbol section")
    try:
        name = data[name_offset:end].decode("utf-8")
    except UnicodeDecodeError:
        raise WbinError(f"kernel #{index}: name at 0x{name_offset:X} is not valid UTF-8") \
            from None
    if not name.isprintable():  # line breaks, DEL, terminal escapes: never echoed raw
        raise WbinError(f"kernel #{index}: name at 0x{name_offset:X} holds characters that "
                        f"cannot be printed: {ascii(name)[:80]}")
    return name


def _kernel(data: bytes, record_at: int, index: int, code: bytes,
            symbols: tuple[int, int]) -> KernelCode:
    (name_offset, registers, local, wx, wy, wz, offset, length) = RECORD.unpack_from(
        data, record_at)
    name = _name(data, name_offset, index, symbols)
    label = f"kernel #{index}" + (f" '{name}'" if name else "")
    if offset % 4 or length % 4:
        raise WbinError(f"{label}: code offset {offset} and size {length} must be multiples "
                        "of 4")
    if offset + length > len(code):
        raise WbinError(f"{label}: code 0x{offset:X}+{length} runs past the code section "
                        f"({len(code)} bytes)")
    body = code[offset:offset + length]
    try:
        instructions = decode_words(body)
    except DecodeError as err:
        raise WbinError(f"{label}: {err}") from None
    return KernelCode(name, registers, local, (wx, wy, wz), offset, body, tuple(instructions))

"""The `.wbin` reader and writer: header layout, `--no-symbols`, and a clear `WbinError` for
every kind of bad file."""

from __future__ import annotations

import struct

import pytest

from wave_lsp.asm import WbinError, assemble, read_wbin, write_wbin
from wave_lsp.asm.disassembler import disassemble

SOURCE = ".kernel first\n.registers 4\n    mov_imm r1, 5\n    halt\n.end\n" \
         ".kernel second\n    nop\n    halt\n.end\n"
GOOD = assemble(SOURCE).wbin()


def _patch(data: bytes, offset: int, fmt: str, *values: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, *values)
    return bytes(out)


def test_header_fields():
    wbin = read_wbin(GOOD)
    assert (wbin.version, wbin.flags, wbin.code_offset, wbin.code_size) == (1, 0, 0x20, 20)
    assert wbin.symbol_offset == 0x34 and wbin.symbol_size == 13
    assert wbin.metadata_offset == 0x41 and wbin.metadata_size == 68
    assert wbin.code == GOOD[0x20:0x34]


def test_no_symbols_is_readable_with_correct_metadata_offset():
    data = assemble(SOURCE).wbin(no_symbols=True)
    wbin = read_wbin(data)
    assert (wbin.symbol_offset, wbin.symbol_size) == (0, 0)
    assert wbin.metadata_offset == 0x20 + wbin.code_size
    assert len(data) == 0x20 + 20 + 68
    meta = wbin.metadata_offset + 4
    assert [struct.unpack_from("<I", data, meta + 32 * i)[0] for i in range(2)] == [0, 0]
    assert [k.name for k in wbin.kernels] == ["", ""]
    assert [k.register_count for k in wbin.kernels] == [4, 32]
    text = disassemble(wbin)
    assert ".kernel kernel_0" in text and ".kernel kernel_1" in text
    assert assemble(text).wbin(no_symbols=True) == data


def test_writer_round_trips_reader():
    assert write_wbin(read_wbin(GOOD).kernels) == GOOD


UPSTREAM_NO_SYMBOLS = _patch(assemble(SOURCE).wbin(no_symbols=True), 0x18, "<I", 0)


@pytest.mark.parametrize("data, message", [
    (b"", "file too short: 0 bytes"),
    (GOOD[:31], "file too short: 31 bytes"),
    (b"WBIN" + GOOD[4:], "not a .wbin file: magic"),
    (_patch(GOOD, 4, "<H", 2), "unsupported .wbin version 2"),
    (_patch(GOOD, 6, "<H", 1), "unsupported header flags"),
    (UPSTREAM_NO_SYMBOLS, "metadata offset is 0"),
    (_patch(GOOD, 0x0C, "<I", 1000), "code section 0x20\\+1000 runs past the end"),
    (_patch(GOOD, 0x08, "<I", 4), "overlaps the 32-byte header"),
    (_patch(GOOD, 0x10, "<I", 0x30), "code and symbol sections overlap"),
    (_patch(GOOD, 0x1C, "<I", 60), "invalid kernel count 2"),
    (_patch(GOOD, 0x41, "<I", 0x7FFFFFFF), "invalid kernel count"),
    (_patch(GOOD, 0x45, "<I", 0x1000), "name offset 0x1000 lies outside the symbol section"),
    (_patch(GOOD, 0x45 + 24, "<I", 2), "multiples of 4"),
    (_patch(GOOD, 0x45 + 28, "<I", 400), "runs past the code section"),
    (_patch(GOOD, 0x23, "<B", 0xEE), "unknown opcode 0xEE"),
    (_patch(GOOD, 0x28, "<I", 0x3F010090), "halt: unused field rd is 1"),
    (_patch(GOOD, 0x2C, "<I", 0x1B0102C0), "opcode 0x1B has no modifier 12"),
    (_patch(GOOD, 0x2C, "<I", 0x3F0000F8), "reserved word0 bit 3"),
    (_patch(GOOD, 0x2C, "<I", 0x41011920), "unknown special register index 25"),
    (_patch(GOOD, 0x2C, "<I", 0x23FF0100), "register index 255"),
    (_patch(_patch(GOOD, 0x2C, "<I", 0x41010010), 0x45 + 60, "<I", 4),
     "kernel #1 'second': mov_imm: missing its second word at code offset 0x0000"),
    (_patch(GOOD, 0x3A, "<B", 0xFF), "is not valid UTF-8"),
])
def test_bad_files_are_reported(data, message):
    with pytest.raises(WbinError, match=message):
        read_wbin(data)


def test_reader_rejects_non_bytes():
    with pytest.raises(WbinError, match="expected bytes"):
        read_wbin("WAVE")  # type: ignore[arg-type]


def test_name_must_be_terminated():
    data = _patch(GOOD, 0x40, "<B", ord("x"))  # overwrite the NUL after "second"
    with pytest.raises(WbinError, match="not NUL-terminated"):
        read_wbin(data)


def test_wave_asm_cas_is_tolerated_and_shown():
    data = assemble(".kernel k\n    atomic_cas r1, r2, r3, r4, .device\n.end\n",
                    compat=True).wbin()
    (ins,) = read_wbin(data).kernels[0].instructions
    assert ins.spec.mnemonic == "atomic_add" and ins.rs3 == 4
    assert "atomic_cas r1, r2, r3, r4, .device" in disassemble(read_wbin(data), compat=True)
    default = disassemble(read_wbin(data))
    assert "atomic_add r1, r2, r3, .device" in default and "wave-asm's atomic_cas" in default

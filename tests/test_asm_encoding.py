"""Encoding tests: every example word of reference §2.9, the §3.5 worked example, and the
encoder's handling of guards, immediates, call targets, hints, scopes and errors in both modes."""

from __future__ import annotations

import struct

import pytest

from wave_lsp.asm import AssemblyError, assemble, read_wbin
from wave_lsp.isa import INSTRUCTIONS

# Reference §2.9: `example = words` (upstream wave-asm's output, i.e. compatibility mode), one
# row per mnemonic; rd=r1, rs1=r2, rs2=r3, rs3=r4, rs4=r5, pd=p1, ps=p2.
REFERENCE_EXAMPLES = """
iadd r1, r2, r3 = 00010200 03000000
isub r1, r2, r3 = 01010200 03000000
imul r1, r2, r3 = 02010200 03000000
imul_hi r1, r2, r3 = 03010200 03000000
imad r1, r2, r3, r4 = 04010200 03040000
idiv r1, r2, r3 = 05010200 03000000
imod r1, r2, r3 = 06010200 03000000
ineg r1, r2 = 07010200
iabs r1, r2 = 08010200
imin r1, r2, r3 = 09010200 03000000
imax r1, r2, r3 = 0A010200 03000000
iclamp r1, r2, r3, r4 = 0B010200 03040000
fadd r1, r2, r3 = 10010200 03000000
fsub r1, r2, r3 = 11010200 03000000
fmul r1, r2, r3 = 12010200 03000000
fma r1, r2, r3, r4 = 13010200 03040000
fdiv r1, r2, r3 = 14010200 03000000
fneg r1, r2 = 15010200
fabs r1, r2 = 16010200
fmin r1, r2, r3 = 17010200 03000000
fmax r1, r2, r3 = 18010200 03000000
fclamp r1, r2, r3, r4 = 19010200 03040000
fsqrt r1, r2 = 1A010200
frsqrt r1, r2 = 1B010200
frcp r1, r2 = 1B010210
ffloor r1, r2 = 1B010220
fceil r1, r2 = 1B010230
fround r1, r2 = 1B010240
ftrunc r1, r2 = 1B010250
ffract r1, r2 = 1B010260
fsat r1, r2 = 1B010270
fsin r1, r2 = 1B010280
fcos r1, r2 = 1B010290
fexp2 r1, r2 = 1B0102A0
flog2 r1, r2 = 1B0102B0
hadd r1, r2, r3 = 1C010200 03000000
hsub r1, r2, r3 = 1C010210 03000000
hmul r1, r2, r3 = 1C010220 03000000
hma r1, r2, r3, r4 = 1C010230 03040000
hadd2 r1, r2, r3 = 1D010200 03000000
hmul2 r1, r2, r3 = 1D010210 03000000
hma2 r1, r2, r3, r4 = 1D010220 03040000
badd r1, r2, r3 = 2D010200 03000000
bsub r1, r2, r3 = 2D010210 03000000
bmul r1, r2, r3 = 2D010220 03000000
bma r1, r2, r3, r4 = 2D010230 03040000
badd2 r1, r2, r3 = 2E010200 03000000
bmul2 r1, r2, r3 = 2E010210 03000000
bma2 r1, r2, r3, r4 = 2E010220 03040000
dadd r1, r2, r3 = 1E010200 03000000
dsub r1, r2, r3 = 1E010210 03000000
dmul r1, r2, r3 = 1E010220 03000000
dma r1, r2, r3, r4 = 1E010230 03040000
ddiv r1, r2, r3 = 1F010200 03000000
dsqrt r1, r2 = 1F010210
and r1, r2, r3 = 20010200 03000000
or r1, r2, r3 = 21010200 03000000
xor r1, r2, r3 = 22010200 03000000
not r1, r2 = 23010200
shl r1, r2, r3 = 24010200 03000000
shr r1, r2, r3 = 25010200 03000000
sar r1, r2, r3 = 26010200 03000000
bitcount r1, r2 = 27010200
bitfind r1, r2 = 27010210
bitrev r1, r2 = 27010220
bfe r1, r2, r3, r4 = 27010230 03040000
bfi r1, r2, r3, r4, r5 = 27010240 03040500
icmp_eq p1, r2, r3 = 28010200 03000000
icmp_ne p1, r2, r3 = 28010210 03000000
icmp_lt p1, r2, r3 = 28010220 03000000
icmp_le p1, r2, r3 = 28010230 03000000
icmp_gt p1, r2, r3 = 28010240 03000000
icmp_ge p1, r2, r3 = 28010250 03000000
ucmp_lt p1, r2, r3 = 29010220 03000000
ucmp_le p1, r2, r3 = 29010230 03000000
fcmp_eq p1, r2, r3 = 2A010200 03000000
fcmp_ne p1, r2, r3 = 2A010210 03000000
fcmp_lt p1, r2, r3 = 2A010220 03000000
fcmp_le p1, r2, r3 = 2A010230 03000000
fcmp_gt p1, r2, r3 = 2A010240 03000000
fcmp_ord p1, r2, r3 = 2A010260 03000000
fcmp_unord p1, r2, r3 = 2A010270 03000000
select r1, p2, r3, r4 = 2B010200 03040000
cvt_f32_i32 r1, r2 = 2C010200
cvt_f32_u32 r1, r2 = 2C010210
cvt_i32_f32 r1, r2 = 2C010220
cvt_u32_f32 r1, r2 = 2C010230
cvt_f32_f16 r1, r2 = 2C010240
cvt_f16_f32 r1, r2 = 2C010250
cvt_f32_f64 r1, r2 = 2C010260
cvt_f64_f32 r1, r2 = 2C010270
cvt_f32_bf16 r1, r2 = 2C010280
cvt_bf16_f32 r1, r2 = 2C010290
local_load_u8 r1, r2 = 30010200
local_load_u16 r1, r2 = 30010210
local_load_u32 r1, r2 = 30010220
local_load_u64 r1, r2 = 30010230
local_store_u8 r2, r3 = 31000200 03000000
local_store_u16 r2, r3 = 31000210 03000000
local_store_u32 r2, r3 = 31000220 03000000
local_store_u64 r2, r3 = 31000230 03000000
device_load_u8 r1, r2 = 38010200
device_load_u16 r1, r2 = 38010210
device_load_u32 r1, r2 = 38010220
device_load_u64 r1, r2 = 38010230
device_load_u128 r1, r2 = 38010240
device_store_u8 r2, r3 = 39000200 03000000
device_store_u16 r2, r3 = 39000210 03000000
device_store_u32 r2, r3 = 39000220 03000000
device_store_u64 r2, r3 = 39000230 03000000
device_store_u128 r2, r3 = 39000240 03000000
local_atomic_add r1, r2, r3 = 3C010200 03000000
local_atomic_sub r1, r2, r3 = 3C010210 03000000
local_atomic_min r1, r2, r3 = 3C010220 03000000
local_atomic_max r1, r2, r3 = 3C010230 03000000
local_atomic_and r1, r2, r3 = 3C010240 03000000
local_atomic_or r1, r2, r3 = 3C010250 03000000
local_atomic_xor r1, r2, r3 = 3C010260 03000000
local_atomic_exchange r1, r2, r3 = 3C010270 03000000
local_atomic_cas r1, r2, r3, r4 = 3C010200 03040000
atomic_add r1, r2, r3, .system = 3D010200 03000003
atomic_sub r1, r2, r3, .system = 3D010210 03000003
atomic_min r1, r2, r3, .system = 3D010220 03000003
atomic_max r1, r2, r3, .system = 3D010230 03000003
atomic_and r1, r2, r3, .system = 3D010240 03000003
atomic_or r1, r2, r3, .system = 3D010250 03000003
atomic_xor r1, r2, r3, .system = 3D010260 03000003
atomic_exchange r1, r2, r3, .system = 3D010270 03000003
atomic_cas r1, r2, r3, r4, .workgroup = 3D010200 03040001
wave_shuffle r1, r2, r3 = 3E010200 03000000
wave_shuffle_up r1, r2, r3 = 3E010210 03000000
wave_shuffle_down r1, r2, r3 = 3E010220 03000000
wave_shuffle_xor r1, r2, r3 = 3E010230 03000000
wave_broadcast r1, r2, r3 = 3E010240 03000000
wave_ballot r1, p2 = 3E010250
wave_any p1, p2 = 3E010260
wave_all p1, p2 = 3E010270
wave_prefix_sum r1, r2 = 3E010280
wave_reduce_add r1, r2 = 3E010290
wave_reduce_min r1, r2 = 3E0102A0
wave_reduce_max r1, r2 = 3E0102B0
mma_load_a r1, r2, r3 = 40010200 03000000
mma_load_b r1, r2, r3 = 40010210 03000000
mma_store_c r1, r2, r3 = 40010220 03000000
mma_compute r1, r2, r3 = 40010230 03000000
if p2 = 3F000200
else = 3F000010
endif = 3F000020
loop = 3F000030
break p2 = 3F000240
continue p2 = 3F000250
endloop = 3F000060
call tgt = 3F000070 00000008
return = 3F000080
halt = 3F000090
barrier = 3F0000A0
fence_acquire .device = 3F0000B0 00000002
fence_release .device = 3F0000C0 00000002
fence_acq_rel .device = 3F0000D0 00000002
wait = 3F0000E0
nop = 3F0000F0
mov r1, r2 = 41010200
mov_imm r1, 0x12345678 = 41010010 12345678
mov_sr r1, sr_lane_id = 41010420
"""

EXAMPLES = [(src.strip(), tuple(int(w, 16) for w in words.split()))
            for src, words in (row.rsplit(" = ", 1)
                               for row in REFERENCE_EXAMPLES.strip().splitlines())]


def words_of(source_line: str, compat: bool = False) -> tuple[int, ...]:
    """Assemble one instruction (with a `tgt:` label right after it) and return its words."""
    asm = assemble(f".kernel k\n    {source_line}\ntgt:\n.end\n", compat=compat)
    (ins,) = asm.kernels[0].instructions
    return (ins.word0,) if ins.word1 is None else (ins.word0, ins.word1)


def test_reference_table_covers_every_mnemonic():
    assert len(EXAMPLES) == 164
    assert {src.split()[0] for src, _ in EXAMPLES} == set(INSTRUCTIONS)


@pytest.mark.parametrize("source, expected", EXAMPLES, ids=[s for s, _ in EXAMPLES])
def test_reference_words_compat(source, expected):
    assert words_of(source, compat=True) == expected


@pytest.mark.parametrize("source, expected", EXAMPLES, ids=[s for s, _ in EXAMPLES])
def test_reference_words_default_mode_differs_only_for_cas(source, expected):
    got = words_of(source)
    mnemonic = source.split()[0]
    if mnemonic.endswith("atomic_cas"):
        assert got == (expected[0] | (8 << 4), expected[1])
    else:
        assert got == expected


WORKED_EXAMPLE = """\
.kernel first
.registers 4
.workgroup_size 8, 1, 1
.local_memory 256
    mov_imm r1, 5
    halt
.end
.kernel second
    nop
    halt
.end
"""


def _u32s(*values: int) -> bytes:
    return b"".join(struct.pack("<I", v) for v in values)


WORKED_BYTES = (
    b"WAVE" + bytes([1, 0, 0, 0])
    + _u32s(0x20, 20, 0x34, 13, 0x41, 68)
    + bytes.fromhex("10000141" "05000000" "9000003f" "f000003f" "9000003f")
    + b"first\0second\0"
    + _u32s(2)
    + _u32s(0x34, 4, 256, 8, 1, 1, 0, 12)
    + _u32s(0x3A, 32, 0, 0, 0, 0, 12, 8)
)


@pytest.mark.parametrize("compat", [False, True])
def test_worked_example_is_133_bytes(compat):
    data = assemble(WORKED_EXAMPLE, compat=compat).wbin()
    assert len(data) == 133
    assert data == WORKED_BYTES


def test_worked_example_reads_back():
    wbin = read_wbin(WORKED_BYTES)
    first, second = wbin.kernels
    assert (first.name, first.register_count, first.local_memory, first.workgroup_size) == \
        ("first", 4, 256, (8, 1, 1))
    assert (second.name, second.register_count, second.code_offset, len(second.code)) == \
        ("second", 32, 12, 8)
    assert [i.spec.mnemonic for i in second.instructions] == ["nop", "halt"]


def test_empty_source_is_a_36_byte_file():
    data = assemble("").wbin()
    assert data == b"WAVE" + bytes([1, 0, 0, 0]) + _u32s(0x20, 0, 0x20, 0, 0x20, 4, 0)


CALL_EXAMPLE = """\
.kernel k
    mov_imm r1, 1
    iadd r2, r1, r1
    call func
    mov_imm r5, 0
    device_store_u32 r5, r3
    halt
func:
    return
.end
"""


def _call_word1(source: str, compat: bool, kernel: int = 0) -> int:
    asm = assemble(source, compat=compat)
    (call,) = [i for i in asm.kernels[kernel].instructions if i.spec.mnemonic == "call"]
    return call.word1


def test_call_target_reference_example():
    # Reference §3.4: wave-asm emits 0x24 (its label pass), the label really is at 0x2C.
    assert _call_word1(CALL_EXAMPLE, compat=True) == 0x24
    assert _call_word1(CALL_EXAMPLE, compat=False) == 0x2C


def test_call_target_second_kernel():
    source = ".kernel a\n    iadd r1, r2, r3\n    halt\n.end\n" + CALL_EXAMPLE
    # default: relative to the calling kernel; compat: from the start of the code section
    assert _call_word1(source, compat=False, kernel=1) == 0x2C
    assert _call_word1(source, compat=True, kernel=1) == 0x24 + 4 + 4


@pytest.mark.parametrize("literal, default, compat", [
    ("1.5", 0x3FC00000, 0x00000000),
    ("3.14", 0x4048F5C3, 0x51EB851F),
    ("1e3", 0x447A0000, 0x00000000),
    ("-0.5", 0xBF000000, 0x00000000),
    ("1.", 0x3F800000, 0x00000000),
    ("1e39", 0x7F800000, struct.unpack("<Q", struct.pack("<d", 1e39))[0] & 0xFFFFFFFF),
])
def test_float_immediates(literal, default, compat):
    assert words_of(f"mov_imm r1, {literal}")[1] == default
    assert words_of(f"mov_imm r1, {literal}", compat=True)[1] == compat


@pytest.mark.parametrize("literal, word", [
    ("0", 0), ("-1", 0xFFFFFFFF), ("-2147483648", 0x80000000), ("4294967295", 0xFFFFFFFF),
    ("0x1_0", 0x10), ("1_000", 1000),
])
def test_integer_immediates(literal, word):
    assert words_of(f"mov_imm r1, {literal}")[1] == word


@pytest.mark.parametrize("literal", ["4294967296", "-2147483649"])
def test_immediate_out_of_range(literal):
    with pytest.raises(AssemblyError, match="out of range") as info:
        assemble(f".kernel k\n    mov_imm r1, {literal}\n.end\n")
    assert info.value.line == 1 and info.value.start == 16


@pytest.mark.parametrize("line, words", [
    ("@p0 iadd r1, r2, r3", (0x00010200, 0x03000000)),     # @p0 is no guard
    ("@!p0 iadd r1, r2, r3", (0x00010204, 0x03000000)),
    ("@p3 halt", (0x3F000093,)),
    ("@!p2 fcos r4, r1", (0x1B040196,)),
    ("mov r1, sr_lane_id", (0x41010420,)),                  # becomes mov_sr
    ("iadd r0, sr_lane_id, r1", (0x00000400, 0x01000000)),  # index encoded silently
    ("iadd r1.lo, r2.hi, r3", (0x00010200, 0x03000000)),
    ("device_load_u32.uncached r1, r2", (0x38010220,)),
    ("device_load_u32 .streaming r1, r2", (0x38010220,)),
    ("fence_acquire.workgroup", (0x3F0000B0, 0x00000001)),
    ("fence_release system", (0x3F0000C0, 0x00000003)),
    ("atomic_add r2, r3, .device", (0x3D000200, 0x03000002)),  # rd omitted: non-returning
    ("local_atomic_cas r2, r3, r4", (0x3C000280, 0x03040000)),
    ("iadd r254, r007, r3", (0x00FE0700, 0x03000000)),
])
def test_encoding_details(line, words):
    assert words_of(line) == words


@pytest.mark.parametrize("source, message", [
    ("    iadd r1, r2", "invalid operand count: expected 3, got 2"),
    ("    atomic_add r1, .device", "expected 4 or 3, got 2"),
    ("    iadd r1, r2, p1", "expected register operand"),
    ("    icmp_eq r1, r2, r3", "expected predicate register"),
    ("    mov_sr r1, r2", "expected special register"),
    ("    mov_imm r1, r2", "expected immediate operand"),
    ("    atomic_add r1, r2, r3, r4", "expected scope specifier"),
    ("    fence_acquire .cached", "expected scope specifier"),
    ("    iadd r255, r1, r2", "invalid register index 255"),
    ("    if p4", "invalid predicate register index 4"),
    ("    call nowhere", "undefined label 'nowhere'"),
    ("    frobnicate r1", "unknown instruction 'frobnicate'"),
    ("    atomic_add.device r1, r2, r3", "expected a new statement"),
    ("    iadd r1.xy, r2, r3", "invalid register suffix"),
])
def test_encoding_errors(source, message):
    with pytest.raises(AssemblyError, match=message) as info:
        assemble(f".kernel k\n{source}\n.end\n")
    assert info.value.line == 1
    assert 4 <= info.value.start < info.value.end <= len(source)


@pytest.mark.parametrize("source, message, line", [
    ("    nop\n", "instruction outside kernel", 0),
    (".kernel k\n    nop\n", "not closed with .end", 0),
    (".end\n", "expected .kernel before .end", 0),
    (".kernel k\na:\na:\n.end\n", "duplicate label 'a'", 2),
    (".kernel k\n.frob 1\n.end\n", "invalid directive", 1),
    (".kernel k\n.workgroup_size 256\n.end\n", "takes 3 argument", 1),
    (".kernel k\n    iadd r1, r2, [r3 + 4]\n.end\n", "expected register operand", 1),
    (".kernel k\n    iadd r1, r2, r3 )\n.end\n", "unexpected character", 1),
])
def test_structure_errors(source, message, line):
    with pytest.raises(AssemblyError, match=message) as info:
        assemble(source)
    assert info.value.line == line


def test_directives_apply_to_last_kernel_even_after_end():
    source = ".registers 9\n.kernel a\n.end\n.registers 300\n.local_memory -1\n"
    (kernel,) = assemble(source).kernels
    assert kernel.register_count == 300
    assert kernel.local_memory == 0xFFFFFFFF


def test_duplicate_kernel_names_share_the_first_name_offset():
    data = assemble(".kernel a\n    nop\n.end\n.kernel a\n    halt\n.end\n").wbin()
    wbin = read_wbin(data)
    assert [k.name for k in wbin.kernels] == ["a", "a"]
    meta = wbin.metadata_offset + 4
    first = struct.unpack_from("<I", data, meta)[0]
    second = struct.unpack_from("<I", data, meta + 32)[0]
    assert first == second == wbin.symbol_offset
    assert wbin.symbol_size == 4


def test_instructions_carry_lines_and_offsets():
    asm = assemble(CALL_EXAMPLE)
    ins = asm.kernels[0].instructions
    assert [i.line for i in ins] == [1, 2, 3, 4, 5, 6, 8]
    assert [i.offset for i in ins] == [0, 8, 16, 24, 32, 40, 44]

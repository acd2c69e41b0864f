"""Hover as a whole answer, in process (`ide.hover` through `check(fixture, expect)`)."""

from __future__ import annotations

from .fixture import check, expect
from .render import render_hover


def test_mnemonic():
    check(render_hover, """
.kernel k
    ia$0dd r1, r2, r3
    halt
.end
""", expect("""
mnemonic 'iadd' at 1:4-8
---
```wave
iadd rd, rs1, rs2
```
**Integer add** (integer)

**Operands**
- `rd`: register → field `rd`
- `rs1`: register → field `rs1`
- `rs2`: register → field `rs2`

**Semantics** `rd = (rs1 + rs2) mod 2^32`

**Encoding** opcode `0x00`, modifier 0, 8 bytes

**Spec** §6.2 Integer Arithmetic

---
**This instruction**: byte offset `0x0000` (0) in kernel `k`, 8 bytes: `00010200 03000000`

| field | bits | value | meaning |
|---|---|---|---|
| opcode | 31:24 | 0 | 0x00 (iadd) |
| rd | 23:16 | 1 | r1 |
| rs1 | 15:8 | 2 | r2 |
| modifier | 7:4 | 0 | iadd |
| pred | 2:0 | 0 | none (unconditional; @p0 also encodes as none) |
| rs2 | 31:24 | 3 | r3 |
| rs3 | 23:16 | 0 | unused |
| rs4 | 15:8 | 0 | unused |
| scope | 1:0 | 0 | unused |
"""))


def test_legacy_mnemonic_names_the_current_form():
    check(render_hover, """
.kernel k
    add.s3$02 r1, r2, r3
    halt
.end
""", expect("""
mnemonic 'add.s32' at 1:4-11
---
`add.s32` is obsolete syntax (spec v0.1 (PTX-like) form); write `iadd`

```wave
iadd rd, rs1, rs2
```
**Integer add** (integer)

**Operands**
- `rd`: register → field `rd`
- `rs1`: register → field `rs1`
- `rs2`: register → field `rs2`

**Semantics** `rd = (rs1 + rs2) mod 2^32`

**Encoding** opcode `0x00`, modifier 0, 8 bytes

**Spec** §6.2 Integer Arithmetic
"""))


def test_legacy_without_replacement():
    check(render_hover, """
.kernel k
    um$0in r1, r2, r3
    halt
.end
""", expect("""
mnemonic 'umin' at 1:4-8
---
`umin` is obsolete syntax (there is no umin: use ucmp_lt and select)
"""))


def test_register():
    check(render_hover, """
.kernel k
.registers 8
    iadd r$01, r2, r3
    halt
.end
""", expect("""
register 'r1' at 2:9-11
---
**`r1`** general-purpose register 1 (32 bits)

kernel `k` declares 8 registers (`.registers 8`)
"""))


def test_f64_register_pair():
    check(render_hover, """
.kernel k
    dadd r$02, r4, r6
    halt
.end
""", expect("""
register 'r2' at 1:9-11
---
**`r2`** general-purpose registers r2..r3: a 64-bit pair, r2 the low 32 bits and r3 the high ones

kernel `k` declares 32 registers (the default of 32 registers)
"""))


def test_u128_store_value():
    check(render_hover, """
.kernel k
    device_store_u128 r0, r$04
    halt
.end
""", expect("""
register 'r4' at 1:26-28
---
**`r4`** general-purpose registers r4..r7: 128 bits, r4 the lowest 32

kernel `k` declares 32 registers (the default of 32 registers)
"""))


def test_a_pair_past_the_declared_registers():
    check(render_hover, """
.kernel k
.registers 8
    dadd r6, r2, r$07
    halt
.end
""", expect("""
register 'r7' at 2:17-19
---
**`r7`** general-purpose registers r7..r8: a 64-bit pair, r7 the low 32 bits and r8 the high ones

**odd first register**: the spec (§3.3 Register Pairs) has a pair start at an even register

**beyond** `.registers 8` of kernel `k` (valid: r0..r7)
"""))


def test_pair_at_an_odd_register():
    check(render_hover, """
.kernel k
    cvt_f32_f64 r1, r$03
    halt
.end
""", expect("""
register 'r3' at 1:20-22
---
**`r3`** general-purpose registers r3..r4: a 64-bit pair, r3 the low 32 bits and r4 the high ones

**odd first register**: the spec (§3.3 Register Pairs) has a pair start at an even register

kernel `k` declares 32 registers (the default of 32 registers)
"""))


def test_a_single_register_beside_a_pair_instruction():
    check(render_hover, """
.kernel k
    device_store_u64 r$00, r2
    halt
.end
""", expect("""
register 'r0' at 1:21-23
---
**`r0`** general-purpose register 0 (32 bits)

kernel `k` declares 32 registers (the default of 32 registers)
"""))


def test_special_register():
    check(render_hover, """
.kernel k
    mov_sr r0, sr_la$0ne_id
    halt
.end
""", expect("""
special 'sr_lane_id' at 1:15-25
---
**`sr_lane_id`** special register 4 (read with `mov_sr`)

Position of the thread within its wave

**Range** 0 .. wave_width - 1

**Varies per** thread
"""))


def test_guard_predicate():
    check(render_hover, """
.kernel k
    @p$01 iadd r1, r2, r3
    halt
.end
""", expect("""
guard 'p1' at 1:5-7
---
**`p1`** predicate register (one bit per thread; p0..p3)
"""))


def test_directive():
    check(render_hover, """
.kernel k
.regis$0ters 16
    halt
.end
""", expect("""
directive 'registers' at 1:0-10
---
```wave
.registers N
```
Registers per thread the kernel needs (r0 .. rN-1); used for occupancy.

**Default** 32

Applies to the most recently opened kernel.
"""))


def test_scope_operand():
    check(render_hover, """
.kernel k
    atomic_add r1, r2, r3, .dev$0ice
    halt
.end
""", expect("""
scope '.device' at 1:27-34
---
**scope `.device`** (encoded 2): visible to all waves on the device
"""))


def test_label_reference():
    check(render_hover, """
.kernel k
    call f$0n
    halt
fn:
    return
.end
""", expect("""
label_reference 'fn' at 1:9-11
---
**label `fn`** defined on line 4

byte offset `0x000C` (12) in kernel `k`
"""))


def test_kernel_name():
    check(render_hover, """
.kernel ve$0c_add
    halt
.end
""", expect("""
kernel 'vec_add' at 0:8-15
---
**kernel `vec_add`**

| resource | value |
|---|---|
| registers declared | 32 (default) |
| registers used | none |
| local memory | 0 bytes |
| workgroup size | 0, 0, 0 (the launcher chooses) |
| code size | 4 bytes |
| wave width 32 | 4 resident waves = floor(16384 / (32 x 32 x 4)) |
| wave width 64 | 2 resident waves = floor(16384 / (32 x 64 x 4)) |
| ptx (Turing+ (SM 75+)) | W32: 4 resident waves |
| hip (RDNA (wave32/64) and CDNA (wave64)) | W64: 2 resident waves; W32: 4 resident waves |
| metal (Apple M1-M4, A-series) | W32: 4 resident waves |
| sycl (Intel Xe / Arc) | W8: 16 resident waves; W16: 8 resident waves; W32: 4 resident waves |
"""))


def test_legacy_special_register():
    check(render_hover, """
.kernel k
    mov r1, %ti$0d.x
    halt
.end
""", expect("""
special '%tid.x' at 1:12-18
---
`%tid.x` is PTX-style syntax of spec v0.1; write `sr_thread_id_x`

**`sr_thread_id_x`** special register 0 (read with `mov_sr`)

Thread position within the workgroup, x

**Range** 0 .. workgroup_size_x - 1

**Varies per** thread
"""))


def test_comment_has_no_hover():
    check(render_hover, """
.kernel k
    ; a com$0ment
    halt
.end
""", expect("""
no hover
"""))

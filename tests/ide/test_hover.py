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
| occupancy sm_75 (ptx: NVIDIA Turing) | workgroup size chosen at launch: at most 32 of 32 warps per SM (100%), limited by warps · 32 registers per thread (estimate: the kernel's `.registers`) |
| occupancy sm_90 (ptx: NVIDIA Hopper) | workgroup size chosen at launch: at most 64 of 64 warps per SM (100%), limited by warps · 32 registers per thread (estimate: the kernel's `.registers`) |
| occupancy gfx90a (hip: AMD CDNA2 (MI200), wave64) | workgroup size chosen at launch: at most 32 of 32 waves per CU (100%), limited by waves · 32 registers per thread (estimate: the kernel's `.registers`) |
| occupancy gfx1030 (hip: AMD RDNA2, wave32 in WGP mode) | workgroup size chosen at launch: at most 64 of 64 waves per WGP (100%), limited by waves · 32 registers per thread (estimate: the kernel's `.registers`) |
| occupancy apple (metal: Apple GPUs (M1-M4, A-series)) | Apple publishes no occupancy limits: no occupancy is claimed; within the per-threadgroup limits (1024 threads, 32 KiB threadgroup memory: the Metal Feature Set Tables' figures as commonly cited, an estimate) |
| occupancy xe-hpg (sycl: Intel Xe-HPG (Arc A-series)) | W8: workgroup size chosen at launch: at most 128 of 128 threads per Xe-core (100%), limited by threads · registers set no limit (a fixed GRF per hardware thread); W16: workgroup size chosen at launch: at most 128 of 128 threads per Xe-core (100%), limited by threads · registers set no limit (a fixed GRF per hardware thread); W32: workgroup size chosen at launch: at most 128 of 128 threads per Xe-core (100%), limited by threads · registers set no limit (a fixed GRF per hardware thread) |
| spec §2.4 minimum | W32: 4 waves = floor(16384 / (32 x 32 x 4)); W64: 2 waves = floor(16384 / (32 x 64 x 4)) (the specification's 16 KiB minimum register file, not a GPU's) |
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


def test_kernel_occupancy_of_the_issues_1024_thread_kernel():
    # 1024 threads x 32 registers: every architecture holds it at 100% (tests/test_occupancy.py
    # has the arithmetic); nothing reads "0 resident workgroups"
    check(render_hover, """
.kernel bi$0g
.registers 32
.workgroup_size 1024, 1, 1
    halt
.end
""", expect("""
kernel 'big' at 0:8-11
---
**kernel `big`**

| resource | value |
|---|---|
| registers declared | 32 |
| registers used | none |
| local memory | 0 bytes |
| workgroup size | 1024 x 1 x 1 = 1024 threads |
| code size | 4 bytes |
| wave width 32 | 32 waves per workgroup |
| wave width 64 | 16 waves per workgroup |
| occupancy sm_75 (ptx: NVIDIA Turing) | 1 workgroup per SM, 32 of 32 warps (100%), limited by warps · 32 registers per thread (estimate: the kernel's `.registers`) · workgroups allowed by warps 1, workgroups 16, registers 2 |
| occupancy sm_90 (ptx: NVIDIA Hopper) | 2 workgroups per SM, 64 of 64 warps (100%), limited by warps and registers · 32 registers per thread (estimate: the kernel's `.registers`) · workgroups allowed by warps 2, workgroups 32, registers 2, local memory 228 |
| occupancy gfx90a (hip: AMD CDNA2 (MI200), wave64) | 2 workgroups per CU, 32 of 32 waves (100%), limited by waves and registers · 32 registers per thread (estimate: the kernel's `.registers`) · workgroups allowed by waves 2, workgroups 16, registers 2 |
| occupancy gfx1030 (hip: AMD RDNA2, wave32 in WGP mode) | 2 workgroups per WGP, 64 of 64 waves (100%), limited by waves and registers · 32 registers per thread (estimate: the kernel's `.registers`) · workgroups allowed by waves 2, workgroups 32, registers 2 |
| occupancy apple (metal: Apple GPUs (M1-M4, A-series)) | Apple publishes no occupancy limits: no occupancy is claimed; within the per-threadgroup limits (1024 threads, 32 KiB threadgroup memory: the Metal Feature Set Tables' figures as commonly cited, an estimate) |
| occupancy xe-hpg (sycl: Intel Xe-HPG (Arc A-series)) | W8: 1 workgroup per Xe-core, 128 of 128 threads (100%), limited by threads · registers set no limit (a fixed GRF per hardware thread) · workgroups allowed by threads 1, workgroups 128; W16: 2 workgroups per Xe-core, 128 of 128 threads (100%), limited by threads · registers set no limit (a fixed GRF per hardware thread) · workgroups allowed by threads 2, workgroups 128; W32: 4 workgroups per Xe-core, 128 of 128 threads (100%), limited by threads · registers set no limit (a fixed GRF per hardware thread) · workgroups allowed by threads 4, workgroups 128 |
| spec §2.4 minimum | W32: 4 waves = floor(16384 / (32 x 32 x 4)); W64: 2 waves = floor(16384 / (32 x 64 x 4)) (the specification's 16 KiB minimum register file, not a GPU's) |
"""))

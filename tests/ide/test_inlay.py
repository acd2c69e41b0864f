"""Inlay hints as a whole answer, in process (`ide.inlay`: offsets before and encoded words
after each instruction)."""

from __future__ import annotations

from .fixture import check, expect
from .render import render_inlay


def test_simple_kernel():
    check(render_inlay, """
.kernel k
    iadd r1, r2, r3
    halt
.end
""", expect("""
1 offset:     ⟨0000⟩iadd r1, r2, r3
    tooltip: 'byte offset 0 in kernel k'
1 encoding:     iadd r1, r2, r3⟨00010200 03000000⟩
    tooltip: '8 bytes at offset 0'
2 offset:     ⟨0008⟩halt
    tooltip: 'byte offset 8 in kernel k'
2 encoding:     halt⟨3F000090⟩
    tooltip: '4 bytes at offset 8'
"""))


def test_eight_byte_instructions_move_the_offsets():
    check(render_inlay, """
.kernel k
    mov_imm r1, 0x12345678
    fma r1, r2, r3, r4
    halt
.end
""", expect("""
1 offset:     ⟨0000⟩mov_imm r1, 0x12345678
    tooltip: 'byte offset 0 in kernel k'
1 encoding:     mov_imm r1, 0x12345678⟨41010010 12345678⟩
    tooltip: '8 bytes at offset 0'
2 offset:     ⟨0008⟩fma r1, r2, r3, r4
    tooltip: 'byte offset 8 in kernel k'
2 encoding:     fma r1, r2, r3, r4⟨13010200 03040000⟩
    tooltip: '8 bytes at offset 8'
3 offset:     ⟨0010⟩halt
    tooltip: 'byte offset 16 in kernel k'
3 encoding:     halt⟨3F000090⟩
    tooltip: '4 bytes at offset 16'
"""))


def test_offsets_restart_in_each_kernel():
    check(render_inlay, """
.kernel a
    nop
    halt
.end
.kernel b
    halt
.end
""", expect("""
1 offset:     ⟨0000⟩nop
    tooltip: 'byte offset 0 in kernel a'
1 encoding:     nop⟨3F0000F0⟩
    tooltip: '4 bytes at offset 0'
2 offset:     ⟨0004⟩halt
    tooltip: 'byte offset 4 in kernel a'
2 encoding:     halt⟨3F000090⟩
    tooltip: '4 bytes at offset 4'
5 offset:     ⟨0000⟩halt
    tooltip: 'byte offset 0 in kernel b'
5 encoding:     halt⟨3F000090⟩
    tooltip: '4 bytes at offset 0'
"""))


def test_directives_and_labels_have_no_hints():
    check(render_inlay, """
.kernel k
.registers 8
.workgroup_size 64, 1, 1
top:
    halt
.end
""", expect("""
4 offset:     ⟨0000⟩halt
    tooltip: 'byte offset 0 in kernel k'
4 encoding:     halt⟨3F000090⟩
    tooltip: '4 bytes at offset 0'
"""))


def test_call_target():
    check(render_inlay, """
.kernel k
    call fn
    halt
fn:
    return
.end
""", expect("""
1 offset:     ⟨0000⟩call fn
    tooltip: 'byte offset 0 in kernel k'
1 encoding:     call fn⟨3F000070 0000000C⟩
    tooltip: '8 bytes at offset 0'
2 offset:     ⟨0008⟩halt
    tooltip: 'byte offset 8 in kernel k'
2 encoding:     halt⟨3F000090⟩
    tooltip: '4 bytes at offset 8'
4 offset:     ⟨000c⟩return
    tooltip: 'byte offset 12 in kernel k'
4 encoding:     return⟨3F000080⟩
    tooltip: '4 bytes at offset 12'
"""))


def test_a_bad_line_gets_no_encoding():
    check(render_inlay, """
.kernel k
    iadd r1, r2
    halt
.end
""", expect("""
1 offset:     ⟨0000⟩iadd r1, r2
    tooltip: 'byte offset 0 in kernel k'
2 offset:     ⟨0008⟩halt
    tooltip: 'byte offset 8 in kernel k'
2 encoding:     halt⟨3F000090⟩
    tooltip: '4 bytes at offset 8'
"""))


def test_legacy_mnemonic():
    check(render_inlay, """
.kernel k
    add.s32 r1, r2, r3
    halt
.end
""", expect("""
2 offset:     ⟨0000⟩halt
    tooltip: 'byte offset 0 in kernel k'
2 encoding:     halt⟨3F000090⟩
    tooltip: '4 bytes at offset 0'
"""))


def test_atomic_cas_encodes_its_modifier():
    check(render_inlay, """
.kernel k
    atomic_cas r1, r2, r3, r4, .device
    halt
.end
""", expect("""
1 offset:     ⟨0000⟩atomic_cas r1, r2, r3, r4, .device
    tooltip: 'byte offset 0 in kernel k'
1 encoding:     atomic_cas r1, r2, r3, r4, .device⟨3D010280 03040002⟩
    tooltip: '8 bytes at offset 0'
2 offset:     ⟨0008⟩halt
    tooltip: 'byte offset 8 in kernel k'
2 encoding:     halt⟨3F000090⟩
    tooltip: '4 bytes at offset 8'
"""))


def test_float_immediate():
    check(render_inlay, """
.kernel k
    mov_imm r1, 1.5
    halt
.end
""", expect("""
1 offset:     ⟨0000⟩mov_imm r1, 1.5
    tooltip: 'byte offset 0 in kernel k'
1 encoding:     mov_imm r1, 1.5⟨41010010 3FC00000⟩
    tooltip: '8 bytes at offset 0'
2 offset:     ⟨0008⟩halt
    tooltip: 'byte offset 8 in kernel k'
2 encoding:     halt⟨3F000090⟩
    tooltip: '4 bytes at offset 8'
"""))


def test_empty_document():
    check(render_inlay, "", expect("""
no hints
"""))


def test_guarded_instruction():
    check(render_inlay, """
.kernel k
    @!p2 isub r5, r6, r7
    halt
.end
""", expect("""
1 offset:     ⟨0000⟩@!p2 isub r5, r6, r7
    tooltip: 'byte offset 0 in kernel k'
1 encoding:     @!p2 isub r5, r6, r7⟨01050606 07000000⟩
    tooltip: '8 bytes at offset 0'
2 offset:     ⟨0008⟩halt
    tooltip: 'byte offset 8 in kernel k'
2 encoding:     halt⟨3F000090⟩
    tooltip: '4 bytes at offset 8'
"""))

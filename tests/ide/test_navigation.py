"""Go to definition, find references, document highlight and rename as whole answers, in
process (`ide.navigation`): labels, kernels and registers."""

from __future__ import annotations

from .fixture import check, expect
from .render import render_navigation, render_rename

LOOP = """
.kernel k
.registers 8
    mov_imm r1, 0
    mov_imm r2, 4
top:
    iadd r1, r1, r2
    icmp_lt p1, r1, r2
@p1 jmp to$0p
    device_store_u32 r2, r1
    halt
.end
"""


def test_a_label_reference():
    check(render_navigation, LOOP, expect("""
label top at 7:8-11
definitions:
4:0-3 'top' in 'top:'
references:
4:0-3 'top' in 'top:'
7:8-11 'top' in '@p1 jmp top'
highlights:
4:0-3 'top' in 'top:' write
7:8-11 'top' in '@p1 jmp top' read
"""))


def test_a_register_read_reaches_its_writes():
    check(render_navigation, """
.kernel k
.registers 8
    mov_imm r1, 0
    icmp_lt p1, r1, r2
    if p1
        mov_imm r1, 5
    endif
    device_store_u32 r2, r$01
    halt
.end
""", expect("""
register r1 at 7:25-27
definitions:
2:12-14 'r1' in 'mov_imm r1, 0'
5:16-18 'r1' in 'mov_imm r1, 5'
references:
2:12-14 'r1' in 'mov_imm r1, 0'
3:16-18 'r1' in 'icmp_lt p1, r1, r2'
5:16-18 'r1' in 'mov_imm r1, 5'
7:25-27 'r1' in 'device_store_u32 r2, r1'
highlights:
2:12-14 'r1' in 'mov_imm r1, 0' write
3:16-18 'r1' in 'icmp_lt p1, r1, r2' read
5:16-18 'r1' in 'mov_imm r1, 5' write
7:25-27 'r1' in 'device_store_u32 r2, r1' read
"""))


def test_a_kernel_name():
    check(render_navigation, """
.kernel ma$0in
.registers 4
    halt
.end
""", expect("""
kernel main at 0:8-12
definitions:
0:8-12 'main' in '.kernel main'
references:
0:8-12 'main' in '.kernel main'
highlights:
0:8-12 'main' in '.kernel main' write
"""))


def test_nothing_to_navigate_on_a_mnemonic():
    check(render_navigation, """
.kernel k
    ha$0lt
.end
""", expect("""
no symbol
"""))


def test_renaming_a_label_edits_its_definition_and_uses():
    check(lambda fx: render_rename(fx, "again"), LOOP, expect("""
.kernel k
.registers 8
    mov_imm r1, 0
    mov_imm r2, 4
again:
    iadd r1, r1, r2
    icmp_lt p1, r1, r2
@p1 jmp again
    device_store_u32 r2, r1
    halt
.end
"""))


def test_renaming_to_an_invalid_name_is_refused():
    check(lambda fx: render_rename(fx, "9x"), LOOP, expect("""
refused: cannot rename label 'top' to '9x': '9x' is not a valid name
"""))

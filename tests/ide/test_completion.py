"""Completion as a whole answer, in process (`ide.completion` and the launch-line flags of
`ide.launch_lines`): the context at the cursor and every choice offered there."""

from __future__ import annotations

from .fixture import check, expect
from .render import render_completion


def test_start_of_a_line_is_a_mnemonic():
    check(render_completion, """
.kernel k
    ia$0
.end
""", expect("""
context mnemonic, word from column 4 (incomplete: asked again as the word grows)
iabs | mnemonic | Integer absolute value
iadd | mnemonic | Integer add
and | mnemonic | Bitwise AND
atomic_add | mnemonic | Atomic add on device memory
atomic_and | mnemonic | Atomic AND on device memory
atomic_cas | mnemonic | Atomic compare-and-swap on device memory
atomic_exchange | mnemonic | Atomic exchange on device memory
atomic_max | mnemonic | Atomic unsigned maximum on device memory
… 156 more
"""))


def test_directive():
    check(render_completion, """
.kernel k
.reg$0
.end
""", expect("""
context directive, word from column 0
.kernel | directive | Open a kernel: its code starts here, and its name goes into the .wbin symbol table. | dotted
.end | directive | Close the open kernel; its code size is the code emitted since .kernel. | dotted
.registers | directive | Registers per thread the kernel needs (r0 .. rN-1); used for occupancy. | dotted
.local_memory | directive | Bytes of local (workgroup-shared) memory the kernel needs. | dotted
.workgroup_size | directive | Threads per workgroup in x, y and z; 0, 0, 0 lets the launcher choose. | dotted
"""))


def test_guard_predicate():
    check(render_completion, """
.kernel k
    @$0
.end
""", expect("""
context predicate, word from column 5
p0 | predicate | guard predicate
p1 | predicate | guard predicate
p2 | predicate | guard predicate
p3 | predicate | guard predicate
"""))


def test_register_operand_follows_registers_directive():
    check(render_completion, """
.kernel k
.registers 6
    iadd r1, $0
.end
""", expect("""
context operand, word from column 13, iadd operand 1
r0..r5 | register | rs1: register | sorted by number
"""))


def test_predicate_destination():
    check(render_completion, """
.kernel k
    icmp_lt $0
.end
""", expect("""
context operand, word from column 12, icmp_lt operand 0
p0 | predicate | pd: predicate
p1 | predicate | pd: predicate
p2 | predicate | pd: predicate
p3 | predicate | pd: predicate
"""))


def test_special_register_operand():
    check(render_completion, """
.kernel k
.registers 2
    mov_sr r1, $0
.end
""", expect("""
context operand, word from column 15, mov_sr operand 1
sr_thread_id_x | special | Thread position within the workgroup, x | documentation='0 .. workgroup_size_x - 1'
sr_thread_id_y | special | Thread position within the workgroup, y | documentation='0 .. workgroup_size_y - 1'
sr_thread_id_z | special | Thread position within the workgroup, z | documentation='0 .. workgroup_size_z - 1'
sr_wave_id | special | Index of the wave within the workgroup | documentation='0 .. num_waves - 1'
sr_lane_id | special | Position of the thread within its wave | documentation='0 .. wave_width - 1'
sr_workgroup_id_x | special | Workgroup position within the grid, x | documentation='0 .. grid_size_x - 1'
sr_workgroup_id_y | special | Workgroup position within the grid, y | documentation='0 .. grid_size_y - 1'
sr_workgroup_id_z | special | Workgroup position within the grid, z | documentation='0 .. grid_size_z - 1'
sr_workgroup_size_x | special | Workgroup dimension x (threads) | documentation='1 .. MAX_WORKGROUP_SIZE'
sr_workgroup_size_y | special | Workgroup dimension y (threads) | documentation='1 .. MAX_WORKGROUP_SIZE'
sr_workgroup_size_z | special | Workgroup dimension z (threads) | documentation='1 .. MAX_WORKGROUP_SIZE'
sr_grid_size_x | special | Grid dimension x, counted in workgroups | documentation='>= 1'
sr_grid_size_y | special | Grid dimension y, counted in workgroups | documentation='>= 1'
sr_grid_size_z | special | Grid dimension z, counted in workgroups | documentation='>= 1'
sr_wave_width | special | Threads per wave (W) | documentation='1 .. 64 (spec minimum 8)'
sr_num_waves | special | Number of waves in the workgroup | documentation='ceil(workgroup threads / W)'
sr_mma_supported | special | 1 when matrix multiply-accumulate is available | documentation='0 or 1'
sr_mma_m | special | MMA tile dimension M | documentation='4 in the reference emulator'
sr_mma_n | special | MMA tile dimension N | documentation='4 in the reference emulator'
sr_mma_k | special | MMA tile dimension K | documentation='4 in the reference emulator'
"""))


def test_label_operand():
    check(render_completion, """
.kernel k
    call $0
    halt
helper:
    return
other:
    return
.end
""", expect("""
context operand, word from column 9, call operand 0
helper | label | label, line 4
other | label | label, line 6
"""))


def test_scope_operand():
    check(render_completion, """
.kernel k
.registers 4
    atomic_add r1, r2, r3, $0
.end
""", expect("""
context operand, word from column 27, atomic_add operand 3
.wave | scope | visible within the executing wave | dotted
.workgroup | scope | visible to all waves of the workgroup | dotted
.device | scope | visible to all waves on the device | dotted
.system | scope | visible to the device and the host CPU | dotted
"""))


def test_past_the_last_operand():
    check(render_completion, """
.kernel k
    halt $0
.end
""", expect("""
context operand, word from column 9, halt operand 0
no choices
"""))


def test_launch_line_flags():
    check(render_completion, """
; wave-lsp run: --gr$0
.kernel k
    halt
.end
""", expect("""
--grid | workgroups per dimension X,Y,Z
"""))


def test_launch_line_value_is_not_a_flag():
    check(render_completion, """
; wave-lsp run: --grid 4$0
.kernel k
    halt
.end
""", expect("""
context none, word from column 24
no choices
"""))


def test_inside_a_comment():
    check(render_completion, """
.kernel k
    halt ; note $0
.end
""", expect("""
context none, word from column 16
no choices
"""))

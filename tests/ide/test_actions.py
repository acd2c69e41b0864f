"""Code actions as a whole answer, in process (`ide.actions` over the analysis's fixes): the
quick fixes of the range between the markers and "convert all legacy syntax"."""

from __future__ import annotations

from .fixture import check, expect
from .render import render_actions


def test_legacy_mnemonic():
    check(render_actions, """
.kernel k
    $0add.s32 r1, r2, r3
    halt
.end
""", expect("""
quickfix (preferred): Replace with 'iadd'
  for L401 at 1:4-1:11: 'add.s32' is obsolete (spec v0.1 (PTX-like) form); the current form is 'iadd'
    1:4-1:11 -> 'iadd'
source.convertLegacySyntax: Convert all legacy syntax in this file (1 edits)
    1:4-1:11 -> 'iadd'
"""))


def test_upper_case_mnemonic():
    check(render_actions, """
.kernel k
    IA$0DD r1, r2, r3
    halt
.end
""", expect("""
quickfix (preferred): Replace with 'iadd'
  for L409 at 1:4-1:8: mnemonics are lower-case: write 'iadd'
    1:4-1:8 -> 'iadd'
source.convertLegacySyntax: Convert all legacy syntax in this file (1 edits)
    1:4-1:8 -> 'iadd'
"""))


def test_dotted_suffix():
    check(render_actions, """
.kernel k
    icmp.l$0t p1, r1, r2
    halt
.end
""", expect("""
quickfix (preferred): Replace with 'icmp_lt'
  for L405 at 1:4-1:11: 'icmp.lt' is written 'icmp_lt' in current WAVE assembly
    1:4-1:11 -> 'icmp_lt'
source.convertLegacySyntax: Convert all legacy syntax in this file (1 edits)
    1:4-1:11 -> 'icmp_lt'
"""))


def test_misspelt_mnemonic():
    check(render_actions, """
.kernel k
    iadx$0 r1, r2, r3
    halt
.end
""", expect("""
quickfix (preferred): Replace with 'iadd'
  for O201 at 1:4-1:8: unknown instruction 'iadx'; did you mean 'iadd'?
    1:4-1:8 -> 'iadd'
"""))


def test_operands_swapped():
    check(render_actions, """
.kernel k
    fcmp_g$0e p1, r1, r2
    halt
.end
""", expect("""
quickfix (preferred): Replace with 'fcmp_le'
  for L401 at 1:4-1:11: 'fcmp_ge' is obsolete (there is no fcmp_ge: swap the operands of fcmp_le); the current form is 'fcmp_le'
    1:4-1:11 -> 'fcmp_le'
    1:12-1:22 -> 'p1, r2, r1'
source.convertLegacySyntax: Convert all legacy syntax in this file (2 edits)
    1:4-1:11 -> 'fcmp_le'
    1:12-1:22 -> 'p1, r2, r1'
"""))


def test_scope_appended():
    check(render_actions, """
.kernel k
    atom.global.add.u32$0 r1, r2, r3
    halt
.end
""", expect("""
quickfix (preferred): Replace with 'atomic_add'
  for L401 at 1:4-1:23: 'atom.global.add.u32' is obsolete (spec v0.1 (PTX-like) form; device atomics take a scope); the current form is 'atomic_add'
    1:4-1:23 -> 'atomic_add'
    1:34-1:34 -> ', .device'
source.convertLegacySyntax: Convert all legacy syntax in this file (2 edits)
    1:4-1:23 -> 'atomic_add'
    1:34-1:34 -> ', .device'
"""))


def test_legacy_special_register():
    check(render_actions, """
.kernel k
    mov r1, %tid$0.x
    halt
.end
""", expect("""
quickfix (preferred): Replace with 'sr_thread_id_x'
  for L403 at 1:12-1:18: '%tid.x' is spec v0.1 syntax; the special register is 'sr_thread_id_x'
    1:12-1:18 -> 'sr_thread_id_x'
source.convertLegacySyntax: Convert all legacy syntax in this file (1 edits)
    1:12-1:18 -> 'sr_thread_id_x'
"""))


def test_a_range_over_several_lines():
    check(render_actions, """
.kernel k
    $0add.s32 r1, r2, r3
    sub.s32 r1, r1, r2$0
    halt
.end
""", expect("""
quickfix (preferred): Replace with 'iadd'
  for L401 at 1:4-1:11: 'add.s32' is obsolete (spec v0.1 (PTX-like) form); the current form is 'iadd'
    1:4-1:11 -> 'iadd'
quickfix (preferred): Replace with 'isub'
  for L401 at 2:4-2:11: 'sub.s32' is obsolete (spec v0.1 (PTX-like) form); the current form is 'isub'
    2:4-2:11 -> 'isub'
source.convertLegacySyntax: Convert all legacy syntax in this file (2 edits)
    1:4-1:11 -> 'iadd'
    2:4-2:11 -> 'isub'
"""))


def test_elsewhere_only_the_file_wide_conversion():
    check(render_actions, """
.kernel k
    add.s32 r1, r2, r3
    nop$0
    halt
.end
""", expect("""
source.convertLegacySyntax: Convert all legacy syntax in this file (1 edits)
    1:4-1:11 -> 'iadd'
"""))


def test_a_clean_file_has_no_actions():
    check(render_actions, """
.kernel k
    iad$0d r1, r2, r3
    halt
.end
""", expect("""
no actions
"""))


def test_an_offset_in_brackets_has_no_mechanical_fix():
    check(render_actions, """
.kernel k
    device_load_u32 r1, [r2 + 16]$0
    halt
.end
""", expect("""
no actions
"""))


def test_brackets_around_an_address():
    check(render_actions, """
.kernel k
    ld.global.b32 r1, [r2]$0
    halt
.end
""", expect("""
quickfix (preferred): Replace with 'r2'
  for L402 at 1:22-1:26: memory operands have no brackets: write 'r2'
    1:22-1:26 -> 'r2'
source.convertLegacySyntax: Convert all legacy syntax in this file (2 edits)
    1:4-1:17 -> 'device_load_u32'
    1:22-1:26 -> 'r2'
"""))

"""Registers as symbols (ide.navigation over analysis.reaching): go to definition gives the
writes that reach a read, references and highlights every read and write of the register in its
kernel, rename checks its target. Whole answers, `check(fixture, expect)` style."""

from __future__ import annotations

from wave_lsp.ide.navigation import definitions, highlights, references, rename, symbol_at

from .fixture import Fixture, check, expect


def _show(fx: Fixture, places) -> list[str]:
    out = []
    for line, start, end, *rest in places:
        text = fx.text.split("\n")[line]
        mark = f"{text[:start]}[{text[start:end]}]{text[end:]}".strip()
        kind = ("write " if rest[0] else "read  ") if rest else ""
        out.append(f"{line}: {kind}{mark}")
    return out


def definition(fx: Fixture) -> str:
    state = fx.state()
    symbol = symbol_at(state, *fx.cursor)
    if symbol is None:
        return "no symbol\n"
    return "\n".join([symbol.name, *_show(fx, definitions(state, symbol))]) + "\n"


def highlight(fx: Fixture) -> str:
    state = fx.state()
    symbol = symbol_at(state, *fx.cursor)
    assert [p[:3] for p in highlights(state, symbol)] == references(state, symbol, True)
    return "\n".join(_show(fx, highlights(state, symbol))) + "\n"


def renamed(new: str):
    def render(fx: Fixture) -> str:
        state = fx.state()
        problem, edits = rename(state, symbol_at(state, *fx.cursor), new)
        if problem:
            return problem + "\n"
        lines = fx.text.split("\n")
        for line, start, end, text in sorted(edits, reverse=True):
            lines[line] = lines[line][:start] + text + lines[line][end:]
        return "\n".join(lines)
    return render


def test_definition_straight_line_is_the_last_write():
    check(definition, """
.kernel k
    mov_imm r1, 1
    mov_imm r1, 2
    iadd r2, r$01, r1
    halt
.end
""", expect("""
r1
2: mov_imm [r1], 2
"""))


def test_definition_after_if_else_is_both_sides():
    check(definition, """
.kernel k
    mov_imm r1, 0
    if p1
    mov_imm r1, 1
    else
    mov_imm r1, 2
    endif
    iadd r2, $0r1, r1
    halt
.end
""", expect("""
r1
3: mov_imm [r1], 1
5: mov_imm [r1], 2
"""))


def test_definition_after_if_without_else_includes_the_write_before():
    check(definition, """
.kernel k
    mov_imm r1, 0
    if p1
    mov_imm r1, 1
    endif
    iadd r2, r1$0, r1
    halt
.end
""", expect("""
r1
1: mov_imm [r1], 0
3: mov_imm [r1], 1
"""))


def test_definition_in_a_loop_includes_the_back_edge_and_continue():
    check(definition, """
.kernel k
    mov_imm r1, 0
    loop
    iadd r2, r$01, r1
    mov_imm r1, 5
    continue p2
    break p1
    iadd r1, r1, r2
    endloop
    halt
.end
""", expect("""
r1
1: mov_imm [r1], 0
4: mov_imm [r1], 5
7: iadd [r1], r1, r2
"""))


def test_definition_after_a_loop_is_what_reaches_its_breaks():
    check(definition, """
.kernel k
    mov_imm r1, 0
    loop
    mov_imm r1, 3
    break p1
    mov_imm r1, 4
    endloop
    iadd r2, r$01, r1
    halt
.end
""", expect("""
r1
3: mov_imm [r1], 3
"""))


def test_definition_through_a_guarded_write_keeps_the_earlier_one():
    check(definition, """
.kernel k
    mov_imm r1, 0
    @p1 mov_imm r1, 1
    iadd r2, r$01, r1
    @p1 iadd r3, r1, r1
    halt
.end
""", expect("""
r1
1: mov_imm [r1], 0
2: @p1 mov_imm [r1], 1
"""))


def test_definition_under_the_same_guard_is_the_guarded_write():
    check(definition, """
.kernel k
    mov_imm r1, 0
    @p1 mov_imm r1, 1
    @p1 iadd r3, r$01, r1
    halt
.end
""", expect("""
r1
2: @p1 mov_imm [r1], 1
"""))


def test_definition_of_a_pair_read_covers_both_registers():
    check(definition, """
.kernel k
    mov_imm r2, 0
    mov_imm r3, 0
    dadd r4, r$02, r2
    halt
.end
""", expect("""
r2
1: mov_imm [r2], 0
2: mov_imm [r3], 0
"""))


def test_definition_of_the_high_half_comes_from_a_pair_write():
    check(definition, """
.kernel k
    dadd r2, r4, r4
    iadd r1, r$03, r3
    halt
.end
""", expect("""
r3
1: dadd [r2], r4, r4
"""))


def test_definition_of_an_argument_is_its_statement():
    check(definition, """
; wave-lsp run: --set-reg 0:64 --dump-u32 0:1
.kernel k
    ; wave-lsp args: r1
    iadd r2, r$00, r1
    halt
.end
""", expect("""
r0
0: ; wave-lsp run: --set-reg [0]:64 --dump-u32 0:1
"""))


def test_definition_of_a_read_nothing_writes_is_empty():
    check(definition, """
.kernel k
    iadd r2, r$05, r5
    halt
.end
""", expect("""
r5
"""))


def test_highlight_marks_reads_and_writes_of_overlapping_operands():
    check(highlight, """
.kernel k
    mov_imm r$03, 1
    dadd r2, r4, r4
    iadd r1, r3, r3
    iadd r3, r1, r2
    halt
.end
""", expect("""
1: write mov_imm [r3], 1
2: write dadd [r2], r4, r4
3: read  iadd r1, [r3], r3
3: read  iadd r1, r3, [r3]
4: write iadd [r3], r1, r2
"""))


def test_highlight_stays_in_the_kernel():
    check(highlight, """
.kernel a
    mov_imm r1, 1
    halt
.end
.kernel b
    mov_imm r$01, 2
    iadd r2, r1, r1
    halt
.end
""", expect("""
5: write mov_imm [r1], 2
6: read  iadd r2, [r1], r1
6: read  iadd r2, r1, [r1]
"""))


def test_rename_rewrites_the_kernel_and_its_stated_arguments():
    check(renamed("r9"), """
.kernel a
    ; wave-lsp run: --set-reg r4:8
    ; wave-lsp args: r4
    iadd r4, r$04, r1
    halt
.end
.kernel b
    iadd r4, r4, r1
    halt
.end
""", expect("""
.kernel a
    ; wave-lsp run: --set-reg r9:8
    ; wave-lsp args: r9
    iadd r9, r9, r1
    halt
.end
.kernel b
    iadd r4, r4, r1
    halt
.end
"""))


def test_rename_moves_a_pair_that_starts_at_the_register():
    check(renamed("r6"), """
.kernel k
    mov_imm r$02, 0
    mov_imm r3, 0
    dadd r2, r2, r2
    halt
.end
""", expect("""
cannot rename r2 to 'r6': r2 starts a group of 2 registers, and r3 on line 3 uses one of them on its own
"""))
    check(renamed("r6"), """
.kernel k
    dadd r$02, r4, r4
    dadd r8, r2, r2
    halt
.end
""", expect("""
.kernel k
    dadd r6, r4, r4
    dadd r8, r6, r6
    halt
.end
"""))


def test_rename_refuses_the_high_half_of_a_pair():
    check(renamed("r6"), """
.kernel k
    dadd r2, r4, r4
    iadd r1, r$03, r3
    halt
.end
""", expect("""
cannot rename r3 to 'r6': r3 is part of the pair r2:r3 (line 2); rename r2 instead
"""))


def test_rename_refuses_a_used_register_one_beyond_registers_and_a_non_register():
    source = """
.kernel k
.registers 8
    mov_imm r$01, 1
    iadd r2, r1, r1
    halt
.end
"""
    check(renamed("r2"), source, expect("""
cannot rename r1 to 'r2': r2 is already used in kernel 'k'
"""))
    check(renamed("r8"), source, expect("""
cannot rename r1 to 'r8': r8 is beyond the kernel's 8 registers (.registers)
"""))
    check(renamed("p1"), source, expect("""
cannot rename r1 to 'p1': 'p1' is not a register (r0..r254)
"""))
    check(renamed("r7"), source, expect("""
.kernel k
.registers 8
    mov_imm r7, 1
    iadd r2, r7, r7
    halt
.end
"""))

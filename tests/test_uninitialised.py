"""Reads before writes, found from the source (analysis/uninitialised.py: U511 definite, U512
on some path, U513 an undeclared argument): hand-written cases for each rule (straight code,
if/else, loops, guards, pairs and quads, stated arguments by `; wave-lsp args:` and by launch
lines' `--set-reg`), the shared kernels (no noise: their arguments follow the upstream
convention), the lint command's output, and a property test: every register a run reads before
its thread wrote it is reported."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings

from wave_lsp.analysis import Config, analyze
from wave_lsp.analysis.live_ins import live_ins
from wave_lsp.analysis.reaching import ENTRY, register_flow
from wave_lsp.syntax.document import Document
from wave_lsp.asm import assemble
from wave_lsp.analysis.diagnostic import Severity
from wave_lsp.emu import Launch

from conftest import run_wave_lsp
from numpy_engine import run
from shared import example_names, example_text
from test_emit import program

CODES = ("U511", "U512", "U513")
ALL_ON = Config(severities={"U513": Severity.INFORMATION})


def found(source: str, config: Config = ALL_ON) -> list[tuple[str, int, str]]:
    """(code, line, operand text) of every U511-U513."""
    lines = source.split("\n")
    return [(d.code, d.range.start_line,
             lines[d.range.start_line][d.range.start_col:d.range.end_col])
            for d in analyze(source, config) if d.code in CODES]


def K(body: str, head: str = "") -> str:
    return f"{head}.kernel k\n.registers 16\n{body}\n    halt\n.end\n"


@pytest.mark.parametrize("source,expected", [
    # straight code: written later (a value used before it is computed), never written
    (K("    iadd r2, r1, r1\n    mov_imm r1, 4"), [("U511", 2, "r1")]),
    (K("    iadd r2, r1, r1"), [("U513", 2, "r1")]),
    (K("    mov_imm r1, 3\n    iadd r2, r1, r1"), []),
    # one report per register, at its first read
    (K("    iadd r2, r1, r1\n    iadd r3, r1, r1\n    mov_imm r1, 0"), [("U511", 2, "r1")]),
    # if/else: written on one side only
    (K("    if p1\n    mov_imm r1, 0\n    endif\n    iadd r2, r1, r1"), [("U512", 5, "r1")]),
    (K("    if p1\n    mov_imm r1, 0\n    else\n    mov_imm r1, 1\n    endif\n"
       "    iadd r2, r1, r1"), []),
    # loops: an accumulator never initialised; written before every break
    (K("    mov_imm r3, 1\n    loop\n    iadd r1, r1, r3\n    break p1\n    endloop"),
     [("U512", 4, "r1")]),
    (K("    loop\n    mov_imm r1, 1\n    break p1\n    endloop\n    iadd r2, r1, r1"), []),
    # (the first iteration's break leaves before the write, later ones after it)
    (K("    loop\n    break p1\n    mov_imm r1, 1\n    endloop\n    iadd r2, r1, r1"),
     [("U512", 6, "r1")]),
    (K("    loop\n    break p1\n    endloop\n    iadd r2, r1, r1\n    mov_imm r1, 1"),
     [("U511", 5, "r1")]),
    # guards: a guarded write may not happen, except for reads under the same guard
    (K("    @p1 mov_imm r1, 0\n    iadd r2, r1, r1"), [("U512", 3, "r1")]),
    (K("    @p1 mov_imm r1, 0\n    @p1 iadd r2, r1, r1"), []),
    (K("    @p1 mov_imm r1, 0\n    @!p1 iadd r2, r1, r1"), [("U512", 3, "r1")]),
    # pairs and quads: each register they cover
    (K("    mov_imm r4, 0\n    dadd r2, r4, r4\n    mov_imm r5, 0"), [("U511", 3, "r4")]),
    (K("    mov_imm r2, 0\n    device_store_u128 r2, r8\n    mov_imm r9, 0"),
     [("U511", 3, "r8"), ("U513", 3, "r8")]),
    (K("    dadd r2, r4, r4\n    iadd r1, r3, r3\n    mov_imm r4, 0\n    mov_imm r5, 0"),
     [("U511", 2, "r4")]),
    # stated arguments: an args comment, a launch line's --set-reg; the others are warnings
    (K("    iadd r2, r1, r0", head="; wave-lsp args: r0 r1\n"), []),
    (K("    ; wave-lsp run: --set-reg 0:4 --set-reg=r1:8\n    iadd r2, r1, r0"), []),
    (K("    ; wave-lsp run: --set-reg 0:4\n    iadd r2, r1, r0"), [("U511", 3, "r1")]),
    # a launch line of another kernel states nothing for this one
    (".kernel a\n    ; wave-lsp run: --set-reg 1:8\n    halt\n.end\n" + K("    iadd r2, r1, r1"),
     [("U513", 6, "r1")]),
    # code after the top-level halt is reached only by call: from what its calls bring
    (K("    mov_imm r1, 1\n    call f\n    iadd r3, r2, r2\n    halt\nf:\n    iadd r2, r1, r1\n"
       "    return"), []),
])
def test_reads_before_writes(source, expected):
    assert found(source) == expected


def test_severities_and_messages():
    text = K("    if p1\n    mov_imm r1, 0\n    endif\n    iadd r2, r1, r5\n    mov_imm r5, 1")
    by_code = {d.code: d for d in analyze(text, ALL_ON)}
    assert by_code["U511"].severity is Severity.WARNING
    assert "r5 is read before any write reaches this read" in by_code["U511"].message
    assert "reads 0 here" in by_code["U511"].message
    assert "kernel argument on a GPU" in by_code["U511"].message
    assert by_code["U512"].severity is Severity.HINT
    assert [r.range.start_line for r in by_code["U512"].related] == [3]   # the write
    assert [d.code for d in analyze(text) if d.code in CODES] == ["U512", "U511"]  # columns


def test_the_fix_states_the_argument_and_clears_the_warning():
    text = K("    ; wave-lsp args: r0\n    iadd r2, r1, r0\n    mov_imm r1, 2")
    (diag,) = [d for d in analyze(text) if d.code == "U511"]
    (edit,) = diag.fixes[0].edits
    lines = text.split("\n")
    line = lines[edit.range.start_line]
    lines[edit.range.start_line] = line[:edit.range.start_col] + edit.new_text + \
        line[edit.range.end_col:]
    assert lines[2] == "    ; wave-lsp args: r0 r1"
    assert found("\n".join(lines)) == []


@pytest.mark.parametrize("name", example_names())
def test_shared_kernels_get_no_warning_or_hint(name):
    text = example_text(name)
    assert [d for d in analyze(text) if d.code in CODES] == []
    # with U513 on, their arguments are named
    named = {(code, operand) for code, _line, operand in found(text)}
    assert {code for code, _ in named} <= {"U513"}


def test_relu_arguments_are_its_set_reg_registers():
    assert [op for _c, _l, op in found(example_text("relu"))] == ["r2", "r0", "r1"]


def test_lint_command_prints_the_codes(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(K("    if p1\n    mov_imm r1, 0\n    endif\n    iadd r2, r1, r5\n"
                      "    mov_imm r5, 1"))
    r = run_wave_lsp("lint", str(path))
    out = r.stdout.decode()
    assert f"{path}:6:18: U511 warning r5 is read before any write reaches this read" in out
    assert f"{path}:6:14: U512 hint r1 may be read before it is written" in out
    assert "U513" not in out and r.returncode == 0        # warnings fail only --strict
    assert run_wave_lsp("lint", "--strict", str(path)).returncode == 1


_UNINITIALISED = re.compile(r"^r(\d+) is read before anything wrote it")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=program())
def test_every_register_a_run_reads_uninitialised_is_reported(source):
    report = run(source, Launch(workgroup=(8, 1, 1), kernel="k"), max_instructions=4000)
    read = {int(m.group(1)) for w in report.warnings if w.kind == "uninitialised_register"
            for m in [_UNINITIALISED.match(w.message)] if m}
    lines = source.split("\n")
    end = lines.index(".end")
    reported = set()
    for code, line, operand in found(source):
        if line < end:
            first = int(operand[1:])
            reported |= set(range(first, first + 4))   # a pair or quad names its first
    assert read <= reported or not read, source
    # the backends' kernel arguments (live_ins.py) include every register reported here
    flow = register_flow(Document(source).program.kernels[0])
    exact = {r for regs in flow.reaching.values() for r, defs in regs.items() if ENTRY in defs}
    assert exact <= set(live_ins(assemble(source).kernels[0].instructions)), source


def test_editing_a_comment_that_states_arguments_updates_the_diagnostics():
    """Comments leave a kernel's revision alone; its args line must still be read again."""
    from wave_lsp.ide.state import DocumentState
    text = K("    ; wave-lsp args: r0\n    iadd r2, r1, r0\n    mov_imm r1, 2")
    state = DocumentState("file:///args.wave", text, 1)
    assert [d.code for d in state.diagnostics() if d.code in CODES] == ["U511"]
    line = "    ; wave-lsp args: r0"
    state.apply_edit((2, len(line)), (2, len(line)), " r1", 2)
    assert [d.code for d in state.diagnostics() if d.code in CODES] == []
    state.apply_edit((2, len(line)), (2, len(line) + 3), "", 3)
    assert [d.code for d in state.diagnostics() if d.code in CODES] == ["U511"]
    # a launch line directly above the kernel states them too
    state.apply_edit((0, 0), (0, 0), "; wave-lsp run: --set-reg 1:4\n", 4)
    assert [d.code for d in state.diagnostics() if d.code in CODES] == []

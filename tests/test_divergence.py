"""Uniformity analysis and divergence lints: per-register results, propagation rules, the shared
examples (no false positives), robustness on broken programs."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from wave_lsp.analysis.diagnostic import Diagnostic
from wave_lsp.analysis import AnalysisState
from wave_lsp.analysis.divergence import divergence_diagnostics
from wave_lsp.analysis.uniformity import analyse_kernel, uniformity_of
from wave_lsp.analysis.uniformity_model import Uniformity
from wave_lsp.syntax.document import Document

from shared import EXAMPLES, examples_dir
D, WG, WV, T = Uniformity.DISPATCH, Uniformity.WORKGROUP, Uniformity.WAVE, Uniformity.THREAD


def kernel(body: str) -> str:
    return ".kernel k\n.registers 32\n" + body.strip("\n") + "\n    halt\n.end\n"


def levels(body: str):
    """(document, analysis) for a kernel body; lines are counted from the `.kernel` line (0)."""
    doc = Document(kernel(body))
    return doc, uniformity_of(doc.program, "k")


def level(body: str, line: int, name: str, after: bool = True) -> Uniformity:
    """Level of `name` after (or before) the body's `line` (0 = first body line)."""
    _, u = levels(body)
    found = u.level(line + 2, name, after=after)
    assert found is not None, (line, name)
    return found[0]


def codes(text: str) -> list[tuple[int, str]]:
    return [(d.range.start_line, d.code) for d in divergence_diagnostics(Document(text).program)]


# ---- the shared examples ---------------------------------------------------------------------
def _examples() -> list[Path]:
    return sorted(examples_dir().glob("*.wave"))


@pytest.mark.parametrize("name", ["reduction", "barrier_in_loop", "gemm_blocked", "mma_simple"])
def test_no_false_positive_on_examples_with_barriers(name):
    path = examples_dir() / f"{name}.wave"
    text = path.read_text(encoding="utf-8")
    assert "barrier" in text
    assert codes(text) == []


def test_no_divergence_lint_on_any_shared_example():
    paths = _examples()
    for path in paths:
        assert codes(path.read_text(encoding="utf-8")) == [], path.name


def test_examples_uniformity_facts():
    path = examples_dir() / "barrier_in_loop.wave"
    doc = Document(path.read_text(encoding="utf-8"))
    u = uniformity_of(doc.program, doc.program.kernels[0].name)
    lines = doc.lines
    at = {text.strip().split(";")[0].strip(): n for n, text in enumerate(lines)}
    assert u.level(at["mov r0, sr_wave_id"], "r0", after=True)[0] is WV
    assert u.level(at["or r5, r0, r1"], "r5", after=True)[0] is T
    # r4 varies after `@p3 mov_imm r4, 1`, and is uniform again after `mov_imm r4, 1`
    assert u.level(at["@p3 mov_imm r4, 1"], "r4", after=True)[0] is T
    assert u.level(at["iadd r7, r7, r4"], "r4")[0] is D
    assert u.level(at["break p1"], "p1")[0] is D


# ---- sources of variation --------------------------------------------------------------------
@pytest.mark.parametrize("special, expected", [
    ("sr_thread_id_x", T), ("sr_thread_id_z", T), ("sr_lane_id", T), ("sr_wave_id", WV),
    ("sr_workgroup_id_x", WG), ("sr_workgroup_id_y", WG), ("sr_workgroup_size_x", D),
    ("sr_grid_size_x", D), ("sr_wave_width", D), ("sr_num_waves", D),
])
def test_special_registers(special, expected):
    assert level(f"    mov_sr r1, {special}", 0, "r1") is expected
    assert level(f"    mov r1, {special}", 0, "r1") is expected


def test_registers_start_uniform_and_constants_are_uniform():
    body = "    iadd r2, r0, r1\n    mov_imm r3, 7\n    fadd r4, r3, r2"
    assert level(body, 0, "r2") is D
    assert level(body, 2, "r4") is D
    assert level(body, 0, "p3") is D


def test_propagation_takes_the_most_varying_operand():
    body = ("    mov_sr r0, sr_workgroup_id_x\n    mov_sr r1, sr_wave_id\n"
            "    iadd r2, r0, r0\n    imad r3, r0, r1, r2\n    icmp_lt p1, r2, r3\n"
            "    select r4, p1, r0, r0\n    cvt_f32_u32 r5, r2")
    assert level(body, 2, "r2") is WG
    assert level(body, 3, "r3") is WV
    assert level(body, 4, "p1") is WV
    assert level(body, 5, "r4") is WV
    assert level(body, 6, "r5") is WG


def test_loads_follow_their_address_and_local_memory_is_per_workgroup():
    body = ("    mov_imm r1, 64\n    device_load_u32 r2, r1\n    local_load_u32 r3, r1\n"
            "    mov_sr r4, sr_lane_id\n    device_load_u64 r6, r4\n    device_load_u128 r10, r1")
    assert level(body, 1, "r2") is D
    assert level(body, 2, "r3") is WG
    assert level(body, 4, "r6") is T and level(body, 4, "r7") is T and level(body, 4, "r8") is D
    assert level(body, 5, "r13") is D


def test_atomics_return_per_thread_values_unless_non_returning():
    body = ("    mov_imm r1, 0\n    mov_imm r2, 1\n    atomic_add r3, r1, r2, .device\n"
            "    local_atomic_add r1, r2\n    local_atomic_cas r5, r1, r2, r2")
    assert level(body, 2, "r3") is T
    assert level(body, 3, "r1") is D          # two operands: no destination
    assert level(body, 4, "r5") is T
    body = "    mov_imm r1, 4\n    atomic_add r0, r1, r1, .device"
    assert level(body, 1, "r0") is D          # rd = r0 means non-returning


@pytest.mark.parametrize("op, expected", [
    ("wave_shuffle r2, r1, r1", T), ("wave_shuffle_up r2, r1, r1", T),
    ("wave_shuffle_xor r2, r1, r1", T), ("wave_prefix_sum r2, r1", T),
    ("wave_reduce_add r2, r1", WV), ("wave_reduce_max r2, r1", WV), ("wave_ballot r2, p1", WV),
])
def test_wave_operations(op, expected):
    assert level(f"    mov_imm r1, 1\n    {op}", 1, "r2") is expected


def test_broadcast_any_all_are_at_most_per_wave():
    body = ("    mov_sr r1, sr_lane_id\n    wave_broadcast r2, r1, r3\n    icmp_eq p1, r1, r3\n"
            "    wave_any p2, p1\n    wave_all p3, p0\n    mov_sr r4, sr_workgroup_id_x\n"
            "    wave_broadcast r5, r4, r3")
    assert level(body, 1, "r2") is WV
    assert level(body, 3, "p2") is WV
    assert level(body, 4, "p3") is D
    assert level(body, 6, "r5") is WG


def test_special_register_in_a_general_slot_reads_that_register_index():
    # wave-asm encodes `sr_lane_id` (index 4) as r4 in a register slot (reference §2.4)
    body = "    mov_sr r4, sr_lane_id\n    iadd r1, sr_lane_id, r0"
    assert level(body, 1, "r1") is T


def test_mma_writes_no_register():
    body = "    mov_sr r0, sr_lane_id\n    mov_imm r1, 16\n    mma_load_a r5, r0, r1"
    assert level(body, 2, "r5") is D


# ---- guards, control dependence, kills, loops -------------------------------------------------
def test_guarded_write_joins_the_guard():
    body = ("    mov_sr r0, sr_lane_id\n    icmp_eq p1, r0, r0\n    mov_imm r2, 1\n"
            "    @p1 mov_imm r2, 2\n    @p0 mov_imm r3, 2\n    @!p0 mov_imm r5, 2")
    assert level(body, 3, "r2") is T
    assert level(body, 4, "r3") is D          # `@p0` is no guard at all
    assert level(body, 5, "r5") is D          # p0 itself is uniform here


def test_control_dependence_and_kill():
    body = ("    mov_sr r0, sr_wave_id\n    icmp_eq p1, r0, r1\n    if p1\n"
            "        mov_imm r2, 1\n    else\n        mov_imm r3, 1\n    endif\n"
            "    mov_imm r4, 0\n    mov_imm r2, 5")
    assert level(body, 3, "r2") is D          # inside: the same for the threads that run it
    assert level(body, 6, "r2") is WV and level(body, 6, "r3") is WV
    assert level(body, 6, "r4", after=False) is D
    assert level(body, 8, "r2") is D          # killed by an unconditional write


def test_loop_exit_divergence_reaches_values_after_the_loop_only():
    body = ("    mov_sr r0, sr_lane_id\n    mov_imm r1, 0\n    mov_imm r3, 1\n    loop\n"
            "        icmp_eq p1, r1, r0\n        break p1\n        iadd r1, r1, r3\n"
            "    endloop\n    mov r5, r1")
    assert level(body, 6, "r1") is D          # inside the loop, lanes still there agree
    assert level(body, 8, "r5") is T          # after it, lanes left at different iterations


def test_loop_iterates_to_a_fixed_point():
    # the variation moves one register per iteration: r3 <- r2 <- r1 <- lane id
    body = ("    mov_sr r0, sr_lane_id\n    mov_imm r4, 0\n    loop\n        mov r3, r2\n"
            "        mov r2, r1\n        mov r1, r0\n        icmp_eq p1, r3, r4\n"
            "        break p1\n    endloop")
    assert level(body, 3, "r3") is T
    assert level(body, 6, "p1") is T
    assert codes(kernel(body + "\n    barrier")) == []
    text = kernel(body.replace("break p1", "barrier\n        break p1"))
    assert codes(text) == [(9, "D602")]


def test_divergent_continue_makes_skipped_writes_vary_at_the_head():
    body = ("    mov_sr r0, sr_lane_id\n    mov_imm r1, 0\n    mov_imm r6, 4\n    loop\n"
            "        icmp_eq p2, r1, r6\n        break p2\n        icmp_lt p1, r0, r6\n"
            "        continue p1\n        mov_imm r1, 4\n    endloop")
    _, u = levels(body)
    assert u.level(3 + 2, "r1", after=True) is not None
    assert level(body, 4, "p2") is T


# ---- lints, beyond the corpus -----------------------------------------------------------------
def test_barrier_findings_prefer_errors_and_report_partial_halts_separately():
    text = kernel("    mov_sr r0, sr_wave_id\n    mov_sr r1, sr_lane_id\n    icmp_eq p1, r0, r2\n"
                  "    icmp_eq p2, r1, r2\n    @p2 halt\n    if p2\n        if p1\n"
                  "            barrier\n        endif\n    endif")
    assert sorted(codes(text)) == [(9, "D601"), (9, "D604")]


def test_wave_op_in_wave_uniform_loop_is_quiet_but_lane_loop_is_not():
    loop = ("    mov_sr r0, {sr}\n    mov_imm r1, 0\n    mov_imm r3, 1\n    loop\n"
            "        wave_reduce_add r2, r3\n        icmp_ge p1, r1, r0\n        break p1\n"
            "        iadd r1, r1, r3\n    endloop")
    assert codes(kernel(loop.format(sr="sr_wave_id"))) == []
    assert codes(kernel(loop.format(sr="sr_lane_id"))) == [(6, "D605")]


def test_every_diagnostic_is_a_d6_code_with_related_chain():
    text = kernel("    mov_sr r0, sr_lane_id\n    icmp_lt p1, r0, r1\n    if p1\n"
                  "        wave_shuffle r2, r0, r1\n        barrier\n    endif")
    found = divergence_diagnostics(Document(text).program)
    assert [d.code for d in found] == ["D606", "D601"]
    for d in found:
        assert isinstance(d, Diagnostic) and d.related
        assert d.related[-1].message.endswith("line 3")


def test_results_are_cached_per_kernel_instructions():
    doc = Document(kernel("    mov_sr r0, sr_lane_id"))
    k = doc.program.kernels[0]
    analyse_kernel = AnalysisState(doc).uniformity   # the document's own cache (no global one)
    assert analyse_kernel(k) is analyse_kernel(k)
    assert uniformity_of(doc.program, "nope") is None


# ---- robustness -------------------------------------------------------------------------------
BROKEN = [
    kernel("    if p1\n        barrier\n    else\n    else\n    endloop\n    endif\n    endif"),
    kernel("    loop\n        if p1\n    endloop\n    break p1\n    continue p2"),
    kernel("    iadd r1\n    frobnicate r1, r2\n    add.s32 r1, r2, r3\n    @p9 barrier\n"
           "    mov_sr r1, sr_bogus\n    device_load_u128 r253, r1\n    wave_ballot p1, r2"),
    ".kernel a\n    loop\n        barrier\n",                       # never closed
    "    barrier\n.end\n.end\nloop\n",                              # outside any kernel
    kernel("    @ p1 barrier\n    break !p0\n    if\n    loop r1\n    mov_imm r1, 1.5"),
]


@pytest.mark.parametrize("text", BROKEN)
def test_broken_programs_never_raise(text):
    doc = Document(text)
    for d in divergence_diagnostics(doc.program):
        assert d.code.startswith("D6")
    for k in doc.program.kernels:
        u = uniformity_of(doc.program, k)
        for line in range(len(doc.lines)):
            u.level(line, "r1")
            u.level(line, "bogus")
            u.varying(line)


LINES = st.sampled_from([
    "if p1", "if p2", "else", "endif", "loop", "endloop", "break p1", "continue p2", "halt",
    "@p1 halt", "barrier", "@p2 barrier", "mov_sr r1, sr_lane_id", "mov_sr r2, sr_wave_id",
    "icmp_lt p1, r1, r3", "icmp_eq p2, r2, r3", "iadd r3, r3, r1", "mov_imm r1, 0",
    "wave_shuffle r4, r1, r3", "wave_reduce_add r5, r1", "@p1 mov_imm r3, 1", "wave_any p2, p1",
    "atomic_add r6, r3, r1, .device", "call f", "return", "f:", "nonsense r1", "iadd r1",
    ".kernel z", ".end", "mov_imm r2, 7",
])


@settings(max_examples=150, deadline=None)
@given(st.lists(LINES, max_size=40))
def test_random_programs_never_raise(lines):
    text = ".kernel k\n" + "\n".join(lines) + "\n.end\n"
    doc = Document(text)
    found = divergence_diagnostics(doc.program)
    assert all(d.code in {"D601", "D602", "D603", "D604", "D605", "D606"} for d in found)
    for k in doc.program.kernels:
        uniformity_of(doc.program, k)


# ---- incremental re-analysis (uniformity_reuse.py) equals a fresh analysis ------------------
from hypothesis import example, given, settings as hsettings, strategies as hst  # noqa: E402

from wave_lsp.analysis import AnalysisState as _AnalysisState  # noqa: E402
from wave_lsp.analysis import analyze as _analyze  # noqa: E402
from wave_lsp.syntax.document import Document as _Document  # noqa: E402

_BASE = """.kernel k
.registers 16
    mov_sr r0, sr_lane_id
    mov_imm r1, 4
    mov_imm r2, 0
    icmp_lt p1, r0, r1
    nop
    loop
        nop
        iadd r2, r2, r1
        nop
        icmp_ge p2, r2, r1
        break p2
        nop
    endloop
    nop
    barrier
    nop
    if p1
        nop
    endif
    wave_reduce_add r3, r2
    nop
    halt
.end
"""
_EDITABLE = [i for i, l in enumerate(_BASE.splitlines()) if l.strip() and not l.startswith(".")]
_PIECES = ["nop", "mov_sr r2, sr_lane_id", "mov_imm r2, 7", "iadd r1, r0, r2", "barrier",
           "wave_shuffle r3, r2, r1", "icmp_eq p1, r2, r2", "icmp_lt p2, r0, r1", "if p1",
           "endif", "loop", "endloop", "break p2", "continue p1", "@p1 halt", "halt",
           "mov_imm r0, 1", "wave_reduce_add r2, r0", "@p2 mov_imm r1, 3", "else"]


@hsettings(max_examples=300, deadline=None)
@given(hst.lists(hst.tuples(hst.sampled_from(_EDITABLE), hst.sampled_from(_PIECES)),
                 min_size=1, max_size=10))
@example([(6, "@p1 halt"), (3, "barrier"), (16, "nop")])   # events shift before a reused tail
def test_incremental_reanalysis_equals_fresh(edits):
    check_edits(_BASE, edits)


_LONG = _BASE.replace("    nop\n    loop", "    nop\n" + "    iadd r5, r5, r1\n" * 40 + "    loop", 1)
_LONG_EDITABLE = [i for i, l in enumerate(_LONG.splitlines()) if l.strip() and not l.startswith(".")]


@hsettings(max_examples=100, deadline=None)
@given(hst.lists(hst.tuples(hst.sampled_from(_LONG_EDITABLE), hst.sampled_from(_PIECES)),
                 min_size=1, max_size=8))
def test_incremental_reanalysis_of_a_long_kernel(edits):
    """More than 32 top-level items: restarts from saved states between constructs."""
    check_edits(_LONG, edits)


def check_edits(base: str, edits) -> None:
    doc = _Document(base)
    state = _AnalysisState(doc)             # kept between edits: the incremental analysis
    _analyze(doc, state=state)
    for line, piece in edits:
        doc.apply_edit((line, 4), (line, len(doc.lines[line])), piece)
        incremental = _analyze(doc, state=state)
        fresh = _analyze(_Document(doc.text))   # a new state: computes everything
        assert incremental == fresh


def test_halt_in_a_function_called_inside_an_if():
    """A `halt` reached through a `call` (a CallFrame among the enclosing frames) is analysed."""
    doc = _Document(".kernel k\nf:\n    halt\n    mov_sr r0, sr_lane_id\n    icmp_eq p1, r0, r0\n"
                    "    if p1\n    call f\n    endif\n    barrier\n    halt\n.end\n")
    codes = [d.code for d in _analyze(doc)]
    assert "D604" in codes

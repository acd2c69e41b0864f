"""The editor's view of a kernel profile, in process (`wave_lsp.ide.profile_view` and
`profile_session`): whole answers compared as text (`check(source, expected)`: each line with its
heat level and hint, then the findings), for kernels profiled through the real emulator, and the
rules of the view on hand-made counters."""

from __future__ import annotations

import textwrap

import pytest

from profile_kernels import STRIDED
from wave_lsp.emu.profile import KernelProfile, LineCounters
from wave_lsp.ide.profile_session import profile_kernels
from wave_lsp.ide.profile_view import count_text, profile_view
from wave_lsp.ide.run_limits import RunLimits
from wave_lsp.ide.run_session import kernel_launch_lines, plan_runs
from wave_lsp.ide.state import DocumentState


def profiled(text: str):
    doc = DocumentState("file:///view.wave", text, 1)
    kernel = doc.program.kernels[0].name
    snapshot = plan_runs(doc, {kernel: None}, kernel_launch_lines(doc, None))
    return doc, profile_kernels(snapshot, RunLimits())[0]


def render(doc, view) -> str:
    """Each executed line `heat | source | hint`, then `CODE line: message` per finding."""
    out = []
    for n, text in enumerate(doc.lines):
        heat = view.heat.get(n)
        if heat is None:
            continue
        hint = view.hints.get(n)
        out.append(f"{heat.level} | {text.split(';')[0].strip():26} |"
                   f"{' ' + hint.label if hint else ''}".rstrip())
    out += [f"{d.code} {d.range.start_line + 1}: {d.message}" for d in view.findings]
    return "\n".join(out)


def check(source: str, expected: str) -> None:
    doc, result = profiled(source)
    assert result.status == "ok", result
    assert render(doc, result.view) == textwrap.dedent(expected).strip()


def test_strided_kernel():
    check(STRIDED, """
        1 | mov_sr  r0, sr_thread_id_x |
        1 | mov_imm r1, 8              |
        1 | imul    r2, r0, r1         |
        1 | local_store_u32 r2, r0     | 2-way bank conflict
        1 | barrier                    |
        1 | mov_imm r3, 128            |
        1 | imul    r4, r0, r3         |
        5 | device_load_u32 r5, r4     | 8 wave-instrs · 32 sectors (ideal 4)
        1 | mov_imm r6, 8              |
        1 | ucmp_lt p1, r0, r6         |
        1 | if p1                      | 4 of 8 divergent
        1 | iadd r7, r5, r0            | 4 wave-instrs · 25% lanes
        1 | iadd r7, r7, r0            |
        1 | mov_imm r9, 4              |
        1 | imul r8, r0, r9            |
        1 | device_store_u32 r8, r7    |
        1 | endif                      |
        1 | halt                       |
        R022 15: uncoalesced: 32 sectors per access, ideal 4 (8× the traffic): make neighbouring lanes access neighbouring words (swap the index roles, or stage the data through local memory)
        R023 19: only 25% of the lanes run lines 19-24 (7% of the kernel's cost): the lanes of a wave take different paths, or its waves are partly empty; make the condition uniform per wave, or size the workgroup to whole waves
        R021 11: 2-way bank conflict (16 passes, ideal 8): what would remove it is being checked under every preset
    """)


def test_every_preset_after_the_second_step():
    from wave_lsp.ide.profile_session import with_presets
    doc, first = profiled(STRIDED)
    assert [p.target for p in first.view.profiles] == ["default"] and first.pending
    done = with_presets([first])[0]
    assert done.pending is None and done.to_json()["complete"]
    assert [p.target for p in done.view.profiles] == \
        ["default", "ptx", "hip-cdna", "hip-rdna", "metal", "sycl"]
    banks = next(d for d in done.view.findings if d.code == "R021")
    assert "2-way on default, ptx, hip-cdna, hip-rdna, metal, sycl" in banks.message
    assert "stride 8 → 12 bytes) removes it: 2 → 1-way on every preset" in banks.message
    assert "| `hip-cdna` | 4 | 100% | 2-way | — |" in done.view.hover(banks.range.start_line)
    # the same geometry (default, ptx and metal at wave width 32) is computed once
    by_target = {p.target: p for p in done.view.profiles}
    assert by_target["ptx"].lines is by_target["default"].lines
    assert by_target["hip-rdna"].lines is not by_target["default"].lines


CONFLICT_FREE_ON_WAVE64 = """\
; wave-lsp run: --workgroup 64,1,1 --wave-width 32
.kernel halves
.registers 8
.workgroup_size 64, 1, 1
.local_memory 512
    mov_sr  r0, sr_thread_id_x
    mov_imm r1, 31
    and     r2, r0, r1              ; lane within 32
    mov_imm r3, 5
    shr     r4, r0, r3              ; 0 for the first 32 threads, 1 for the next
    mov_imm r5, 4
    imul    r6, r4, r5              ; the second half one word further
    mov_imm r1, 8
    imad    r7, r2, r1, r6          ; even words, then odd words: stride-2 in each half
    local_store_u32 r7, r0
    halt
.end
"""


def test_a_conflict_names_the_presets_without_it():
    """Waves of 32 meet two words per bank; a wave of 64 (AMD CDNA) fills every bank twice,
    which is what 64 lanes need anyway: conflict-free there, from the same run."""
    from wave_lsp.ide.profile_session import with_presets
    doc, first = profiled(CONFLICT_FREE_ON_WAVE64)
    store = next(n for n, t in enumerate(doc.lines) if "local_store_u32" in t)
    assert "2-way bank conflict" in first.view.hints[store].label
    done = with_presets([first])[0]
    text = done.view.hover(store)
    assert "| `default` | 2 | 100% | 2-way |" in text
    assert "| `hip-cdna` | 1 | 100% | 1-way |" in text
    (finding,) = [d for d in done.view.findings if d.code == "R021"]
    assert "2-way on default, ptx, hip-rdna, metal, sycl; none on hip-cdna" in finding.message


def counters(line, executions, active, width=32, **memory) -> LineCounters:
    return LineCounters(line, executions, active, executions * width, **memory)


def view_of(*lines: LineCounters):
    return profile_view("k", [KernelProfile("default", tuple(lines), {})])


@pytest.mark.parametrize("n, text", [(5, "5"), (9_999, "9,999"), (12_345, "12.3k"),
                                     (40_000, "40k"), (4_200_000, "4.2M"), (3_000_000, "3M")])
def test_counts_are_short(n, text):
    assert count_text(n) == text


def test_hot_lines_say_how_often_and_uniform_cool_lines_say_nothing():
    view = view_of(counters(0, 10, 320), counters(1, 1000, 32000), counters(2, 10, 320))
    assert {n: h.label for n, h in view.hints.items()} == {1: "1,000 wave-instrs"}
    assert [view.heat[n].level for n in range(3)] == [1, 5, 1]
    assert not view.findings


def test_a_partly_idle_block_is_said_once_and_found_when_costly():
    view = view_of(counters(0, 4, 128), counters(1, 4, 32), counters(2, 4, 32),
                   counters(3, 4, 128))
    assert {n: h.label for n, h in view.hints.items()} == {1: "4 wave-instrs · 25% lanes"}
    (finding,) = view.findings
    assert finding.code == "R023" and "lines 2-3" in finding.message


def test_memory_hints_are_per_access_and_only_worse_than_ideal():
    view = view_of(counters(0, 4, 128, local_wavefronts=12, local_ideal_wavefronts=8),
                   counters(1, 4, 128, global_sectors=16, global_ideal_sectors=16),
                   counters(2, 2, 64, global_sectors=10, global_ideal_sectors=8))
    labels = {n: h.label for n, h in view.hints.items()}
    assert labels[0] == "1.5-way bank conflict"
    assert 1 not in labels
    assert labels[2].endswith("5 sectors (ideal 4)")
    assert not view.findings             # 1.5 ways and 1.25x the sectors: not worth a finding


def test_a_profile_whose_time_limit_passes_before_the_run_says_so():
    """On a busy machine the editor's time limit can pass while the launch is prepared: the run
    then stops before its first instruction, with no profile, and the profile says which limit
    stopped it (it said "cannot profile: 'NoneType' object has no attribute ...")."""
    text = (".kernel k\n; wave-lsp run: --device-memory 67108864 --fill-iota 0:f32:16777216:1.5\n"
            ".registers 4\n    mov_sr r0, sr_lane_id\n    halt\n.end\n")
    doc = DocumentState("file:///limit.wave", text, 1)
    snapshot = plan_runs(doc, {"k": None}, kernel_launch_lines(doc, None))
    found = profile_kernels(snapshot, RunLimits(time_limit_ms=1))[0]
    assert found.status == "failed", found
    assert found.message.startswith("time limit: run.timeLimitMs (1 ms) reached while"), found

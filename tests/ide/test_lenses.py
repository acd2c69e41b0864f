"""Code lenses as a whole answer, in process: what each kind shows (resources and Assemble,
runs, profiles, kernel tests, the portability check, GPU runs) in each state, laid out as the
editor shows a line (`ide.lenses.document_lenses`), after real runs (`jobs.Jobs`)."""

from __future__ import annotations

from .fixture import check, expect
from .jobs import STORE, Jobs, render_lenses


TESTED = """
.kernel k
; wave-lsp run: --workgroup 4,1,1 --wave-width 4 --dump-u32 0:4
; wave-lsp expect: 0
; wave-lsp expect: 1
; wave-lsp expect: 2
; wave-lsp expect: EXPECTED
.registers 8
    mov_sr r0, sr_lane_id
    mov_imm r1, 4
    imul r2, r0, r1
    device_store_u32 r2, r0
    halt
.end
"""


def test_before_any_run():
    check(lambda fx: render_lenses(Jobs(fx)), STORE, expect("""
0: ▶ Run | ◔ Profile | 8 regs · 0 B local | Assemble | Check portability
1: ▶ Run | ◔ Profile
"""))


def test_after_a_run_and_a_profile():
    check(lambda fx: render_lenses(Jobs(fx, runs={"k": None}, profiles={"k": None}),
                                   detail=True), STORE, expect("""
0: ▶ Run | ◔ Profile | 8 regs · 0 B local | Assemble | Check portability
1: ▶ Run again | ✓ 1.5 ms · 5 instr · 100% lanes active | ✕ Clear | ◔ Profile: 100% lanes | ✕ Clear profile
---
0:0-9 '▶ Run' -> run['file:///fixture.wave', 'k', None]
0:1-9 '◔ Profile' -> profile['file:///fixture.wave', 'k', None]
0:2-9 '8 regs · 0 B local' -> kernel resources['file:///fixture.wave', 'k'] tooltip 'kernel k' (+13 lines)
0:3-9 'Assemble' -> assemble['file:///fixture.wave']
0:4-9 'Check portability' -> check portability['file:///fixture.wave', 'k']
1:0-63 '▶ Run again' -> run['file:///fixture.wave', 'k', 1]
1:1-63 '✓ 1.5 ms · 5 instr · 100% lanes active' -> run['file:///fixture.wave', 'k', 1]
1:2-63 '✕ Clear' -> clear['file:///fixture.wave', 'k']
1:3-63 '◔ Profile: 100% lanes' -> profile['file:///fixture.wave', 'k', 1]
1:4-63 '✕ Clear profile' -> clear profile['file:///fixture.wave', 'k']
"""))


def test_a_kernel_without_a_launch_line_runs_on_its_own_line():
    check(lambda fx: render_lenses(Jobs(fx, runs={"k": None})),
          STORE.replace("; wave-lsp run: --workgroup 4,1,1 --wave-width 4 --dump-u32 0:4\n",
                        ""), expect("""
0: ▶ Run again | ✓ 1.5 ms · 5 instr | ✕ Clear | ◔ Profile | 8 regs | Assemble | Check portability
"""))


def test_while_the_jobs_run():
    check(lambda fx: render_lenses(Jobs(fx, running={"k": 0}, profiling={"k": 0})), STORE,
          expect("""
0: ▶ Run | ◔ Profile | 8 regs · 0 B local | Assemble | Check portability
1: ⟳ running… | ◔ profiling…
"""))


def test_a_failed_run_has_no_profile_lens_on_its_line():
    check(lambda fx: render_lenses(Jobs(fx, runs={"k": None})), STORE.replace(
        "--dump-u32 0:4", "--device-memory 8"), expect("""
0: ▶ Run | ◔ Profile | 8 regs · 0 B local | Assemble | Check portability
1: ▶ Run again | ✕ out of bounds at line 7 · 1.5 ms | ✕ Clear
"""))


def test_a_run_time_error_and_a_source_that_does_not_assemble():
    check(lambda fx: render_lenses(Jobs(fx, runs={"k": None})), STORE.replace(
        "imul r2, r0, r1", "imul r2, r0, r99"), expect("""
0: ▶ Run | ◔ Profile | 8 regs · 0 B local | Assemble | Check portability
1: ▶ Run again | ✕ register out of range at line 6 · 1.5 ms | ✕ Clear
"""))
    check(lambda fx: render_lenses(Jobs(fx, runs={"k": None})), STORE.replace(
        "imul r2, r0, r1", "imul r2, r0"), expect("""
0: ▶ Run | ◔ Profile | 8 regs · 0 B local | Assemble | Check portability
1: ▶ Run again | ✕ cannot run: line 6: invalid operand count: expected 3, got 2 | ✕ Clear
"""))


def test_an_untrusted_workspace_refused_the_run():
    check(lambda fx: render_lenses(Jobs(fx), refused=["k"], detail=True), STORE, expect("""
0: ▶ Run | ⚠ not run (untrusted): Manage Trust | ◔ Profile | 8 regs | Assemble | Check portability
1: ▶ Run | ◔ Profile
---
0:0-9 '▶ Run' -> run['file:///fixture.wave', 'k', None]
0:1-9 '⚠ not run (untrusted): Manage Trust' -> manage trust[] tooltip 'Kernels do not run in an untrusted workspace: trust it (click) and ▶ Run again'
0:2-9 '◔ Profile' -> profile['file:///fixture.wave', 'k', None]
0:3-9 '8 regs' -> kernel resources['file:///fixture.wave', 'k'] tooltip 'kernel k' (+13 lines)
0:4-9 'Assemble' -> assemble['file:///fixture.wave']
0:5-9 'Check portability' -> check portability['file:///fixture.wave', 'k']
1:0-63 '▶ Run' -> run['file:///fixture.wave', 'k', 1]
1:1-63 '◔ Profile' -> profile['file:///fixture.wave', 'k', 1]
"""))


def test_with_a_gpu_its_lens_follows_the_run_lenses():
    check(lambda fx: render_lenses(Jobs(fx, runs={"k": 0}), gpu=True), STORE, expect("""
0: ▶ Run | ▶ Run on GPU | ◔ Profile | 8 regs · 0 B local | Assemble | Check portability
1: ▶ Run again | ✓ 1.5 ms · 5 instr · 100% lanes active | ✕ Clear | ◔ Profile
"""))


def test_kernel_tests_before_during_and_after():
    for tests, testing, expected in (
            (False, False, expect("""
0: ▶ Run | ◔ Profile | 8 regs · 0 B local | Assemble | Check portability
1: ▶ Run | ◔ Profile | ▶ Test
""")),
            (False, True, expect("""
0: ▶ Run | ◔ Profile | 8 regs · 0 B local | Assemble | Check portability
1: ▶ Run | ◔ Profile | ▶ Test | ⟳ testing…
""")),
            (True, False, expect("""
0: ▶ Run | ◔ Profile | 8 regs · 0 B local | Assemble | Check portability
1: ▶ Run | ◔ Profile | ▶ Test | ✓ passed
"""))):
        check(lambda fx: render_lenses(Jobs(fx, tests=tests, testing=testing)),
              TESTED.replace("EXPECTED", "3"), expected)


def test_a_failing_test_beside_a_run_and_a_profile_fits_its_line():
    """Seven lenses on the launch line: the " · " parts go first, then the longest title is
    cut, its whole text in the tooltip."""
    check(lambda fx: render_lenses(Jobs(fx, runs={"k": 0}, profiles={"k": 0}, tests=True),
                                   detail=True),
          TESTED.replace("EXPECTED", "4"), expect("""
0: ▶ Run | ◔ Profile | 8 regs · 0 B local | Assemble | Check portability
1: ▶ Run again | ✓ 1.5 ms | ✕ Clear | ◔ Profile: 100% lanes | ✕ Clear profile | ▶ Test | ✕ failed: line 11…
---
0:0-9 '▶ Run' -> run['file:///fixture.wave', 'k', None]
0:1-9 '◔ Profile' -> profile['file:///fixture.wave', 'k', None]
0:2-9 '8 regs · 0 B local' -> kernel resources['file:///fixture.wave', 'k'] tooltip 'kernel k' (+13 lines)
0:3-9 'Assemble' -> assemble['file:///fixture.wave']
0:4-9 'Check portability' -> check portability['file:///fixture.wave', 'k']
1:0-63 '▶ Run again' -> run['file:///fixture.wave', 'k', 1]
1:1-63 '✓ 1.5 ms' -> run['file:///fixture.wave', 'k', 1] tooltip '✓ 1.5 ms · 5 instr · 100% lanes active'
1:2-63 '✕ Clear' -> clear['file:///fixture.wave', 'k']
1:3-63 '◔ Profile: 100% lanes' -> profile['file:///fixture.wave', 'k', 1]
1:4-63 '✕ Clear profile' -> clear profile['file:///fixture.wave', 'k']
1:5-63 '▶ Test' -> test['file:///fixture.wave', 'k', 1]
1:6-63 '✕ failed: line 11…' -> test['file:///fixture.wave', 'k', 1] tooltip '✕ failed: line 11, lane 3 wrote 3, expected 4'
"""))


def test_store_lines_that_differ_between_wave_widths():
    check(lambda fx: render_lenses(Jobs(fx, checked=("wave_sum",)), detail=True), """
; wave-lsp run: --device-memory 1024
.kernel wave_sum
.registers 8
.workgroup_size 64, 1, 1
    mov_sr r0, sr_thread_id_x
    mov_imm r1, 4
    imul r2, r0, r1
    wave_reduce_add r3, r0
    device_store_u32 r2, r3
    halt
.end
""", expect("""
0: ▶ Run | ◔ Profile
1: ▶ Run | ◔ Profile | 8 regs · 0 B local · 2 waves/wg (W32) | Assemble | Check portability
8: ⚠ 64 word(s) differ between wave widths: 0x0: W8=0x1c, W16=0x78, W32=0x1f0, W64=0x7e0; 0x4: W8=0x1c, W1…
---
0:0-36 '▶ Run' -> run['file:///fixture.wave', 'wave_sum', 0]
0:1-36 '◔ Profile' -> profile['file:///fixture.wave', 'wave_sum', 0]
1:0-16 '▶ Run' -> run['file:///fixture.wave', 'wave_sum', None]
1:1-16 '◔ Profile' -> profile['file:///fixture.wave', 'wave_sum', None]
1:2-16 '8 regs · 0 B local · 2 waves/wg (W32)' -> kernel resources['file:///fixture.wave', 'wave_sum'] tooltip 'kernel wave_sum' (+15 lines)
1:3-16 'Assemble' -> assemble['file:///fixture.wave']
1:4-16 'Check portability' -> check portability['file:///fixture.wave', 'wave_sum']
8:0-27 '⚠ 64 word(s) differ between wave widths: 0x0: W8=0x1c, W16=0x78, W32=0x1f0, W64=0x7e0; 0x4: W8=0x1c, W1…' -> check portability['file:///fixture.wave', 'wave_sum'] tooltip '⚠ 64 word(s) differ between wave widths: 0x0: W8=0x1c, W16=0x78, W32=0x1f0, W64=0x7e0; 0x4: W8=0x1c, W16=0x78, W32=0x1f0, W64=0x7e0; 0x8: W8=0x1c, W16=0x78, W32=0x1f0, W64=0x7e0; 0xc: W8=0x1c, W16=0x78, W32=0x1f0, W64=0x7e0; 0x10: W8=0x1c, W16=0x78, W32=0x1f0, W64=0x7e0; 0x14: W8=0x1c, W16=0x78, W32=0x1f0, W64=0x7e0; 0x18: W8=0x1c, W16=0x78, W32=0x1f0, W64=0x7e0; 0x1c: W8=0x1c, W16=0x78, W32=0x1f0, W64=0x7e0 (and 56 more)'
"""))


def test_two_kernels_each_with_its_lenses():
    check(lambda fx: render_lenses(Jobs(fx, runs={"b": None})), """
.kernel a
    halt
.end
.kernel b
; wave-lsp run: --workgroup 2,1,1 --wave-width 2
; wave-lsp run: --workgroup 4,1,1 --wave-width 4
    mov_sr r0, sr_lane_id
    halt
.end
""", expect("""
0: ▶ Run | ◔ Profile | 32 regs · 0 B local | Assemble | Check portability
3: ▶ Run | ◔ Profile | 32 regs · 0 B local | Assemble | Check portability
4: ▶ Run again | ✓ 1.5 ms · 2 instr · 100% lanes active | ✕ Clear | ◔ Profile
5: ▶ Run | ◔ Profile
"""))

"""The runs' diagnostics as a whole answer, in process (`ide.run_diagnostics`): an invalid
launch line (`R004`, on its flag), a run-time error and the lines no lane executed (the run's
own), a launch that cannot run and a source that does not assemble (`R005`), after real runs."""

from __future__ import annotations

from .fixture import check, expect
from .jobs import STORE, Jobs, render_run_diagnostics

LAUNCH = "--workgroup 4,1,1 --wave-width 4 --dump-u32 0:4"
FLAGGED = STORE.replace(LAUNCH, LAUNCH.replace("--dump-u32 0:4", "FLAGS"))   # FLAGS: the test's


def test_a_run_that_ended_well_says_nothing():
    check(lambda fx: render_run_diagnostics(Jobs(fx, runs={"k": None})),
          FLAGGED.replace("FLAGS", "--dump-u32 0:4"), expect("""
no diagnostics
"""))


def test_an_invalid_launch_line():
    check(lambda fx: render_run_diagnostics(Jobs(fx, runs={"k": None})),
          FLAGGED.replace("FLAGS", "--grid 1,1 --bogus"), expect("""
1:60-1:67 R004 error: unrecognized arguments: --bogus
"""))


def test_a_run_time_error():
    check(lambda fx: render_run_diagnostics(Jobs(fx, runs={"k": None})),
          FLAGGED.replace("FLAGS", "--device-memory 8"), expect("""
6:4-6:27 R001 error: memory access out of bounds: address 0x0000000000000008 (4-byte device access, device memory is 8 bytes) (out of bounds; workgroup (0,0,0), wave 0, lanes 2-3)
7:4-7:8 R006 hint: not executed in this run (shown threads 0-3)
"""))


def test_an_arg_file_of_a_document_without_a_folder():
    check(lambda fx: render_run_diagnostics(Jobs(fx, runs={"k": None})),
          FLAGGED.replace("FLAGS", "--arg 0=missing.bin"), expect("""
1:49-1:68 R004 error: --arg: the document has no folder to read files from (save it first; a path with a NUL byte is no file's)
"""))


def test_a_launch_that_cannot_run():
    check(lambda fx: render_run_diagnostics(Jobs(fx, runs={"k": None})),
          FLAGGED.replace("FLAGS", "").replace(".registers 8", ".workgroup_size 4096, 4096, 1"),
          expect("""
1:0-1:48 R005 error: the kernel's workgroup size (metadata, which wins over --workgroup): 16777216 threads per workgroup is more than the emulator's 1024
"""))


def test_a_source_that_does_not_assemble_is_said_once_where_the_analysis_does_not():
    """Two kernels' runs fail on the one line that does not assemble."""
    source = FLAGGED.replace("FLAGS", "").replace("imul r2, r0, r1", "imul r2, r0") + \
        ".kernel k2\n; wave-lsp run: --workgroup 4,1,1\n    halt\n.end\n"
    both = {"k": None, "k2": None}
    check(lambda fx: render_run_diagnostics(Jobs(fx, runs=both)), source, expect("""
no diagnostics
"""))
    check(lambda fx: render_run_diagnostics(Jobs(fx, runs=both), lambda: []), source,
          expect("""
5:0-5:15 R005 error: cannot run: line 6: invalid operand count: expected 3, got 2
"""))


def test_a_kernel_without_a_launch_line_is_anchored_on_its_kernel_line():
    check(lambda fx: render_run_diagnostics(Jobs(fx, runs={"k": None})),
          FLAGGED.replace("; wave-lsp run: --workgroup 4,1,1 --wave-width 4 FLAGS\n", "")
          .replace(".registers 8", ".workgroup_size 4096, 4096, 1"), expect("""
0:0-0:9 R005 error: the kernel's workgroup size (metadata, which wins over --workgroup): 16777216 threads per workgroup is more than the emulator's 1024
"""))

"""Runs, profiles, kernel tests and portability checks of a fixture, in process, through the same
`ide` functions the server's job kinds call on their worker (the real emulator: no server, no
mocks), and what the editor then shows of them: every code lens (`render_lenses`) and the whole
hover with the jobs' parts (`render_job_hover`).

A run's elapsed time is the one thing set, to `ELAPSED_MS`, so that an expectation can state
the outcome lens (`✓ 1.5 ms · 12 instr · …`): everything else is what the emulator computed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from wave_lsp.ide.arg_files import ArgFiles
from wave_lsp.ide.hover_answer import hover_at
from wave_lsp.ide.kernel_tests import discover, run_test
from wave_lsp.ide.lenses import (document_lenses, gpu_lenses, kernel_test_lenses,
                                 portability_lenses, profile_lenses, run_lenses)
from wave_lsp.ide.locate import target_at
from wave_lsp.ide import portability
from wave_lsp.ide.profile_session import profile_kernels, with_presets
from wave_lsp.ide.profile_view import profile_hover
from wave_lsp.ide.run_hover import run_hover
from wave_lsp.ide.run_diagnostics import run_diagnostics
from wave_lsp.ide.run_limits import RunLimits
from wave_lsp.ide.run_session import execute, kernel_launch_lines, plan_runs
from wave_lsp.ide.state import DocumentState
from wave_lsp.ide.test_view import KEPT_OUTPUT_LINES, TestRecord, with_limits
from wave_lsp.isa.backends import TARGET_NAMES

from .fixture import Fixture

# The fixtures' kernel: each of its 4 lanes stores its lane id; its launch line dumps them.
STORE = """
.kernel k
; wave-lsp run: --workgroup 4,1,1 --wave-width 4 --dump-u32 0:4
.registers 8
    mov_sr r0, sr_lane_id
    mov_imm r1, 4
    imul r2, r0, r1
    device_store_u32 r2, r0
    halt
.end
"""

ELAPSED_MS = 1.5
NO_FOLDER = Path("/nonexistent-wave-lsp-folder")   # as the server runs a file it cannot read


class Jobs:
    """A fixture's document and what ran on it, as the server's job records hold it: `runs`
    and `profiles` (kernel -> launch ordinal, None: the first launch line or the default
    launch), whether its kernel `tests` ran, and the live kernels whose run has not arrived."""

    def __init__(self, fx: Fixture, runs: dict | None = None, profiles: dict | None = None,
                 tests: bool = False, running: dict | None = None, profiling: dict | None = None,
                 testing: bool = False, checked: tuple[str, ...] = ()):
        self.doc = doc = fx.state()
        self.by_kernel = kernel_launch_lines(doc, None)
        limits = RunLimits()
        self.runs = [replace(r, elapsed_ms=ELAPSED_MS) for r in execute(
            plan_runs(doc, runs or {}, self.by_kernel), limits)]
        found = profile_kernels(plan_runs(doc, profiles or {}, self.by_kernel), limits)
        self.profiles = with_presets(found, limits=limits)
        self.run_live = {**(runs or {}), **(running or {})}
        self.profile_live = {**(profiles or {}), **(profiling or {})}
        self.tests = discover(doc.text) if "wave-lsp expect" in doc.text else []
        self.records = {}
        if tests:
            for test in self.tests:
                outcome = run_test(doc.text, with_limits(test, limits),
                                   path=NO_FOLDER / "untitled.wave", root=NO_FOLDER,
                                   keep_lines=KEPT_OUTPUT_LINES)
                self.records[(test.kernel, test.launch_line)] = TestRecord(test, outcome,
                                                                           doc.revision)
        self.testing = {(t.kernel, t.launch_line) for t in self.tests} if testing else set()
        for kernel in checked:          # the portability check, at every configured width
            comparison = portability.check_widths(
                doc.text, kernel, self.by_kernel.get(kernel, []),
                portability.widths_of(TARGET_NAMES), ArgFiles(), None, lambda: False)
            portability.keep(doc, doc.revision, comparison)


def lenses_of(jobs: Jobs, refused=(), gpu: bool = False):
    """The document's lenses as the server gathers them: its own, then the job kinds' in the
    order the server registers them (portability, runs, GPU runs, profiles, tests)."""
    doc = jobs.doc
    return document_lenses(doc, TARGET_NAMES, [
        portability_lenses(doc),
        run_lenses(doc, jobs.runs, jobs.run_live, jobs.by_kernel, refused),
        gpu_lenses(doc, gpu),
        profile_lenses(doc, jobs.profiles, jobs.runs, jobs.profile_live, jobs.by_kernel),
        kernel_test_lenses(doc, jobs.tests, jobs.records, jobs.testing)])


def render_lenses(jobs: Jobs, refused=(), gpu: bool = False, detail: bool = False) -> str:
    """Each line's lenses as an editor shows them (`3: ▶ Run | ✕ Clear`); with `detail`, then
    every lens: its columns, action, arguments and tooltip."""
    found = lenses_of(jobs, refused, gpu)
    out, lines = [], {}
    for lens in found:
        lines.setdefault(lens.line, []).append(lens.title)
    out = [f"{line}: {' | '.join(titles)}" for line, titles in lines.items()]
    if detail:
        out.append("---")
        out += [f"{lens.line}:{lens.start}-{lens.end} {lens.title!r} -> {lens.action.value}"
                f"{list(lens.arguments)}" + _tooltip(lens.tooltip) for lens in found]
    return "\n".join(out or ["no lenses"]) + "\n"


def _tooltip(text: str | None) -> str:
    """A tooltip's first line, and how many more it has (a resource table has a dozen)."""
    if not text:
        return ""
    first, *rest = text.split("\n")
    return f" tooltip {first!r}" + (f" (+{len(rest)} lines)" if rest else "")


def render_job_hover(jobs: Jobs, cursor: tuple[int, int]) -> str:
    """The whole hover at `cursor` with the runs' and the profiles' parts (in the order the
    server registers the kinds), as `hover_at` answers the server: the range it covers, then
    the Markdown."""
    doc: DocumentState = jobs.doc
    line, col = cursor
    parts = [lambda at, target: run_hover(doc, jobs.runs, at, target),
             lambda at, target: profile_hover(jobs.profiles, at)]
    answer = hover_at(doc, line, col, False, TARGET_NAMES, parts)
    if answer is None:
        return "no hover\n"
    target = target_at(doc, line, col)
    head = (f"{target.kind.name.lower()} {target.text!r} at {line}:{answer.range[1]}-"
            f"{answer.range[2]}" if answer.range is not None else "the parts only")
    return f"{head}\n---\n{answer.markdown}\n"


def render_run_diagnostics(jobs: Jobs, analysis=None) -> str:
    """The runs' diagnostics as the server publishes them beside the analysis' (`analysis`:
    the document's analysis diagnostics, by default its own): one per line, with its range,
    code and severity."""
    doc = jobs.doc
    found = run_diagnostics(doc, jobs.runs, jobs.by_kernel,
                            analysis or (lambda: doc.diagnostics()))
    return "\n".join(f"{d.range.start_line}:{d.range.start_col}-{d.range.end_line}:"
                     f"{d.range.end_col} {d.code} {d.severity.name.lower()}: {d.message}"
                     for d in found) + "\n" if found else "no diagnostics\n"

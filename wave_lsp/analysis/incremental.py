"""Incremental analysis of one `Document`: `AnalysisState` keeps what the last analysis found,
so that after an edit only the changed lines and the kernels that contain them are checked again.

One `AnalysisState` belongs to one document (the IDE layer's `DocumentState` owns it; a plain
`analyze(document)` makes a throw-away one). It holds:
- line findings per line, updated from the document's edit log (`Document.edits_since`); a
  finding holds no line number (`LineFinding.at` gives it one when read), so an edit that adds
  or removes lines only moves the index, the findings stay the same objects;
- per kernel object: its diagnostics, portability findings and summary for the kernel's
  revision, anchored to the kernel (anchors.py: every line relative to the kernel's first line,
  made absolute when read). The document patches kernels in place for edits inside them and
  only moves the `line` of the kernels after an edit that adds or removes lines, so an edit
  inside one kernel never touches another kernel's results; and its last uniformity analysis,
  which the next one starts from;
- the diagnostics of the last configuration, by document revision.
Anything the edit log cannot explain (a full replacement, a trimmed log) recomputes everything,
which is still linear.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cancellation import checkpoint
from .codes import enabled_by_default
from ..syntax.document import Document
from ..syntax.program import Kernel, Program
from .anchors import AnchoredView, anchored
from .diagnostic import Diagnostic
from .divergence import kernel_divergence
from .failures import guarded
from .findings import LineFinding
from .kernel_checks import KernelSummary, check_kernel
from .line_checks import check_line
from .portability import Finding, kernel_findings, portability_diagnostics_of
from .reaching import RegisterFlow, register_flow
from ..syntax.kernel_arguments import stated_arguments, tool_lines
from .uninitialised import uninitialised_reads
from .structure import reference_diagnostics, shape_diagnostics
from .suppression import line_suppression
from .uniformity import KernelUniformity, analyse_kernel

CHECKPOINT_EVERY = 512   # lines between cancellation checkpoints


@dataclass(eq=False)
class KernelResult:
    """A kernel's diagnostics and summary, valid while the kernel keeps its revision; every
    line in them is relative to the kernel's first line (`kernel.line`, the anchor)."""

    kernel: Kernel
    revision: int
    diagnostics: AnchoredView
    summary: KernelSummary       # `calls` relative to the kernel's first line

    def reported(self) -> list[Diagnostic]:
        """The diagnostics where the kernel is now."""
        return self.diagnostics.at(self.kernel.line)

    def reported_summary(self) -> KernelSummary:
        """The summary with the lines of its calls where the kernel is now."""
        summary, base = self.summary, self.kernel.line
        if not summary.calls:
            return summary
        return KernelSummary(summary.upstream_size, summary.labels,
                             tuple((n + base, op) for n, op in summary.calls), summary.halts)


@dataclass(eq=False)
class PortabilityResult:
    """A kernel's P8xx diagnostics for one set of targets, anchored to the kernel."""

    kernel: Kernel
    revision: int
    key: tuple
    diagnostics: AnchoredView


class AnalysisState:
    """Everything the analysis of one document keeps between runs."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.revision = -1                               # of the line findings
        self.findings: dict[int, tuple[LineFinding, ...]] = {}
        self.marked: set[int] = set()                    # lines with a suppression marker
        self.lines_changed = True     # since the last result: line findings or markers changed
        self._program: Program | None = None               # of the last result
        self.kernels: dict[int, KernelResult] = {}       # by id(kernel), kernel kept alive
        self._uniformity: dict[int, KernelUniformity] = {}   # last analysis, by id(kernel)
        self._recorded: dict[int, tuple[tuple, KernelUniformity]] = {}  # hover's, by id(kernel)
        # portability findings (all backends, lines relative to the kernel), by id(kernel):
        # (kernel, revision, findings)
        self._portability: dict[int, tuple[Kernel, int, tuple[Finding, ...]]] = {}
        self._result: tuple[tuple, list[Diagnostic]] | None = None
        # the diagnostics of each line's findings: line -> (findings, diagnostics); kept while
        # the line keeps equal findings at the same number, so unchanged lines keep the
        # same Diagnostic objects (the server reuses their conversions by identity)
        self._line_diagnostics: dict[int, tuple[tuple[LineFinding, ...], list[Diagnostic]]] = {}
        # severity overrides of the configuration: id(diagnostic) -> (diagnostic, overridden)
        self.overridden: dict[int, tuple[Diagnostic, Diagnostic]] = {}
        # P8xx diagnostics per kernel, anchored to it
        self._portability_diagnostics: dict[int, PortabilityResult] = {}
        # reaching definitions by id(kernel): (kernel, revision, flow); U511-U513 by id(kernel):
        # (kernel, revision, its tool comments, diagnostics anchored to the kernel)
        self._flows: dict[int, tuple[Kernel, tuple[int, int], RegisterFlow]] = {}
        self._uninitialised: dict[int, tuple[Kernel, int, tuple, AnchoredView]] = {}
        # the last program-level diagnostics (label uses, call targets, kernel blocks), each
        # kept as the same object while it stays equal (see `_kept`)
        self._program_level: dict[Diagnostic, Diagnostic] = {}

    # ---- line findings -------------------------------------------------------------------------
    def _check_lines(self, numbers) -> None:
        lines, findings, marked = self.document.lines, self.findings, self.marked
        for count, number in enumerate(numbers):
            if count % CHECKPOINT_EVERY == 0:
                checkpoint()
            text = lines[number]
            found = check_line(text)
            suppression = line_suppression(text)
            if (findings.get(number) or ()) != (found or ()) or number in marked \
                    or suppression is not None:
                self.lines_changed = True
            if found:
                findings[number] = found
            else:
                findings.pop(number, None)
            if suppression is not None:
                marked.add(number)
            else:
                marked.discard(number)

    def refresh(self) -> None:
        """Bring the line findings up to date with the document."""
        document = self.document
        edits = document.edits_since(self.revision) if self.revision >= 0 else None
        if edits is None:
            self.lines_changed = True
            self.findings, self.marked = {}, set()
            self.revision = -1
            self._check_lines(range(len(document.lines)))
        else:
            # Several edits can arrive at once (one `didChange` with several changes, in any
            # order): move everything through all of them first, keeping the lines they wrote
            # in the numbering of the later edits, then check those lines in the final text.
            dirty: set[int] = set()
            for edit in edits:
                after, delta = edit.first + edit.old_count, edit.new_count - edit.old_count
                if delta:
                    self._move_lines(after, delta)
                dirty = {n + delta if n >= after else n
                         for n in dirty if not edit.first <= n < after}
                dirty.update(range(edit.first, edit.first + edit.new_count))
            self._check_lines(sorted(n for n in dirty if n < len(document.lines)))
        self.revision = document.revision

    def _move_lines(self, after: int, delta: int) -> None:
        """Lines from `after` on moved by `delta` (lines before it that the edit replaced are
        checked again by the caller)."""
        self.lines_changed = True
        first = after + min(delta, 0)
        self.findings = {n + delta if n >= after else n: f
                         for n, f in self.findings.items() if not first <= n < after}
        self.marked = {n + delta if n >= after else n
                       for n in self.marked if not first <= n < after}

    # ---- kernels -------------------------------------------------------------------------------
    def uniformity(self, kernel: Kernel) -> KernelUniformity:
        """The kernel's uniformity (not recorded), starting from its previous analysis."""
        previous = self._uniformity.get(id(kernel))
        result = analyse_kernel(kernel, previous=previous)
        self._uniformity[id(kernel)] = result
        return result

    def recorded_uniformity(self, kernel: Kernel) -> KernelUniformity:
        """The kernel's uniformity with the state at every line (for hover), cached by the
        kernel's revision."""
        key = (kernel.revision, kernel.line)
        hit = self._recorded.get(id(kernel))
        if hit is not None and hit[1].kernel is kernel and hit[0] == key:
            return hit[1]
        result = analyse_kernel(kernel, record=True)
        self._recorded[id(kernel)] = (key, result)
        return result

    def kernel_results(self, program: Program) -> list[KernelResult]:
        """Per-kernel diagnostics (checks and divergence), reusing unchanged kernels' results."""
        fresh: dict[int, KernelResult] = {}
        results = []
        for kernel in program.kernels:
            cached = self.kernels.get(id(kernel))
            if cached is None or cached.kernel is not kernel or cached.revision != kernel.revision:
                checkpoint()
                diags, summary = check_kernel(kernel)
                with guarded(f"divergence analysis of kernel '{kernel.name}'"):
                    diags = diags + kernel_divergence(self.uniformity(kernel))
                base = kernel.line
                summary = KernelSummary(summary.upstream_size, summary.labels,
                                        tuple((n - base, op) for n, op in summary.calls),
                                        summary.halts)
                cached = KernelResult(kernel, kernel.revision, AnchoredView.of(diags, base),
                                      summary)
            fresh[id(kernel)] = cached
            results.append(cached)
        self.kernels = fresh
        live = set(fresh)
        for cache in (self._uniformity, self._recorded, self._portability,
                      self._portability_diagnostics, self._flows, self._uninitialised):
            for key in [k for k in cache if k not in live]:
                del cache[key]
        return results

    def register_flow(self, kernel: Kernel) -> RegisterFlow:
        """The kernel's reaching definitions (`reaching.py`, absolute lines), kept while the
        kernel keeps its revision and first line."""
        key = (kernel.revision, kernel.line)
        hit = self._flows.get(id(kernel))
        if hit is None or hit[0] is not kernel or hit[1] != key:
            hit = self._flows[id(kernel)] = (kernel, key, register_flow(kernel))
        return hit[2]

    def uninitialised_diagnostics(self, program: Program) -> list[Diagnostic]:
        """U511-U513 of every kernel, recomputed for a kernel when its instructions or its
        tool comments (which leave its revision alone) change."""
        out: list[Diagnostic] = []
        lines = self.document.lines
        for kernel in program.kernels:
            found = tool_lines(lines, kernel)
            marks = _relative(found, kernel.line)
            hit = self._uninitialised.get(id(kernel))
            if hit is None or hit[0] is not kernel or hit[1] != kernel.revision \
                    or hit[2] != marks:
                with guarded(f"uninitialised-read analysis of kernel '{kernel.name}'"):
                    diagnostics: list[Diagnostic] = []
                    diagnostics = uninitialised_reads(
                        kernel, self.register_flow(kernel),
                        stated_arguments(lines, kernel, found), lines)
                hit = self._uninitialised[id(kernel)] = (
                    kernel, kernel.revision, marks, AnchoredView.of(diagnostics, kernel.line))
            out.extend(hit[3].at(kernel.line))
        return out

    def portability_findings(self, kernel: Kernel) -> tuple[Finding, ...]:
        """The kernel's portability findings for every backend, their lines relative to the
        kernel's first line, kept per kernel revision."""
        hit = self._portability.get(id(kernel))
        if hit is not None and hit[0] is kernel and hit[1] == kernel.revision:
            return hit[2]
        with guarded(f"portability analysis of kernel '{kernel.name}'"):
            found = ()
            found = kernel_findings(kernel, base=kernel.line)
        self._portability[id(kernel)] = (kernel, kernel.revision, found)
        return found

    def portability_diagnostics(self, targets: tuple[str, ...],
                                configured: frozenset[str] = frozenset()) -> list[Diagnostic]:
        """P8xx for the configured targets, without the codes that are off by default unless
        `configured` (the codes given a severity) names them."""
        out: list[Diagnostic] = []
        if not targets:
            return out
        cache = self._portability_diagnostics
        key = (targets, configured)
        for kernel in self.document.program.kernels:
            hit = cache.get(id(kernel))
            if hit is None or hit.kernel is not kernel or hit.revision != kernel.revision \
                    or hit.key != key:
                found = [d for d in portability_diagnostics_of(self.portability_findings(kernel),
                                                               targets)
                         if enabled_by_default(d.code) or d.code in configured]
                hit = cache[id(kernel)] = PortabilityResult(
                    kernel, kernel.revision, key, AnchoredView(anchored(found, 0)))
            out.extend(hit.diagnostics.at(kernel.line))
        return out

    # ---- everything ----------------------------------------------------------------------------
    def collect(self, compat: bool) -> list[Diagnostic]:
        """Every diagnostic before configuration and suppression."""
        self.refresh()
        program = self._program = self.document.program
        found: list[Diagnostic] = []
        previous, kept = self._line_diagnostics, {}
        for number, findings in self.findings.items():
            hit = previous.get(number)
            if hit is None or (hit[0] is not findings and hit[0] != findings):
                hit = (findings, [f.at(number) for f in findings])
            kept[number] = hit
            found.extend(hit[1])
        self._line_diagnostics = kept
        results = self.kernel_results(program)
        for result in results:
            found.extend(result.reported())
        found.extend(self._kept(
            shape_diagnostics(program) +
            reference_diagnostics(program, [r.reported_summary() for r in results], compat)))
        found.extend(self.uninitialised_diagnostics(program))
        return found

    def _kept(self, fresh: list[Diagnostic]) -> list[Diagnostic]:
        """`fresh`, with each diagnostic equal to one of the last call's replaced by that same
        object: what is built for a diagnostic is kept by its identity (the server's conversion
        to the protocol), and these are recomputed on every edit (a file of many calls: a
        thousand C701 rebuilt per edit took the server half a second to convert)."""
        previous = self._program_level
        kept = [previous.get(d, d) for d in fresh]
        self._program_level = {d: d for d in kept}
        return kept

    def result(self, key: tuple, compute) -> list[Diagnostic]:
        """`compute()` unless it already ran for this configuration `key` at this revision, or
        at an earlier one whose diagnostics are still the document's (`_unchanged_since`)."""
        full_key = (key, self.document.revision)
        last = self._result
        if last is not None and last[0] != full_key and last[0][0] == key \
                and self._unchanged_since(last[0][1]):
            self._result = last = (full_key, last[1])
        if last is None or last[0] != full_key:
            self._result = (full_key, compute())
            self.lines_changed = False
        return list(self._result[1])

    def _unchanged_since(self, revision: int) -> bool:
        """Whether the diagnostics computed at `revision` are still the document's: every edit
        since replaced lines inside one kernel's body by as many lines with the same statements
        (a comment or blanks changed), and no line's findings or suppression changed."""
        document = self.document
        edits = document.edits_since(revision)
        if not edits or self.revision != revision:
            return False
        program = document.program
        if program is not self._program:
            return False
        for edit in edits:
            if edit.old_count != edit.new_count or not edit.patched:
                return False
            kernel = program.kernel_at(edit.first)
            if kernel is None or not kernel.line < edit.first \
                    or edit.first + edit.new_count - 1 > kernel.last_line:
                return False
            cached = self.kernels.get(id(kernel))
            if cached is None or cached.kernel is not kernel \
                    or cached.revision != kernel.revision \
                    or not cached.diagnostics.rendered_at(kernel.line):
                return False
            hit = self._uninitialised.get(id(kernel))
            if hit is None or hit[2] != _relative(tool_lines(document.lines, kernel),
                                                  kernel.line):
                return False
        self.refresh()
        return not self.lines_changed


def _relative(found: tuple, base: int) -> tuple:
    """A kernel's `tool_lines` with their lines relative to the kernel's first line."""
    return tuple((n - base, text) for n, text in found)

"""Code lenses as plain values: which lenses each kernel, launch line and store line shows, with
their titles and states, decided here for every kind (resources and Assemble, inline runs,
profiles, kernel tests, the portability check, GPU runs) and laid out by `lens_layout`.

A `Lens` names what a click does by an `Action`, a neutral key: the server maps each action to
its command (its wire name, `server/extensions.py`) and the lens's columns (code points) to the
client's units, in one place (`server/code_lens.py`). `document_lenses` is the whole answer of a
document, the one entry the server and the in-process tests call.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Iterable

from .lens_layout import arrange
from .state import DocumentState

if TYPE_CHECKING:
    from .kernel_tests import KernelTest
    from .launch_lines import LaunchLine
    from .profile_session import KernelProfileRun
    from .run_results import KernelRun
    from .test_view import TestRecord


class Action(Enum):
    """What clicking a lens does (the server maps each to its command)."""

    RUN = "run"                          # run the kernel (at its launch line)
    CLEAR = "clear"                      # clear the kernel's run
    MANAGE_TRUST = "manage trust"        # the client's own: trust the workspace
    PROFILE = "profile"
    CLEAR_PROFILE = "clear profile"
    TEST = "test"
    CHECK_PORTABILITY = "check portability"
    RUN_ON_GPU = "run on GPU"
    KERNEL_RESOURCES = "kernel resources"
    ASSEMBLE = "assemble"
    VERIFY = "verify"                    # prove the kernel race-free (ide.verify)
    REPLAY_WITNESS = "replay witness"    # run the launch of the kernel's witness
    DEBUG_WITNESS = "debug witness"      # the client's own: debug the witness (ide.moments)


@dataclass(frozen=True, slots=True)
class Lens:
    """One lens over columns [start, end) of `line`: its title, what a click does (`action`
    with `arguments`), a tooltip, and whether it leads its line (the run lenses do)."""

    line: int
    start: int
    end: int
    title: str
    action: Action
    arguments: tuple = ()
    tooltip: str | None = None
    leads: bool = False


UNTRUSTED_TITLE = "⚠ not run (untrusted): Manage Trust"
UNTRUSTED_TOOLTIP = ("Kernels do not run in an untrusted workspace: trust it (click) and "
                     "▶ Run again")


def document_lenses(doc: DocumentState, targets: tuple[str, ...],
                    contributed: Iterable[list[Lens]] = ()) -> list[Lens]:
    """Every lens of the document, laid out: each kernel's resources and Assemble, then what
    the job kinds `contributed` (in their order), the leading ones first on each line."""
    out = kernel_lenses(doc, targets)
    for lenses in contributed:
        out += lenses
    return arrange(out)


def kernel_lenses(doc: DocumentState, targets: tuple[str, ...]) -> list[Lens]:
    """On each `.kernel` line: its short resource summary (the full table in the tooltip and
    behind a click) and "Assemble"."""
    from .resources import resources_of
    out = []
    for kernel in doc.program.kernels:
        res = resources_of(doc, kernel.name, targets)
        if res is None:
            continue
        where = (kernel.line, kernel.directive.start, kernel.directive.end)
        out.append(Lens(*where, res.short_summary(), Action.KERNEL_RESOURCES,
                        (doc.uri, kernel.name), tooltip=res.text() + "\n(click: the full summary)"))
        out.append(Lens(*where, "Assemble", Action.ASSEMBLE, (doc.uri,)))
    return out


def _places(doc: DocumentState, by_kernel: dict[str, list["LaunchLine"]], results: dict,
            live: dict[str, int | None]):
    """(line, start, end, kernel, launch line or None, here) for each `.kernel` line and each
    launch line: `here` where the kernel's result (or, while none, its live launch) is."""
    for kernel in doc.program.kernels:
        lines = by_kernel.get(kernel.name, [])
        result = results.get(kernel.name)
        d = kernel.directive
        yield (kernel.line, d.start, d.end, kernel.name, None,
               (result.launch_line is None) if result is not None else not lines)
        for ll in lines:
            if result is not None:
                here = result.launch_line == ll.line
            else:
                here = kernel.name in live and ll.ordinal == (live.get(kernel.name) or 0)
            yield ll.line, ll.start, ll.end, kernel.name, ll.line, here


def run_lenses(doc: DocumentState, current: list["KernelRun"], live: dict[str, int | None],
               by_kernel: dict[str, list["LaunchLine"]],
               refused: Iterable[str] = ()) -> list[Lens]:
    """`▶ Run` above each kernel and launch line; where a kernel last ran `▶ Run again`, the
    outcome and `✕ Clear`; `⟳ running…` where a live kernel's run has not arrived; where a Run
    of a kernel in `refused` was refused (an untrusted workspace), that and Manage Trust."""
    results = {r.kernel: r for r in current}
    refused = set(refused)
    out: list[Lens] = []
    for line, start, end, kernel, launch, here in _places(doc, by_kernel, results, live):
        run, result = (doc.uri, kernel, launch), results.get(kernel)
        if kernel in refused and launch is None:     # said on the kernel's own line
            shown = [("▶ Run", Action.RUN, run, None),
                     (UNTRUSTED_TITLE, Action.MANAGE_TRUST, (), UNTRUSTED_TOOLTIP)]
        elif result is not None and here:
            shown = [("▶ Run again", Action.RUN, run, None),
                     (result.summary(), Action.RUN, run, None),
                     ("✕ Clear", Action.CLEAR, (doc.uri, kernel), None)]
        elif result is None and kernel in live and here:
            shown = [("⟳ running…", Action.RUN, run, None)]
        else:
            shown = [("▶ Run", Action.RUN, run, None)]
        out += [Lens(line, start, end, title, action, arguments, tooltip, leads=True)
                for title, action, arguments, tooltip in shown]
    return out


def profile_lenses(doc: DocumentState, profiles: list["KernelProfileRun"],
                   runs: list["KernelRun"], live: dict[str, int | None],
                   by_kernel: dict[str, list["LaunchLine"]]) -> list[Lens]:
    """`◔ Profile` beside each Run lens, except where the kernel's run did not end well (that
    comes first, and the line keeps its room for it); where the kernel was last profiled its
    figures (click: profile again) and `✕ Clear profile`; `◔ profiling…` while it runs."""
    results = {r.kernel: r for r in profiles}
    cannot = {(r.kernel, r.launch_line) for r in runs if r.status != "ok"}
    out: list[Lens] = []
    for line, start, end, kernel, launch, here in _places(doc, by_kernel, results, live):
        profile, result = (doc.uri, kernel, launch), results.get(kernel)
        if result is not None and here:
            shown = [(result.summary(), Action.PROFILE, profile),
                     ("✕ Clear profile", Action.CLEAR_PROFILE, (doc.uri, kernel))]
        elif result is None and kernel in live and here:
            shown = [("◔ profiling…", Action.PROFILE, profile)]
        elif (kernel, launch) not in cannot:
            shown = [("◔ Profile", Action.PROFILE, profile)]
        else:
            shown = []
        out += [Lens(line, start, end, title, action, arguments, leads=True)
                for title, action, arguments in shown]
    return out


def kernel_test_lenses(doc: DocumentState, tests: list["KernelTest"],
                records: dict[tuple[str, int], "TestRecord"],
                running: Iterable[tuple[str, int]] = ()) -> list[Lens]:
    """"▶ Test" on each launch line with expectations, then its outcome once it ran (or
    `⟳ testing…` while it runs)."""
    from .test_view import outcome_title
    running = set(running)
    out = []
    for test in tests:
        text = doc.lines[test.launch_line]
        where = (test.launch_line, len(text) - len(text.lstrip()), len(text.rstrip()))
        arguments = (doc.uri, test.kernel, test.launch_line)
        out.append(Lens(*where, "▶ Test", Action.TEST, arguments))
        record = records.get((test.kernel, test.launch_line))
        if record is not None:
            out.append(Lens(*where, outcome_title(record.outcome), Action.TEST, arguments))
        elif (test.kernel, test.launch_line) in running:
            out.append(Lens(*where, "⟳ testing…", Action.TEST, arguments))
    return out


def portability_lenses(doc: DocumentState) -> list[Lens]:
    """"Check portability" above each kernel; after a check, one lens on each store line whose
    device memory differs between wave widths (until the document changes)."""
    from .portability import differing_lines
    out = [Lens(k.line, k.directive.start, k.directive.end, "Check portability",
                Action.CHECK_PORTABILITY, (doc.uri, k.name)) for k in doc.program.kernels]
    for line, comparison in differing_lines(doc):
        out.append(Lens(line, 0, len(doc.lines[line]), "⚠ " + comparison.line_message(line),
                        Action.CHECK_PORTABILITY, (doc.uri, comparison.kernel)))
    return out


def gpu_lenses(doc: DocumentState, available: bool) -> list[Lens]:
    """"▶ Run on GPU" above each kernel, only where a GPU run is `available`."""
    if not available:
        return []
    return [Lens(k.line, k.directive.start, k.directive.end, "▶ Run on GPU", Action.RUN_ON_GPU,
                 (doc.uri, k.name), leads=True) for k in doc.program.kernels]

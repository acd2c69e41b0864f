"""Hover content from a run: a register's or predicate's value per shown lane before and after
an executed line, and the `--dump-*` regions on the launch line (Markdown text).

"Before" is rebuilt from the recorded writes: for each lane, the value the same line wrote on
an earlier execution (a loop), else the last value written by the nearest executed line above
(in source order) while that lane was active, else its initial value (`--set-reg`, or zero). In
straight-line code and simple loops this is exact; the emulator records writes per line, not
their interleaving across lines, so a loop body with several writers of one register is an
approximation. Where the run was recorded (`who_wrote`), the table names who wrote the value of
each of the first few active threads, and a dump who wrote its first few values.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from .run_dump import DumpWindow, dump_rows
from .run_limits import DUMP_COMMAND
from .run_results import MAX_DUMP_LINES, KernelRun, LineResult, LineValue
from .who_wrote import WRITERS_IN_HOVER, who_wrote_text
from ..isa.value_format import ACTIVE, INACTIVE, format_value, lane_ranges


def line_tooltip(run: KernelRun, value: LineResult) -> str:
    """The tooltip of an executed line's inline value: how often it ran, in which threads."""
    return (f"{run.kernel}: {value.mnemonic} ran {value.count:,}× "
            f"(shown threads {lane_ranges(list(run.threads))}; {run.summary()})")


def _writes_of(run: KernelRun, line: int, name: str) -> LineValue | None:
    result = run.lines.get(line)
    if result is None:
        return None
    for v in result.values:
        if v.target == name or v.target.split(":")[0] == name:
            return v
    return None


def values_before(run: KernelRun, line: int, name: str) -> tuple[dict[int, int], str | None]:
    """Per shown thread, `name`'s value before `line` runs, and the display kind of its writer."""
    before: dict[int, int] = {}
    kind = None
    own = _writes_of(run, line, name)
    if own is not None:      # a line that ran before (a loop): its own earlier write is latest
        before.update(own.earlier)
    for above in sorted((ln for ln in run.lines if ln < line), reverse=True):
        v = _writes_of(run, above, name)
        if v is None:
            continue
        kind = kind or v.kind
        for t, bits in v.values.items():
            before.setdefault(t, bits)
        if len(before) == len(run.threads):
            break
    initial = run.initial.get(int(name[1:]), 0) if name.startswith("r") else 0
    for t in run.threads:
        before.setdefault(t, initial)
    return before, kind


def register_table(run: KernelRun, line: int, name: str) -> str | None:
    """Markdown table of `name` (r5, p1) on an executed `line`, or None if the line did not
    run."""
    result = run.lines.get(line)
    if result is None:
        return None
    before, kind = values_before(run, line, name)
    written = _writes_of(run, line, name)
    writers = run.provenance is not None
    kind = (written.kind if written else kind) or ("pred" if name.startswith("p") else "auto")
    active = set(result.active) if result.active is not None else None
    rows = []
    explained = 0                 # threads whose writer is named (the first few, active)
    for i, t in enumerate(run.threads):
        was = before.get(t, 0)
        now = written.values.get(t, was) if written else was
        on = "?" if active is None else (ACTIVE if t in active else INACTIVE)
        changed = " ←" if written and t in written.values and now != was else ""
        why = ""
        if run.provenance is not None and explained < WRITERS_IN_HOVER and on != INACTIVE:
            explained += 1
            why = who_wrote_text(run.provenance, ("register", name, t, line)) or ""
        rows.append(f"| {i} | {t} | {on} | {format_value(was, kind)} | "
                    f"{format_value(now, kind)}{changed} |" + (f" {why} |" if writers else ""))
    times = f", ran {result.count:,} times (last shown)" if result.count > 1 else ""
    head = (f"**`{name}`** on line {line + 1} in this run ({run.kernel}{times})\n\n"
            "| lane | thread | active | before | after |" + (" who wrote it |" if writers else "")
            + "\n|---|---|---|---|---|" + ("---|" if writers else "") + "\n")
    return head + "\n".join(rows)


def dumps_markdown(run: KernelRun, uri: str = "", window: DumpWindow | None = None) -> str | None:
    """The launch's `--dump-*` regions after the run: the values kept, or the window last asked
    for (`run_dump`), each under its command links to the next and previous values."""
    if not run.dumps:
        return None
    parts = [f"**Run of `{run.kernel}`**: {run.summary()}"]
    for index, dump in enumerate(run.dumps):
        shown = window if (window is not None and window.index == index
                           and window.kernel == run.kernel and window.revision == run.revision
                           and window.launch_line == run.launch_line) else None
        first, values = (shown.start, shown.values) if shown else (0, dump.values)
        if shown or dump.omitted:
            parts.append(_window_heading(run, uri, index, dump, first, len(values)))
        else:
            parts.append(dump.title())
        parts[-1] += "\n```\n" + "\n".join(values) + "\n```"
        if run.provenance is not None:
            parts.append(_dump_writers(run, dump, first, len(values)))
    return "\n\n".join(p for p in parts if p)


ELEMENT_BYTES = {"u32": 4, "f32": 4, "f16": 2, "bf16": 2, "memory": 16}


def _dump_writers(run: KernelRun, dump, first: int, count: int) -> str:
    """Who wrote the first few values shown of a dump (a row's first word for a hex dump)."""
    size = ELEMENT_BYTES.get(dump.kind, 4)
    lines = []
    for i in range(first, first + min(count, WRITERS_IN_HOVER)):
        address = dump.start + i * size
        text = who_wrote_text(run.provenance, ("address", address & ~3))
        if text is not None:
            lines.append(f"- `0x{address:x}`: {text}")
    return "Who wrote them:\n" + "\n".join(lines) if lines else ""


def _window_heading(run: KernelRun, uri: str, index: int, dump, first: int, count: int) -> str:
    """The title of a dump shown in part, which lines these are, and links to the others."""
    unit = "rows" if dump.kind == "memory" else "values"
    total, end, page = dump_rows(dump), first + count, MAX_DUMP_LINES
    links = []
    if uri and first > 0:
        links.append(_link(f"previous {min(page, first):,} {unit}", uri, run, index,
                           max(0, first - page), page))
    if uri and end < total:
        links.append(_link(f"next {min(page, total - end):,} {unit}", uri, run, index, end, page))
        if total - end > page:
            links.append(_link(f"last {page:,} {unit}", uri, run, index, total - page, page))
    rest = f"; {total - end:,} more after these" if end < total else ""
    return (f"{dump.title()} ({unit} {first:,}..{end - 1:,} of {total:,}{rest})\n\n"
            + " · ".join(links + ["`wave-lsp run` on the command line prints them all"]))


def _link(text: str, uri: str, run: KernelRun, index: int, start: int, count: int) -> str:
    """A Markdown command link to `wave-lsp.dump` (VS Code runs it from a hover)."""
    args = [uri, run.kernel, run.launch_line, index, start, count, run.version]
    return f"[{text}](command:{DUMP_COMMAND}?{quote(json.dumps(args))})"


def run_hover(doc, results: list[KernelRun], line: int, target) -> str | None:
    """What the `results` of a document's runs add to the hover at `line` (`target`: the
    `locate.Target` there, or None): a register's values on an executed line, or the run's
    dumps (else its outcome) on the line it is anchored to (its launch line, else its
    `.kernel` line)."""
    if not results:
        return None
    from .locate import TargetKind
    if target is not None and target.kind in (TargetKind.REGISTER, TargetKind.PREDICATE,
                                              TargetKind.GUARD):
        name = target.text.lstrip("@!").split(".")[0]
        for result in results:
            table = register_table(result, line, name)
            if table:
                return table
        return None
    for result in results:
        anchor = result.launch_line
        if anchor is None:
            kernel = doc.program.kernel_named(result.kernel)
            anchor = kernel.line if kernel else None
        if anchor == line:
            window = doc.runs.window if doc.runs is not None else None
            return dumps_markdown(result, doc.uri, window) or \
                f"**Run of `{result.kernel}`**: {result.summary()}"
    return None

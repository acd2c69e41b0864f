"""Hover content from a run: a register's or predicate's value per shown lane before and after
an executed line, and the `--dump-*` regions on the launch line (Markdown text).

"Before" is rebuilt from the recorded writes: for each lane, the value the same line wrote on
an earlier execution (a loop), else the last value written by the nearest executed line above
(in source order) while that lane was active, else its initial value (`--set-reg`, or zero). In
straight-line code and simple loops this is exact; the emulator records writes per line, not
their interleaving across lines, so a loop body with several writers of one register is an
approximation.
"""

from __future__ import annotations

from .run_results import KernelRun, LineValue
from ..isa.value_format import ACTIVE, INACTIVE, format_value


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
    kind = (written.kind if written else kind) or ("pred" if name.startswith("p") else "auto")
    active = set(result.active) if result.active is not None else None
    rows = []
    for i, t in enumerate(run.threads):
        was = before.get(t, 0)
        now = written.values.get(t, was) if written else was
        on = "?" if active is None else (ACTIVE if t in active else INACTIVE)
        changed = " ←" if written and t in written.values and now != was else ""
        rows.append(f"| {i} | {t} | {on} | {format_value(was, kind)} | "
                    f"{format_value(now, kind)}{changed} |")
    times = f", ran {result.count:,} times (last shown)" if result.count > 1 else ""
    head = (f"**`{name}`** on line {line + 1} in this run ({run.kernel}{times})\n\n"
            "| lane | thread | active | before | after |\n|---|---|---|---|---|\n")
    return head + "\n".join(rows)


def dumps_markdown(run: KernelRun) -> str | None:
    """The launch's `--dump-*` regions after the run."""
    if not run.dumps:
        return None
    parts = [f"**Run of `{run.kernel}`**: {run.summary()}"]
    for dump in run.dumps:
        body = "\n".join(dump.values)
        parts.append(f"{dump.title()}\n```\n{body}\n```")
        if dump.omitted:
            unit = "rows" if dump.kind == "memory" else "values"
            parts.append(f"… and {dump.omitted:,} more {unit} (`wave-lsp run` on the command "
                         f"line prints them all)")
    return "\n\n".join(parts)

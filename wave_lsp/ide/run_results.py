"""What one run of a kernel shows in the editor, per source line: plain data built from a
`RunReport` (the emulator's public result).

- `LineResult`: the values an executed line produced in the shown lanes (compact text for an
  inlay hint), how often it ran, and which shown lanes were active;
- not-executed lines (instruction lines of the kernel the shown lanes never reached);
- diagnostics: every emulator error kind as R001 (R002 for the instruction and time limits),
  every warning kind as R003, not-executed lines as R006 — generically, so new kinds appear
  without more code;
- the `--dump-*` regions of the launch, and a one-line summary for the code lens.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..analysis.codes import diagnostic
from ..analysis.diagnostic import Diagnostic, Range, Related
from ..emu import RunReport
from ..launch.flags import DumpRequest
from .lane_bits import NONE, LaneBits
from .run_dump import dump_rows, window_values
from .run_limits import NOT_EXECUTED
from ..isa.value_format import (MAX_LABEL, compact, display_kind, lane_ranges, lane_texts,
                                mask_text)

LIMIT_KINDS = ("instruction_limit", "time_limit")
# What a run keeps of its dumps for the editor: about 100 bytes per line, so at most ~100 KB
MAX_DUMP_LINES = 256          # values (or 16-byte rows) kept per dump
MAX_DUMP_TOTAL_LINES = 1024   # over all the dumps of one launch line


@dataclass(frozen=True)
class LineValue:
    """One register, predicate or memory location written by a line's last recorded execution."""

    target: str                  # "r5", "p1", "r2:r3" (f64), "[0x100]", "[r8]", "local[r3]"
    kind: str                    # display kind (value_format.display_kind)
    values: LaneBits             # shown thread -> bits, for the threads that were active
    text: str                    # compact, for the inlay hint
    earlier: LaneBits = NONE     # per thread, its latest earlier write


@dataclass(frozen=True)
class LineResult:
    """What the shown lanes did on one source line."""

    line: int
    mnemonic: str
    count: int                           # executions
    active: tuple[int, ...] | None       # shown threads active on the last recorded execution
    values: tuple[LineValue, ...]
    label: str                           # the inlay hint ("" when there is nothing to say)


@dataclass(frozen=True)
class Dump:
    """One `--dump-*` region after the run: values as upstream prints them."""

    kind: str
    start: int
    count: int
    values: tuple[str, ...]
    omitted: int = 0          # values (16-byte rows for "memory") beyond those kept

    def title(self) -> str:
        if self.kind == "memory":
            return f"device memory 0x{self.start:x}..0x{self.start + self.count:x}"
        return f"{self.count} × {self.kind} at 0x{self.start:x}"


@dataclass
class KernelRun:
    """The outcome of running one kernel of one document revision."""

    kernel: str
    revision: int
    version: int | None
    launch_line: int | None              # source line of the launch comment; None: default
    ordinal: int | None                  # which of the kernel's launch lines
    flags: str
    status: str                          # ok, error, invalid, failed, cancelled
    message: str = ""
    source_error: int | None = None      # the line of the error that stops the source assembling
    elapsed_ms: float = 0.0
    instructions: int = 0
    lanes_active: float | None = None    # share of shown lanes active, over executed lines
    threads: tuple[int, ...] = ()
    lines: dict[int, LineResult] = field(default_factory=dict)
    not_executed: tuple[int, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    dumps: tuple[Dump, ...] = ()
    initial: dict[int, int] = field(default_factory=dict)   # --set-reg register -> value
    errors: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    engine: str = ""                     # what ran it: "native", or "numpy (why)"
    # the kernel's profile from the same run (`profile_session.KernelProfileRun`), when its
    # profile is live with this launch: one run feeds the values and the profile
    profile: Any = field(default=None, repr=False, compare=False)
    # who wrote each value of the recorded workgroups (`who_wrote`), or None: not recorded
    provenance: Any = field(default=None, repr=False, compare=False)

    def summary(self) -> str:
        """The code lens title: `✓ 3.1 ms · 2,048 instr · 94% lanes active` or the error."""
        if self.status == "ok":
            parts = [f"✓ {self.elapsed_ms:.1f} ms", f"{self.instructions:,} instr"]
            if self.lanes_active is not None:
                parts.append(f"{round(100 * self.lanes_active)}% lanes active")
            return " · ".join(parts)
        if self.status == "error":
            return f"✕ {self.message} · {self.elapsed_ms:.1f} ms"
        return f"✕ {self.message}"

    def to_json(self) -> dict[str, Any]:
        """The result of the `wave-lsp.run` command."""
        return {
            "kernel": self.kernel, "version": self.version, "launchLine": self.launch_line,
            "flags": self.flags, "status": self.status, "ok": self.status == "ok",
            "message": self.message, "summary": self.summary(),
            "elapsedMs": round(self.elapsed_ms, 3), "instructions": self.instructions,
            "lanesActive": self.lanes_active, "threads": list(self.threads),
            "lines": [{"line": r.line, "mnemonic": r.mnemonic, "count": r.count,
                       "active": None if r.active is None else list(r.active),
                       "label": r.label,
                       "values": [{"target": v.target, "kind": v.kind, "text": v.text,
                                   "values": {str(t): b for t, b in v.values.items()}}
                                  for v in r.values]}
                      for r in sorted(self.lines.values(), key=lambda r: r.line)],
            "notExecuted": list(self.not_executed),
            "diagnostics": [{"code": d.code, "severity": d.severity.label, "line": d.range.start_line,
                             "message": d.message} for d in self.diagnostics],
            "dumps": [{"kind": d.kind, "start": d.start, "count": d.count,
                       "values": list(d.values), "omitted": d.omitted} for d in self.dumps],
            "errors": self.errors, "warnings": self.warnings, "stats": self.stats,
        }


@dataclass(frozen=True)
class RunPlace:
    """Where a run's results go in the source of the revision it ran on."""

    kernel_line: int
    anchor: Range                        # launch comment, or the `.kernel` directive
    instruction_lines: tuple[tuple[int, int, int], ...]   # (line, start col, end col)


def _merge_f64(writes) -> list[tuple[str, str, dict[int, int]]]:
    out, i = [], 0
    while i < len(writes):
        w = writes[i]
        if w.kind == "f64lo" and i + 1 < len(writes) and writes[i + 1].kind == "f64hi":
            hi = writes[i + 1]
            values = {t: (v & 0xFFFFFFFF) | ((hi.values.get(t, 0) & 0xFFFFFFFF) << 32)
                      for t, v in w.values.items()}
            out.append((f"{w.target}:{hi.target}", "f64", values))
            i += 2
            continue
        out.append((w.target, w.kind, w.values))
        i += 1
    return out


def _target_text(target: str) -> str:
    if target.startswith("device["):
        return target[len("device"):]
    return target


def line_result(record, threads: tuple[int, ...]) -> LineResult:
    """A `LineRecord` as what the editor shows on its line."""
    last = record.writes[-1] if record.writes else []
    values: list[LineValue] = []
    active: tuple[int, ...] | None = None
    for target, kind, bits in _merge_f64(last):
        shown = display_kind(record.mnemonic, kind)
        if active is None:
            active = tuple(t for t in threads if t in bits)
            active = threads if active == threads else active    # one tuple for the run's lines
        if shown == "pred":
            text = mask_text([bool(bits.get(t, 0)) for t in threads])
        else:
            shown, texts = lane_texts([bits[t] for t in threads if t in bits], shown)
            text = compact(texts)
        values.append(LineValue(_target_text(target), shown, LaneBits(bits, threads), text,
                                _earlier(record.writes, target, threads)))
    if active is None and record.count == 1 and record.first_active:
        active = tuple(t for t, on in zip(threads, record.first_active) if on)
    return LineResult(record.line, record.mnemonic, record.count, active, tuple(values),
                      _label(values, active, threads, record.count))


def _earlier(executions, target: str, threads) -> LaneBits:
    """Per thread, the value this line wrote to `target` before its last execution."""
    name = target.split(":")[0]
    out: dict[int, int] = {}
    for writes in reversed(executions[:-1]):
        for w in writes:
            if w.target == name:
                for t, bits in w.values.items():
                    out.setdefault(t, bits)
        if len(out) == len(threads):
            break
    return LaneBits(out, threads) if out else NONE


def _label(values: list[LineValue], active, threads, count: int) -> str:
    """The inline label: each value compacted as far as needed to stay within `MAX_LABEL`
    characters, so no client cuts it (the hover has every lane)."""
    texts: dict[int, list] = {}          # each value's lane bits and texts, made once
    for level in range(4):
        label = _label_at(values, active, threads, count, level, texts)
        if len(label) <= MAX_LABEL:
            break
    return label


def _label_at(values: list[LineValue], active, threads, count: int, level: int,
              texts: dict[int, list]) -> str:
    parts = []
    everyone = active is not None and len(active) == len(threads) and len(threads) > 1
    for v in values:
        if v.kind == "pred":
            parts.append(f"{v.target} = {v.text}")
            continue
        text = v.text
        seen = texts.get(id(v))
        if seen is None:            # (its lanes' bits, their texts once compacted)
            seen = texts[id(v)] = [[v.values[t] for t in threads if t in v.values], None]
        if level:
            if seen[1] is None:
                seen[1] = lane_texts(seen[0], v.kind)[1]
            text = compact(seen[1], level)
        if everyone and len(set(seen[0] if len(seen[0]) == len(v.values)
                                else v.values.values())) == 1:
            text += " (all lanes)"
        arrow = " ← " if v.target.startswith(("[", "local[")) else " = "
        parts.append(f"{v.target}{arrow}{text}")
    label = "; ".join(parts)
    if active is not None and not everyone and len(threads) > 1 and \
            not all(v.kind == "pred" for v in values):
        positions = [threads.index(t) for t in active]
        label += f" [lane{'s' if len(positions) != 1 else ''} {lane_ranges(positions) or 'none'}]"
    if count > 1:
        label = f"{label} ×{count:,}".strip()
    return label


def lanes_active(report: RunReport, threads: tuple[int, ...]) -> float | None:
    """The share of shown lanes active over the recorded executions of writing lines."""
    if not report.line_records or not threads:
        return None
    active = slots = 0
    for record in report.line_records.values():
        if not any(record.writes):
            continue
        executions = min(record.count, max(len(record.writes), 1))
        slots += executions * len(threads)
        active += sum(len(ex[0].values) for ex in record.writes if ex)
    return active / slots if slots else None


def dumps_of(report: RunReport, requests: tuple[DumpRequest, ...]) -> tuple[Dump, ...]:
    """The first `MAX_DUMP_LINES` values (rows of 16 bytes for `--dump-memory`) of each dump,
    at most `MAX_DUMP_TOTAL_LINES` in all: what a hover can show, in bounded memory whatever
    the launch line asks for (the rest on request: `run_dump`; the command line prints all)."""
    out = []
    budget = MAX_DUMP_TOTAL_LINES
    for req in requests:
        rows = dump_rows(req)
        kept = min(rows, MAX_DUMP_LINES, budget)
        budget -= kept
        try:
            values = window_values(report.device_memory, req, 0, kept)
        except Exception as err:    # a region beyond memory: say so rather than fail the run
            values, kept = [f"cannot read: {err}"], rows
        out.append(Dump(req.kind, req.start, req.count, tuple(values), rows - kept))
    return tuple(out)


def _where(item) -> str:
    parts = []
    if item.workgroup is not None:
        parts.append("workgroup ({},{},{})".format(*item.workgroup))
    if item.wave is not None:
        parts.append(f"wave {item.wave}")
    if item.lanes:
        parts.append(f"lane{'s' if len(item.lanes) > 1 else ''} {lane_ranges(list(item.lanes))}")
    return ", ".join(parts)


def _line_ranges(place: RunPlace):
    """`line -> Range` of the place's instruction lines (the anchor for any other line), built
    once per run: a search per diagnostic made 100,000 not-executed lines take minutes."""
    spans = {}
    for ln, start, end in place.instruction_lines:
        spans.setdefault(ln, (start, end))

    def line_range(line: int | None) -> Range:
        span = spans.get(line)
        return Range(line, span[0], line, span[1]) if span is not None else place.anchor
    return line_range


def run_diagnostics(report: RunReport, place: RunPlace, not_executed: tuple[int, ...],
                    threads: tuple[int, ...]) -> tuple[Diagnostic, ...]:
    """Errors, warnings and not-executed lines of a run, as analysis-style diagnostics."""
    out: list[Diagnostic] = []
    launched = Related(place.anchor, "launched here")
    _line_range = _line_ranges(place)
    for err in report.errors:
        if err.kind == "cancelled":
            continue
        rng = _line_range(err.line)
        where = _where(err)
        code = "R002" if err.kind in LIMIT_KINDS else "R001"
        message = f"{err.message} ({err.kind.replace('_', ' ')}" + (f"; {where})" if where else ")")
        related = [launched]
        if err.details.get("thread") is not None:
            related.append(Related(rng, f"first failing thread: {err.details['thread']}"))
        out.append(diagnostic(code, rng.start_line, rng.start_col, rng.end_col, message,
                              tuple(related)))
    for warn in report.warnings:
        rng = _line_range(warn.line)
        where = _where(warn)
        times = f", {warn.count} times" if warn.count > 1 else ""
        message = f"{warn.message} ({warn.kind.replace('_', ' ')}" + \
            (f"; {where}" if where else "") + f"{times})"
        related = [launched]
        if getattr(warn, "other_line", None) is not None:     # a data race: the other side
            related.append(Related(_line_range(warn.other_line),
                                   f"the other {warn.other_access or 'access'}"))
        out.append(diagnostic("R003", rng.start_line, rng.start_col, rng.end_col, message,
                              tuple(related)))
    shown = lane_ranges(list(threads)) if threads else "none"
    for line in not_executed:
        rng = _line_range(line)
        out.append(diagnostic(NOT_EXECUTED, rng.start_line, rng.start_col, rng.end_col,
                              f"not executed in this run (shown threads {shown})"))
    return tuple(out)


def build_run(report: RunReport, place: RunPlace, dumps: tuple[DumpRequest, ...],
              **fields) -> KernelRun:
    """A `KernelRun` from a report; `fields` are KernelRun's identity fields (kernel, revision,
    version, launch_line, ordinal, flags, elapsed_ms, initial)."""
    from dataclasses import asdict
    threads = tuple(report.recorded_threads)
    lines = {}
    for record in (report.line_records or {}).values():
        # a line passed with no shown lane active (the far side of a branch) did not execute
        if record.line is not None and record.writes:
            lines[record.line] = line_result(record, threads)
    not_executed: tuple[int, ...] = ()
    if report.line_records:
        # the line that stopped the run did run (into its error): it is not greyed as unreached
        stopped = {err.line for err in report.errors}
        not_executed = tuple(ln for ln, _, _ in place.instruction_lines
                             if ln not in lines and ln not in stopped)
    failure = next((e for e in report.errors if e.kind != "cancelled"), None)
    status, message = "ok", ""
    if any(e.kind == "cancelled" for e in report.errors):
        status, message = "cancelled", "run cancelled"
    elif failure is not None:
        at = f" at line {failure.line + 1}" if failure.line is not None else ""
        status, message = "error", f"{failure.kind.replace('_', ' ')}{at}"
    return KernelRun(
        status=status, message=message, instructions=report.stats.total,
        lanes_active=lanes_active(report, threads), threads=threads, lines=lines,
        not_executed=not_executed, diagnostics=run_diagnostics(report, place, not_executed, threads),
        dumps=dumps_of(report, dumps),
        errors=[_plain(asdict(e)) for e in report.errors],
        warnings=[_plain(asdict(w)) for w in report.warnings],
        stats=asdict(report.stats), engine=engine_of(report), **fields)


def engine_of(report: RunReport) -> str:
    """What ran a report: "native", or "numpy (why the core could not)"."""
    return report.engine if report.fallback is None else f"{report.engine} ({report.fallback})"


def _plain(item: dict) -> dict:
    """JSON-safe copy (tuples to lists, numpy scalars to Python numbers)."""
    out = {}
    for key, value in item.items():
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, dict):
            value = {str(k): (v.item() if hasattr(v, "item") else v) for k, v in value.items()}
        elif hasattr(value, "item"):
            value = value.item()
        out[key] = value
    return out

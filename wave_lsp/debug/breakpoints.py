"""Breakpoints of a debug session: source-line and instruction (byte offset) breakpoints with
per-lane conditions, hit counts and log messages, resolved to instruction indices.

A line breakpoint on a line without an instruction moves to the next line that has one (within
the kernel); outside the kernel being debugged it stays unverified with the reason. A condition
holds when it is true in any active lane of a wave (see `expressions`). A hit is a time the
instruction is reached by the workgroup with the condition holding; `hitCondition` is `N` (the
Nth hit), `>N`, `>=N`, `<N`, `<=N`, `==N` or `%N` (every Nth hit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .expressions import Expression, ExpressionError

_HIT = re.compile(r"^\s*(==|>=|<=|>|<|%)?\s*(\d+)\s*$")
_LOG_PART = re.compile(r"\{([^{}]*)\}")


@dataclass
class Breakpoint:
    id: int
    index: int | None                 # instruction index; None when unverified
    line: int | None = None           # 0-based source line it sits on
    pc: int | None = None
    condition: Expression | None = None
    hit_condition: tuple[str, int] | None = None
    log_message: str | None = None
    message: str | None = None        # why unverified
    hits: int = 0
    instruction: bool = False         # an instruction (not a line) breakpoint
    path: str | None = None           # the source file of a line breakpoint

    def counts_hit(self) -> bool:
        """Count one hit; whether it should take effect under the hit condition."""
        self.hits += 1
        if self.hit_condition is None:
            return True
        op, n = self.hit_condition
        return {"==": self.hits == n, ">": self.hits > n, ">=": self.hits >= n,
                "<": self.hits < n, "<=": self.hits <= n,
                "%": n > 0 and self.hits % n == 0}[op]


def parse_hit_condition(text: str | None) -> tuple[str, int] | None:
    if not text or not text.strip():
        return None
    m = _HIT.match(text)
    if not m:
        raise ExpressionError(f"hit count '{text}' is not N, >N, >=N, <N, <=N, ==N or %N")
    return m.group(1) or "==", int(m.group(2))


def log_text(message: str, evaluate) -> str:
    """The log message with each `{expression}` replaced by `evaluate(expression)`."""
    def part(m):
        try:
            return evaluate(m.group(1))
        except ExpressionError as err:
            return f"<{err}>"
    return _LOG_PART.sub(part, message)


@dataclass
class BreakpointTable:
    """Every breakpoint of the session, and the index lookup the execution loop uses."""

    lines: list[Breakpoint] = field(default_factory=list)
    instructions: list[Breakpoint] = field(default_factory=list)
    by_index: dict[int, list[Breakpoint]] = field(default_factory=dict)
    next_id: int = 1
    line_requests: dict[str, list[dict]] = field(default_factory=dict)   # path -> raw requests
    instruction_requests: list[dict] = field(default_factory=list)

    def new_id(self) -> int:
        """An id for another kind of breakpoint (data breakpoints), unique in the session."""
        self.next_id += 1
        return self.next_id - 1

    def _new(self, reuse: list[int], **fields) -> Breakpoint:
        if reuse:
            return Breakpoint(reuse.pop(0), **fields)
        bp = Breakpoint(self.next_id, **fields)
        self.next_id += 1
        return bp

    def _options(self, raw: dict, fields: dict) -> None:
        try:
            if raw.get("condition"):
                fields["condition"] = Expression(raw["condition"])
            fields["hit_condition"] = parse_hit_condition(raw.get("hitCondition"))
        except ExpressionError as err:
            fields.update(index=None, message=str(err))
        if raw.get("logMessage"):
            fields["log_message"] = raw["logMessage"]

    def set_lines(self, path: str, requested: list[dict], instructions, kernel: str,
                  program_path: str, line_base: int, keep_ids: bool = False) -> list[Breakpoint]:
        """Replace the line breakpoints of `path`; `line_base` is 1 when lines start at 1."""
        self.line_requests[path] = requested
        reuse = [bp.id for bp in self.lines if bp.path == path] if keep_ids else []
        self.lines = [bp for bp in self.lines if bp.path != path]
        lines = sorted({ins.line for ins in instructions if ins.line is not None})
        first = {}
        for i, ins in enumerate(instructions):
            if ins.line is not None:
                first.setdefault(ins.line, i)
        out = []
        for raw in requested:
            line = int(raw.get("line", 0)) - line_base
            fields: dict = {"line": line, "path": path}
            if path != program_path:
                fields.update(index=None, message="not the program being debugged")
            elif not lines or not lines[0] <= line <= lines[-1]:
                fields.update(index=None, message=f"not in kernel '{kernel}'")
            else:
                at = next(n for n in lines if n >= line)
                fields.update(index=first[at], line=at, pc=instructions[first[at]].offset)
            if fields.get("index") is not None:
                self._options(raw, fields)
            out.append(self._new(reuse, **fields))
        self.lines += out
        self._reindex()
        return out

    def set_instructions(self, requested: list[dict], instructions,
                         keep_ids: bool = False) -> list[Breakpoint]:
        """Replace the instruction breakpoints (`instructionReference` + `offset`, bytes)."""
        self.instruction_requests = requested
        reuse = [bp.id for bp in self.instructions] if keep_ids else []
        by_pc = {ins.offset: i for i, ins in enumerate(instructions)}
        out = []
        for raw in requested:
            try:
                pc = int(str(raw.get("instructionReference", "0")), 0) + int(raw.get("offset", 0))
            except ValueError:
                pc = -1
            fields: dict = {"pc": pc, "instruction": True}
            if pc not in by_pc:
                fields.update(index=None, message=f"no instruction starts at 0x{pc & 0xFFFFFFFF:x}")
            else:
                fields.update(index=by_pc[pc], line=instructions[by_pc[pc]].line)
                self._options(raw, fields)
            out.append(self._new(reuse, **fields))
        self.instructions = out
        self._reindex()
        return out

    def _reindex(self) -> None:
        self.by_index = {}
        for bp in self.lines + self.instructions:
            if bp.index is not None:
                self.by_index.setdefault(bp.index, []).append(bp)

    def reapply(self, instructions, kernel: str, program_path: str, line_base: int) -> None:
        """Resolve every breakpoint again against a new run (after a restart)."""
        for path, requested in list(self.line_requests.items()):
            self.set_lines(path, requested, instructions, kernel, program_path, line_base, True)
        self.set_instructions(self.instruction_requests, instructions, True)

"""`wave-lsp verify`'s launch side: the geometry each kernel is verified under (command-line
flags, else the kernel's launch line, else `.workgroup_size` and an unbounded grid) and the
replay of a witness through the emulator's pipeline (`emu.run`, as `wave-lsp run` with the
witness's flags would), which confirms a witness found through an over-approximation (a loop
summary, a loaded value) or turns it into `unknown`.

The verifier itself (`analysis.verify`) knows no launch and runs no kernel."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace

from ..analysis.verify import RACE, UNKNOWN, Geometry, Verdict, verify_kernel, workgroup_size
from ..isa.launch_defaults import DEFAULT_LOCAL_MEMORY
from ..syntax.tool_comments import kernel_comment_lines, launch_comment
from .flags import LaunchFlagError, number, triple
from .table import FLAGS

GEOMETRY_FLAGS = ("--grid", "--workgroup", "--wave-width", "--local-memory", "--device-memory")


def _default(flag: str) -> str:
    """`wave-lsp run`'s default of a flag (the launch table's)."""
    return next(f.argparse["default"] for f in FLAGS if f.name == flag)


@dataclass(frozen=True)
class Replay:
    """What a replay of a witness showed: `shown` (the race warning or the barrier error),
    and the emulator's line that says so (or why nothing showed)."""

    shown: bool
    line: str


def flag_values(words: list[str]) -> dict[str, str]:
    """The geometry flags among `wave-lsp run` words (`--grid 2,1,1` or `--grid=2,1,1`)."""
    out = {}
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name in GEOMETRY_FLAGS:
            if eq:
                out[name] = value
            elif i + 1 < len(words):
                out[name] = words[i + 1]
    return out


def launch_line_words(lines: list[str], kernel) -> list[str]:
    """The words of the kernel's first `; wave-lsp run:` comment, or []."""
    for index in kernel_comment_lines(lines, kernel):
        column = launch_comment(lines[index])
        if column is not None:
            try:
                return shlex.split(lines[index][column:])
            except ValueError:
                return []
    return []


def _set_regs(words: list[str]) -> dict[int, int]:
    """`--set-reg REG:VALUE` values among launch words (register index -> 32-bit value)."""
    out = {}
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name != "--set-reg":
            continue
        text = value if eq else (words[i + 1] if i + 1 < len(words) else "")
        reg, _, val = text.partition(":")
        reg = reg[1:] if reg[:1] in "rR" else reg
        out[number(reg, "--set-reg")] = number(val, "--set-reg") & 0xFFFFFFFF
    return out


def set_reg_values(texts: list[str]) -> dict[int, int]:
    """The command line's `--set-reg` values."""
    return _set_regs([w for t in texts for w in ("--set-reg", t)])


def _local_memory(kernel) -> int | None:
    for _line, d in kernel.settings:
        if d.name.text == "local_memory" and d.args and isinstance(d.args[0].value, int):
            return d.args[0].value
    return None


def geometry_for(kernel, lines: list[str], flags: dict[str, str],
                 set_regs: dict[int, int] | None = None) -> Geometry:
    """The geometry of `kernel`: each flag given on the command line, else on its launch line;
    the kernel's `.workgroup_size` and `.local_memory` win over both (as in `wave-lsp run`);
    a launch (a launch line, or `set_regs` from the command line) fixes the initial registers:
    its `--set-reg` values, zero for the others; without one they are symbolic kernel arguments;
    a launch line without `--grid` runs one workgroup (as `wave-lsp run` does); no launch line
    and no `--grid` means any number of workgroups. `LaunchFlagError` for a bad value."""
    words = launch_line_words(lines, kernel)
    given = {**flag_values(words), **flags}
    if words and "--grid" not in given:
        given["--grid"] = "1,1,1"          # a launch line runs `wave-lsp run`'s default grid
    grid = triple(given["--grid"], "--grid") if "--grid" in given else None
    workgroup = workgroup_size(kernel) or triple(
        given.get("--workgroup", _default("--workgroup")), "--workgroup")
    width = number(given.get("--wave-width", _default("--wave-width")), "--wave-width")
    if not 1 <= width <= 64:
        raise LaunchFlagError(f"--wave-width must be 1-64, got {width}", "--wave-width")
    if any(v < 1 for v in workgroup + (grid or (1, 1, 1))):
        raise LaunchFlagError("sizes must be at least 1", "--grid")
    local = _local_memory(kernel) or number(
        given.get("--local-memory", str(DEFAULT_LOCAL_MEMORY)), "--local-memory")
    device = number(given.get("--device-memory", _default("--device-memory")), "--device-memory")
    # a launch fixes the registers (--set-reg, else zero); without one they are any values
    inputs = None
    if set_regs is not None or words:
        inputs = {**_set_regs(words), **(set_regs or {})}
    return Geometry(tuple(workgroup), width, grid, local, device, inputs)


def replay(source: str, verdict: Verdict) -> Replay:
    """Run the witness's launch (`verdict.launch()`, parsed as `wave-lsp run` parses it) and
    look for the conflict: a data-race warning for a race, the divergent-barrier or deadlock
    error for a divergence."""
    from ..emu import LaunchError, run
    from .request import parse_run_flags
    try:
        request = parse_run_flags(shlex.split(verdict.launch()) + ["--max-instructions",
                                                                   "2000000"])
        report = run(source, request.launch, request.options)
    except (LaunchError, ValueError, MemoryError) as err:
        return Replay(False, f"the witness's launch does not run: {err}")
    if verdict.witness.kind == RACE:
        for w in report.warnings:
            if w.kind == "data_race":
                return Replay(True, f"Warning: {w.message}")
        return Replay(False, "the replay ran without a data-race warning")
    for e in report.errors:
        if e.kind in ("divergent_barrier", "deadlock"):
            return Replay(True, f"Error: {e.message}")
    return Replay(False, "the replay ran without a barrier error")


def unparsed_line(syntax, kernel) -> str | None:
    """Why the kernel cannot be verified as written (a line of it that does not parse), or
    None. `syntax`: the document's line parses."""
    last = min(kernel.last_line, len(syntax) - 1)
    for index in range(kernel.line, last + 1):
        problem = syntax[index].problem
        if problem is not None:
            return f"line {index + 1} does not parse: {problem.message}"
    return None


def verify_source(source: str, program, flags: dict[str, str], kernel: str | None = None,
                  confirm: bool = True, set_regs: dict[int, int] | None = None,
                  syntax=None, cancel=None) -> list[tuple[Verdict, Replay | None]]:
    """Each kernel's verdict (only `kernel` when named) with the replay of its witness (none
    when not `confirm`). A witness that rests on an over-approximation and does not show in a
    replay (or is not replayed) makes the verdict `unknown`: a race or divergence is said only
    where it is real."""
    lines = source.splitlines()
    out = []
    for k in program.kernels:
        if kernel is not None and k.name != kernel:
            continue
        geometry = geometry_for(k, lines, flags, set_regs)
        broken = unparsed_line(syntax, k) if syntax is not None else None
        if broken is not None:
            out.append((Verdict(k.name, UNKNOWN, broken, geometry=geometry, line=k.line), None))
            continue
        verdict = verify_kernel(k, geometry, cancel=cancel)
        shown = None
        if verdict.witness is not None and confirm:
            shown = replay(source, verdict)
        w = verdict.witness
        if w is not None and not w.exact and (shown is None or not shown.shown):
            what = "race" if w.kind == RACE else "divergent barrier"
            why = "its witness did not show in a replay" if shown is not None else \
                "its witness was not replayed (--no-replay)"
            verdict = replace(verdict, verdict=UNKNOWN, witness=None, reason=(
                f"a possible {what} at line {w.lines[0] + 1} ↔ line {w.lines[1] + 1} rests on an "
                f"over-approximation (a loop summary or a value from memory) and {why}"))
        out.append((verdict, shown))
    return out


__all__ = ["GEOMETRY_FLAGS", "Replay", "geometry_for", "replay", "set_reg_values",
           "verify_source"]

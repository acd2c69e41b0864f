"""The vocabulary of "who wrote this value" (`wave-lsp why`, the editor's whoWrote): the
recording flags (`--record-budget`, `--record-workgroups`, `--record-steps`) made `RunOptions`
fields (`record_fields`), and the text of an answer: one line per write (`write_text`,
`line 8, lane 3: iadd r4, r3, r1 (workgroup 0, wave 0, step 41, iteration 1)`, lines 1-based as
an editor shows them) and the chain down to the kernel's inputs (`chain_lines`).
"""

from __future__ import annotations

from .flags import LaunchFlagError, number

RECORD_FLAGS = (
    ("--record-budget", "MIB", "memory the recording may take, in MiB (default 256); past it "
                               "the command stops with a message"),
    ("--record-workgroups", "LIST", "record only these workgroups (linear ids, e.g. 0,3-5; "
                                    "default: all)"),
    ("--record-steps", "FIRST:END", "record only steps FIRST <= step < END of each workgroup "
                                    "(END may be left out)"),
)


def add_record_flags(parser) -> None:
    """The recording flags, on `parser` (`why`)."""
    for name, metavar, help in RECORD_FLAGS:
        parser.add_argument(name, metavar=metavar, help=help)


def id_list(text: str, flag: str) -> tuple[int, ...]:
    """`0,3-5`: ids and inclusive ranges."""
    out: list[int] = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first or (dash and not last.strip()):
            raise LaunchFlagError(f"{flag}: '{part}' is not an id or range of ids (ID or "
                                  f"FIRST-LAST)", flag)
        lo = number(first, flag)
        hi = number(last, flag) if dash else lo
        if lo < 0 or hi < lo or hi - lo > 1 << 20:
            raise LaunchFlagError(f"{flag}: '{part}' is not an id or range of ids", flag)
        out.extend(range(lo, hi + 1))
    return tuple(out)


def record_fields(budget: str | None, workgroups: str | None, steps: str | None) -> dict:
    """`RunOptions` fields of the recording flags' texts (None: not given)."""
    fields: dict = {"write_log": True, "record_values": True}   # asked at once: no re-run
    if budget is not None:
        mib = number(budget, "--record-budget")
        if mib < 1:
            raise LaunchFlagError(f"--record-budget: must be at least 1 MiB, got {mib}",
                                  "--record-budget")
        fields["record_budget"] = mib << 20
    if workgroups is not None:
        fields["record_workgroups"] = id_list(workgroups, "--record-workgroups")
    if steps is not None:
        first, colon, end = steps.partition(":")
        if not colon or not first.strip():
            raise LaunchFlagError(f"--record-steps: expected FIRST:END, got '{steps}'",
                                  "--record-steps")
        fields["record_steps"] = (number(first, "--record-steps"),
                                  number(end, "--record-steps") if end.strip() else None)
    return fields


def _value(value) -> str:
    return "?" if value is None else f"{value:#x}"


def write_text(write) -> str:
    """`line 8, lane 3: iadd r4, r3, r1 (workgroup 0, wave 0, step 41, iteration 1)`."""
    where = f"line {write.line + 1}" if write.line is not None else f"pc {write.pc:#x}"
    return (f"{where}, lane {write.lane}: {write.instruction} (workgroup {write.workgroup}, "
            f"wave {write.wave}, step {write.step}, iteration {write.iteration})")


def chain_lines(provenance, answer, target: str, depth: int = 4) -> list[str]:
    """The answer as text: the target and its value, who wrote it, and for each operand who
    wrote that, `depth` writes deep (a write already shown is named, not repeated)."""
    from ..emu import Input
    lines = [f"{target} = {_value(answer.value)}"]
    if isinstance(answer.writer, Input):
        return lines + [f"  ← {answer.writer.text}"]
    shown: set = set()

    def follow(ans, indent: str, left: int) -> None:
        key = (ans.writer.row, ans.writer.local)
        lines.append(f"{indent}← {write_text(ans.writer)}")
        if key in shown:
            lines[-1] += " (above)"
            return
        shown.add(key)
        for source in ans.inputs:
            if isinstance(source.writer, Input) and source.writer.kind == "immediate":
                lines.append(f"{indent}    {source.operand} (a constant in the code)")
                continue
            if isinstance(source.writer, Input):
                lines.append(f"{indent}    {source.operand} = {_value(source.value)} ← "
                             f"{source.writer.text}")
                continue
            lines.append(f"{indent}    {source.operand} = {_value(source.value)}")
            if left > 1:
                follow(provenance.answer_of(source.writer), indent + "    ", left - 1)
            else:
                lines.append(f"{indent}    ← {write_text(source.writer)} …")

    follow(answer, "  ", depth)
    return lines

"""What `wave-lsp run` prints for a `RunReport`, whichever engine made it.

- `run_output(report, requests, *, stats, dump_regs)`: stdout's text in chunks — the
  `--dump-*` regions in upstream's order, thread 0's registers (`--dump-regs`), the `--stats`
  block. A native report's dumps are formatted by the core (`_wavecore.hex_rows`,
  `format_values`: the same text, no numpy); `write_run_output` writes them to a stream as bytes.
- `error_line(report)`: the `Error: …` line of a run that stopped with an error (or None);
  `warning_lines(report)`: stderr's `Warning: …` lines.
- `json_output(report, requests)`: `--json`'s document.
- `stderr_lines(report, request)` and `command_text(report, request, program)`: what
  `wave-lsp run FILE FLAGS` prints for a `request.RunRequest` — (stdout, stderr lines, exit
  status), the profile table of `--profile` included (`profile_output`, `json_document`) — so
  an editor or a kernel test reproduces the command exactly without the command line module.
"""

from __future__ import annotations

import sys
from typing import Iterator, Sequence

from ..emu import RunReport
from .run_text import describe_error, stats_block

STEP = 1 << 16           # values (hex rows: 16 times that many bytes) formatted per chunk


def error_line(report: RunReport) -> str | None:
    """`Error: MESSAGE [where]` for the run's first error, or None when it ran to the end."""
    return f"Error: {describe_error(report.errors[0])}" if report.errors else None


def warning_lines(report: RunReport) -> list[str]:
    """`Warning: MESSAGE [line L] (N times)` per warning (a data race names no line: it has two)."""
    out = []
    for warning in report.warnings:
        where = f" [line {warning.line + 1}]" if warning.line is not None and \
            warning.kind != "data_race" else ""
        count = f" ({warning.count} times)" if warning.count > 1 else ""
        out.append(f"Warning: {warning.message}{where}{count}")
    return out


def dump_lines(request, memory) -> Iterator[str]:
    """The lines of one `--dump-*` request over a device image (uint8 numpy array)."""
    from .formats import dump_values, hex_dump
    if request.kind == "memory":
        return hex_dump(memory, request.start, request.start + request.count)
    return dump_values(memory, request.start, request.count, request.kind)


def _native_core(report: RunReport):
    if report.engine != "native":
        return None
    from ..emu import native_core
    return native_core()


def _dump_chunks(report: RunReport, requests) -> Iterator[bytes | str]:
    wavecore = _native_core(report)
    if wavecore is None:
        from .formats import dump_value_chunks, hex_dump_chunks
        memory = report.device_memory
        for request in requests:
            chunks = hex_dump_chunks(memory, request.start, request.start + request.count) \
                if request.kind == "memory" else \
                dump_value_chunks(memory, request.start, request.count, request.kind)
            for chunk in chunks:
                if chunk:
                    yield "\n".join(chunk) + "\n"
        return
    memory = report.device
    for request in requests:
        if request.kind == "memory":
            end = request.start + request.count
            yield f"Device memory 0x{request.start:08x}-0x{end:08x}:\n"
            for base in range(request.start, end, STEP * 16):
                yield wavecore.hex_rows(memory, base, min(end, base + STEP * 16))
            continue
        width = 4 if request.kind in ("u32", "f32") else 2
        for first in range(0, request.count, STEP):
            yield wavecore.format_values(memory, request.start + width * first,
                                         min(STEP, request.count - first), request.kind)


def _tail(report: RunReport, stats: bool, dump_regs: bool) -> str:
    batch: list[str] = []
    if dump_regs:
        for tid, regs in report.registers.items():
            batch.append(f"Thread {tid}: " + " ".join(f"{k}=0x{v:08x}" if k[0] == "r"
                                                      else f"{k}={v}"
                                                      for k, v in regs.items()))
    if stats:
        batch += stats_block(report.stats)
    return "\n".join(batch) + "\n" if batch else ""


def run_output(report: RunReport, requests: Sequence, *, stats: bool = False,
               dump_regs: bool = False) -> Iterator[str]:
    """`wave-lsp run`'s stdout for the report, a chunk of text at a time."""
    for chunk in _dump_chunks(report, requests):
        yield chunk if isinstance(chunk, str) else chunk.decode()
    tail = _tail(report, stats, dump_regs)
    if tail:
        yield tail


class _TextSink:
    """Bytes written to a text stream without a buffer (a redirected sys.stdout)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, data: bytes) -> None:
        self.stream.write(data.decode())

    def flush(self) -> None:
        self.stream.flush()


def write_run_output(report: RunReport, requests: Sequence, *, stats: bool = False,
                     dump_regs: bool = False, stream=None) -> None:
    """Write `run_output` to `stream` (default sys.stdout), bytes straight to its buffer."""
    stream = stream if stream is not None else sys.stdout
    stream.flush()
    out = getattr(stream, "buffer", None) or _TextSink(stream)
    for chunk in _dump_chunks(report, requests):
        out.write(chunk if isinstance(chunk, bytes) else chunk.encode())
    tail = _tail(report, stats, dump_regs)
    if tail:
        out.write(tail.encode())
    out.flush()


def json_output(report: RunReport, requests: Sequence) -> str:
    """`--json`'s document: the report without its memory, plus the dumps' lines."""
    import json
    data = report.to_json(include_memory=False)
    data["dumps"] = {r.kind: list(dump_lines(r, report.device_memory)) for r in requests}
    return json.dumps(data, indent=1)


def stderr_lines(report: RunReport, request) -> list[str]:
    """The command's stderr for a run (the engine line aside): its error, else its warnings;
    nothing with `--json` (the document has both)."""
    if request.json:
        return []
    line = error_line(report)
    return [line] if line is not None else warning_lines(report)


def profile_output(report: RunReport, request, program) -> tuple[list[str], str | None]:
    """The profile table `--profile` prints after the output (`profile_text`), or the error
    when its counting stopped at `--time-limit`; nothing for a run without a profile."""
    if not request.profile or report.profile is None:
        return [], None
    from .profile_text import profile_table
    return profile_table(report, program, request.profile_target, request.profile_lines,
                         request.options.time_limit, request.started)


def json_document(report: RunReport, request) -> tuple[str, str | None]:
    """`--json`'s document, with the profile when the run was profiled, and the error when
    the profile's counting stopped at `--time-limit`."""
    text = json_output(report, request.dumps)
    if not request.profile:
        return text, None
    from .profile_text import with_profile_json
    return with_profile_json(text, report, request.profile_target, request.options.time_limit,
                             request.started)


def command_text(report: RunReport, request, program=None) -> tuple[str, list[str], int]:
    """(stdout, stderr lines, exit status) of `wave-lsp run` for a run of `request`
    (`program`: what it ran, source or `.wbin` bytes, for the profile table's text)."""
    status = 1 if report.errors else 0
    if request.json:
        text, stopped = json_document(report, request)
        return text + "\n", [f"Error: {stopped}"] if stopped else [], 1 if stopped else status
    if report.errors:
        return "", stderr_lines(report, request), status
    stdout = "".join(run_output(report, request.dumps, stats=request.stats,
                                dump_regs=request.dump_regs))
    table, stopped = profile_output(report, request, program)
    stdout += "".join(line + "\n" for line in table)
    return stdout, stderr_lines(report, request) + ([f"Error: {stopped}"] if stopped else []), \
        1 if stopped else status

"""Any part of a `--dump-*` region on request, without ever holding the whole dump.

A run keeps only the first values of each dump (`run_results.dumps_of`); the rest is not kept
at all. `run_session.dump_window` (on the run worker, like every editor run) runs the same
launch of the same revision again, with the editor's limits, cancel flag and confined `--arg`
files, and formats only the window `start .. start+count-1` of the final device memory: at most
`MAX_DUMP_WINDOW` values (16-byte rows for `--dump-memory`), whatever the dump's size. The
emulator is deterministic, so the re-run's memory is the hovered run's (an `--arg` file changed
on disk since is read anew, as a re-run reads it).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice

from ..launch.flags import DumpRequest

MAX_DUMP_WINDOW = 4096       # values (or rows) one request may ask for: about 400 KB of text


class DumpWindowError(ValueError):
    """A window request that cannot be answered; the message says why."""


class WindowNotRead(DumpWindowError):
    """A window request dropped before it ran (a newer window of the same dump superseded it,
    or too many runs waited): routine, answered without a warning."""


def dump_rows(req) -> int:
    """How many lines a dump (a `DumpRequest` or a kept `run_results.Dump`) has: values, or
    16-byte rows for `--dump-memory`."""
    return -(-req.count // 16) if req.kind == "memory" else req.count


def check_window(req: DumpRequest, start: object, count: object) -> tuple[int, int]:
    """`(start, count)` validated against the dump (count cut at its end); else
    DumpWindowError."""
    unit = "rows" if req.kind == "memory" else "values"
    rows = dump_rows(req)
    if isinstance(start, bool) or not isinstance(start, int) or \
            isinstance(count, bool) or not isinstance(count, int):
        raise DumpWindowError(f"start and count must be integers, got {start!r} and {count!r}")
    if not 0 <= start < rows:
        raise DumpWindowError(f"start {start} is outside the dump: it has {rows:,} {unit} "
                              f"(0..{rows - 1:,})")
    if not 1 <= count <= MAX_DUMP_WINDOW:
        raise DumpWindowError(f"count must be 1..{MAX_DUMP_WINDOW:,} {unit}, got {count:,}")
    return start, min(count, rows - start)


def line_bytes(req) -> int:
    """Bytes of device memory one line of a dump shows: a 16-byte row of `--dump-memory`, or
    one value."""
    return 16 if req.kind == "memory" else 4 if req.kind in ("u32", "f32") else 2


def line_address(req, line: int) -> int:
    """The device address of the first byte of line `line` (0-based) of a dump."""
    return req.start + line_bytes(req) * line


def window_values(memory, req: DumpRequest, start: int, count: int) -> list[str]:
    """Lines `start .. start+count-1` of a dump over device memory, as upstream prints them."""
    # numpy is loaded here, with the run's results, not when the server first reads a launch
    # line: a first request must not wait for it (Neovim's formatexpr gives up after 500 ms)
    from ..launch.formats import dump_values, hex_dump
    first = line_address(req, start)
    if req.kind == "memory":
        end = min(req.start + req.count, first + 16 * count)
        return list(islice(hex_dump(memory, first, end), 1, None))
    return list(dump_values(memory, first, count, req.kind))


@dataclass(frozen=True)
class DumpWindow:
    """A window of one dump of one run."""

    kernel: str
    revision: int
    launch_line: int | None
    index: int                  # which dump of the launch line
    request: DumpRequest
    start: int                  # first line of the window
    values: tuple[str, ...]
    status: str                 # the re-run's status (ok, error)

    def to_json(self) -> dict:
        req = self.request
        return {"kernel": self.kernel, "launchLine": self.launch_line, "dump": self.index,
                "kind": req.kind, "regionStart": req.start, "total": dump_rows(req),
                "start": self.start, "count": len(self.values), "values": list(self.values),
                "addresses": [line_address(req, self.start + i) for i in range(len(self.values))],
                "status": self.status, "ok": True}

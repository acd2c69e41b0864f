"""One kernel test's run, in process: what `wave-lsp run FILE FLAGS --kernel K` prints.

`run_flags` takes the program text and a launch line's flags (its parsed `LaunchRequest`, or
flag words) and returns the stdout lines,
the exit status and the first line of stderr that the command gives when started in the file's
folder (so `--arg` files are relative to the file, as in the editor). It goes through the same
pieces as the command: `launch.request` (the flags), `emu.run` (either engine) and
`launch.output` (the text, with `--profile`'s table). `--lanes` (which threads the editor shows)
is dropped; `--tolerance` (how `wave-lsp test` compares) changes nothing in the run. `--trace`, `--trace-lines`,
`--mem-trace` and `--break` only write to stderr (their filters with them): a test runs without
them, and its first line of stderr is the error or warning line. `--device` and `--wave-widths`
are not for kernel tests (`FlagsProblem`). With `writers`, a run that dumps device memory also
records who last stored each device byte (`report.writers`, on either engine, with
`--profile` too), so a failing test is explained
from its one run, and `dump_address` maps an output line back to the device address it shows. With `keep_lines` (the editor) only the first lines of stdout are kept, and
counted all (`RunOutput.printed`): a launch line dumping millions of values costs the editor a
bounded window, as its runs do (`first_lines`).
"""

from __future__ import annotations

import itertools
import os

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..launch.flags import DumpRequest, LaunchFlagError, arg_spec
from ..launch.request import LaunchRequest, parse_request, program_for, run_request
from ..launch.table import EDITOR_ONLY
from .arg_files import confined_path, real_inside

EDITOR_ONLY_FLAGS = EDITOR_ONLY       # flags of a launch line `wave-lsp run` does not take


class FlagsProblem(ValueError):
    """Flags a kernel test cannot run: they do not parse (`wave-lsp run` would print its usage),
    or they ask for a GPU or several wave widths."""


@dataclass
class RunOutput:
    """What the command printed, and the run behind it (None when it stopped before running)."""

    stdout: list[str]
    status: int
    stderr: str                        # the first line of stderr ('' when nothing)
    report: object | None = None       # the emulator's RunReport
    requests: tuple[DumpRequest, ...] = ()
    printed: int = -1                  # stdout lines in all (`stdout` may keep the first only)

    def __post_init__(self) -> None:
        if self.printed < 0:
            self.printed = len(self.stdout)


def command_words(words: Sequence[str]) -> list[str]:
    """A launch line's flag words as `wave-lsp run` takes them (editor-only flags dropped)."""
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        name = word.split("=", 1)[0]
        if name in EDITOR_ONLY_FLAGS:
            skip = "=" not in word
            continue
        out.append(word)
    return out


def parse_test_flags(flags: LaunchRequest | Sequence[str], kernel: str):
    """The parsed flags of `wave-lsp run FILE FLAGS --kernel KERNEL` (argparse's namespace),
    from a launch line's `LaunchRequest` (parsed once, by the line) or flag words;
    `FlagsProblem` when a test cannot run them."""
    if isinstance(flags, LaunchRequest):
        args = flags.args(kernel=kernel)
    else:
        try:
            args = parse_request(command_words(flags) + ["--kernel", kernel]).args()
        except LaunchFlagError as err:
            raise FlagsProblem(str(err)) from None
    if args.device != "emulator" or args.compare:
        raise FlagsProblem("a kernel test runs in the emulator: --device and --compare cannot "
                           "be used")
    if args.wave_widths:
        raise FlagsProblem("--wave-widths runs several launches: a kernel test runs one")
    return args


def preload() -> None:
    """Load everything a test run needs (the pipeline, both engines, the output formats), e.g.
    before forking worker processes that then start with it loaded."""
    from ..emu import load_engines
    from ..launch import formats, output, profile_text  # noqa: F401
    load_engines()


def _failed(message: str) -> RunOutput:
    return RunOutput([], 1, f"Error: {message}")


def confine_arg_files(args, folder: Path, root: Path) -> None:
    """LaunchFlagError unless every `--arg` file of parsed flags `args` (relative to `folder`)
    lies inside `root`, links followed (`arg_files`)."""
    real_root = root.resolve()
    here = Path(os.path.abspath(folder))
    for name in (arg_spec(text)[1] for text in args.arg):
        real_inside(confined_path(name, here, root), real_root)


def first_lines(chunks: Iterable[str], keep: int) -> tuple[list[str], int]:
    """The first `keep` lines of the text the `chunks` make (as `str.splitlines` splits it),
    and how many lines it has, without holding more than a chunk of the rest."""
    kept: list[str] = []
    total = 0
    partial = ""
    for chunk in chunks:
        text = partial + chunk
        end = text.rfind("\n") + 1
        whole, partial = text[:end], text[end:]
        if len(kept) < keep:
            lines = whole.splitlines()
            kept.extend(lines[:keep - len(kept)])
            total += len(lines)
        else:
            total += len(whole.splitlines())
    if partial:
        lines = partial.splitlines()
        kept.extend(lines[:max(keep - len(kept), 0)])
        total += len(lines)
    return kept, total


def _stdout(report, request, keep: int | None, program) -> tuple[list[str], int, str, int]:
    """(stdout lines, how many in all, the first line of stderr, exit status) of the run as the
    command prints it; only the first `keep` lines of stdout kept (None: all)."""
    from ..launch.output import command_text, profile_output, run_output, stderr_lines
    if keep is None or request.json or report.errors:
        stdout, stderr, status = command_text(report, request, program)
        lines = stdout.splitlines()
        return lines[:keep] if keep is not None else lines, len(lines), (stderr or [""])[0], \
            status
    table, stopped = profile_output(report, request, program)
    lines, total = first_lines(itertools.chain(
        run_output(report, request.dumps, stats=request.stats, dump_regs=request.dump_regs),
        ["".join(line + "\n" for line in table)]), keep)
    stderr = stderr_lines(report, request) + ([f"Error: {stopped}"] if stopped else [])
    return lines, total, (stderr or [""])[0], 1 if stopped else 0


def run_flags(program: str | bytes, flags: LaunchRequest | Sequence[str], kernel: str,
              folder: Path, *, root: Path | None = None,
              cancel: Callable[[], bool] | None = None, writers: bool = False,
              keep_lines: int | None = None) -> RunOutput:
    """`wave-lsp run FILE FLAGS --kernel KERNEL` started in `folder`, in process (`FlagsProblem`
    for flags a test cannot run; `flags`: a launch line's `LaunchRequest` or flag words). With a
    `root`, `--arg` files must lie inside it (the editor's rule); with `keep_lines`, only that
    many lines of stdout are kept; with `writers`,
    a run that dumps device memory records its stores' writers (see the module doc)."""
    from ..emu import LaunchError, run
    args = parse_test_flags(flags, kernel)
    try:
        if root is not None:
            confine_arg_files(args, folder, root)
        request = run_request(args, folder)
        writers = writers and bool(request.dumps)
        options = replace(request.options.unobserved(), cancel=cancel, writers=writers)
        report = run(program_for(program, request.compat), request.launch, options)
    except (LaunchError, ValueError) as err:
        return _failed(str(err))
    except MemoryError:
        return _failed("not enough memory for this launch")
    stdout, printed, stderr, status = _stdout(report, request, keep_lines, program)
    return RunOutput(stdout, status, stderr, report, request.dumps, printed)


def dump_address(requests: Sequence[DumpRequest], index: int, expected: str | None,
                 got: str | None) -> tuple[int, int] | None:
    """`(address, bytes)` of device memory that output line `index` shows (the first differing
    byte of a `--dump-memory` row, where the expected row can be read), or None for a line that
    shows no device memory (a header, registers, statistics)."""
    line = 0
    for r in requests:
        if r.kind == "memory":
            rows = -(-r.count // 16)
            if index == line:
                return None                       # "Device memory 0x...-0x...:"
            if index <= line + rows:
                base = r.start + 16 * (index - line - 1)
                return base + _first_byte(expected, got), 1
            line += 1 + rows
            continue
        width = 4 if r.kind in ("u32", "f32") else 2
        if index < line + r.count:
            return r.start + width * (index - line), width
        line += r.count
    return None


def _cells(row: str | None) -> list[str]:
    if not row or ": " not in row:
        return []
    return row.split(": ", 1)[1].split("|", 1)[0].split()


def _first_byte(expected: str | None, got: str | None) -> int:
    want, have = _cells(expected), _cells(got)
    for i, (a, b) in enumerate(zip(want, have)):
        if a != b:
            return i
    return min(len(want), len(have)) if want and have else 0

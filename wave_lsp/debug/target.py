"""What a DAP `launch` request asks to debug: the program, the kernel, its `Launch` and
`RunOptions` (prepared by `wave_lsp.emu.pipeline.prepare`, as every run is).

Arguments (launch.json): `program` (a `.wave` or `.wbin` path, relative to `cwd`), `kernel`
(default: the first), `args` (the flags of `wave-lsp run` as a list of strings, parsed by
`wave_lsp.launch.flags`; `--arg` files are read relative to `cwd`, else the program's folder)
and `stopOnEntry`. Without `args`, the kernel's first launch line in the source is used,
`; wave-lsp run: FLAGS` (`wave_lsp.ide.launch_lines`: inside the kernel or in the comments just
above it, `--arg` relative to the source's folder); without one, the default launch.
`stopAt` opens the session paused at a finding's moment (moment.py) and `checkpointBudgetMiB`
bounds the memory of reverse execution's checkpoints (timeline.py).
Every problem raises `TargetError` with a message for the editor.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ..asm import AssemblyError, assemble
from ..launch.flags import DumpRequest, LaunchFlagError, build_launch, build_options, \
    dump_requests, parse_launch_flags
from ..emu import Launch, LaunchError, RunOptions, SteppingRun, load_program, prepare
from ..ide.launch_lines import default_launch, launch_lines
from ..syntax.document import Document
from .moment import Moment, moment_of
from .timeline import DEFAULT_BUDGET_MIB

class TargetError(Exception):
    """A launch that cannot start; the message is shown to the user."""


@dataclass
class Target:
    """A resolved launch: everything needed to (re)start a `SteppingRun`."""

    path: Path
    program: object                 # source Assembly or .wbin bytes
    launch: Launch
    dumps: tuple[DumpRequest, ...] = ()   # --dump-* regions printed when the run ends
    stats: bool = False                   # --stats: print the statistics at the end
    source: str | None = None       # the source text, for .wave programs
    labels: dict[int, str] = field(default_factory=dict)   # kernel offset -> label name
    stop_on_entry: bool = False
    options: RunOptions = field(default_factory=RunOptions)   # limits, initcheck
    stop_at: Moment | None = None         # a finding's moment to open paused at (moment.py)
    checkpoint_budget_mib: float = DEFAULT_BUDGET_MIB    # reverse execution (timeline.py)

    def start(self) -> SteppingRun:
        try:
            return SteppingRun(prepare(self.program, self.launch), options=self.options)
        except LaunchError as err:
            raise TargetError(str(err)) from None


def source_launch(source: str, kernel: str | None, names: list[str], folder: Path
                  ) -> tuple[Launch, tuple[DumpRequest, ...], RunOptions]:
    """The launch of `kernel` (default: the first of `names`) from its first launch line, or
    its default launch; its dumps and options."""
    name = kernel or (names[0] if names else None)
    for line in launch_lines(Document(source), folder):
        if line.kernel != name:
            continue
        if line.problem is not None:
            raise TargetError(f"launch line {line.line + 1}: {line.problem.message}")
        return line.launch, line.dumps, line.options or RunOptions()
    return default_launch(name), (), RunOptions()


def resolve(arguments: dict) -> Target:
    """The `Target` of a launch request's arguments."""
    program = arguments.get("program")
    if not isinstance(program, str) or not program:
        raise TargetError("launch: 'program' must be the path of a .wave or .wbin file")
    cwd = arguments.get("cwd")
    base = Path(cwd) if isinstance(cwd, str) and cwd else None
    path = Path(program)
    if not path.is_absolute() and base is not None:
        path = base / path
    try:
        loaded = load_program(path)
    except OSError as err:
        raise TargetError(f"cannot read '{program}': {err.strerror or err}") from None
    except ValueError:
        raise TargetError(f"'{program}' is neither UTF-8 source nor a .wbin file") from None
    kernel = arguments.get("kernel") or None
    if kernel is not None and not isinstance(kernel, str):
        raise TargetError("launch: 'kernel' must be a kernel name")
    source = None
    labels: dict[int, str] = {}
    if isinstance(loaded, bytes):
        code: object = loaded
    else:
        source = loaded
        try:
            code = assemble(source)
        except AssemblyError as err:
            raise TargetError(f"{path.name} does not assemble: {err}") from None
    args = arguments.get("args")
    if isinstance(args, str):
        args = shlex.split(args)
    if args is None and source is not None:
        launch, dumps, options = source_launch(source, kernel, [k.name for k in code.kernels],
                                               path.parent)
        stats = False
    else:
        if args is not None and not (isinstance(args, list)
                                     and all(isinstance(a, str) for a in args)):
            raise TargetError("launch: 'args' must be a list of wave-lsp run flags")
        try:
            flags = parse_launch_flags(args or [])
            overrides = {"kernel": kernel} if kernel else {}
            launch = build_launch(flags, base_dir=base or path.parent, **overrides)
            options = build_options(flags).unobserved()
            dumps = tuple(dump_requests(flags))
        except LaunchFlagError as err:
            raise TargetError(f"invalid launch flags: {err}") from None
        stats = bool(flags.stats)
    if source is not None:
        labels = _labels(code, launch.kernel)
    try:
        stop_at = moment_of(arguments.get("stopAt"))
    except ValueError as err:
        raise TargetError(str(err)) from None
    budget = arguments.get("checkpointBudgetMiB", DEFAULT_BUDGET_MIB)
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 < budget <= 65536:
        raise TargetError("launch: 'checkpointBudgetMiB' must be a number of MiB above 0 and at most 65536")
    return Target(path.resolve(), code, launch, dumps, stats, source, labels,
                  bool(arguments.get("stopOnEntry")), options, stop_at, float(budget))


def _labels(assembly, kernel: str | None) -> dict[int, str]:
    layout = assembly.layout
    if layout is None or not layout.kernels:
        return {}
    chosen = next((k for k in layout.kernels if kernel is None or k.name == kernel), None)
    if chosen is None:
        return {}
    return {place.offset - chosen.code_offset: name for name, place in layout.labels.items()
            if place.kernel is chosen}

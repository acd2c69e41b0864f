"""What a DAP `launch` request asks to debug: the program, the kernel and its `Launch`.

Arguments (launch.json): `program` (a `.wave` or `.wbin` path, relative to `cwd`), `kernel`
(default: the first), `args` (the flags of `wave-lsp run` as a list of strings, parsed by
`wave_lsp.emu.launch_flags`; `--arg` files are read relative to `cwd`, else the program's folder)
and `stopOnEntry`. Without `args`, the kernel's first launch line in the source is used,
`; wave-lsp run: FLAGS`, written inside the kernel or in the comments just above it; without
one, the default launch (the kernel's `.workgroup_size`, grid 1, zeroed memory).
Every problem raises `TargetError` with a message for the editor.
"""

from __future__ import annotations

import argparse
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ..asm import AssemblyError, assemble
from ..emu import Launch, LaunchError
from ..emu.launch_flags import LaunchFlagError, build_launch, parse_launch_flags
from ..emu.stepping import SteppingRun

LAUNCH_LINE = re.compile(r"^\s*;\s*wave-lsp run:(.*)$")
KERNEL_LINE = re.compile(r"^\s*\.kernel\s+(\S+)")
END_LINE = re.compile(r"^\s*\.end\b")


class TargetError(Exception):
    """A launch that cannot start; the message is shown to the user."""


@dataclass
class Target:
    """A resolved launch: everything needed to (re)start a `SteppingRun`."""

    path: Path
    program: object                 # source Assembly or .wbin bytes
    launch: Launch
    flags: argparse.Namespace       # the parsed flags (for the --dump-* output at the end)
    source: str | None = None       # the source text, for .wave programs
    labels: dict[int, str] = field(default_factory=dict)   # kernel offset -> label name
    stop_on_entry: bool = False

    def start(self) -> SteppingRun:
        try:
            return SteppingRun(self.program, self.launch)
        except LaunchError as err:
            raise TargetError(str(err)) from None


def launch_line_flags(source: str, kernel: str | None) -> list[str] | None:
    """The flags of the first `; wave-lsp run:` line of `kernel` (default: the first kernel):
    inside its `.kernel` ... `.end`, or in the comment lines before its `.kernel`."""
    def wanted(name: str) -> bool:
        return kernel is None or name == kernel

    pending: list[list[str]] = []   # launch lines above the next kernel
    inside = None                   # the kernel being read
    for text in source.splitlines():
        if m := KERNEL_LINE.match(text):
            inside = m.group(1)
            if wanted(inside) and pending:
                return pending[0]
            pending = []
        elif m := LAUNCH_LINE.match(text):
            try:
                flags = shlex.split(m.group(1))
            except ValueError as err:
                raise TargetError(f"launch line: {err}") from None
            if inside is not None and wanted(inside):
                return flags
            if inside is None:
                pending.append(flags)
        elif END_LINE.match(text):
            if inside is not None and wanted(inside):
                return None
            inside, pending = None, []
        elif inside is None and text.strip() and not text.lstrip().startswith(";"):
            pending = []            # code between kernels separates a comment from them
    return None


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
        data = path.read_bytes()
    except OSError as err:
        raise TargetError(f"cannot read '{program}': {err.strerror or err}") from None
    kernel = arguments.get("kernel") or None
    if kernel is not None and not isinstance(kernel, str):
        raise TargetError("launch: 'kernel' must be a kernel name")
    source = None
    labels: dict[int, str] = {}
    if data[:4] == b"WAVE" or path.suffix == ".wbin":
        code: object = data
    else:
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError:
            raise TargetError(f"'{program}' is neither UTF-8 source nor a .wbin file") from None
        try:
            code = assemble(source)
        except AssemblyError as err:
            raise TargetError(f"{path.name} does not assemble: {err}") from None
    args = arguments.get("args")
    if args is None:
        args = launch_line_flags(source, kernel) if source is not None else None
        args = args or []
    if isinstance(args, str):
        args = shlex.split(args)
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise TargetError("launch: 'args' must be a list of wave-lsp run flags")
    try:
        flags = parse_launch_flags(args)
        overrides = {"kernel": kernel} if kernel else {}
        launch = build_launch(flags, base_dir=base or path.parent, **overrides)
    except LaunchFlagError as err:
        raise TargetError(f"invalid launch flags: {err}") from None
    if source is not None:
        labels = _labels(code, launch.kernel)
    return Target(path.resolve(), code, launch, flags, source, labels,
                  bool(arguments.get("stopOnEntry")))


def _labels(assembly, kernel: str | None) -> dict[int, str]:
    layout = assembly.layout
    if layout is None or not layout.kernels:
        return {}
    chosen = next((k for k in layout.kernels if kernel is None or k.name == kernel), None)
    if chosen is None:
        return {}
    return {place.offset - chosen.code_offset: name for name, place in layout.labels.items()
            if place.kernel is chosen}

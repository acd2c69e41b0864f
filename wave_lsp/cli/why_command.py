"""`wave-lsp why FILE (--address A | --register rN --lane T --line L) [run flags]`: who wrote a
value, and who wrote what that was made of, down to the kernel's inputs.

The launch runs recorded (`RunOptions(write_log=True)`: the write log, docs/dev/time-travel.md)
with the flags of `wave-lsp run` that say what runs (grid, memory, `--set-reg`, `--fill-*`,
`--arg`, ...). `--address A`: the device memory word at A after the run. `--register r4 --lane T
--line L`: register (or predicate) r4 of thread T (global id, as `--lanes` counts) at source line
L (1-based, as an editor shows it), at its last execution there or `--iteration N`. It prints the
value, the write that made it (`line 8, lane 3: iadd r4, r3, r1 (workgroup 0, wave 0, step 41,
iteration 1)`) and under it each source operand with its value and writer, `--depth` writes
deep. A recording larger than `--record-budget` MiB stops with a message: `--record-workgroups`
and `--record-steps` record less. Errors print `Error: MESSAGE` and exit with status 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..launch.table import add_flags


def register(subparsers) -> None:
    from ..launch.why import add_record_flags
    p = subparsers.add_parser(
        "why", help="who wrote a value of a run: a memory word or a register lane at a line",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, metavar="FILE", help=".wave source or .wbin binary")
    target = p.add_argument_group("target")
    target.add_argument("--address", metavar="A", help="a device memory word (after the run)")
    target.add_argument("--register", metavar="REG", help="a register or predicate: r4, p0")
    target.add_argument("--lane", metavar="T", help="with --register: the thread (global id)")
    target.add_argument("--line", metavar="L", help="with --register: the source line "
                                                    "(1-based)")
    target.add_argument("--iteration", metavar="N", help="with --register: the line's Nth "
                                                         "execution (default: the last)")
    target.add_argument("--depth", metavar="N", default="4", help="writes followed (default 4)")
    add_record_flags(p)
    add_flags(p, ("launch",))
    p.set_defaults(func=run)


def _error(message: str) -> int:
    print(f"Error: {message}", file=sys.stderr)
    return 1


def run(args) -> int:
    from ..emu import LaunchError, load_program, prepare, run as run_launch
    from ..emu import Provenance
    from ..launch.flags import build_launch, build_options, number
    from ..launch.why import chain_lines, record_fields
    try:
        target = _target(args, number)
        launch = build_launch(args)
        options = build_options(args, **record_fields(args.record_budget,
                                                       args.record_workgroups,
                                                       args.record_steps)).unobserved()
        program = load_program(args.file)
        prepared = prepare(program, launch)
        report = run_launch(prepared, options=options)
        if report.errors:
            print(f"Warning: the run stopped: {report.errors[0].message}", file=sys.stderr)
        provenance = Provenance(report, prepared)
        if target[0] == "address":
            answer = provenance.address(target[1])
            name = f"device[{target[1]:#x}]"
        else:
            _, register, thread, line, iteration = target
            answer = provenance.register(register, thread, line, iteration)
            name = f"{register} of thread {thread} at line {line + 1}"
        depth = number(args.depth, "--depth")
    except (LaunchError, ValueError) as err:
        return _error(str(err))
    except MemoryError:
        return _error("not enough memory for this recording: record fewer workgroups "
                      "(--record-workgroups) or a window of steps (--record-steps)")
    except OSError as err:
        return _error(f"cannot read '{args.file}': {err.strerror or err}")
    print("\n".join(chain_lines(provenance, answer, name, max(1, depth))))
    return 0


def _target(args, number) -> tuple:
    """("address", A) or ("register", name, thread, line 0-based, iteration or None)."""
    from ..launch.flags import LaunchFlagError
    if args.address is not None:
        if args.register is not None:
            raise LaunchFlagError("give --address or --register, not both", "--address")
        return ("address", number(args.address, "--address"))
    if args.register is None:
        raise LaunchFlagError("give --address A or --register REG --lane T --line L",
                              "--address")
    if args.lane is None or args.line is None:
        raise LaunchFlagError("--register needs --lane T and --line L", "--register")
    line = number(args.line, "--line")
    if line < 1:
        raise LaunchFlagError(f"--line: lines count from 1, got {line}", "--line")
    iteration = None if args.iteration is None else number(args.iteration, "--iteration")
    return ("register", args.register.strip(), number(args.lane, "--lane"), line - 1,
            iteration)

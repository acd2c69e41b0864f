"""`wave-lsp emit --target ptx|hip|metal|sycl FILE [-o OUT] [--compat upstream]`: what a vendor
backend makes of a kernel file.

FILE is `.wave` source or a `.wbin`. The text goes to stdout, or to OUT with `-o`. By default
the output is upstream's `wave-ptx`/`wave-hip`/`wave-metal`/`wave-sycl` text with upstream's
translation defects corrected (lints P811-P823 name each; P823: what ptxas or hipcc reject), and
a kernel that uses local memory without `.local_memory` gets the emulator's default size
declared; `--compat upstream` reproduces upstream's pipeline exactly, defects included (source
is assembled as `wave-asm` does).

Kernel arguments: every register the kernel may read before writing is a 32-bit parameter
`arg_rN` after the device-memory pointer, in ascending register number (PTX `.param .u32`,
HIP `uint32_t`, Metal `constant uint32_t& [[buffer(1..)]]`, SYCL `uint32_t` before the sizes);
the other registers start at zero. SYCL puts WAVE's x on its fastest dimension (2): ranges are
`range<3>(z, y, x)`. `--compat upstream` keeps upstream's signature and order.

Errors print `error: MESSAGE` to stderr and exit with status 1, as upstream's backends do.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..asm.backends import TARGETS, EmitError, emit
from ..files import write_text_atomically


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "emit", help="translate a kernel file to PTX, HIP, Metal or SYCL",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, metavar="FILE", help=".wave source or .wbin binary")
    p.add_argument("--target", "-t", required=True, choices=TARGETS, help="the backend")
    p.add_argument("-o", "--output", type=Path, metavar="OUT", help="write here, not stdout")
    p.add_argument("--compat", choices=("upstream",),
                   help="reproduce upstream's output exactly, defects included")
    p.set_defaults(func=run)


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def run(args) -> int:
    from ..asm import AssemblyError, WbinError
    try:
        from ..emu import load_program
        program = load_program(args.file)
    except OSError as err:
        return _error(f"cannot read '{args.file}': {err.strerror or err}")
    except ValueError as err:
        return _error(str(err))
    try:
        result = emit(program, args.target, compat=args.compat == "upstream")
    except AssemblyError as err:
        return _error(f"{args.file}:{err.line + 1}: {err.message}")
    except (EmitError, WbinError) as err:
        return _error(str(err))
    if args.output is None:
        sys.stdout.write(result.text)
        return 0
    try:
        write_text_atomically(args.output, result.text)
    except OSError as err:
        return _error(f"cannot write '{args.output}': {err.strerror or err}")
    return 0

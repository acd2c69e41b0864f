"""`wave-lsp dis FILE.wbin [--offsets] [--raw] [--compat wave-asm]`: disassemble a `.wbin`.

The output assembles back to the same bytes (generated `loc_XXXX` labels for `call` targets,
kernel directives kept). `--offsets` and `--raw` add the file offset and the words in hex as a
trailing comment. `--compat wave-asm` reads the file as wave-asm wrote it (label-pass call
targets, modifier-0 CAS). Exit status: 0, 1 for an invalid file, 2 when it cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..asm import WbinError, read_wbin
from ..asm.disassembler import disassemble
from ..files import read_regular


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "dis", help="disassemble a .wbin file",
        description="Disassemble a WAVE .wbin into assembly that re-assembles to the same bytes.")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument("--offsets", action="store_true", help="show each instruction's file offset")
    p.add_argument("--raw", action="store_true", help="show each instruction's words in hex")
    p.add_argument("--compat", choices=("wave-asm",),
                   help="read call targets and CAS the way wave-asm encodes them")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    try:
        data = read_regular(path)
    except OSError as err:
        print(f"{path}: error: cannot read: {err.strerror or err}", file=sys.stderr)
        return 2
    try:
        wbin = read_wbin(data)
    except WbinError as err:
        print(f"{path}: error: {err.message}", file=sys.stderr)
        return 1
    sys.stdout.write(disassemble(wbin, offsets=args.offsets, raw=args.raw,
                                 compat=args.compat == "wave-asm"))
    return 0

"""`wave-lsp asm FILE [-o OUT] [--compat wave-asm] [--no-symbols] [--dump-hex]`: assemble.

The program is analysed first: with errors that leave the bytes unknown (syntax, operands,
structure, legacy forms, unreadable files: `analysis.codes.blocks_assembly`) nothing is written,
and every diagnostic is printed in the lint format (`path:line:col: CODE severity message`, exit
status 1). Other findings (portability, divergence, warnings) are printed to stderr and do not
stop the assembly. `--dump-hex` prints the `.wbin` as upstream
`wave-asm --dump-hex` does (16 bytes a line) and writes no file. Exit status: 0 on success,
1 when the program has errors, 2 when a file cannot be read or written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..analysis import Severity, analyze
from ..analysis.source import decode_source
from ..analysis.codes import blocks_assembly
from ..asm import AssemblyError, assemble
from ..files import read_regular, write_atomically
from ..syntax.document import Document
from .lint_command import ConfigCache, format_text


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "asm", help="assemble a .wave file into a .wbin",
        description="Assemble WAVE assembly into a .wbin binary (byte-identical to wave-asm "
                    "for programs it assembles correctly; see --compat).")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument("-o", "--output", type=Path, metavar="OUT",
                   help="output file (default: FILE with the extension .wbin)")
    p.add_argument("--compat", choices=("wave-asm",),
                   help="reproduce wave-asm's bytes exactly, defects included")
    p.add_argument("--no-symbols", action="store_true",
                   help="leave the kernel names out (the metadata offset stays correct)")
    p.add_argument("--dump-hex", action="store_true",
                   help="print the bytes as hex (16 per line) instead of writing a file")
    p.set_defaults(func=run)


def hex_dump(data: bytes) -> str:
    """wave-asm's --dump-hex format: `%08x: ` then `%02x ` per byte, 16 bytes a line."""
    lines = []
    for start in range(0, len(data), 16):
        chunk = data[start:start + 16]
        lines.append(f"{start:08x}: " + "".join(f"{b:02x} " for b in chunk))
    return "".join(line + "\n" for line in lines)


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    compat = args.compat == "wave-asm"
    try:
        data = read_regular(path)
    except OSError as err:
        print(f"{path}: error: cannot read: {err.strerror or err}", file=sys.stderr)
        return 2
    text, problem = decode_source(data)
    if problem is not None:
        print(format_text(str(path), problem), file=sys.stderr)
        return 1
    document = Document(text, uri=str(path))
    configs = ConfigCache(None, False, compat)
    diagnostics = analyze(document, configs.for_file(path))
    # only what leaves the bytes unknown stops assembling: a portability or divergence error
    # (P801 f64 on Metal, D601 a divergent barrier) is shown but the program is assembled
    errors = [d for d in diagnostics if blocks_assembly(d)]
    shown = diagnostics if errors else [d for d in diagnostics if d.severity <= Severity.WARNING]
    for d in shown:
        print(format_text(str(path), d), file=sys.stdout if errors else sys.stderr)
    if errors:
        print(f"{path}: {len(errors)} error(s); nothing assembled", file=sys.stderr)
        return 1
    try:
        assembly = assemble(document, compat=compat)
    except AssemblyError as err:
        print(f"{path}:{err.line + 1}:{err.start + 1}: ASM error {err.message}")
        return 1
    wbin = assembly.wbin(no_symbols=args.no_symbols)
    if args.dump_hex:
        sys.stdout.write(hex_dump(wbin))
        return 0
    out = args.output or path.with_suffix(".wbin")
    if same_file(out, path):
        print(f"{path}: error: the output {out} is the input file itself; nothing written "
              f"(name the output with -o)", file=sys.stderr)
        return 2
    try:
        write_atomically(out, wbin)  # a failed write leaves any existing file unchanged
    except OSError as err:
        print(f"{out}: error: cannot write: {err.strerror or err}", file=sys.stderr)
        return 2
    return 0


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name the same file (the same path, or links to one file)."""
    if a.absolute() == b.absolute():
        return True
    try:
        return a.exists() and a.samefile(b)
    except OSError:
        return False

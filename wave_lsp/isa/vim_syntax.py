"""The Vim syntax file for WAVE (`editors/nvim/syntax/wave.vim`), generated from this package.

Vim and Neovim colour a buffer with the syntax file before (and without) the language server, so
the file must list the mnemonics, directives, special registers, scopes and cache hints — facts
that live once, in `wave_lsp.isa`. This module renders the file from them;
`python -m wave_lsp.isa.vim_syntax` rewrites the checked-in copy and `--check` fails when it is
stale (a test runs the check).

Each instruction class gets its own group (`waveInteger`, `waveDeviceMemory`, ...) linked to one
of four groups a colour scheme can tell apart: instructions, memory accesses, control flow and
synchronisation.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from .classes import InstructionClass
from .directives import CACHE_HINTS, DIRECTIVES, SCOPES
from .instructions import INSTRUCTIONS
from .registers import SPECIAL_REGISTERS

# Where the generated file lives, relative to the repository root.
SYNTAX_PATH = Path("editors/nvim/syntax/wave.vim")

# The group each instruction class is shown as, and the standard group that one links to.
_FAMILY = {
    InstructionClass.LOCAL_MEMORY: "waveMemoryAccess",
    InstructionClass.DEVICE_MEMORY: "waveMemoryAccess",
    InstructionClass.ATOMIC: "waveMemoryAccess",
    InstructionClass.CONTROL: "waveControlFlow",
    InstructionClass.SYNC: "waveSynchronization",
}
_FAMILY_LINKS = {
    "waveInstruction": "Statement",
    "waveMemoryAccess": "Function",
    "waveControlFlow": "Conditional",
    "waveSynchronization": "Exception",
}
_LINKS = {
    "waveComment": "Comment",
    "waveTodo": "Todo",
    "waveToolComment": "SpecialComment",
    "waveDirective": "PreProc",
    "waveKernelName": "Function",
    "waveLabel": "Label",
    "waveGuard": "PreCondit",
    "waveRegister": "Identifier",
    "wavePredicate": "Identifier",
    "waveSpecialRegister": "Special",
    "waveScope": "StorageClass",
    "waveCacheHint": "StorageClass",
    "waveNumber": "Number",
    "waveFloatLiteral": "Float",
    "waveLegacySpecial": "Error",
}


def class_group(iclass: InstructionClass) -> str:
    """The syntax group of an instruction class, e.g. `waveDeviceMemory`."""
    return "wave" + "".join(part.capitalize() for part in iclass.name.split("_"))


def family_group(iclass: InstructionClass) -> str:
    """The group a class group links to (`waveInstruction`, `waveMemoryAccess`, ...)."""
    return _FAMILY.get(iclass, "waveInstruction")


def _keywords(group: str, words: list[str]) -> list[str]:
    """`syn keyword` lines for `words`, wrapped to about 100 columns."""
    prefix = f"syn keyword {group} "
    lines = textwrap.wrap(" ".join(words), 100 - len(prefix), break_on_hyphens=False)
    return [prefix + line for line in lines]


def _alternatives(names) -> str:
    return r"\%(" + r"\|".join(names) + r"\)"


def render() -> str:
    """The complete syntax file."""
    out = [
        '" Vim syntax file for WAVE GPU assembly (.wave)',
        '" GENERATED from wave_lsp/isa by `python -m wave_lsp.isa.vim_syntax`: do not edit.',
        "",
        'if exists("b:current_syntax")',
        "  finish",
        "endif",
        "",
        "syn case match",
        "syn iskeyword @,48-57,_,192-255",
        "",
        '" Instructions, one group per instruction class.',
    ]
    for iclass in InstructionClass:
        words = [m for m, spec in INSTRUCTIONS.items() if spec.iclass is iclass]
        if words:
            out += _keywords(class_group(iclass), words)
    out += ["", '" Operands.']
    out += _keywords("waveSpecialRegister", [s.name for s in SPECIAL_REGISTERS])
    not_after_word = r"\%(\w\)\@<!"
    out += [
        r'syn match waveRegister "\<r\d\+\%(\.\h\w*\)\=\>"',
        r'syn match wavePredicate "\<p\d\+\>"',
        r'syn match waveNumber "\%(\w\)\@<![-+]\=\<\d[0-9_]*\>"',
        r'syn match waveNumber "\%(\w\)\@<![-+]\=\<0[xX][0-9A-Fa-f_]\+\>"',
        r'syn match waveFloatLiteral "\%(\w\)\@<![-+]\=\<\d[0-9_]*\.[0-9_]*\%([eE][-+]\=\d\+\)\="',
        r'syn match waveFloatLiteral "\%(\w\)\@<![-+]\=\<\d[0-9_]*[eE][-+]\=\d\+\>"',
        f'syn match waveScope "{not_after_word}\\.{_alternatives(s.name for s in SCOPES)}\\>"',
        f'syn match waveCacheHint "{not_after_word}\\.{_alternatives(CACHE_HINTS)}\\>"',
        r'syn match waveLegacySpecial "%\h[[:alnum:]_.]*"',
        r'syn match waveGuard "@\s*!\=\s*p\d\+\>"',
        "",
        '" Directives, kernels and labels.',
        f'syn match waveDirective "{not_after_word}\\.{_alternatives(d.name for d in DIRECTIVES)}'
        r'\>"',
        r'syn match waveKernelName "\%(\.kernel\s\+\)\@<=\h\w*"',
        r'syn match waveLabel "^\s*\zs\h\w*\ze\s*:"',
        "",
        '" Comments: `;` or `#` to the end of the line; wave-lsp reads `; wave-lsp ...` ones.',
        "syn keyword waveTodo contained TODO FIXME XXX NOTE",
        r'syn match waveToolComment "\<wave-lsp\%(\s*:\|\s\+run\s*:\)" contained',
        r'syn match waveComment "[;#].*$" contains=waveTodo,waveToolComment,@Spell',
        "",
    ]
    for iclass in InstructionClass:
        out.append(f"hi def link {class_group(iclass)} {family_group(iclass)}")
    for group, target in {**_FAMILY_LINKS, **_LINKS}.items():
        out.append(f"hi def link {group} {target}")
    out += ["", 'let b:current_syntax = "wave"', ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m wave_lsp.isa.vim_syntax",
        description="Write the Vim syntax file for WAVE from the instruction table.")
    parser.add_argument("output", nargs="?", type=Path,
                        default=Path(__file__).resolve().parents[2] / SYNTAX_PATH,
                        help=f"file to write (default: the repository's {SYNTAX_PATH})")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the file differs from the table")
    args = parser.parse_args(argv)
    text = render()
    current = args.output.read_text(encoding="utf-8") if args.output.is_file() else None
    if args.check:
        if current != text:
            print(f"{args.output} is stale: run python -m wave_lsp.isa.vim_syntax",
                  file=sys.stderr)
            return 1
        return 0
    if current != text:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

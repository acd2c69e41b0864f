"""The Vim/Neovim runtime files that restate ISA facts, generated from this package.

Vim and Neovim colour a buffer with `editors/nvim/syntax/wave.vim` before (and without) the
language server, so that file lists the mnemonics, directives, special registers, scopes and cache
hints; the indent rules need the block structure (`editors/nvim/lua/wave/isa.lua`, and
`editors/emacs/wave-isa.el` for Emacs' wave-mode). Those facts
live once, in `wave_lsp.isa`: `python -m wave_lsp.generate.vim_files` rewrites the checked-in copies
and `--check` fails when one is stale (a test runs the check).

Each instruction class gets its own syntax group (`waveInteger`, `waveDeviceMemory`, ...) linked
to one of four groups a colour scheme can tell apart: instructions, memory accesses, control flow
and synchronisation.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from ..isa import generated
from ..isa.blocks import BLOCK_CLOSERS, BLOCK_MIDDLES, BLOCK_OPENERS
from ..isa.classes import InstructionClass
from ..isa.directives import CACHE_HINTS, DIRECTIVES, SCOPES
from ..isa.instructions import INSTRUCTIONS
from ..isa.registers import SPECIAL_REGISTERS

# Where the generated files live, relative to the repository root.
SYNTAX_PATH = Path("editors/nvim/syntax/wave.vim")
BLOCKS_PATH = Path("editors/nvim/lua/wave/isa.lua")
EMACS_BLOCKS_PATH = Path("editors/emacs/wave-isa.el")

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


def render_syntax() -> str:
    """The complete Vim syntax file."""
    out = [
        '" Vim syntax file for WAVE GPU assembly (.wave)',
        '" GENERATED from wave_lsp/isa by `python -m wave_lsp.generate.vim_files`: do not edit.',
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
        '" Comments: `;` or `#` to the end of the line; wave-lsp reads `; wave-lsp ...` ones',
        '" (`wave-lsp: ignore[...]`, and `wave-lsp VERB:` as `run:` and `expect:`).',
        "syn keyword waveTodo contained TODO FIXME XXX NOTE",
        r'syn match waveToolComment "\<wave-lsp\%(\s*:\|\s\+\l\+\s*:\)" contained',
        r'syn match waveComment "[;#].*$" contains=waveTodo,waveToolComment,@Spell',
        "",
    ]
    for iclass in InstructionClass:
        out.append(f"hi def link {class_group(iclass)} {family_group(iclass)}")
    for group, target in {**_FAMILY_LINKS, **_LINKS}.items():
        out.append(f"hi def link {group} {target}")
    out += ["", 'let b:current_syntax = "wave"', ""]
    return "\n".join(out)


_BLOCK_SETS = {"block_openers": BLOCK_OPENERS, "block_middles": BLOCK_MIDDLES,
               "block_closers": BLOCK_CLOSERS}


def _lua_set(words) -> str:
    return "{ " + ", ".join(f'["{w}"] = true' for w in sorted(words)) + " }"


def _elisp_list(words) -> str:
    return "'(" + " ".join(f'"{w}"' for w in sorted(words)) + ")"


def render_blocks() -> str:
    """A Lua module with the mnemonics that open, continue and close a block (for indenting)."""
    return "\n".join([
        "-- WAVE facts for the Neovim runtime files.",
        "-- GENERATED from wave_lsp/isa by `python -m wave_lsp.generate.vim_files`: do not edit.",
        "return {",
        *(f"  {name} = {_lua_set(words)}," for name, words in _BLOCK_SETS.items()),
        "}",
        "",
    ])


def render_emacs_blocks() -> str:
    """The same block structure for Emacs' wave-mode (its indentation)."""
    return "\n".join([
        ";;; wave-isa.el --- WAVE facts for wave-mode  -*- lexical-binding: t; -*-",
        ";; GENERATED from wave_lsp/isa by `python -m wave_lsp.generate.vim_files`: do not edit.",
        ";;; Code:",
        *(f"(defconst wave-{name.replace('_', '-')} {_elisp_list(words)})"
          for name, words in _BLOCK_SETS.items()),
        "(provide 'wave-isa)",
        ";;; wave-isa.el ends here",
        "",
    ])


GENERATED = {SYNTAX_PATH: render_syntax, BLOCKS_PATH: render_blocks,
             EMACS_BLOCKS_PATH: render_emacs_blocks}


def stale(root: Path) -> list[Path]:
    """The generated files under repository `root` that are missing or differ from the table."""
    return generated.stale(root, GENERATED)


def main(argv: list[str] | None = None) -> int:
    return generated.main("wave_lsp.generate.vim_files", "Write the Vim/Neovim runtime files for "
                          "WAVE from the instruction table.", GENERATED, argv)


if __name__ == "__main__":
    sys.exit(main())

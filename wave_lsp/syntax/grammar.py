"""Loads `grammar/wave.peg` and completes it with the mnemonic rule derived from the ISA table."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from ..isa import INSTRUCTIONS

if TYPE_CHECKING:
    from parsimonious.grammar import Grammar


def grammar_text() -> str:
    """The grammar file's text plus the generated `known_mnemonic` rule."""
    peg = resources.files("wave_lsp.grammar").joinpath("wave.peg").read_text(encoding="utf-8")
    return peg + "\n" + known_mnemonic_rule() + "\n"


def known_mnemonic_rule() -> str:
    """`known_mnemonic = ~"(?:...)(?!\\w)"`, longest names first so PEG choice cannot stop short."""
    names = sorted(INSTRUCTIONS, key=lambda n: (-len(n), n))
    alternatives = "|".join(re.escape(n) for n in names)
    return rf'known_mnemonic  = ~r"(?:{alternatives})(?!\w)"'


@cache
def wave_grammar() -> Grammar:
    """The compiled grammar, built once per process (about 15 ms). It is deliberately never
    cached on disk: a compiled Parsimonious grammar is only storable with pickle, and loading a
    pickle from a cache folder runs whatever code a planted file holds. Parsimonious is
    imported here: a file whose lines all take the parser's fast path never loads it."""
    from parsimonious.grammar import Grammar
    return Grammar(grammar_text())

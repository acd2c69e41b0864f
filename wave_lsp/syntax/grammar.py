"""Loads `grammar/wave.peg` and completes it with the mnemonic rule derived from the ISA table."""

from __future__ import annotations

import pkgutil
import re
from functools import cache
from typing import TYPE_CHECKING

from ..isa import INSTRUCTIONS

if TYPE_CHECKING:
    from parsimonious.grammar import Grammar


def grammar_text() -> str:
    """The grammar file's text plus the generated `known_mnemonic` rule. Read with `pkgutil`,
    which loads in a tenth of the time of `importlib.resources` (a run of a `.wave` reads it at
    every start), its line ends made `\\n` as a text-mode read makes them."""
    data = pkgutil.get_data("wave_lsp.grammar", "wave.peg")
    if data is None:            # pkgutil's answer where the package is missing or has no files
        raise ModuleNotFoundError("wave_lsp.grammar (wave.peg) is not installed",
                                  name="wave_lsp.grammar")
    peg = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
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

"""Loads `grammar/wave.peg` and completes it with the mnemonic rule derived from the ISA table."""

from __future__ import annotations

import hashlib
import pickle
import re
import sys
from functools import cache
from importlib import resources

from parsimonious.grammar import Grammar

from ..cache import cache_dir, package_stamp, write_atomically
from ..isa import INSTRUCTIONS


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
    """The compiled grammar, built once per process; the build (about 0.15 s) is also cached
    on disk, keyed by the grammar text and the Parsimonious and Python versions."""
    text = grammar_text()
    key = hashlib.sha256(f"{text}\0{package_stamp('parsimonious')}\0{sys.version}".encode()).hexdigest()
    path = cache_dir() / f"grammar-{key[:32]}.pickle"
    try:
        grammar = pickle.loads(path.read_bytes())
        if isinstance(grammar, Grammar):
            return grammar
    except Exception:  # missing, unreadable or stale cache: build it
        pass
    grammar = Grammar(text)
    try:
        write_atomically(path, pickle.dumps(grammar))
    except OSError:  # a read-only home is fine: just slower next time
        pass
    return grammar

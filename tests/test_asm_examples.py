"""Conformance on the 16 upstream kernels: byte-identical `.wbin` (SHA-256 from INDEX.md) in
compatibility mode, the documented CAS difference in the default mode, and disassembly round
trips."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from wave_lsp.asm import assemble, read_wbin
from wave_lsp.asm.disassembler import disassemble

from shared import EXAMPLES, examples_dir
_ROW = re.compile(r"^\| (\w+\.wave) \| (\d+) \| ([0-9a-f]{64}) \|", re.M)


def _index() -> dict[str, tuple[int, str]]:
    if not (EXAMPLES / "INDEX.md").is_file():
        return {}
    text = (EXAMPLES / "INDEX.md").read_text(encoding="utf-8")
    return {name: (int(size), sha) for name, size, sha in _ROW.findall(text)}


INDEX = _index()
NAMES = sorted(INDEX) or ["<missing>"]


def _source(name: str) -> str:
    return (examples_dir() / name).read_text(encoding="utf-8")


def test_index_lists_sixteen_kernels():
    examples_dir()
    assert len(INDEX) == 16


@pytest.mark.parametrize("name", NAMES)
def test_compat_mode_is_byte_identical(name):
    data = assemble(_source(name), compat=True).wbin()
    size, sha = INDEX[name]
    assert len(data) == size
    assert hashlib.sha256(data).hexdigest() == sha


@pytest.mark.parametrize("name", NAMES)
def test_default_mode_differs_only_in_cas_modifier(name):
    source = _source(name)
    ours = assemble(source).wbin()
    upstream = assemble(source, compat=True).wbin()
    if name != "atomic_cas.wave":
        assert ours == upstream
        return
    diff = [i for i, (a, b) in enumerate(zip(ours, upstream)) if a != b]
    assert len(ours) == len(upstream) and len(diff) == 1
    (at,) = diff
    # the low byte of word0 holds modifier (7:4) and guard bits: only the modifier nibble moves
    assert upstream[at] & 0x0F == ours[at] & 0x0F
    assert (upstream[at] >> 4, ours[at] >> 4) == (0, 8)
    wbin = read_wbin(ours)
    cas = [i for i in wbin.kernels[0].instructions if (i.offset + 0x20) <= at < i.offset + 0x28]
    assert cas and cas[0].spec.mnemonic == "atomic_cas"


@pytest.mark.parametrize("compat", [False, True], ids=["default", "compat"])
@pytest.mark.parametrize("name", NAMES)
def test_disassembly_reassembles_to_the_same_bytes(name, compat):
    data = assemble(_source(name), compat=compat).wbin()
    text = disassemble(read_wbin(data), compat=compat)
    assert assemble(text, compat=compat).wbin() == data


@pytest.mark.parametrize("name", NAMES)
def test_reader_decodes_what_the_assembler_encoded(name):
    asm = assemble(_source(name))
    wbin = read_wbin(asm.wbin())
    for ours, read in zip(asm.kernels, wbin.kernels):
        assert (read.name, read.code, read.code_offset) == (ours.name, ours.code, ours.code_offset)
        stripped = [i.__class__(**{**_fields(i), "line": None}) for i in ours.instructions]
        assert list(read.instructions) == stripped


def _fields(ins) -> dict:
    return {name: getattr(ins, name) for name in ins.__slots__}

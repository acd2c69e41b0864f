"""The kernels shipped in examples/: each runs with the launch its header documents and prints
the output its header promises; each assembles, disassembles and re-assembles to equal bytes."""

from __future__ import annotations

import re
import shlex

import pytest

from wave_lsp.asm import assemble, read_wbin
from wave_lsp.asm.disassembler import disassemble

from conftest import ROOT, run_wave_lsp

EXAMPLES = sorted((ROOT / "examples").glob("*.wave"))


def header(path) -> tuple[list[str], list[str]]:
    """The documented `wave-lsp ...` arguments and the expected output values."""
    text = path.read_text()
    launch = re.search(r"^; Launch: wave-lsp (.*?)\n(?!;     )", text, re.S | re.M)
    output = re.search(r"^; Output: (.*)$", text, re.M)
    assert launch and output, f"{path.name} documents no launch or output"
    args = " ".join(part.strip(" ;\\") for part in launch.group(1).split("\n"))
    return shlex.split(args), output.group(1).split()


def test_there_are_examples():
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_documented_launch_gives_documented_output(path):
    args, expected = header(path)
    r = run_wave_lsp(*args, cwd=ROOT)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().split() == expected


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_round_trip(path):
    wbin = assemble(path.read_text()).wbin()
    again = assemble(disassemble(read_wbin(wbin))).wbin()
    assert again == wbin

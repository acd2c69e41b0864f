"""The project's own kernels are kernel tests: `wave-lsp test examples/` passes, every example
states its expected output with expect lines, and those agree with the prose of its header."""

from __future__ import annotations

import re

import pytest

from wave_lsp.ide.kernel_tests import discover

from conftest import ROOT, run_wave_lsp

EXAMPLES = sorted((ROOT / "examples").glob("*.wave"))


def test_wave_lsp_test_passes_on_the_examples():
    r = run_wave_lsp("test", "examples/", cwd=ROOT)
    out = r.stdout.decode()
    assert r.returncode == 0, out + r.stderr.decode()
    assert out.splitlines()[-1] == f"{len(EXAMPLES)} tests in {len(EXAMPLES)} files: " \
                                   f"{len(EXAMPLES)} passed, 0 failed"
    assert out.count(": ok kernel ") == len(EXAMPLES)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_expect_lines_state_the_documented_output(path):
    text = path.read_text()
    [test] = discover(text)
    prose = re.search(r"^; Output: (.*)$", text, re.M).group(1).split()
    assert list(test.expected) == prose
    documented = re.search(r"^; Launch: wave-lsp run \S+ (.*?)\n(?!;     )", text, re.S | re.M)
    flags = " ".join(part.strip(" ;\\") for part in documented.group(1).split("\n")).split()
    assert list(test.flags) == flags

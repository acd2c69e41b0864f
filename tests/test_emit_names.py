"""Kernel names from a `.wbin` in generated code: a name that is not an
identifier never reaches a backend's output as it is; it is mangled into one (names.py), the
same way for PTX, HIP, Metal and SYCL, through the real `wave-lsp emit` command."""

from __future__ import annotations

import dataclasses
import re

import pytest

from wave_lsp.asm import assemble
from wave_lsp.asm.backends import TARGETS, emit
from wave_lsp.asm.backends.names import code_name
from wave_lsp.asm.wbin import write_wbin

from conftest import run_wave_lsp

SOURCE = ".kernel k\n.registers 4\n    mov_sr r0, sr_lane_id\n    halt\n.end\n"
HOSTILE = 'k(uint8_t* m) {} static int pwn = system("touch /tmp/pwned"); void z'
# Where each backend writes the kernel's name, as an identifier.
DECLARATION = {"ptx": re.compile(r"^\.visible \.entry (.*)\($", re.M),
               "hip": re.compile(r"^__global__ void (.*)\(uint8_t\* device_mem\) \{$", re.M),
               "metal": re.compile(r"^kernel void (.*)\($", re.M),
               "sycl": re.compile(r"^void (.*)_launch\(queue& q,", re.M)}


def wbin_named(*names: str) -> bytes:
    kernel = assemble(SOURCE).kernels[0]
    return write_wbin([dataclasses.replace(kernel, name=name) for name in names])


@pytest.mark.parametrize("target", TARGETS)
def test_a_hostile_kernel_name_is_mangled_in_every_backend(tmp_path, target):
    path = tmp_path / "hostile.wbin"
    path.write_bytes(wbin_named(HOSTILE, "café", "9lives", "plain_name"))
    done = run_wave_lsp("emit", "--target", target, str(path))
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode()
    assert "system(" not in text and "pwn =" not in text and '"' not in text
    names = DECLARATION[target].findall(text)
    assert names == [code_name(HOSTILE, 0), "caf_xe9_", "_9lives", "plain_name"]
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) for name in names)


def test_a_kernel_without_a_name_gets_one():
    kernel = assemble(SOURCE).kernels[0]
    data = write_wbin([kernel, kernel], no_symbols=True)
    for target in TARGETS:
        assert DECLARATION[target].findall(emit(data, target).text) == ["kernel_0", "kernel_1"]


@pytest.mark.parametrize("name, expected", [
    ("k", "k"), ("_x9", "_x9"), ("a-b", "a_x2d_b"), ("a b", "a_x20_b"), ("", "kernel_3"),
    ("1", "_1"), ("k();", "k_x28__x29__x3b_")])
def test_code_names(name, expected):
    assert code_name(name, 3) == expected

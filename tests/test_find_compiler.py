"""Where the vendors' compilers are found: a setting, else `WAVE_LSP_PTXAS` / `WAVE_LSP_HIPCC`
(a path, a name on PATH, or `off`), else PATH (and for ptxas the nvidia wheel)."""

from __future__ import annotations

import os
import stat

import pytest

from wave_lsp.asm.vendors import COMPILER_VARIABLES, find_compiler
from wave_lsp.ide.vendor_usage import VendorTools


@pytest.fixture
def bin_dir(tmp_path, monkeypatch):
    """A PATH holding only a fake `ptxas` and `hipcc`, and the two variables unset."""
    for name in ("ptxas", "hipcc", "other-hipcc"):
        program = tmp_path / name
        program.write_text("#!/bin/sh\nexit 0\n")
        program.chmod(program.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(tmp_path))
    for variable in COMPILER_VARIABLES.values():
        monkeypatch.delenv(variable, raising=False)
    return tmp_path


def test_path_when_nothing_names_one(bin_dir):
    assert find_compiler("hip") == str(bin_dir / "hipcc")
    assert find_compiler("ptx") == str(bin_dir / "ptxas")


@pytest.mark.parametrize("off", ["off", "OFF", "false", "0", " none "])
def test_the_variable_turns_a_compiler_off(bin_dir, monkeypatch, off):
    monkeypatch.setenv("WAVE_LSP_HIPCC", off)
    assert find_compiler("hip") is None
    assert find_compiler("ptx") == str(bin_dir / "ptxas")       # the other one is still found
    assert VendorTools.find().compiler("hip") is None


def test_the_variable_names_another_program(bin_dir, monkeypatch):
    monkeypatch.setenv("WAVE_LSP_HIPCC", "other-hipcc")
    assert find_compiler("hip") == str(bin_dir / "other-hipcc")
    monkeypatch.setenv("WAVE_LSP_HIPCC", str(bin_dir / "other-hipcc"))
    assert find_compiler("hip") == str(bin_dir / "other-hipcc")
    monkeypatch.setenv("WAVE_LSP_HIPCC", "relative/hipcc")      # as a setting: never relative
    assert find_compiler("hip") is None


def test_a_setting_goes_before_the_variable(bin_dir, monkeypatch):
    monkeypatch.setenv("WAVE_LSP_HIPCC", "off")
    assert find_compiler("hip", "other-hipcc") == str(bin_dir / "other-hipcc")
    assert VendorTools.find({"hip": str(bin_dir / "hipcc")}).compiler("hip") == \
        str(bin_dir / "hipcc")
    monkeypatch.setenv("WAVE_LSP_HIPCC", "other-hipcc")
    assert VendorTools.find({"hip": False}).compiler("hip") is None


def test_an_empty_variable_is_unset(bin_dir, monkeypatch):
    monkeypatch.setenv("WAVE_LSP_PTXAS", "  ")
    assert find_compiler("ptx") == str(bin_dir / "ptxas")


def test_the_suite_hides_hipcc_outside_the_marked_modules():
    assert os.environ.get("WAVE_LSP_HIPCC") == "off"


@pytest.mark.hipcc
def test_a_marked_test_does_not_find_it_unless_its_module_is_marked():
    # the marker is read per module (its servers start before its tests): a single test's
    # mark changes nothing
    assert os.environ.get("WAVE_LSP_HIPCC") == "off"


def test_the_editor_says_which_variable_chose():
    from wave_lsp.ide.vendor_help import NOT_A_PROGRAM, OFF, Absent

    assert Absent("hip", OFF, "off", "WAVE_LSP_HIPCC").why() == "turned off (`WAVE_LSP_HIPCC=off`)"
    assert Absent("hip", OFF).why() == "turned off (`backends.hipcc: false`)"
    assert Absent("ptx", NOT_A_PROGRAM, "nope", "WAVE_LSP_PTXAS").why() == \
        "`WAVE_LSP_PTXAS` names 'nope', which is not a program here"
    assert "point the setting backends.ptxas" in \
        Absent("ptx", NOT_A_PROGRAM, "nope", "WAVE_LSP_PTXAS").text()

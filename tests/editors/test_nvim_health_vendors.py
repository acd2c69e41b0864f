"""`:checkhealth wave` on the vendors' compilers, in the real Neovim 0.11: where
wave-lsp finds ptxas and hipcc (asked of wave-lsp's own Python, under the `backends` settings),
and for each one missing or turned off what it would add, the command that installs it and the
setting that points at it."""

from __future__ import annotations

import os
import shutil

import pytest

from wave_lsp.asm import vendors

from .nvim import VENV_BIN, run_nvim

pytestmark = pytest.mark.hipcc      # :checkhealth finds ptxas and hipcc


def health(tmp_path, setup: str = "", **env: str) -> str:
    return "\n".join(run_nvim(tmp_path, f"""
        {setup}
        vim.cmd('checkhealth wave')
        return vim.api.nvim_buf_get_lines(0, 0, -1, false)
    """, **env))


def _path_without_compilers(tmp_path) -> str:
    """The project's bin, a folder with `timeout` (the harness needs it), then PATH without
    the folders holding ptxas or hipcc (/usr/bin and /bin here)."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "timeout").symlink_to(shutil.which("timeout"))
    kept = [p for p in os.environ.get("PATH", "").split(os.pathsep)
            if p and not any(shutil.which(n, path=p) for n in ("ptxas", "hipcc"))]
    return os.pathsep.join([str(VENV_BIN), str(tools), *kept])


def test_checkhealth_names_the_compilers_it_finds(tmp_path):
    ptxas, hipcc = vendors.find_compiler("ptx"), vendors.find_compiler("hip")
    if not (ptxas and hipcc):
        pytest.skip("ptxas and hipcc are not both installed here")
    report = health(tmp_path)
    assert "Vendor compilers" in report
    assert f"OK ptxas: {ptxas}" in report and f"OK hipcc: {hipcc}" in report, report


def test_checkhealth_explains_missing_and_turned_off_compilers(tmp_path):
    report = health(tmp_path, "vim.lsp.config('wave', { settings = { wave = { backends = { "
                              "ptxas = false } } } })", PATH=_path_without_compilers(tmp_path))
    section = report[report.index("Vendor compilers"):]
    assert "ptxas turned off (backends.ptxas = false): it would add NVIDIA's own figures" \
        in section, section
    assert "-m pip install nvidia-cuda-nvcc-cu12" in section
    assert "WARNING hipcc not found: it would add AMD's own figures" in section, section
    assert "install it: sudo apt-get install hipcc rocm-device-libs libamdhip64-dev" in section
    assert "or point backends.hipcc at it" in section
    assert "ERROR" not in report, report

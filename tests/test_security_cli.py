"""Security of the commands (issue 31), through the real `python -m wave_lsp` process: no module
of the working directory is ever imported in place of the real one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

KERNEL = (".kernel k\n.registers 4\n.workgroup_size 4, 1, 1\n    mov_sr r0, sr_thread_id_x\n"
          "    halt\n.end\n")


def plant(folder: Path, package: str, marker: Path) -> None:
    """A package that, if ever imported, leaves `marker` behind."""
    (folder / package).mkdir()
    (folder / package / "__init__.py").write_text(
        f"open({str(marker)!r}, 'a').write({package!r} + '\\n')\n")


@pytest.mark.parametrize("args", [["run", "k.wave", "--workgroup", "4,1,1", "--dump-u32", "0:4"],
                                  ["run", "k.wave", "--device", "cuda"],
                                  ["emit", "--target", "ptx", "k.wave"],
                                  ["lint", "k.wave"]])
def test_the_working_directory_is_never_imported_from(tmp_path, args):
    work = tmp_path / "workspace"
    work.mkdir()
    (work / "k.wave").write_text(KERNEL)
    marker = tmp_path / "imported.txt"
    for package in ("numpy", "cupy", "nvidia", "parsimonious"):
        plant(work, package, marker)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    done = subprocess.run([sys.executable, "-m", "wave_lsp", *args], cwd=work, env=env,
                          capture_output=True, text=True, timeout=120)
    assert not marker.exists(), marker.read_text()
    assert "Traceback" not in done.stderr, done.stderr
    if "cuda" in args:   # no GPU here (or CuPy absent): one clear line, never the planted CuPy
        assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    else:
        assert done.returncode == 0, done.stderr

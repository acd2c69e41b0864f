"""Security of the commands, through the real `python -m wave_lsp` process: no module
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


# ---- `wave-lsp test` confines launch-line files as the editor does ---------------------------

SECRET = "TOP-SECRET-31"
TESTED = (".kernel k\n.registers 4\n.workgroup_size 4, 1, 1\n    halt\n"
          "    ; wave-lsp run: --workgroup 4,1,1 --device-memory 16 --arg 0:{name} "
          "--dump-memory 0:16\n    ; wave-lsp expect: nothing\n.end\n")


def wave_lsp_test(path: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wave_lsp", "test", str(path), *flags],
                          capture_output=True, text=True, timeout=120, cwd=path.parent)


@pytest.fixture
def repository(tmp_path):
    """repo/ (a git repository) holding kernels/ and data/; a secret beside it."""
    (tmp_path / "secret.txt").write_text(SECRET)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "kernels").mkdir()
    (repo / "data").mkdir()
    (repo / "data" / "in.bin").write_bytes(b"\x2a\0\0\0")
    return repo


@pytest.mark.parametrize("name", ["/proc/self/environ", "../../secret.txt", "{secret}",
                                  "link.txt", "../data/outside-link.txt"])
@pytest.mark.parametrize("update", [False, True])
def test_wave_lsp_test_never_reads_a_file_outside_the_repository(repository, name, update):
    secret = repository.parent / "secret.txt"
    (repository / "kernels" / "link.txt").symlink_to(secret)
    (repository / "data" / "outside-link.txt").symlink_to("/proc/self/environ")
    kernel = repository / "kernels" / "k.wave"
    text = TESTED.format(name=name.format(secret=secret))
    kernel.write_text(text)
    done = wave_lsp_test(kernel, *(["--update", "all"] if update else []))
    shown = done.stdout + done.stderr + kernel.read_text()
    assert SECRET not in shown and "PATH=" not in shown and "54 4f 50" not in shown.lower(), shown
    assert done.returncode == 1, shown
    assert "--arg" in done.stdout and ("leaves" in done.stdout or "absolute" in done.stdout
                                       or "outside" in done.stdout), done.stdout
    if update:
        assert kernel.read_text() == text      # a refused test is never 'updated'


def test_wave_lsp_test_reads_files_of_its_own_repository(repository):
    kernel = repository / "kernels" / "k.wave"
    kernel.write_text(TESTED.format(name="../data/in.bin"))
    done = wave_lsp_test(kernel, "--update", "all")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2a 00 00 00" in kernel.read_text().lower(), kernel.read_text()

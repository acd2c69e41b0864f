"""`wave-lsp test --update` and `lint --fix` lose nothing, through the real process: a
file saved while the tests ran is left as saved (and named), links stay links, and nothing is
written that `lint` and `test` would not read back."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

SLOW = """.kernel slow
.registers 8
    mov_imm r1, 150000
    mov_imm r2, 0
    mov_imm r3, 1
    loop
        iadd r2, r2, r3
        icmp_eq p0, r2, r1
        break p0
    endloop
    mov_imm r4, 0
    device_store_u32 r4, r2
    halt
    ; wave-lsp run: --workgroup 1,1,1 --device-memory 16 --max-instructions 0 --dump-u32 0:1
    ; wave-lsp expect: 1
.end
"""
QUICK = (".kernel quick\n.registers 4\n.workgroup_size 4, 1, 1\n    mov_sr r0, sr_thread_id_x\n"
         "    mov_imm r2, 2\n    shl r3, r0, r2\n"
         "    device_store_u32 r3, r0\n    halt\n"
         "    ; wave-lsp run: --workgroup 4,1,1 --device-memory 16 --dump-u32 0:4\n"
         "    ; wave-lsp expect: 9\n.end\n")
APPENDED = "\n; saved by the user while the tests ran\n"


def wave_lsp(*args: str, cwd: Path) -> subprocess.Popen:
    # on the numpy engine: the slow kernel's run must take seconds (the native core runs it in
    # milliseconds, before the test can save the file)
    return subprocess.Popen([sys.executable, "-m", "wave_lsp", *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "WAVE_LSP_NATIVE": "0"})


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_update_refuses_a_file_saved_while_the_tests_ran(tmp_path):
    kernel = tmp_path / "slow.wave"
    kernel.write_text(SLOW)
    process = wave_lsp("test", "--update", str(kernel), cwd=tmp_path)
    # past start-up (the file is read first): the run itself takes seconds more of CPU
    deadline = time.monotonic() + 60
    while cpu_seconds(process.pid) < 0.6 and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        time.sleep(0.02)
    with kernel.open("a") as out:
        out.write(APPENDED)
    stdout, stderr = process.communicate(timeout=300)
    assert kernel.read_text() == SLOW + APPENDED
    assert process.returncode == 2, stdout + stderr
    assert "changed while wave-lsp worked on it" in stdout + stderr and str(kernel) in \
        stdout + stderr, stdout + stderr


def _update(kernel: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wave_lsp", "test", "--update", str(kernel)],
                          capture_output=True, text=True, timeout=120)


def test_update_writes_through_a_symbolic_link(tmp_path):
    real = tmp_path / "real.wave"
    real.write_text(QUICK)
    link = tmp_path / "link.wave"
    link.symlink_to(real)
    done = _update(link)
    assert done.returncode == 0, done.stdout + done.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert "expect: 9" not in real.read_text() and "expect: 3\n" in real.read_text()


def test_update_writes_through_a_hard_link(tmp_path):
    first = tmp_path / "first.wave"
    first.write_text(QUICK)
    second = tmp_path / "second.wave"
    os.link(first, second)
    done = _update(second)
    assert done.returncode == 0, done.stdout + done.stderr
    assert os.stat(first).st_ino == os.stat(second).st_ino and os.stat(first).st_nlink == 2
    assert "expect: 3\n" in first.read_text() and first.read_text() == second.read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_update_never_writes_more_than_lint_reads_back(tmp_path):
    words = 250_000          # 250,000 expect lines of 21+ bytes: past lint's 4 MiB
    kernel = tmp_path / "big.wave"
    text = (".kernel big\n.registers 4\n    halt\n"
            f"    ; wave-lsp run: --workgroup 1,1,1 --device-memory {4 * words} "
            f"--dump-u32 0:{words}\n    ; wave-lsp expect: 1\n.end\n")
    kernel.write_text(text)
    done = _update(kernel)
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr
    assert "more than the 4194304 bytes wave-lsp reads back" in done.stdout + done.stderr
    assert kernel.read_text() == text
    lint = subprocess.run([sys.executable, "-m", "wave_lsp", "lint", str(kernel)],
                          capture_output=True, text=True, timeout=120)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_lint_fix_writes_through_a_symbolic_link(tmp_path):
    """`lint --fix` shares the rewrite: through a symbolic link the link stays."""
    real = tmp_path / "legacy.wave"
    real.write_text(".kernel k\n.registers 4\n    ADD r1, r2, r3\n    halt\n.end\n")
    link = tmp_path / "link.wave"
    link.symlink_to(real)
    done = subprocess.run([sys.executable, "-m", "wave_lsp", "lint", "--fix", str(link)],
                          capture_output=True, text=True, timeout=120)
    assert "fixed" in done.stdout, done.stdout + done.stderr
    assert link.is_symlink() and "iadd r1, r2, r3" in real.read_text()

"""`--break PC|line:N`: without a terminal the wave's registers are printed for every lane and
the run goes on (its output otherwise that of the run without --break); at a terminal (a pty
here) `c`, `s` and `q` continue, step and quit."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_trace_filters import FLAGS, KERNEL  # noqa: E402

from wave_lsp.cli.main import main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
STORE_LINE = 14            # `device_store_u32 r2, r3` inside the loop, pc 0x48
BARRIER_LINE = 17


@pytest.fixture
def kernel(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(KERNEL)
    return str(path)


def blocks(err: list[str]) -> tuple[list[list[str]], list[str]]:
    """The stops' blocks, and the other lines."""
    out: list[list[str]] = []
    rest = []
    for line in err:
        if line.startswith("break at "):
            out.append([line])
        elif line.startswith("  ") and out:
            out[-1].append(line)
        else:
            rest.append(line)
    return out, rest


def rows(block: list[str]) -> dict[str, str]:
    """Register or predicate name -> the values after the colon."""
    return {line.split()[0]: line.split(":", 1)[1].strip() for line in block[1:]}


def test_without_a_terminal_the_output_is_that_of_the_run_without_break(kernel, capsys):
    one = [f for f in FLAGS if f != "2,1,1"]
    one[one.index("--grid") + 1:one.index("--grid") + 1] = ["1,1,1"]
    dumps = ["--dump-u32", "0:16", "--dump-memory", "0:64", "--stats"]
    assert main(["run", kernel, *one, *dumps]) == 0
    plain = capsys.readouterr()
    assert main(["run", kernel, *one, *dumps, "--break", f"line:{BARRIER_LINE}",
                 "--break", "0x48", "--break", "0x48"]) == 0
    broken = capsys.readouterr()
    assert broken.out == plain.out
    found, rest = blocks(broken.err.splitlines())
    assert rest == plain.err.splitlines() == []
    assert len(found) == 2 + 2 * 4                 # a pc given twice stops once


def test_without_a_terminal_it_prints_and_goes_on(kernel, capsys):
    dumps = ["--dump-u32", "0:16", "--dump-memory", "0:64", "--stats"]
    assert main(["run", kernel, *FLAGS, *dumps]) == 0
    plain = capsys.readouterr()
    assert main(["run", kernel, *FLAGS, *dumps, "--break", f"line:{BARRIER_LINE}",
                 "--break", "0x48"]) == 0
    broken = capsys.readouterr()
    assert broken.out == plain.out
    found, _ = blocks(broken.err.splitlines())
    at_barrier = [b for b in found if f"line {BARRIER_LINE}:" in b[0]]
    # every wave of both workgroups stops once at the barrier, with all lanes active
    assert [b[0] for b in at_barrier] == [
        f"break at pc=0x005c line {BARRIER_LINE}: wg({g},0,0) wave[{w}] active 0xf (lanes 0-3)"
        for g in (0, 1) for w in (0, 1)]
    for block in at_barrier:
        g, w = int(block[0].split("wg(")[1][0]), int(block[0].split("wave[")[1][0])
        values = rows(block)
        assert len(values) == 10 + 4                       # .registers 10, p0-p3
        tids = [4 * w + lane for lane in range(4)]
        assert values["r0"] == "0, 1, 2, 3"                 # lane id
        assert values["r7"] == ", ".join(map(str, tids))    # thread id
        assert values["r2"] == ", ".join(str(4 * t) for t in tids)
        assert values["r3"] == "2, 3, 4, 5"                 # the trip that left the loop
        assert values["p0"] == "0xf (lanes 0-3)"
        assert block[1].split()[1] == "i32"                 # the one formatter's type
    # inside the loop: one stop per trip with a lane left, the mask shrinking (lane L leaves
    # after L + 1 trips)
    in_loop = [b[0] for b in found if "pc=0x0048" in b[0] and "wg(0,0,0) wave[1]" in b[0]]
    assert [line.split("active ")[1] for line in in_loop] == [
        "0xf (lanes 0-3)", "0xe (lanes 1-3)", "0xc (lanes 2-3)", "0x8 (lanes 3)"]


def _read_until(fd: int, wanted: str, seen: list[str], timeout: float = 60.0) -> str:
    """Read the pty until `wanted` appears in what was read since the last call."""
    text = ""
    end = time.monotonic() + timeout
    while wanted not in text:
        left = end - time.monotonic()
        assert left > 0, f"waited for {wanted!r}; got {text!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096).decode()
            except OSError:
                break
            if not chunk:
                break
            text += chunk
    seen.append(text)
    assert wanted in text, text
    return text


def test_at_a_terminal_continue_step_and_quit(kernel):
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "wave_lsp", "run", kernel, *FLAGS, "--break",
         f"line:{STORE_LINE}", "--dump-u32", "0:4"],
        stdin=slave, stderr=slave, stdout=subprocess.PIPE, env=env, cwd=ROOT)
    os.close(slave)
    seen: list[str] = []
    try:
        prompt = "[c]ontinue, [s]tep, [q]uit? "
        first = _read_until(master, prompt, seen)
        assert f"break at pc=0x0048 line {STORE_LINE}: wg(0,0,0) wave[0] active 0xf" in first
        assert "  r3 i32 : 1, 1, 1, 1" in first.replace("\r", "")
        os.write(master, b"s\n")                # wave 0: stop again before its next one
        second = _read_until(master, prompt, seen)
        assert "wg(0,0,0) wave[1] active 0xf" in second     # wave 1 reached the breakpoint
        os.write(master, b"c\n")
        third = _read_until(master, prompt, seen)
        assert "break at pc=0x0050 line 15: wg(0,0,0) wave[0] active 0xf" in third   # stepped
        os.write(master, b"x\n")                # not an answer: asked again
        again = _read_until(master, "answer c, s or q", seen)
        if not again.rstrip().endswith(prompt.rstrip()):
            _read_until(master, prompt, seen)
        os.write(master, b"c\n")
        fourth = _read_until(master, prompt, seen)
        assert "break at pc=0x0048" in fourth and "active 0xe (lanes 1-3)" in fourth
        os.write(master, b"q\n")
        quit_line = "Error: run quit at the breakpoint at pc=0x0048 line 14"
        _read_until(master, quit_line, seen)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert proc.returncode == 1
    assert out == b""                           # quit: the run's results are not printed


def test_kernel_tests_run_without_the_debugging_flags(tmp_path, capsys):
    from wave_lsp.ide.kernel_run import run_flags
    words = [*FLAGS, "--dump-u32", "0:8"]
    plain = run_flags(KERNEL, words, "k", tmp_path)
    debugged = run_flags(KERNEL, [*words, "--mem-trace", "--trace-lines", "--trace-wave", "1",
                                  "--break", "0x48", "--break", f"line:{BARRIER_LINE}"],
                         "k", tmp_path)
    assert (debugged.stdout, debugged.status, debugged.stderr) == (
        plain.stdout, plain.status, plain.stderr)
    assert capsys.readouterr().err == ""                 # nothing written behind the editor
    bad = run_flags(KERNEL, [*words, "--break", "here"], "k", tmp_path)   # values checked
    assert (bad.status, bad.stderr) == (
        1, "Error: --break: expected a pc (e.g. 0x10) or line:N, got 'here'")

"""The `--update` part of `fuzz_surfaces.py`: `wave-lsp test --update [all]` on random kernel-test
files, through subprocesses.

Each case writes one to three files of one to three tests each (right, wrong, partial and
missing expectations, a wrong `expect-exit`, a junk `expect-stderr`, launch lines that fail,
dumps too large for `test` to read back), with LF, CRLF or mixed line breaks and sometimes a
BOM; a file may be named through a symbolic link or have a second hard link; a thread may append
a unique marker line to one file after a random short delay while the command runs. Checked:
- no traceback on stderr, exit status 0, 1 or 2 (*crashes* otherwise), no answer within
  `--hang` seconds: a *hang*;
- the modified file still holds its marker: *lost data* otherwise;
- every other file keeps each non-expectation line (with its break) byte for byte, its BOM and
  its line-ending style, a link stays a link to the same target and a hard link keeps sharing
  its inode: *lost data* otherwise;
- after an update that exited 0, `wave-lsp test` on the same files exits 0: an *unstable
  update* otherwise.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPECTATION = re.compile(rb"^\s*;+\s*wave-lsp expect(-exit|-stderr)?:")
KERNEL = [".kernel k", ".registers 8", "    mov_sr r0, sr_lane_id", "    mov_imm r1, 4",
          "    imul r2, r0, r1", "    device_store_u32 r2, r0", "    halt", ".end"]


def append_marker(path: Path, marker: str) -> None:
    """What an editor saving meanwhile does (the default writer)."""
    with open(path, "ab") as f:
        f.write(f"; {marker}\n".encode())


def split_kept(data: bytes) -> list[bytes]:
    """The lines (each with its break) that are not expectation comments."""
    return [line for line in data.splitlines(keepends=True) if not EXPECTATION.match(line)]


def breaks_of(data: bytes) -> set[bytes]:
    return set(re.findall(rb"\r\n|\r|\n", data))


class UpdateFuzzer:
    def __init__(self, rng: random.Random, hang: float, workdir: Path, writer=append_marker):
        self.rng, self.hang, self.workdir, self.writer = rng, hang, workdir, writer
        self.counts = dict(cases=0, crashes=0, hangs=0, tracebacks=0, lost_data=0,
                           unstable_updates=0)
        self.peak_kb = 0
        self.slowest = 0.0
        self.exits = {0: 0, 1: 0, 2: 0}
        self.modify_chance = 0.3      # of a case whose file is saved while the command runs
        self.env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(workdir / "cache"))

    # ---- random material ----------------------------------------------------------------------
    def test_block(self) -> list[str]:
        n = self.rng.choice([1, 2, 4, 8])
        launch = f"--workgroup {n},1,1 --wave-width 4 --dump-u32 0:{n}"
        right = [str(i) for i in range(n)]
        kind = self.rng.random()
        if kind < 0.02:     # a dump larger than `test` and `lint` read back (4 MiB)
            n = 210_000
            launch = f"--workgroup 1,1,1 --device-memory {4 * n} --dump-u32 0:{n}"
            right = ["0"] + ["0"] * (n - 1)
        elif kind < 0.07:
            launch = self.rng.choice(["--dump-u32 0:x", "--arg 0:../secret.bin --dump-u32 0:4",
                                      "--workgroup 0,1,1", "--nope"])
            right = []
        elif kind < 0.4:    # an error naming a source line (which moves when blocks above do)
            launch = f"--workgroup {n},1,1 --wave-width 4 --device-memory 4 --dump-u32 0:1"
            right = []
        expect = self.rng.choice(["right", "wrong", "partial", "extra", "none", "exit", "stderr"])
        if expect == "wrong":
            lines = [str(self.rng.randrange(-5, 1 << 33)) for _ in right] or ["7"]
        elif expect == "partial":
            lines = right[:self.rng.randrange(len(right) + 1)]
        elif expect == "extra":
            lines = right + ["", "99"]
        elif expect == "none":
            lines = []
        else:
            lines = right[:50]
        out = [f"; wave-lsp run: {launch}"] + [f"; wave-lsp expect: {v}".rstrip() for v in lines]
        if expect == "exit":
            out.append(f"; wave-lsp expect-exit: {self.rng.choice([0, 1, 2, 7])}")
        elif expect == "stderr":
            out.append(f"; wave-lsp expect-stderr: {self.rng.choice(['Error: x', 'junk'])}")
        if expect == "none" and self.rng.random() < 0.5:
            out.append("; wave-lsp expect-exit: 0")
        return out

    def file_bytes(self) -> bytes:
        lines = [f"; file {uuid.uuid4().hex[:8]}", ""]
        for kernel in range(self.rng.randrange(1, 4)):
            lines += [KERNEL[0] + str(kernel)] + KERNEL[1:-1]
            for _ in range(self.rng.randrange(1, 4)):   # tests inside the kernel, as usual
                lines += [self.rng.choice(["", "    ; between", "; note"])] + self.test_block()
            lines += [KERNEL[-1], ""]
        style = self.rng.choice(["\n", "\r\n", "mixed"])
        breaks = [self.rng.choice(["\n", "\r\n"]) if style == "mixed" else style
                  for _ in lines]
        text = "".join(line + brk for line, brk in zip(lines, breaks))
        if self.rng.random() < 0.2:
            text = text.rstrip("\r\n")          # no break after the last line
        data = text.encode()
        return b"\xef\xbb\xbf" + data if self.rng.random() < 0.15 else data

    # ---- one case -----------------------------------------------------------------------------
    def case(self) -> None:
        folder = self.workdir / f"case{self.counts['cases']}"
        (folder / "real").mkdir(parents=True)
        (self.workdir / "secret.bin").write_bytes(b"FUZZ-SECRET-7f3a9c")
        files = []       # (name given to the command, real path, how it is reached)
        count = self.rng.randrange(1, 4)
        for i in range(count):
            (folder / f"t{i}.wave").write_bytes(self.file_bytes())
        if self.rng.random() < 0.5:   # every test right first, then a few expectations wrong
            self.command(["test", "--update", "all", "--jobs", "1",
                          *(str(folder / f"t{i}.wave") for i in range(count))])
            for i in range(count):
                self.corrupt(folder / f"t{i}.wave")
        for i in range(count):
            real = folder / f"t{i}.wave"
            how = self.rng.choice(["plain", "plain", "symlink", "hardlink"])
            name = real
            if how == "symlink":
                real = folder / "real" / f"t{i}.wave"
                os.replace(name, real)
                os.symlink(os.path.join("real", real.name), name)
            elif how == "hardlink":
                os.link(real, folder / "real" / f"t{i}-also.wave")
            files.append((name, real, how))
        before = {name: (name.read_bytes(), os.lstat(name)) for name, _, _ in files}
        update = self.rng.choice([["--update"], ["--update", "all"]])
        modified, marker = None, f"marker-{uuid.uuid4().hex}"
        if self.rng.random() < self.modify_chance:
            modified = self.rng.choice(files)[0]
            delay = self.rng.uniform(0, 0.8)
            timer = threading.Timer(delay, self.writer, (modified, marker))
        status, stderr = self.command(["test", *update, "--jobs", "1",
                                       *(str(n) for n, _, _ in files)],
                                      timer if modified else None)
        if status is None:
            return
        self.exits[status] = self.exits.get(status, 0) + 1
        for name, real, how in files:
            data = name.read_bytes()
            if name == modified:
                if marker.encode() not in data:
                    self.finding("lost_data", f"{name}: the marker written meanwhile is gone")
                continue
            old, old_stat = before[name]
            self.check_kept(name, old, data)
            if how == "symlink" and (not name.is_symlink() or
                                     os.readlink(name) != os.path.join("real", real.name)):
                self.finding("lost_data", f"{name}: no longer the same symbolic link")
            if how == "hardlink":
                other = folder / "real" / f"{name.stem}-also.wave"
                if os.stat(name).st_nlink != old_stat.st_nlink or \
                        not os.path.samefile(name, other) or other.read_bytes() != data:
                    self.finding("lost_data", f"{name}: no longer one file with {other.name}")
        if status == 0 and modified is None:
            again, _ = self.command(["test", "--jobs", "1", *(str(n) for n, _, _ in files)])
            if again not in (0, None):
                self.finding("unstable_updates", f"{folder}: `test` exits {again} after an "
                                                 f"update that exited 0")

    def corrupt(self, path: Path) -> None:
        """Some expectation lines of a passing file changed, dropped or doubled, and some
        launch lines dumping another count (an edit that changes a test's output length)."""
        lines = path.read_bytes().splitlines(keepends=True)
        for n, line in enumerate(lines):
            if b"wave-lsp run:" in line and self.rng.random() < 0.3:
                lines[n] = re.sub(rb"--dump-u32 0:\d+", b"--dump-u32 0:%d" % self.rng.choice(
                    [1, 2, 4, 8]), line)
        for n in sorted((n for n, line in enumerate(lines) if EXPECTATION.match(line)
                         and self.rng.random() < 0.15), reverse=True):
            how = self.rng.randrange(3)
            if how == 0:
                lines[n] = re.sub(rb":.*?(\r?\n|\r|$)", rb": 12345\1", lines[n], count=1)
            elif how == 1:
                del lines[n]
            else:
                lines.insert(n, lines[n])
        path.write_bytes(b"".join(lines))

    def check_kept(self, name: Path, old: bytes, new: bytes) -> None:
        """Every non-expectation line, the BOM and the line-ending style survive an update."""
        if split_kept(old) != split_kept(new) or old.startswith(b"\xef\xbb\xbf") != \
                new.startswith(b"\xef\xbb\xbf"):
            self.finding("lost_data", f"{name}: a line that is no expectation changed")
        elif len(breaks_of(old)) == 1 and breaks_of(new) - breaks_of(old):
            self.finding("lost_data", f"{name}: its line-ending style changed")

    def command(self, args: list[str], timer=None) -> tuple[int | None, str]:
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "wave_lsp", *args], cwd=self.workdir,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)
        if timer is not None:
            timer.start()
        peak = threading.Thread(target=self._sample, args=(proc,), daemon=True)
        peak.start()
        try:
            out, err = proc.communicate(timeout=self.hang)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            self.finding("hangs", f"wave-lsp {' '.join(args)[:200]}: no exit in {self.hang} s")
            return None, ""
        finally:
            if timer is not None:
                timer.join()
        self.slowest = max(self.slowest, time.monotonic() - started)
        stderr = err.decode("utf-8", "replace")
        if "Traceback" in stderr:
            self.finding("tracebacks", stderr[-3000:])
        if proc.returncode not in (0, 1, 2):
            self.finding("crashes", f"wave-lsp {' '.join(args)[:200]}: exit {proc.returncode}")
        if proc.returncode and os.environ.get("FUZZ_VERBOSE"):
            print(f"wave-lsp {' '.join(args)[:300]}: exit {proc.returncode}\n"
                  f"{out.decode('utf-8', 'replace')[-1500:]}{stderr[-500:]}", file=sys.stderr)
        return proc.returncode, stderr

    def _sample(self, proc: subprocess.Popen) -> None:
        while proc.poll() is None:
            try:
                for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        self.peak_kb = max(self.peak_kb, int(line.split()[1]))
            except (OSError, ValueError):
                pass
            time.sleep(0.05)

    def finding(self, kind: str, what: str) -> None:
        self.counts[kind] += 1
        if os.environ.get("FUZZ_VERBOSE"):
            print(f"update {kind}: {what}", file=sys.stderr)

    def run(self, cases: int, deadline: float) -> None:
        while self.counts["cases"] < cases and time.monotonic() < deadline:
            self.case()
            self.counts["cases"] += 1

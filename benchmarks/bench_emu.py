"""Emulator speed: whole `wave-lsp run` commands (start-up included) and warm in-process runs.

Workloads (for the emulator's targets of DESIGN.md §5): vector add over 1,048,576 threads (4096
workgroups of 256, operand offsets in registers), `gemm_blocked.wave` at N = 128 and N = 256
(grid N/128 x N/128, flags as in wave-examples/INDEX.md), and a 4-thread, 30-instruction
kernel warm in-process.
Usage: python benchmarks/bench_emu.py [--repeat N]. Prints one line per measurement.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT.parent / "shared" / "wave-examples"
sys.path.insert(0, str(ROOT))

from wave_lsp.asm import assemble  # noqa: E402
from wave_lsp.emu import DataFill, Launch, RunOptions  # noqa: E402
from wave_lsp.emu import run as pipeline_run  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import vector_add  # noqa: E402

NUMPY = RunOptions(engine="numpy")   # the in-process figures are the numpy engine's


def run(program, launch):
    return pipeline_run(program, launch, NUMPY)

VECTOR_ADD = vector_add("vector_add_regs")

SMALL = "\n".join([".kernel small", ".registers 16", ".workgroup_size 4, 1, 1",
                   "    mov_sr r0, sr_lane_id", "    mov_imm r1, 4", "    imul r2, r0, r1",
                   "    mov_imm r3, 1"]
                  + [f"    iadd r{4 + i % 8}, r{4 + (i + 7) % 8}, r3" for i in range(22)]
                  + ["    device_store_u32 r2, r5", "    halt", ".end", ""])

N_VEC = 1 << 20


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def gemm_files(tmp: Path, n: int):
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (n, n)).astype("<f4")
    b = rng.uniform(-1, 1, (n, n)).astype("<f4")
    (tmp / f"A{n}.bin").write_bytes(a.tobytes())
    (tmp / f"B{n}.bin").write_bytes(b.tobytes())
    return a, b


def gemm_flags(tmp: Path, n: int) -> list[str]:
    bytes_ = 4 * n * n
    return ["--grid", f"{n // 128},{n // 128},1", "--workgroup", "16,16,1",
            "--device-memory", str(3 * bytes_), "--arg", f"0:{tmp / f'A{n}.bin'}",
            "--arg", f"{bytes_}:{tmp / f'B{n}.bin'}", "--set-reg", "0:0",
            "--set-reg", f"1:{bytes_}", "--set-reg", f"2:{2 * bytes_}",
            "--set-reg", f"3:{n}", "--set-reg", f"4:{n}", "--set-reg", f"5:{n}",
            "--dump-f32", f"{2 * bytes_}:{n * n}"]


def gemm_launch(n: int, a, b) -> Launch:
    bytes_ = 4 * n * n
    return Launch(grid=(n // 128, n // 128, 1), workgroup=(16, 16, 1),
                  device_memory=3 * bytes_,
                  memory_init=[DataFill(0, a.tobytes()), DataFill(bytes_, b.tobytes())],
                  set_regs={0: 0, 1: bytes_, 2: 2 * bytes_, 3: n, 4: n, 5: n})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    repeat = args.repeat
    cli = [sys.executable, "-m", "wave_lsp.cli.main", "run"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        vec = tmp / "vector_add.wave"
        vec.write_text(VECTOR_ADD)
        vec_bytes = 4 * N_VEC
        vec_flags = ["--grid", f"{N_VEC // 256},1,1", "--device-memory", str(3 * vec_bytes),
                     "--fill-iota", f"0:f32:{N_VEC}:1", "--fill-iota",
                     f"{vec_bytes}:f32:{N_VEC}:2", "--set-reg", "0:0", "--set-reg",
                     f"1:{vec_bytes}", "--set-reg", f"2:{2 * vec_bytes}",
                     "--dump-f32", f"{2 * vec_bytes + 4 * (N_VEC - 4)}:4"]
        gemm = EXAMPLES / "gemm_blocked.wave"
        mats = {n: gemm_files(tmp, n) for n in (128, 256)}

        def command(argv):
            out = subprocess.run(cli + argv, env=env, capture_output=True, text=True)
            if out.returncode:
                raise SystemExit(f"command failed: {out.stderr}")
            return out.stdout

        print(f"python {sys.version.split()[0]}, numpy {np.__version__}, "
              f"{os.cpu_count()} CPUs")
        expected = [3.0 * (N_VEC - 4 + i) for i in range(4)]
        got = [float(x) for x in command([str(vec)] + vec_flags).split()]
        assert got == expected, got
        best, med = timed(lambda: command([str(vec)] + vec_flags), repeat)
        print(f"whole command  vector add 1M threads : best {best:.3f} s  median {med:.3f} s")
        command(["--version"][:0] + [str(gemm)] + gemm_flags(tmp, 128))
        for n in (128, 256):
            best, med = timed(lambda: command([str(gemm)] + gemm_flags(tmp, n)), repeat)
            print(f"whole command  gemm_blocked N={n:<4}   : best {best:.3f} s  median {med:.3f} s")
        base = [sys.executable, "-c", "import wave_lsp.cli.main"]
        best, med = timed(lambda: subprocess.run(base, env=env, check=True), repeat)
        print(f"start-up only  import wave_lsp.cli   : best {best:.3f} s  median {med:.3f} s")

        # warm, in-process
        vec_asm = assemble(VECTOR_ADD)
        from wave_lsp.emu import IotaFill
        vec_launch = Launch(grid=(N_VEC // 256, 1, 1), device_memory=3 * vec_bytes,
                            memory_init=[IotaFill(0, N_VEC), IotaFill(vec_bytes, N_VEC, 2.0)],
                            set_regs={0: 0, 1: vec_bytes, 2: 2 * vec_bytes})
        run(vec_asm, vec_launch)
        best, med = timed(lambda: run(vec_asm, vec_launch), repeat)
        lane_ins = 15 * N_VEC
        print(f"in-process     vector add 1M threads : best {best:.3f} s  median {med:.3f} s  "
              f"({lane_ins / best / 1e6:.0f} M lane-instructions/s)")
        gemm_asm = assemble(gemm.read_text())
        for n in (128, 256):
            a, b = mats[n]
            launch = gemm_launch(n, a, b)
            report = run(gemm_asm, launch)
            c = report.device_memory[8 * n * n:12 * n * n].view("<f4").reshape(n, n)
            err = float(np.abs(c - a.astype(np.float64) @ b.astype(np.float64)).max())
            best, med = timed(lambda: run(gemm_asm, launch), repeat)
            lanes = report.stats.total * 32
            print(f"in-process     gemm_blocked N={n:<4}   : best {best:.3f} s  median "
                  f"{med:.3f} s  ({report.stats.total} wave-instructions, "
                  f"{lanes / best / 1e6:.0f} M lane-instructions/s, max error {err:.1e})")
        small_launch = Launch(device_memory=4096)
        run(SMALL, small_launch)
        best, med = timed(lambda: run(SMALL, small_launch), max(repeat, 50))
        print(f"in-process     4 threads x 30 instr. : best {best * 1e3:.2f} ms  median "
              f"{med * 1e3:.2f} ms (source text, assembly included)")
        small_asm = assemble(SMALL)
        best, med = timed(lambda: run(small_asm, small_launch), max(repeat, 50))
        print(f"in-process     4 threads x 30 instr. : best {best * 1e3:.2f} ms  median "
              f"{med * 1e3:.2f} ms (pre-assembled)")


if __name__ == "__main__":
    main()

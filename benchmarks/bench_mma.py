"""A launch of matrix instructions (`mma_*`): `wave-lsp run` on the native core and on the numpy
engine (`WAVE_LSP_NATIVE=0`) beside upstream `wave-emu`, as whole commands on the same `.wbin`.

Every thread loads 4x4 A and B tiles from local memory (overlapping, at a per-thread offset),
multiplies them into two C fragments ITERATIONS times, stores both and writes one word of C to
device memory, which the command prints. The three commands run in turns (native, numpy,
upstream, native, ...) so that load on the machine hits them alike; stdout must be equal.
Prints the median wall time and CPU (user + system) of each, the lane-instructions, and which
engine ran (WAVE_LSP_SHOW_ENGINE).
Usage: python benchmarks/bench_mma.py [--repeat N] [--iterations 64,256]
Needs ../shared/upstream/bin (wave-asm, wave-emu).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "upstream" / "bin"
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_races import timed  # noqa: E402  (wall, CPU, stdout, stderr of one command)
WORKGROUPS, THREADS = 256, 64

KERNEL = """.kernel mma_heavy
.registers 16
.local_memory 4224
    mov_sr r0, sr_thread_id_x
    mov_sr r1, sr_workgroup_id_x
    mov_imm r15, 4
    imul r2, r0, r15
    mov_imm r3, 48
    icmp_lt p1, r0, r3
    @p1 device_load_u32 r3, r2
    @p1 local_store_u32 r2, r3
    barrier
    mov_imm r4, 3
    and r4, r0, r4
    imul r4, r4, r15
    mov_imm r5, 16
    mov_imm r6, 64
    iadd r6, r6, r4
    mov_imm r7, 0
    mov_imm r8, {iterations}
    mov_imm r12, 1
loop
    icmp_ge p0, r7, r8
    break p0
    mma_load_a r0, r4, r5
    mma_load_b r0, r6, r5
    mma_compute r0, r0, r0
    mma_compute r0, r0, r1
    iadd r7, r7, r12
endloop
    mov_imm r9, 64
    imul r9, r0, r9
    mov_imm r10, 128
    iadd r9, r9, r10
    mma_store_c r9, r5, r0
    mma_store_c r9, r5, r1
    local_load_u32 r10, r9
    mov_sr r11, sr_workgroup_size_x
    imad r11, r1, r11, r0
    imul r11, r11, r15
    mov_imm r13, 256
    iadd r11, r11, r13
    device_store_u32 r11, r10
    halt
.end
"""
WAVE_WIDTH = 32                 # the default: every wave full, all its lanes active but at
                                # the guarded copy


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--iterations", default="64,256")
    args = parser.parse_args()
    if not (UPSTREAM / "wave-emu").is_file():
        raise SystemExit(f"upstream wave-emu not found in {UPSTREAM}")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ours = [sys.executable, "-m", "wave_lsp.cli.main", "run"]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; {args.repeat} runs each in "
          f"turns; medians of wall / CPU")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for iterations in map(int, args.iterations.split(",")):
            source, wbin = tmp / "mma_heavy.wave", tmp / "mma_heavy.wbin"
            source.write_text(KERNEL.format(iterations=iterations))
            subprocess.run([str(UPSTREAM / "wave-asm"), str(source), "-o", str(wbin)],
                           check=True, capture_output=True)
            threads = WORKGROUPS * THREADS
            flags = [str(wbin), "--grid", f"{WORKGROUPS},1,1", "--workgroup", f"{THREADS},1,1",
                     "--device-memory", str(256 + 4 * threads), "--fill-iota", "0:f32:48:0.0625",
                     "--dump-f32", f"256:{threads}"]
            commands = {"native": (ours + flags, env),
                        "numpy": (ours + flags, dict(env, WAVE_LSP_NATIVE="0")),
                        "upstream": ([str(UPSTREAM / "wave-emu")] + flags, env)}
            probe = subprocess.run(ours + flags + ["--stats"],
                                   env=dict(env, WAVE_LSP_SHOW_ENGINE="1"),
                                   capture_output=True, text=True, cwd=tmp)
            engine = next((line for line in probe.stderr.splitlines()
                           if line.startswith("engine: ")), "-")
            executed = next(int(line.split(":")[1]) for line in probe.stdout.splitlines()
                            if line.strip().startswith("Instructions executed:"))
            walls: dict[str, list[float]] = {who: [] for who in commands}
            cpus: dict[str, list[float]] = {who: [] for who in commands}
            outputs = {}
            for _ in range(args.repeat):
                for who, (argv, environment) in commands.items():
                    wall, cpu, out, _ = timed(argv, environment, tmp)
                    walls[who].append(wall)
                    cpus[who].append(cpu)
                    outputs[who] = out
            same = len(set(outputs.values())) == 1
            lane_instructions = executed * WAVE_WIDTH
            print(f"{iterations} iterations, {lane_instructions / 1e6:.1f} M lane-instructions "
                  f"({engine}){'' if same else '  OUTPUT DIFFERS'}")
            for who in commands:
                print(f"  {who:9} {statistics.median(walls[who]):7.3f} s / "
                      f"{statistics.median(cpus[who]):7.3f} s CPU", flush=True)


if __name__ == "__main__":
    main()

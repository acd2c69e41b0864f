"""A launch whose waves race in every workgroup (a tree reduction in local memory missing the
barrier inside its loop, the common bug a user runs the emulator to find), as whole `wave-lsp
run` commands beside upstream `wave-emu` on the same `.wbin`, and, with `--before PATH`, another
checkout of this project (there the race between waves left the native core for the numpy
engine). Runs are interleaved (ours, upstream, before, ...) so that load on the machine hits all
alike; stdout must equal upstream's; wall time and CPU time (user + system of the child),
medians; the engine as WAVE_LSP_SHOW_ENGINE=1 says, and whether the race was reported.
Usage: python benchmarks/bench_wave_races.py [--repeat N] [--before PATH] [--sizes 65536,1048576]
Needs ../shared/upstream/bin (wave-asm, wave-emu).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_emu_upstream import UPSTREAM, upstream_wbin  # noqa: E402
from bench_races import timed  # noqa: E402

# in[gid] into local memory, then s = 128, 64, ..., 1: local[t] += local[t + s] for t < s, with
# no barrier between the steps (the waves race); thread 0 writes local[0] to out[workgroup] (r15)
REDUCE_RACY = """.kernel reduce_racy
.registers 16
.local_memory 1024
.workgroup_size 256, 1, 1
    mov_sr r0, sr_thread_id_x
    mov_sr r1, sr_workgroup_id_x
    mov_sr r2, sr_workgroup_size_x
    imul r3, r1, r2
    iadd r3, r3, r0
    mov_imm r4, 4
    imul r5, r3, r4
    device_load_u32 r6, r5
    imul r7, r0, r4
    local_store_u32 r7, r6
    barrier
    mov_imm r8, 128
    mov_imm r13, 1
    mov_imm r14, 0
    loop
        ucmp_lt p1, r0, r8
        if p1
            iadd r9, r0, r8
            imul r9, r9, r4
            local_load_u32 r10, r9
            local_load_u32 r11, r7
            fadd r11, r11, r10
            local_store_u32 r7, r11
        endif
        shr r8, r8, r13
        icmp_eq p2, r8, r14
        break p2
    endloop
    icmp_eq p3, r0, r14
    if p3
        local_load_u32 r12, r14
        imul r9, r1, r4
        iadd r9, r9, r15
        device_store_u32 r9, r12
    endif
    halt
.end
"""


def flags(n: int) -> list[str]:
    groups = n // 256
    return ["--grid", f"{groups},1,1", "--device-memory", str(4 * (n + groups)),
            "--fill-iota", f"0:f32:{n}:1", "--set-reg", f"15:{4 * n}",
            "--dump-f32", f"{4 * n}:{groups}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout to compare with")
    parser.add_argument("--sizes", default="65536,1048576", help="threads per launch")
    args = parser.parse_args()
    if not (UPSTREAM / "wave-emu").is_file():
        raise SystemExit(f"upstream wave-emu not found in {UPSTREAM}")
    trees = {"ours": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, WAVE_LSP_THREADS="
          f"{os.environ.get('WAVE_LSP_THREADS', 'all')}; {args.repeat} interleaved runs each; "
          "medians of wall and CPU")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        wbin = upstream_wbin(tmp, "reduce_racy", REDUCE_RACY)
        for n in (int(s) for s in args.sizes.split(",")):
            argv = {who: [sys.executable, "-m", "wave_lsp.cli.main", "run", str(wbin), *flags(n)]
                    for who in trees}
            argv["upstream"] = [str(UPSTREAM / "wave-emu"), str(wbin), *flags(n)]
            env = {who: dict(os.environ, PYTHONPATH=str(tree), WAVE_LSP_SHOW_ENGINE="1")
                   for who, tree in trees.items()}
            walls = {who: [] for who in argv}
            cpus = {who: [] for who in argv}
            outputs, notes = {}, {}
            for _ in range(args.repeat):
                for who, words in argv.items():
                    wall, cpu, out, err = timed(words, env.get(who), tmp)
                    walls[who].append(wall)
                    cpus[who].append(cpu)
                    outputs[who] = out
                    engine = next((line[8:] for line in err.splitlines()
                                   if line.startswith("engine: ")), "-")
                    race = "race reported" if "data race" in err else "no race reported"
                    notes[who] = f"[{engine}; {race}]"
            up = statistics.median(walls["upstream"])
            print(f"racy tree reduction, {n:,} threads ({n // 256:,} workgroups of 8 waves):")
            for who in argv:
                wall, cpu = statistics.median(walls[who]), statistics.median(cpus[who])
                same = "" if outputs[who] == outputs["upstream"] else " OUTPUT DIFFERS"
                print(f"  {who:8} wall {wall:7.3f}s ({wall / up:5.2f}x upstream)  cpu {cpu:7.3f}s"
                      f"  {notes.get(who, '')}{same}", flush=True)


if __name__ == "__main__":
    main()

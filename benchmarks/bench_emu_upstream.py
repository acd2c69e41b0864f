"""`wave-lsp run` against upstream `wave-emu` as whole commands, side by side.

Each workload runs both commands on the same `.wbin` (assembled by upstream `wave-asm`) with the
same flags, in pairs (ours, upstream, ours, upstream, ...) so that load on the machine hits both
alike; stdout must be equal. Prints the median of each, the ratio ours / upstream and which of
our engines ran it (the native core, or the numpy engine and why; WAVE_LSP_SHOW_ENGINE).
The package's bytecode is compiled first (as an installed package has it), so that runs under
PYTHONDONTWRITEBYTECODE do not time the compilation of every module.
Usage: python benchmarks/bench_emu_upstream.py [--repeat N] [--only NAME]
Needs ../shared/upstream/bin (wave-asm, wave-emu).
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
UPSTREAM = SHARED / "upstream" / "bin"
EXAMPLES = SHARED / "wave-examples"
sys.path.insert(0, str(ROOT))
from bench_emu import VECTOR_ADD  # noqa: E402

N_VEC = 1 << 20

# each thread: x = its f32; sin x, cos x, exp2(sin x) and log2 x (the C library's, on both
# sides), their bits xor-ed together so that a last bit differing in any shows in the dump
TRANSCENDENTALS = """.kernel transcendentals
.registers 8
    mov_sr r0, sr_thread_id_x
    mov_sr r4, sr_workgroup_id_x
    mov_sr r5, sr_workgroup_size_x
    imul r4, r4, r5
    iadd r0, r0, r4
    mov_imm r1, 4
    imul r3, r0, r1
    device_load_u32 r1, r3
    fsin r2, r1
    fcos r5, r1
    fexp2 r6, r2
    flog2 r7, r1
    xor r2, r2, r5
    xor r2, r2, r6
    xor r2, r2, r7
    device_store_u32 r3, r2
    halt
.end
"""


def upstream_wbin(folder: Path, name: str, text: str) -> Path:
    """`text` assembled by upstream's `wave-asm` into FOLDER/NAME.wbin (the same bytes for both
    emulators)."""
    source, out = folder / f"{name}.wave", folder / f"{name}.wbin"
    source.write_text(text)
    subprocess.run([str(UPSTREAM / "wave-asm"), str(source), "-o", str(out)], check=True,
                   capture_output=True)
    return out


def gemm_flags(tmp: Path, n: int) -> list[str]:
    rng = np.random.default_rng(1)
    size = 4 * n * n
    (tmp / f"A{n}.bin").write_bytes(rng.uniform(-1, 1, n * n).astype("<f4").tobytes())
    (tmp / f"B{n}.bin").write_bytes(rng.uniform(-1, 1, n * n).astype("<f4").tobytes())
    return ["--grid", f"{n // 128},{n // 128},1", "--workgroup", "16,16,1",
            "--device-memory", str(3 * size), "--arg", f"0:{tmp / f'A{n}.bin'}",
            "--arg", f"{size}:{tmp / f'B{n}.bin'}", "--set-reg", "0:0", "--set-reg", f"1:{size}",
            "--set-reg", f"2:{2 * size}", "--set-reg", f"3:{n}", "--set-reg", f"4:{n}",
            "--set-reg", f"5:{n}", "--max-instructions", "0",
            "--dump-f32", f"{2 * size}:{n * n}"]


def workloads(tmp: Path) -> dict[str, tuple[Path | None, list[str]]]:
    def wbin(name: str, text: str) -> Path:
        return upstream_wbin(tmp, name, text)

    vec = wbin("vector_add", VECTOR_ADD)
    gemm = wbin("gemm", (EXAMPLES / "gemm_blocked.wave").read_text())
    size = 4 * N_VEC
    vec_flags = ["--grid", f"{N_VEC // 256},1,1", "--device-memory", str(3 * size),
                 "--fill-iota", f"0:f32:{N_VEC}:1", "--fill-iota", f"{size}:f32:{N_VEC}:2",
                 "--set-reg", "0:0", "--set-reg", f"1:{size}", "--set-reg", f"2:{2 * size}",
                 "--dump-f32", f"{2 * size + 4 * (N_VEC - 4)}:4"]
    sines = wbin("transcendentals", TRANSCENDENTALS)
    return {
        "start-up (--help)": (None, ["--help"]),
        "tiny kernel (reduction.wave)": (wbin("reduction", (EXAMPLES / "reduction.wave")
                                              .read_text()), ["--fill-iota", "0:f32:256:1"]),
        "vector add 1M threads": (vec, vec_flags),
        "gemm_blocked N=128": (gemm, gemm_flags(tmp, 128)),
        "gemm_blocked N=256": (gemm, gemm_flags(tmp, 256)),
        "gemm_blocked N=512": (gemm, gemm_flags(tmp, 512)),
        "print 1M f32 values": (vec, ["--device-memory", str(size), "--fill-iota",
                                      f"0:f32:{N_VEC}:0.37", "--dump-f32", f"0:{N_VEC}"]),
        "sin/cos/exp2/log2 1M threads": (sines, [
            "--grid", f"{N_VEC // 256},1,1", "--workgroup", "256,1,1", "--device-memory",
            str(size), "--fill-iota", f"0:f32:{N_VEC}:0.37", "--dump-u32",
            f"{size - (1 << 16)}:{1 << 14}"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", help="run the workloads whose name contains this")
    args = parser.parse_args()
    if not (UPSTREAM / "wave-emu").is_file():
        raise SystemExit(f"upstream wave-emu not found in {UPSTREAM}")
    compileall.compile_dir(str(ROOT / "wave_lsp"), quiet=1)
    ours_cmd = [sys.executable, "-m", "wave_lsp.cli.main", "run"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs; "
          f"{args.repeat} paired runs each; medians")
    print(f"{'workload':32} {'ours':>9} {'upstream':>9} {'ratio':>7}  engine")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for name, (wbin, flags) in workloads(tmp).items():
            if args.only and args.only not in name:
                continue
            target = [] if wbin is None else [str(wbin)]
            commands = {"ours": ours_cmd + target + flags,
                        "upstream": [str(UPSTREAM / "wave-emu")] + target + flags}
            probe = subprocess.run(commands["ours"], env=dict(env, WAVE_LSP_SHOW_ENGINE="1"),
                                   capture_output=True, text=True, cwd=tmp)
            engine = next((line[len("engine: "):] for line in probe.stderr.splitlines()
                           if line.startswith("engine: ")), "-")
            times: dict[str, list[float]] = {"ours": [], "upstream": []}
            outputs = {}
            for _ in range(args.repeat):
                for who, argv in commands.items():
                    start = time.perf_counter()
                    done = subprocess.run(argv, env=env, capture_output=True, text=True,
                                          cwd=tmp)
                    times[who].append(time.perf_counter() - start)
                    if done.returncode:
                        raise SystemExit(f"{who} failed on {name}: {done.stderr}")
                    outputs[who] = done.stdout
            same = wbin is None or outputs["ours"] == outputs["upstream"]
            ours, up = statistics.median(times["ours"]), statistics.median(times["upstream"])
            print(f"{name:32} {ours:8.3f}s {up:8.3f}s {ours / up:6.2f}x  {engine}"
                  + ("" if same else "  OUTPUT DIFFERS"), flush=True)


if __name__ == "__main__":
    main()

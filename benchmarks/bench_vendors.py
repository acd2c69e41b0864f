"""How many of the kernels the tests hold the vendors' compilers accept, per compiler and target
architecture, for the default output and for `--compat upstream`, and how long each batched
compiler run takes (the cost of tests/test_emit_vendors.py in CI); then the editor's latency
for a kernel's vendor figures (hover, kernelResources): first run and cached.

Kernel sets: the held kernels (examples/, shared kernels, tests/ kernels, emit-test kernels) and
one kernel per instruction form. A kernel counts as rejected when the compiler reports an error
on one of its lines. Run: python benchmarks/bench_vendors.py [--compat]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_emit_vendors import held_kernels, instruction_kernels  # noqa: E402
from vendor_batch import rejections  # noqa: E402

from wave_lsp.asm import AssemblyError  # noqa: E402
from wave_lsp.asm.backends import EmitError, emit  # noqa: E402
from wave_lsp.isa.backends import VENDOR_ARCHES  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--compat", action="store_true", help="upstream's text")
    parser.add_argument("--list", action="store_true", help="print each rejection")
    args = parser.parse_args()
    for label, sources in (("held kernels", held_kernels()),
                           ("instruction forms", instruction_kernels())):
        for target in ("ptx", "hip", "sycl"):
            names, texts = [], []
            for name, source in sources.items():
                try:
                    texts.append(emit(source, target, compat=args.compat).text)
                except (AssemblyError, EmitError):
                    continue
                names.append(name)
            start = time.perf_counter()
            found = [r for r in rejections(target, texts) if r.text.startswith("error")]
            took = time.perf_counter() - start
            for arch in VENDOR_ARCHES[target]:
                bad = sorted({names[r.program] for r in found if r.arch == arch})
                print(f"{label:18} {target:4} {arch:8} accepted {len(names) - len(bad):4} of "
                      f"{len(names):4}  ({took:5.2f} s for both architectures)")
                if args.list:
                    for r in found:
                        if r.arch == arch:
                            print(f"    {names[r.program]}: {r.text} | {r.generated}")
    if not args.compat:
        editor_latency()


def editor_latency() -> None:
    from wave_lsp.ide.vendor_usage import VendorTools, kernel_figures
    source = (Path(__file__).resolve().parents[1] / "examples" / "block_sum.wave").read_text()
    tools = VendorTools.find()
    for label in ("first", "cached"):
        start = time.perf_counter()
        figures = kernel_figures(source, "block_sum", tools)
        print(f"editor figures ({label}): {(time.perf_counter() - start) * 1000:7.1f} ms for "
              f"{len(figures)} architectures")


if __name__ == "__main__":
    main()

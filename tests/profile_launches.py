"""The launches the profile tests run: each kernel of ../shared/wave-examples with the flags of
its INDEX.md row (read from there, never copied), and the project's examples/ with their
`; wave-lsp run:` lines."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np

from wave_lsp.emu import DataFill, IotaFill, Launch, ZeroFill
from wave_lsp.launch.flags import build_launch, parse_launch_flags

from shared import EXAMPLES

ROOT = Path(__file__).resolve().parents[1]
SPEC = dict(wave_width=4, device_memory=65536, local_memory=16384)


def _u32s(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


def _gemm(n: int = 128, k: int = 128) -> Launch:
    """gemm_blocked as INDEX.md runs it (N = 128), with `k` for the reduction dimension."""
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (n, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    return Launch(workgroup=(16, 16, 1), device_memory=3 * 65536,
                  memory_init=[DataFill(0, a.tobytes()), DataFill(65536, b.tobytes())],
                  set_regs={0: 0, 1: 65536, 2: 131072, 3: n, 4: n, 5: k})


def shared_launch(name: str, small: bool = False) -> Launch:
    """The INDEX.md launch of shared kernel `name` (`small`: gemm with K = 32, for the slow
    per-lane reference)."""
    iota = [ZeroFill(2048, 256), IotaFill(0, 256, 1.0), IotaFill(1024, 256, 2.0)]
    spec_init = {"prefix_sum": _u32s(1, 2, 3, 4), "dot_product": _u32s(*range(1, 9)),
                 "atomic_cas": _u32s(5)}
    spec_threads = {"barrier_in_loop": 8}
    if name == "vector_add":
        return Launch(workgroup=(256, 1, 1), memory_init=iota)
    if name == "reduction":
        return Launch(memory_init=[IotaFill(0, 256, 1.0)])
    if name == "bounds_check":
        return Launch(workgroup=(256, 1, 1), memory_init=iota + [DataFill(3072, _u32s(200))])
    if name == "relu":
        values = np.linspace(-5, 5, 300, dtype=np.float32)
        return Launch(grid=(2, 1, 1), memory_init=[DataFill(0, values.tobytes())],
                      set_regs={0: 0, 1: 4096, 2: 300})
    if name == "vector_add_f16":
        a = np.arange(1, 9, dtype=np.float16)
        b = np.arange(0.5, 8, 1.0, dtype=np.float16)
        return Launch(workgroup=(256, 1, 1), device_memory=4096,
                      memory_init=[DataFill(0, a.tobytes()), DataFill(16, b.tobytes())],
                      set_regs={1: 0, 2: 16, 3: 32})
    if name == "mma_simple":
        ones = np.ones((4, 4), dtype=np.float32).tobytes()
        return Launch(workgroup=(1, 1, 1), device_memory=256,
                      memory_init=[DataFill(0, ones), DataFill(64, ones)])
    if name == "gemm_blocked":
        return _gemm(k=32 if small else 128)
    if name == "sample":
        return Launch()
    init = spec_init.get(name)
    return Launch(workgroup=(spec_threads.get(name, 4), 1, 1), **SPEC,
                  memory_init=[DataFill(0, init)] if init else [])


def shared_source(name: str) -> str:
    return (EXAMPLES / f"{name}.wave").read_text()


def project_examples() -> list[Path]:
    return sorted((ROOT / "examples").glob("*.wave"))


def example_launch(path: Path) -> Launch:
    """The launch an example's header comment gives (`; Launch: wave-lsp run FILE FLAGS`,
    continued over lines ending in a backslash)."""
    text = re.sub(r"\\\n;\s*", " ", path.read_text())
    match = re.search(r"^; Launch: wave-lsp run \S+(.*)$", text, re.MULTILINE)
    tokens = match.group(1).split() if match else []
    return build_launch(parse_launch_flags(tokens), path.parent)

"""The array path of the Rust `{:?}` float text (`rust_debug_f32_many`, used by every dump) gives
what the one-value path (`rust_debug_f32`, each halfway case confirmed with `decimal`) gives, on
values full of halfway cases (an iota of step 0.37, as `--fill-iota` writes), random bit
patterns and every f16 value. Upstream's own text is checked in test_emu_differential."""

from __future__ import annotations

import numpy as np

from wave_lsp.launch.formats import rust_debug_f32, rust_debug_f32_many


def test_array_path_matches_the_one_value_path():
    rng = np.random.default_rng(6)
    values = np.concatenate([
        (np.arange(0, 1 << 20, 16) * np.float32(0.37)).astype(np.float32),
        -(np.arange(10000) * np.float32(0.001)).astype(np.float32),
        rng.integers(0, 2 ** 32, 30000, dtype=np.uint64).astype(np.uint32).view(np.float32),
        np.arange(0, 65536, 3, dtype=np.uint16).view(np.float16).astype(np.float32)])
    many = rust_debug_f32_many(values)
    differ = [(float(v), m, rust_debug_f32(v)) for v, m in zip(values, many)
              if m != rust_debug_f32(v)]
    assert not differ, differ[:5]
    bumped = sum(m != str(v) for v, m in zip(values[:65536], many[:65536]))
    assert bumped > 1000      # the iota is full of halfway cases: the path is exercised

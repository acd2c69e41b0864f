"""The emulator tests' run: `wave_lsp.emu.run` (the one entry) on the numpy engine, the
reference these tests check (the native core is checked against it in tests/emu_native).
Keyword arguments are `RunOptions` fields."""

from __future__ import annotations

from dataclasses import replace

from wave_lsp.emu import RunOptions
from wave_lsp.emu import run as pipeline_run


def run(program, launch=None, options: RunOptions | None = None, **fields):
    """`pipeline.run(program, launch, options)` with `engine="numpy"` and `fields` set."""
    options = replace(options or RunOptions(), engine="numpy", **fields)
    report = pipeline_run(program, launch, options)
    assert report.engine == "numpy"
    return report

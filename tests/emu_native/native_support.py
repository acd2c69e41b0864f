"""Helpers of the native core's tests: the core (a failure under CI when it is not built, a skip
otherwise) and running one launch on both engines."""

from __future__ import annotations

import os
import shlex
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import pytest

from wave_lsp.emu import EngineUnavailable, RunOptions, run
from wave_lsp.launch.flags import build_launch, parse_launch_flags
from wave_lsp.emu.native import core


@dataclass
class NativeRun:
    """The native core's attempt at a launch (through the pipeline, `engine="native"`):
    `reason` why it could not run it, or None and its results."""

    reason: str | None
    device: object = None
    stats: object = None
    warnings: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    registers: dict = field(default_factory=dict)


def need_core():
    """The `_wavecore` module; under CI a missing build fails the test."""
    module = core()
    if module is None:
        message = "the native core (wave_lsp.emu.native._wavecore) is not built: " \
                  "pip install -e . builds it"
        if os.environ.get("CI"):
            pytest.fail(message + " (required under CI)", pytrace=False)
        pytest.skip(message)
    return module


def launch_of(flags: str | list[str], base: Path | None = None, **overrides):
    tokens = shlex.split(flags) if isinstance(flags, str) else list(flags)
    return build_launch(parse_launch_flags(tokens), base, **overrides)


def both_engines(program, launch, options: RunOptions | None = None):
    """(numpy report, NativeRun) of one launch."""
    need_core()
    options = options or RunOptions()
    report = run(program, launch, replace(options, engine="numpy"))
    try:
        native = run(program, launch, replace(options, engine="native"))
    except EngineUnavailable as err:
        return report, NativeRun(err.reason)
    assert native.engine == "native" and native.fallback is None
    return report, NativeRun(None, native.device, native.stats, native.warnings, native.errors,
                             native.registers)


def assert_same_report(report, native: NativeRun) -> None:
    """The core's results are the numpy engine's, field by field: warnings (kind, text, place,
    lanes, count, in order), errors, device memory, statistics and the registers asked for."""
    assert [asdict(w) for w in native.warnings] == [asdict(w) for w in report.warnings]
    assert [asdict(e) for e in native.errors] == [asdict(e) for e in report.errors]
    assert bytes(native.device) == report.device_memory.tobytes()
    assert asdict(native.stats) == asdict(report.stats)
    assert native.registers == report.registers


def assert_native_equal(program, launch, options: RunOptions | None = None, *,
                        must_run: bool = True) -> NativeRun:
    """The core either ran the launch with the numpy engine's exact report (warnings, errors,
    memory, statistics), or left it to the numpy engine (allowed unless `must_run`)."""
    report, native = both_engines(program, launch, options)
    try:
        from hypothesis import event
        event("native" if native.reason is None else "bailed: " + native.reason.split(" (")[0])
    except Exception:          # not inside a hypothesis test
        pass
    if native.reason is not None:
        assert not must_run, f"the native core did not run it: {native.reason}"
        return native
    try:
        from hypothesis import event
        for kind in sorted({f.kind for f in native.warnings + native.errors}):
            event(f"reported: {kind}")
    except Exception:          # not inside a hypothesis test
        pass
    assert_same_report(report, native)
    return native

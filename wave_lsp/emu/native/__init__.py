"""The native emulator core: a C extension (`_wavecore`, sources beside this file, built by
setup.py) that runs clean launches of the common instructions much faster than the numpy engine,
and prints dumps in upstream's formats.

The numpy engine stays the reference: the core implements the mnemonics in `_wavecore.OPS` with
exactly its semantics and reports what it reports (warnings, errors, limits: findings.c,
`findings`, with the text of `emu.messages`); it stops ("bails") only where it cannot report
alike — an instruction it lacks, ... (`runner` lists them) — so that the launch is then run again
by the numpy engine (`runner.run_native` returns the reason instead of a result). Nothing here
imports numpy.

`WAVE_LSP_NATIVE=0` in the environment turns the core off (the numpy engine runs everything).
A wave-lsp installed without a C compiler (or from the pure wheel) has no core: `engine()` says
which engine runs kernels and why, for `wave-lsp --version` and the language server.
`WAVE_LSP_THREADS=N` runs a launch's workgroups on N threads (default: the cores this process may
use; 1: one at a time), with results identical to one at a time (parallel.c).
"""

from __future__ import annotations

import importlib
import os


def core():
    """The `_wavecore` extension module, or None when it is not built or is turned off."""
    if os.environ.get("WAVE_LSP_NATIVE", "1") == "0":
        return None
    try:
        from . import _wavecore
    except ImportError:
        return None
    return _wavecore


NATIVE, NUMPY = "native core", "numpy engine"


def engine() -> tuple[str, str]:
    """Which engine runs kernels here, `NATIVE` or `NUMPY`, and why (one sentence)."""
    if os.environ.get("WAVE_LSP_NATIVE", "1") == "0":
        return NUMPY, "WAVE_LSP_NATIVE=0 turns the native core off"
    name = f"{__name__}._wavecore"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name != name:
            return NUMPY, f"the native core does not load ({err})"
        return NUMPY, ("the native core is not installed: this wave-lsp was built without a C "
                       "compiler, or is the pure wheel")
    except ImportError as err:
        return NUMPY, f"the native core does not load ({err})"
    return NATIVE, f"the native core is loaded from {os.path.basename(module.__file__)}"


def engine_summary() -> str:
    """`engine()` as one phrase: `native core` or `numpy engine: WHY`."""
    name, why = engine()
    return name if name == NATIVE else f"{name}: {why}"

def threads() -> int:
    """The threads the core runs workgroups on: `WAVE_LSP_THREADS` (a positive integer), else the
    cores this process may run on. A value that is not a positive integer is refused with a
    one-line `ValueError`."""
    value = os.environ.get("WAVE_LSP_THREADS", "").strip()
    if value:
        if not value.isdigit() or int(value) < 1:
            raise ValueError(f"WAVE_LSP_THREADS must be a positive integer, not {value!r}")
        return int(value)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1

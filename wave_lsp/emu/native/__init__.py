"""The native emulator core: a C extension (`_wavecore`, sources beside this file, built by
setup.py) that runs clean launches of the common instructions much faster than the numpy engine,
and prints dumps in upstream's formats.

The numpy engine stays the reference: the core implements the mnemonics in `_wavecore.OPS` with
exactly its semantics and reports what it reports (warnings, errors, limits: findings.c,
`findings`, with the text of `emu.messages`); it stops ("bails") only where it cannot report
alike — a possible data race, ... (`runner` lists them) — so that the launch is then run again
by the numpy engine (`runner.run_native` returns the reason instead of a result). Nothing here
imports numpy.

`WAVE_LSP_NATIVE=0` in the environment turns the core off (the numpy engine runs everything).
`WAVE_LSP_THREADS=N` runs a launch's workgroups on N threads (default: the cores this process may
use; 1: one at a time), with results identical to one at a time (parallel.c).
"""

from __future__ import annotations

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

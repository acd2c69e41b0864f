"""Which engine runs the editor's kernels: the emulator's native core, or the numpy engine and
why (not installed, turned off, failing to load). The server says it once in its log and in its
initialize result (`server.extensions.Engine`); loading it loads neither engine."""

from __future__ import annotations

from .. import emu


def engine() -> tuple[str, str]:
    """(`native core` or `numpy engine`, why): `emu.native.engine`."""
    return emu.engine_in_use()


def engine_summary() -> str:
    """`native core`, or `numpy engine: WHY`."""
    return emu.engine_summary()

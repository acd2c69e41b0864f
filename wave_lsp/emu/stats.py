"""A run's execution statistics, counted as upstream `wave-emu --stats` counts them. Its own
module (no numpy, nothing else of the report) because the native core's path needs only this."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Stats:
    """Execution statistics, counted like upstream `--stats` (per wave-instruction)."""

    total: int = 0
    integer: int = 0
    float: int = 0
    memory: int = 0
    control: int = 0
    wave: int = 0
    atomic: int = 0
    device_loads: int = 0
    device_stores: int = 0
    device_load_bytes: int = 0
    device_store_bytes: int = 0
    local_loads: int = 0
    local_stores: int = 0
    local_load_bytes: int = 0
    local_store_bytes: int = 0
    barriers: int = 0
    divergent_branches: int = 0
    workgroups: int = 0
    waves: int = 0

    @staticmethod
    def counter(space: str, kind: str, width: int):
        """`count(stats, lanes)`: count `lanes` accesses of `width` bytes (names bound once)."""
        n_name, b_name = f"{space}_{kind}s", f"{space}_{kind}_bytes"

        def count(stats: "Stats", lanes: int) -> None:
            setattr(stats, n_name, getattr(stats, n_name) + lanes)
            setattr(stats, b_name, getattr(stats, b_name) + lanes * width)
        return count

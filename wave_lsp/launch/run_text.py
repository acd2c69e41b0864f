"""The text of a run's statistics (upstream's `--stats` block) and the one-line description of a
run-time error. No numpy: the native core's path prints these too."""

from __future__ import annotations

from ..emu import Stats


def stats_block(stats: Stats) -> list[str]:
    """The `--stats` block, laid out as upstream prints it (counts per wave-instruction)."""
    return [
        "Execution Statistics:",
        f"  Instructions executed: {stats.total}",
        f"    Integer ops:         {stats.integer}",
        f"    Float ops:           {stats.float}",
        f"    Memory ops:          {stats.memory}",
        f"    Control ops:         {stats.control}",
        f"    Wave ops:            {stats.wave}",
        f"    Atomic ops:          {stats.atomic}",
        "",
        "  Device memory:",
        f"    Loads:  {stats.device_loads} ({stats.device_load_bytes} bytes)",
        f"    Stores: {stats.device_stores} ({stats.device_store_bytes} bytes)",
        "",
        "  Local memory:",
        f"    Loads:  {stats.local_loads} ({stats.local_load_bytes} bytes)",
        f"    Stores: {stats.local_stores} ({stats.local_store_bytes} bytes)",
        "",
        f"  Barriers: {stats.barriers}",
        f"  Divergent branches: {stats.divergent_branches}",
        "",
        f"  Workgroups executed: {stats.workgroups}",
        f"  Waves executed: {stats.waves}",
    ]


def describe_error(error) -> str:
    """`message (kind) at pc 0x..., line L, workgroup (x,y,z), wave W, lanes ...`."""
    where = []
    if error.pc is not None:
        where.append(f"pc 0x{error.pc:04x}")
    if error.line is not None:
        where.append(f"line {error.line + 1}")
    if error.workgroup is not None:
        where.append("workgroup ({},{},{})".format(*error.workgroup))
    if error.wave is not None:
        where.append(f"wave {error.wave}")
    if error.lanes:
        lanes = ",".join(str(l) for l in error.lanes[:16]) + ("…" if len(error.lanes) > 16 else "")
        where.append(f"lanes {lanes}")
    return error.message + (f" [{', '.join(where)}]" if where else "")

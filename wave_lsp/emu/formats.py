"""Text formats of upstream `wave-emu` output: Rust `{:?}` floats, the hex dump, the value dumps
the statistics block, and the one-line description of a run-time error."""

from __future__ import annotations

import numpy as np

from .report import Stats

_SMALL = np.float32(1e-4)
_LARGE = np.float32(1e16)


def rust_debug_f32(value) -> str:
    """An f32 as Rust's `{:?}` prints it: shortest round-trip digits, `3.0`, `1e-7`, `NaN`."""
    x = np.float32(value)
    if np.isnan(x):
        return "NaN"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "-0.0" if np.signbit(x) else "0.0"
    magnitude = abs(x)
    text = repr(float(str(x)))          # shortest f32 digits, Python's (= Rust's) layout
    if magnitude < _SMALL or magnitude >= _LARGE or "e" in text:
        digits = np.format_float_scientific(x, unique=True, trim="-", exp_digits=1)
        mantissa, exponent = digits.split("e")
        return f"{mantissa}e{int(exponent)}"
    return text


def rust_debug_f32_many(values: np.ndarray) -> list[str]:
    """`rust_debug_f32` for a whole array. numpy's `str` of an f32 has the shortest round-trip
    digits (Dragon4); where it chose an exponent form, Python's `repr` of that decimal puts it in
    Rust's form (the same positional range, 1e-4 <= |x| < 1e16)."""
    out = []
    for value in np.asarray(values, dtype=np.float32).reshape(-1):
        text = str(value)
        if "e" in text or text in ("nan", "inf", "-inf"):
            text = rust_debug_f32(value)
        out.append(text)
    return out


def hex_dump(memory: np.ndarray, start: int, end: int) -> list[str]:
    """Upstream's `--dump-memory START:END` lines."""
    lines = [f"Device memory 0x{start:08x}-0x{end:08x}:"]
    data = memory[start:end].tobytes()
    for row in range(0, len(data), 16):
        chunk = data[row:row + 16]
        cells = []
        for i in range(16):
            cells.append(f"{chunk[i]:02x} " if i < len(chunk) else "   ")
            if i == 7:
                cells.append(" ")
        text = "".join(chr(c) if 0x20 <= c < 0x7F else "." for c in chunk)
        lines.append(f"{start + row:08x}: {''.join(cells)} |{text}|")
    return lines


def dump_values(memory: np.ndarray, offset: int, count: int, kind: str) -> list[str]:
    """`--dump-u32/-f32/-f16/-bf16 OFFSET:COUNT`: one value per line."""
    width = 4 if kind in ("u32", "f32") else 2
    raw = memory[offset:offset + width * count].tobytes()
    if kind == "u32":
        return [str(v) for v in np.frombuffer(raw, dtype="<u4").tolist()]
    if kind == "f32":
        values = np.frombuffer(raw, dtype="<f4")
    elif kind == "f16":
        values = np.frombuffer(raw, dtype="<f2").astype(np.float32)
    else:
        values = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
    return rust_debug_f32_many(values)


def stats_block(stats: Stats) -> list[str]:
    """The `--stats` block (same figures as upstream; counts are per wave-instruction)."""
    return [
        "Execution Statistics:",
        f"  Total instructions:  {stats.total}",
        f"    Integer:           {stats.integer}",
        f"    Float:             {stats.float}",
        f"    Memory:            {stats.memory}",
        f"    Control:           {stats.control}",
        f"    Wave:              {stats.wave}",
        f"    Atomic:            {stats.atomic}",
        f"  Device loads:        {stats.device_loads} ({stats.device_load_bytes} bytes)",
        f"  Device stores:       {stats.device_stores} ({stats.device_store_bytes} bytes)",
        f"  Local loads:         {stats.local_loads} ({stats.local_load_bytes} bytes)",
        f"  Local stores:        {stats.local_stores} ({stats.local_store_bytes} bytes)",
        f"  Barriers:            {stats.barriers}",
        f"  Divergent branches:  {stats.divergent_branches}",
        f"  Workgroups executed: {stats.workgroups}",
        f"  Waves executed:      {stats.waves}",
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

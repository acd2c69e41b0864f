"""Soundness against the emulator: random small kernels (stores, loads and atomics in local and
device memory at addresses made of thread, lane, wave and workgroup ids, with barriers, ifs on
thread ids and counted loops) are verified under a launch and run under the same launch. Where
the run reports a data race or a divergent barrier, the verdict must not be `proved`; where the
verdict is an exact race, the run must show a race on its witness's launch unless it is a kind
the dynamic check does not see (an atomic; equal values written by two waves)."""

from __future__ import annotations

import random

import pytest

from wave_lsp.analysis.verify import Geometry, verify_kernel
from wave_lsp.emu import Launch, run
from wave_lsp.syntax.document import Document

CASES = 120
IDS = ("sr_thread_id_x", "sr_lane_id", "sr_wave_id", "sr_workgroup_id_x")


def _address(rng: random.Random, out: list[str], reg: int) -> None:
    """r{reg} = a byte address from the ids: (id * scale + offset) & mask, 4-aligned."""
    out.append(f"    mov_sr  r10, {rng.choice(IDS)}")
    out.append(f"    mov_imm r11, {rng.choice([0, 1, 2, 4, 4, 8])}")
    out.append("    imul    r10, r10, r11")
    out.append(f"    mov_imm r11, {rng.choice([0, 0, 4, 8, 128])}")
    out.append("    iadd    r10, r10, r11")
    out.append(f"    mov_imm r11, {rng.choice([0xFC, 0x7C, 0x3FC])}")
    out.append(f"    and     r{reg}, r10, r11")


def _access(rng: random.Random, out: list[str]) -> None:
    _address(rng, out, 12)
    space = rng.choice(["local", "device"])
    kind = rng.choice(["store", "store", "load", "atomic"])
    if kind == "store":
        out.append(f"    {space}_store_u32 r12, r13")
    elif kind == "load":
        out.append(f"    {space}_load_u32 r14, r12")
    elif space == "local":
        out.append("    local_atomic_add r14, r12, r13")
    else:
        out.append("    atomic_add r14, r12, r13, .device")


def kernel(seed: int) -> str:
    rng = random.Random(seed)
    out = [".kernel k", ".registers 16", ".local_memory 4096",
           "    mov_sr  r13, sr_thread_id_x"]
    for _ in range(rng.randint(2, 5)):
        shape = rng.random()
        if shape < 0.5:
            _access(rng, out)
        elif shape < 0.7:
            out.append("    barrier")
        elif shape < 0.85:
            out.append("    mov_sr  r9, sr_thread_id_x")
            out.append(f"    mov_imm r8, {rng.choice([1, 8, 16, 40])}")
            out.append(f"    {rng.choice(['icmp_lt', 'icmp_ge'])} p1, r9, r8")
            out.append("    if p1")
            _access(rng, out)
            if rng.random() < 0.3:
                out.append("    barrier")
            out.append("    endif")
        else:
            out.append("    mov_imm r7, 0")
            out.append("    loop")
            _access(rng, out)
            if rng.random() < 0.4:
                out.append("    barrier")
            out.append("    mov_imm r6, 1")
            out.append("    iadd r7, r7, r6")
            out.append(f"    mov_imm r6, {rng.choice([2, 3])}")
            out.append("    icmp_ge p2, r7, r6")
            out.append("    break p2")
            out.append("    endloop")
    out += ["    halt", ".end"]
    return "\n".join(out) + "\n"


def _dynamic(text: str, geometry: Geometry) -> set[str]:
    report = run(text, Launch(grid=geometry.grid, workgroup=geometry.workgroup,
                              wave_width=geometry.wave_width, device_memory=8192))
    kinds = {w.kind for w in report.warnings if w.kind == "data_race"}
    kinds |= {e.kind for e in report.errors if e.kind in ("divergent_barrier", "deadlock")}
    return kinds


@pytest.mark.parametrize("seed", range(CASES))
def test_never_proved_where_a_run_shows_a_conflict(seed):
    text = kernel(seed)
    rng = random.Random(seed * 7 + 1)
    geometry = Geometry((rng.choice([16, 32, 64]), 1, 1), rng.choice([8, 16, 32]),
                        (rng.choice([1, 2]), 1, 1), 4096, 8192, {})
    (k,) = Document(text).program.kernels
    verdict = verify_kernel(k, geometry)
    shown = _dynamic(text, geometry)
    if shown:
        assert verdict.verdict != "proved", (shown, text)
    if verdict.verdict == "divergence":
        assert verdict.witness.exact
    if verdict.verdict in ("race", "divergence") and verdict.witness.exact and \
            "atomic" not in verdict.witness.accesses:
        w = verdict.witness
        replayed = _dynamic(text, Geometry(geometry.workgroup, geometry.wave_width, w.grid,
                                           4096, 8192, {}))
        if not replayed:
            # equal values written by two waves: the one kind of plain race the run misses
            assert w.accesses == ("write", "write"), (verdict.reason, text)

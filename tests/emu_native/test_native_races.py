"""Races between the waves of a workgroup are the native core's own (native/waverace.c and
wavecheck.c): on random racy programs — local and device memory, every width, unaligned
accesses, stores of one same value (benign), atomics, barriers, branches and loops per wave,
several waves and workgroups — in `--racecheck` `benign` and `strict` modes, on one thread and
on two (`WAVE_LSP_THREADS`), whatever the numpy engine's batches, the core runs every launch
itself (no fallback) and reports exactly what the numpy engine reports: the `data_race`
warnings (kind, text, address, waves, lanes, lines, count, order) among the others, errors,
memory and statistics. Racecheck's limits (`race_report.MAX_GROUPS`, `MAX_LOGGED`) bound both
engines alike: shrunk here, every program meets them."""

from __future__ import annotations

import os
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from .native_support import assert_native_equal, both_engines, need_core

from wave_lsp.emu import Launch, RunOptions, race_report, run

EXAMPLES = int(os.environ.get("WAVE_NATIVE_EXAMPLES", "30"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=list(HealthCheck))

PROLOGUE = """.kernel races
.registers 16
.local_memory 512
    mov_sr r0, sr_thread_id_x
    mov_sr r1, sr_wave_id
    mov_sr r2, sr_lane_id
    mov_sr r3, sr_workgroup_id_x
    mov_imm r4, 4
    mov_imm r5, 7
    mov_imm r9, 1
    mov_imm r10, 2
    mov r12, r0
    mov_imm r13, 7
    mov_imm r14, 7
    mov r15, r3
    and r11, r1, r9
    icmp_eq p1, r11, r9
    icmp_lt p2, r2, r10
    ucmp_lt p3, r3, r9
"""
# where an access goes (r6): one word for all, each thread's own, the same word in every wave,
# a word shared by threads of different waves, the next thread's, the workgroup's own, words
# 256 KiB apart (the check's rows then lie far apart: it sorts them another way)
ADDRESS = {"one": "mov_imm r6, {c}",
           "own": "imul r6, r0, r4\n    mov_imm r11, {c}\n    iadd r6, r6, r11",
           "lane": "imul r6, r2, r4\n    mov_imm r11, {c}\n    iadd r6, r6, r11",
           "mask": "mov_imm r11, 5\n    and r6, r0, r11\n    imul r6, r6, r4\n"
                   "    mov_imm r11, {c}\n    iadd r6, r6, r11",
           "next": "iadd r6, r0, r9\n    imul r6, r6, r4\n    mov_imm r11, {c}\n    iadd r6, r6, r11",
           "workgroup": "imul r6, r3, r4\n    mov_imm r11, {c}\n    iadd r6, r6, r11",
           "far": "mov_imm r11, 3\n    and r6, r0, r11\n    mov_imm r11, 0x40000\n"
                  "    imul r6, r6, r11\n    mov_imm r11, {c}\n    iadd r6, r6, r11"}
OFFSETS = [0, 0, 0, 0, 1, 2, 4, 8, 64]
WIDTHS = {"local": ["u8", "u16", "u32", "u32", "u64"],
          "device": ["u8", "u16", "u32", "u32", "u64", "u128"]}
ATOMICS = ["add", "max", "exchange", "cas", "or"]
GUARDS = ["", "", "", "@p1 ", "@!p2 ", "@p3 "]


@st.composite
def access(draw) -> str:
    space = draw(st.sampled_from(["local", "device"]))
    places = sorted(ADDRESS) if space == "device" else sorted(set(ADDRESS) - {"far"})
    where = ADDRESS[draw(st.sampled_from(places))].format(c=draw(st.sampled_from(OFFSETS)))
    guard = draw(st.sampled_from(GUARDS))
    kind = draw(st.sampled_from(["load", "store", "store", "atomic"]))
    if kind == "atomic":
        operation = draw(st.sampled_from(ATOMICS))
        data = draw(st.sampled_from(["r5", "r0", "r9"]))
        cas = ", r0" if operation == "cas" else ""
        prefix, scope = ("local_", "") if space == "local" else ("", ", .device")
        line = f"{guard}{prefix}atomic_{operation} r7, r6, {data}{cas}{scope}"
    else:
        width = draw(st.sampled_from(WIDTHS[space]))
        wide = width in ("u64", "u128")
        if kind == "load":
            line = f"{guard}{space}_load_{width} {'r12' if wide else 'r7'}, r6"
        else:
            data = "r12" if wide else draw(st.sampled_from(["r5", "r5", "r0", "r2", "r3"]))
            line = f"{guard}{space}_store_{width} r6, {data}"
    return f"{where}\n    {line}"


@st.composite
def statement(draw) -> str:
    kind = draw(st.sampled_from(["access"] * 6 + ["barrier", "if", "loop"]))
    if kind == "access":
        return draw(access())
    if kind == "barrier":
        return "barrier"
    body = "\n    ".join(draw(st.lists(access(), min_size=1, max_size=3)))
    if kind == "if":                      # the odd waves (a barrier inside would diverge)
        return f"if p1\n    {body}\n    endif"
    barrier = "\n    barrier" if draw(st.booleans()) else ""
    return (f"mov_imm r8, 0\n    loop\n    {body}{barrier}\n    iadd r8, r8, r9\n"
            "    icmp_gt p0, r8, r9\n    break p0\n    endloop")


def program(lines: list[str]) -> str:
    return PROLOGUE + "".join(f"    {text}\n" for text in lines) + "    halt\n.end\n"


@contextmanager
def racecheck_limits(groups: int, logged: int):
    """`race_report.MAX_GROUPS` and `MAX_LOGGED` set for the block (both engines read them)."""
    old = race_report.MAX_GROUPS, race_report.MAX_LOGGED
    race_report.MAX_GROUPS, race_report.MAX_LOGGED = groups, logged
    try:
        yield
    finally:
        race_report.MAX_GROUPS, race_report.MAX_LOGGED = old


@contextmanager
def thread_count(count: int):
    old = os.environ.get("WAVE_LSP_THREADS")
    os.environ["WAVE_LSP_THREADS"] = str(count)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("WAVE_LSP_THREADS", None)
        else:
            os.environ["WAVE_LSP_THREADS"] = old


def check(lines, width, waves, extra, grid, mode, threads, batch, initcheck):
    need_core()
    launch = Launch(grid=(grid, 1, 1), workgroup=(width * (waves - 1) + extra, 1, 1),
                    wave_width=width, device_memory=1 << 20)
    options = RunOptions(racecheck=mode, max_batch_lanes=batch, initcheck=initcheck,
                         max_instructions=200_000)
    with thread_count(threads):
        native = assert_native_equal(program(lines), launch, options)
    found = [w for w in native.warnings if w.kind == "data_race"]
    event(f"races reported: {min(len(found), 3)}")
    for race in found:
        event(f"a {race.message.split()[3]} race ({mode})")
    return native


@SETTINGS
@given(st.lists(statement(), min_size=1, max_size=8), st.sampled_from([4, 8]),
       st.integers(2, 4), st.integers(1, 8), st.integers(1, 3),
       st.sampled_from(["benign", "strict"]), st.sampled_from([1, 2]),
       st.sampled_from([1, 1 << 20]), st.booleans())
def test_racy_programs_run_on_the_core_with_the_numpy_report(lines, width, waves, extra, grid,
                                                             mode, threads, batch, initcheck):
    check(lines, width, waves, min(extra, width), grid, mode, threads, batch, initcheck)


@SETTINGS
@given(st.lists(statement(), min_size=1, max_size=8), st.sampled_from([4, 8]),
       st.integers(2, 3), st.integers(1, 3), st.sampled_from(["benign", "strict"]),
       st.sampled_from([1, 2]), st.integers(1, 3), st.integers(1, 60))
def test_racecheck_limits_bound_both_engines_alike(lines, width, waves, grid, mode, threads,
                                                   groups, logged):
    """Few words examined per epoch, an early check every few words logged (a race spanning it
    goes unreported, one found early is the epoch's): the same reports."""
    with racecheck_limits(groups, logged):
        check(lines, width, waves, width, grid, mode, threads, 1 << 20, False)


# ---- the limits at their real size ---------------------------------------------------------
BENIGN_THEN_RACE = PROLOGUE.replace(".local_memory 512", ".local_memory 2048") + """    mov_imm r8, 0
    imul r6, r2, r4
    mov_imm r11, 16
    loop
    local_store_u32 r6, r5
    iadd r6, r6, r11
    iadd r8, r8, r9
    mov_imm r7, {words}
    icmp_ge p0, r8, r7
    break p0
    endloop
    mov_imm r6, 1600
    local_store_u32 r6, r0
    halt
.end
"""


@pytest.mark.parametrize("words, reported", [(60, True), (70, False)])
def test_benign_words_past_max_groups_hide_a_race_on_both(words, reported):
    """Two waves of four lanes store one value to 4 words an iteration (benign), then race on
    a higher word: racecheck examines MAX_GROUPS (256) words an epoch, so 70 iterations (280
    benign words) hide the race; 60 (240) do not. The core decides alike."""
    need_core()
    assert race_report.MAX_GROUPS == 256
    source = BENIGN_THEN_RACE.format(words=words)
    report, native = both_engines(source, Launch(workgroup=(8, 1, 1), wave_width=4))
    assert native.reason is None and not native.errors, (native.reason, native.errors)
    kinds = [w.kind for w in native.warnings]
    assert kinds == (["data_race"] if reported else []), native.warnings
    assert native.warnings == report.warnings
    if reported:
        assert native.warnings[0].address == 1600


def test_a_race_repeated_by_each_workgroup_is_reported_once_as_one_at_a_time():
    """Every workgroup races on the same pair of instructions, the later ones in an earlier
    epoch: the warning names workgroup 0, on one thread and on two, and in every numpy batch."""
    need_core()
    body = ["mov_imm r8, 0", "loop",
            "icmp_eq p0, r8, r15", "if p0", "imul r6, r2, r4", "local_store_u32 r6, r0", "endif",
            "barrier", "iadd r8, r8, r9", "icmp_gt p0, r8, r10", "break p0", "endloop"]
    source = program(["mov_imm r11, 2", "isub r15, r11, r3"] + body)
    launch = Launch(grid=(3, 1, 1), workgroup=(8, 1, 1), wave_width=4, device_memory=4096)
    alone = run(source, launch, RunOptions(engine="numpy", max_batch_lanes=1))
    (race,) = [w for w in alone.warnings if w.kind == "data_race"]
    assert race.workgroup == (0, 0, 0)
    for threads in (1, 2):
        for batch in (1, 1 << 20):
            with thread_count(threads):
                native = assert_native_equal(source, launch, RunOptions(max_batch_lanes=batch))
            assert native.warnings == alone.warnings

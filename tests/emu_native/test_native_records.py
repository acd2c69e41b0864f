"""The native core records what the editor shows exactly as the numpy engine's observers do:
the per-line records of the shown threads (`report.line_records`: line, pc, mnemonic, count,
first executing lanes, every kept execution's writes with their targets, values and formats,
in order) and the store-writer record (`report.writers`: line and thread of every written
byte), on the shared kernels and on random programs of the emulator's generators, with the
profile in the same run or not. Shown threads in several workgroups are left to the numpy
engine, which runs them in lock-step."""

from __future__ import annotations

from dataclasses import asdict, replace

import pytest
from hypothesis import given, strategies as st

import test_emu_differential as upstream_generated
import test_emu_hypothesis as structured
from .native_support import assert_same_report, launch_of, need_core, NativeRun
from .test_native_differential import (MAX_INSTRUCTIONS, NATIVE_PROLOGUE, SETTINGS,
                                       native_epilogue, native_statement)
from .test_native_examples import NAMES, flags_of, work  # noqa: F401 - a fixture

from wave_lsp.emu import Launch, RunOptions, run
from wave_lsp.emu.profile import profile_for
from wave_lsp.isa.profile_presets import PROFILE_TARGETS


def records_of(report) -> list:
    """The line records in order (dict keys and every field)."""
    return [(key, asdict(record)) for key, record in report.line_records.items()]


def writers_of(report) -> dict:
    """Every written byte's (line, thread), page by page."""
    writers = report.writers
    return {page: (writers.pages[page].tolist(), writers.lanes[page].tolist())
            for page in sorted(writers.pages)}


def assert_same_profile(one, other) -> None:
    """Two profile records give the same profile under every preset."""
    for target in PROFILE_TARGETS:
        assert profile_for(one, target) == profile_for(other, target), target


def assert_same_records(program, launch, options: RunOptions, *, must_run: bool = True):
    """The native run's records (and whole report) equal the numpy engine's; returns the
    native report."""
    need_core()
    numpy = run(program, launch, replace(options, engine="numpy"))
    native = run(program, launch, options)
    if native.engine != "native":
        assert not must_run, f"the native core did not run it: {native.fallback}"
        return native
    assert_same_report(numpy, NativeRun(None, native.device, native.stats, native.warnings,
                                        native.errors))
    assert native.recorded_threads == numpy.recorded_threads
    if options.record_threads is not None:
        assert records_of(native) == records_of(numpy)
    if options.writers:
        assert writers_of(native) == writers_of(numpy)
    if options.profile:
        assert_same_profile(native.profile, numpy.profile)
    return native


SHOWN = ["first_wave", [3, 1, 2], [0]]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shown", SHOWN, ids=["first_wave", "three", "one"])
def test_shared_kernels(name, shown, work):  # noqa: F811 - the fixture
    source = (upstream_generated.EXAMPLES / f"{name}.wave").read_text()
    launch = launch_of(flags_of(name, work), work)
    for limit in (256, 2):
        options = RunOptions(record_threads=shown, record_limit=limit, writers=True)
        native = assert_same_records(source, launch, options)
        if name == "mma_simple" and shown == [3, 1, 2]:     # one thread: none of them runs
            assert native.line_records == {}
        else:
            assert native.line_records and any(r.writes for r in native.line_records.values())


@pytest.mark.parametrize("name", ["gemm_blocked", "nested_if_2_levels", "loop_divergent_break",
                                  "reduction", "mma_simple"])
def test_shared_kernels_with_the_profile(name, work):  # noqa: F811 - the fixture
    source = (upstream_generated.EXAMPLES / f"{name}.wave").read_text()
    launch = launch_of(flags_of(name, work), work)
    assert_same_records(source, launch, RunOptions(record_threads="first_wave", writers=True,
                                                   profile=True))


def test_shown_threads_of_several_workgroups_run_on_numpy():
    need_core()
    source = structured.program(["iadd r3, r3, r1"])
    launch = Launch(grid=(2, 1, 1), workgroup=(4, 1, 1), wave_width=4, device_memory=4096)
    report = run(source, launch, RunOptions(record_threads=[1, 5]))
    assert report.engine == "numpy" and report.fallback == "shown threads in several workgroups"
    assert run(source, launch, RunOptions(record_threads=[5, 6])).engine == "native"


shown = st.one_of(st.just("first_wave"),
                  st.lists(st.integers(0, 40), min_size=1, max_size=6))


@SETTINGS
@given(body=structured.block(0), width=st.sampled_from([1, 4, 8, 32]),
       threads=st.integers(1, 70), grid=st.integers(1, 3), shown=shown,
       limit=st.sampled_from([1, 3, 256]), profile=st.booleans())
def test_structured_programs(body, width, threads, grid, shown, limit, profile):
    assert_same_records(structured.program(body),
                        Launch(grid=(grid, 1, 1), workgroup=(threads, 1, 1), wave_width=width,
                               device_memory=4096),
                        RunOptions(initcheck=False, max_instructions=MAX_INSTRUCTIONS,
                                   record_threads=shown, record_limit=limit, writers=True,
                                   profile=profile), must_run=False)


@SETTINGS
@given(st.lists(upstream_generated.statement(), min_size=1, max_size=10),
       st.sampled_from([4, 8, 16]), shown)
def test_float_programs_with_barriers(lines, width, shown):
    source = (upstream_generated.PROLOGUE + "".join(f"    {text}\n" for text in lines)
              + upstream_generated.store_all() + upstream_generated.EPILOGUE)
    assert_same_records(source, Launch(workgroup=(16, 1, 1), wave_width=width,
                                       device_memory=2048),
                        RunOptions(initcheck=False, record_threads=shown, writers=True),
                        must_run=False)


BY_WORKGROUP = """.kernel k
.registers 8
    mov_sr r1, sr_workgroup_id_x
    mov_sr r6, sr_thread_id_x
    mov_imm r2, 1
    icmp_eq p1, r1, r2
    if p1
    iadd r3, r1, r2
    else
    iadd r3, r6, r6
    endif
    mov_imm r4, 0
    loop
    iadd r4, r4, r2
    iadd r5, r4, r4
    icmp_gt p2, r4, r1
    break p2
    endloop
    halt
.end
"""


@pytest.mark.parametrize("shown", ["first_wave", [5, 4], [9]])
def test_regions_other_workgroups_run_are_not_the_shown_threads(shown):
    """Where the workgroups of a numpy batch part ways, the shown threads' record is that of
    their workgroup run alone (as the core runs it): the same whatever the batch."""
    launch = Launch(grid=(3, 1, 1), workgroup=(4, 1, 1), wave_width=4, device_memory=64)
    options = RunOptions(record_threads=shown)
    alone = run(BY_WORKGROUP, launch, replace(options, engine="numpy", max_batch_lanes=1))
    batched = run(BY_WORKGROUP, launch, replace(options, engine="numpy"))
    assert records_of(batched) == records_of(alone)
    lines = {record.line for record in alone.line_records.values()}
    assert (7 in lines) == (shown == [5, 4]) and (9 in lines) != (shown == [5, 4])
    assert_same_records(BY_WORKGROUP, launch, options)


@SETTINGS
@given(st.lists(native_statement(), min_size=1, max_size=12), st.sampled_from([1, 4, 8, 32]),
       st.integers(1, 40), st.integers(1, 3), shown, st.sampled_from([1, 4, 256]),
       st.booleans())
def test_every_native_instruction(lines, width, threads, grid, shown, limit, by_workgroup):
    prologue = NATIVE_PROLOGUE
    if by_workgroup:             # the first predicate parts workgroups, not only threads
        prologue = prologue.replace("icmp_lt p1, r0, r4", "icmp_lt p1, r9, r4")
    source = prologue + "".join(f"    {text}\n" for text in lines) + native_epilogue()
    assert_same_records(source, Launch(grid=(grid, 1, 1), workgroup=(threads, 1, 1),
                                       wave_width=width, device_memory=16384,
                                       local_memory=4096),
                        RunOptions(initcheck=False, max_instructions=MAX_INSTRUCTIONS,
                                   record_threads=shown, record_limit=limit, writers=True),
                        must_run=False)

"""The kernel profile's counters equal the plain per-lane reference model
(tests/profile_reference.py) on the shared kernels, the project's examples and random programs,
at the launch's width and, for kernels whose threads do not depend on the width, at every
preset's width; the numpy engine and the native core give the same counters under every
preset; presets agree with the backends' wave widths."""

from __future__ import annotations

from dataclasses import asdict, replace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from profile_launches import (example_launch, project_examples, shared_launch,
                              shared_source)
from profile_reference import reference_profile
from shared import example_names, examples_dir
from wave_lsp.emu import EngineUnavailable, Launch, RunOptions, run
from wave_lsp.emu.geometry import load_kernels, select_kernel
from wave_lsp.emu.native import core
from wave_lsp.emu.profile import profile_for
from wave_lsp.isa import InstructionClass
from wave_lsp.isa.backends import BACKEND_BY_NAME, targets_widths
from wave_lsp.isa.profile_presets import PROFILE_PRESETS, PROFILE_TARGETS, profile_preset

WIDTH_SPECIALS = {3, 4, 14, 15}      # sr_wave_id, sr_lane_id, sr_wave_width, sr_num_waves
NUMPY = RunOptions(profile=True, engine="numpy")
NATIVE = RunOptions(profile=True, engine="native")


def native_run(program, launch, options=NATIVE):
    """(report, None) from the native core, or (None, why it cannot run the launch)."""
    try:
        return run(program, launch, options), None
    except EngineUnavailable as err:
        return None, err.reason


def counters(profile) -> dict:
    return {c.line: [c.executions, c.active_lanes, c.lane_slots, c.local_wavefronts,
                     c.local_ideal_wavefronts, c.global_sectors, c.global_ideal_sectors,
                     c.divergent_branches]
            for c in profile.lines}


def width_dependent(program, launch) -> bool:
    """Whether a thread's path or addresses may depend on the wave width (wave operations or
    the width's special registers)."""
    kernel = select_kernel(load_kernels(program), launch.kernel)
    return any(i.spec.iclass is InstructionClass.WAVE
               or (i.spec.mnemonic == "mov_sr" and i.rs1 in WIDTH_SPECIALS)
               for i in kernel.instructions)


def check(program, launch, targets=PROFILE_TARGETS, native=True) -> None:
    """The numpy engine's profile equals the reference at the launch's width and, where the
    kernel allows, under every preset in `targets`; the native core's equals the numpy's."""
    report = run(program, launch, NUMPY)
    assert not report.errors, report.errors
    assert report.engine == "numpy"
    widths = {launch.wave_width} if width_dependent(program, launch) else None
    for target in targets:
        preset = profile_preset(target)
        width = preset.wave_width or launch.wave_width
        if widths is not None and width not in widths:
            continue
        expected = reference_profile(program, launch, width, preset.banks, preset.bank_bytes,
                                     preset.sector_bytes)
        assert counters(profile_for(report.profile, target)) == expected, target
    if native and core() is not None:
        result, _ = native_run(program, launch)
        if result is not None:
            assert result.engine == "native"
            for target in PROFILE_TARGETS:
                assert profile_for(result.profile, target) == profile_for(report.profile,
                                                                         target), target


@pytest.mark.parametrize("name", example_names(stem=True))
def test_shared_kernels_equal_the_reference(name):
    examples_dir()
    slow = name == "gemm_blocked"
    targets = ("default", "hip-cdna") if slow else PROFILE_TARGETS
    check(shared_source(name), shared_launch(name, small=slow), targets)


@pytest.mark.parametrize("path", project_examples(), ids=lambda p: p.name)
def test_project_examples_equal_the_reference(path):
    check(path.read_text(), example_launch(path))


def test_executions_at_the_launch_width_are_the_statistics_less_empty_waves():
    """`--stats` keeps upstream's count (a wave stepping through a region with no active lane
    counts too); the profile counts only waves with an active lane: the same where no wave
    is ever empty, one `endloop` per wave fewer where every lane breaks at once (the wave
    leaves the loop at the `break`), fewer still where waves sit out regions."""
    examples_dir()
    for name in ("vector_add", "barrier_in_loop", "reduction", "loop_divergent_break"):
        report = run(shared_source(name), shared_launch(name), NUMPY)
        profile = profile_for(report.profile)
        width = report.launch_summary["wave_width"]
        executions, stats = profile.totals["executions"], report.stats
        if name == "vector_add":
            assert executions == stats.total > 0
        elif name == "barrier_in_loop":
            assert executions == stats.total - stats.waves
        else:
            assert 0 < executions < stats.total, name
        assert profile.totals["lane_slots"] == executions * width
        assert profile.totals["wave_width"] == width


@pytest.mark.parametrize("name", example_names(stem=True))
def test_profiling_never_makes_the_native_core_fall_back(name):
    """The core runs a profiled launch whenever it runs the plain one (14 of the 16 shared
    kernels: mma is not in the core, and uninitialised-read checks bail on three)."""
    examples_dir()
    if core() is None:
        pytest.skip("the native core is not built")
    launch = shared_launch(name, small=True)
    plain, why = native_run(shared_source(name), launch, RunOptions(engine="native"))
    profiled, why_profiled = native_run(shared_source(name), launch)
    assert why_profiled == why
    if why is None:
        assert bytes(profiled.device_memory) == bytes(plain.device_memory)
        assert profiled.stats == plain.stats
        assert 0 < profile_for(profiled.profile).totals["executions"] <= plain.stats.total
        assert plain.profile is None


# ---- presets ---------------------------------------------------------------------------------
def test_presets_use_the_backends_wave_widths():
    for preset in PROFILE_PRESETS.values():
        if preset.backend is None:
            assert preset.wave_width is None
            continue
        assert preset.wave_width in BACKEND_BY_NAME[preset.backend].wave_widths
    # every width the --wave-widths check runs for a backend with a single width is its preset's
    for name, backend in BACKEND_BY_NAME.items():
        widths = {p.wave_width for p in PROFILE_PRESETS.values() if p.backend == name}
        assert widths and widths <= set(targets_widths([name]))
    assert {"ptx", "hip-cdna", "hip-rdna", "metal", "sycl"} <= set(PROFILE_TARGETS)


def test_every_preset_number_has_a_source():
    for preset in PROFILE_PRESETS.values():
        assert preset.sources and all(source for _, source in preset.sources)
        if preset.backend is not None:
            assert len(preset.sources) == 3
        assert 4096 % (preset.banks * preset.bank_bytes) == 0
        assert 4096 % preset.sector_bytes == 0


def test_unknown_target_names_the_targets():
    with pytest.raises(ValueError, match="unknown profile target 'cuda'.*ptx, hip-cdna"):
        profile_preset("cuda")


# ---- random programs ----------------------------------------------------------------------------
STRIDES = [0, 1, 2, 4, 8, 12, 16, 32, 33, 64, 128, 132]
ACCESSES = ["local_load_u32", "local_store_u32", "local_load_u8", "local_store_u16",
            "local_load_u64", "local_atomic_add", "device_load_u32", "device_store_u32",
            "device_load_u16", "device_load_u128", "device_store_u64", "atomic_add"]
guard = st.sampled_from(["", "", "@p1 ", "@!p2 "])
pred = st.sampled_from(["p1", "p2"])


@st.composite
def memory_access(draw) -> list[str]:
    mnemonic = draw(st.sampled_from(ACCESSES))
    width = 16 if mnemonic.endswith("128") else 8 if mnemonic.endswith("64") else \
        2 if mnemonic.endswith("16") else 1 if mnemonic.endswith("u8") else 4
    size = 1024 if mnemonic.startswith("local") else 4096
    mask = (size - 1) & ~(width - 1)
    g = draw(guard)
    lines = [f"mov_imm r8, {draw(st.sampled_from(STRIDES))}", "imul r8, r0, r8",
             f"mov_imm r9, {draw(st.integers(0, 300))}", "iadd r8, r8, r9",
             "iadd r8, r8, r12", f"mov_imm r9, {mask}", "and r8, r8, r9"]
    if "store" in mnemonic:
        return lines + [f"{g}{mnemonic} r8, r3"]
    if "atomic" in mnemonic:
        scope = "" if mnemonic.startswith("local") else ", .device"
        return lines + [f"{g}{mnemonic} r2, r8, r3{scope}"]
    return lines + [f"{g}{mnemonic} r4, r8"]


@st.composite
def statement(draw, depth: int) -> list[str]:
    kind = draw(st.sampled_from(["mem", "mem", "alu", "cmp", "wave"]
                                + (["if", "loop"] if depth < 2 else [])))
    if kind == "mem":
        return draw(memory_access())
    if kind == "wave":           # the profile is then compared at the launch's width only
        op = draw(st.sampled_from(["wave_reduce_add r4, r0", "wave_prefix_sum r4, r0",
                                   "wave_ballot r4, p1", "wave_shuffle_xor r4, r0, r13",
                                   "wave_broadcast r4, r0, r13", "wave_any p2, p1"]))
        return [f"{draw(guard)}{op}"]
    if kind == "alu":
        return [f"{draw(guard)}iadd r{draw(st.integers(2, 3))}, r0, r{draw(st.integers(2, 5))}"]
    if kind == "cmp":
        return [f"mov_imm r9, {draw(st.integers(0, 40))}",
                f"{draw(st.sampled_from(['icmp_lt', 'icmp_ge', 'icmp_eq']))} "
                f"{draw(pred)}, r0, r9"]
    body = draw(st.lists(statement(depth + 1), min_size=1, max_size=3))
    body = [line for part in body for line in part]
    if kind == "if":
        lines = [f"if {draw(pred)}"] + body
        if draw(st.booleans()):
            lines += ["else"] + draw(memory_access())
        return lines + ["endif"]
    counter = f"r{10 + depth}"
    head = [f"mov_imm {counter}, 0", "loop", f"iadd {counter}, {counter}, r13"]
    leave = [f"icmp_ge p3, {counter}, r14", "break p3"]
    if draw(st.booleans()):
        return head + body + leave + ["endloop"]
    # every lane meets the break before a `continue` can skip it: the loop ends
    return head + leave + [f"{draw(guard)}continue {draw(pred)}"] + body + ["endloop"]


@st.composite
def programs(draw):
    body = draw(st.lists(statement(0), min_size=1, max_size=4))
    if draw(st.booleans()):        # a barrier every wave reaches (no halt before it)
        body.insert(draw(st.integers(0, len(body))), ["barrier"])
    width = draw(st.sampled_from([1, 2, 3, 4, 8, 16, 32, 64]))
    threads = draw(st.integers(1, 70))
    groups = draw(st.integers(1, 3))
    lines = [".kernel k", ".registers 16", ".local_memory 1024",
             "mov_sr r0, sr_thread_id_x", "mov_sr r12, sr_workgroup_id_x",
             "mov_imm r13, 1", "mov_imm r9, 3", "and r14, r0, r9", "iadd r14, r14, r13",
             "mov_imm r9, 5", "icmp_lt p1, r0, r9", "mov_imm r9, 2", "and r9, r0, r9",
             "icmp_eq p2, r9, r13"]
    lines += [line for part in body for line in part] + ["halt", ".end"]
    launch = Launch(grid=(groups, 1, 1), workgroup=(threads, 1, 1), wave_width=width,
                    device_memory=4096 + 64)
    return "\n".join(lines) + "\n", launch


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs_equal_the_reference(case):
    program, launch = case
    check(program, launch)


SHARED_RUN = ["nested_if_2_levels", "loop_divergent_break", "reduction", "histogram",
              "barrier_in_loop"]


@pytest.mark.parametrize("engine", ["numpy", "native"])
@pytest.mark.parametrize("name", SHARED_RUN)
def test_the_profile_shares_a_run_with_what_the_editor_shows(name, engine):
    """One run with the profile, the per-line record and the store writers (the editor's run
    of a profiled kernel) gives the profile of a profile-only run and the records of a run
    without the profile, on either engine."""
    if engine == "native" and core() is None:
        pytest.skip("the native core is not built")
    examples_dir()
    source, launch = shared_source(name), shared_launch(name)
    shown = RunOptions(engine=engine, record_threads="first_wave", record_limit=256,
                       writers=True)
    both = run(source, launch, replace(shown, profile=True))
    alone = run(source, launch, RunOptions(engine=engine, profile=True))
    records = run(source, launch, shown)
    assert both.engine == alone.engine == records.engine == engine
    for target in PROFILE_TARGETS:
        assert profile_for(both.profile, target) == profile_for(alone.profile, target), target
    assert both.line_records and any(r.writes for r in both.line_records.values())
    assert [(k, asdict(r)) for k, r in both.line_records.items()] == \
        [(k, asdict(r)) for k, r in records.line_records.items()]
    assert both.recorded_threads == records.recorded_threads
    assert both.writers.pages.keys() == records.writers.pages.keys()
    for page in both.writers.pages:
        assert both.writers.pages[page].tolist() == records.writers.pages[page].tolist()
        assert both.writers.lanes[page].tolist() == records.writers.lanes[page].tolist()
    assert both.device_memory.tobytes() == records.device_memory.tobytes()


def test_the_profile_is_not_recorded_with_a_trace():
    from wave_lsp.emu import LaunchError
    for options in (RunOptions(profile=True, trace=True),
                    RunOptions(profile=True, mem_trace="record", engine="numpy")):
        with pytest.raises(LaunchError, match="the profile is recorded by a run without a "
                                              "trace"):
            run(".kernel k\n.registers 2\n    halt\n.end\n", Launch(), options)

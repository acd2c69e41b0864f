"""The debugger's stepping execution (`wave_lsp.emu.stepping`) gives exactly what `run` gives:
memory, errors, statistics and warnings, on the project's and upstream's examples."""

from __future__ import annotations

import re
import shlex

import numpy as np
import pytest

from numpy_engine import run
from wave_lsp.emu import IotaFill, Launch
from wave_lsp.launch.flags import build_launch, parse_launch_flags
from wave_lsp.emu.stepping import FAULTED, FINISHED, RAN, WORKGROUP_DONE, SteppingRun

from conftest import ROOT, SHARED_EXAMPLES, shared_example_names

PROJECT_EXAMPLES = sorted((ROOT / "examples").glob("*.wave"))


def documented_launch(path) -> Launch:
    text = path.read_text()
    found = re.search(r"^; Launch: wave-lsp run \S+ (.*?)\n(?!;     )", text, re.S | re.M)
    flags = shlex.split(" ".join(p.strip(" ;\\") for p in found.group(1).split("\n")))
    return build_launch(parse_launch_flags(flags), base_dir=ROOT)


def assert_same(program, launch):
    expected = run(program, launch)
    got = SteppingRun(program, launch).run_to_end()
    assert np.array_equal(got.device_memory, expected.device_memory)
    assert got.errors == expected.errors
    assert got.stats == expected.stats
    assert got.warnings == expected.warnings
    assert got.launch_summary == expected.launch_summary
    return got


@pytest.mark.parametrize("path", PROJECT_EXAMPLES, ids=[p.name for p in PROJECT_EXAMPLES])
def test_project_examples_step_to_the_same_report(path):
    report = assert_same(path.read_text(), documented_launch(path))
    assert report.stats.total > 0


@pytest.mark.parametrize("name", [n for n in shared_example_names() if n != "gemm_blocked.wave"])
def test_upstream_examples_step_to_the_same_report(name):
    if not (SHARED_EXAMPLES / name).is_file():
        pytest.skip("upstream examples are not available")
    source = (SHARED_EXAMPLES / name).read_text()
    launch = Launch(workgroup=(8, 1, 1), wave_width=4, device_memory=65536,
                    memory_init=[IotaFill(0, 64, 1.0)], set_regs={1: 8192, 2: 16384, 3: 16})
    assert_same(source, launch)


FAULTY = """\
.kernel oob
.registers 4
    mov_sr r0, sr_lane_id
    mov_imm r1, 4
    imul r2, r0, r1
    mov_imm r3, 60
    iadd r2, r2, r3
    device_store_u32 r2, r0
    halt
.end
"""


def test_a_fault_stops_at_its_instruction_with_the_same_error():
    launch = Launch(workgroup=(8, 1, 1), wave_width=4, device_memory=64)
    stepping = SteppingRun(FAULTY, launch)
    results = []
    while not stepping.finished:
        results.append(stepping.step())
    assert results[:-1] == [RAN] * 5 and results[-1] == FAULTED
    assert stepping.error.kind == "out_of_bounds" and stepping.error.line == 7
    assert stepping.current.spec.mnemonic == "device_store_u32"
    assert stepping.error == run(FAULTY, launch).errors[0]


def test_workgroups_run_one_after_another_in_order():
    launch = Launch(grid=(3, 1, 1), workgroup=(4, 1, 1), wave_width=4, device_memory=64)
    stepping = SteppingRun(FAULTY.replace("mov_imm r3, 60", "mov_imm r3, 0"), launch)
    seen = []
    while not stepping.finished:
        seen.append((stepping.workgroup, stepping.step()))
    assert [r for _, r in seen].count(WORKGROUP_DONE) == 2
    assert seen[-1] == (2, FINISHED)
    assert stepping.step() == FINISHED


def test_waves_and_masks_are_visible_between_steps():
    source = (ROOT / "examples" / "divergent_break.wave").read_text()
    stepping = SteppingRun(source, Launch(workgroup=(8, 1, 1), wave_width=4))
    assert stepping.waves == 2
    while stepping.current.spec.mnemonic != "iadd":
        stepping.step()
    # first time at the loop body: lane 0 of wave 0 has broken out (0 >= 0)
    assert stepping.active(0).tolist() == [False, True, True, True]
    assert stepping.active(1).tolist() == [False, True, True, True]
    for _ in range(4):                      # iadd, endloop, icmp_ge, break
        stepping.step()
    assert stepping.current.spec.mnemonic == "iadd"
    assert stepping.active(1).tolist() == [False, False, True, True]
    assert stepping.batch.R[0, stepping.wave_lanes(1)].tolist() == [0, 1, 2, 3]

"""Data-driven tests of the portability lints (P8xx): for each code, sources where it fires (the
range marked with «») for given targets and with words the message must contain, and sources or
targets where it must not; plus configuration (targets, enabling the off-by-default P806,
suppression)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from wave_lsp.analysis import CODES, analyze, config_from_mapping
from wave_lsp.analysis.config import load_config

from diagnostic_cases import K
from test_diagnostics import strip_markers

ALL = ("ptx", "hip", "metal", "sycl")


@dataclass(frozen=True)
class Fires:
    code: str
    source: str
    targets: tuple[str, ...] = ALL
    words: tuple[str, ...] = ()      # substrings of the message
    absent: tuple[str, ...] = ()     # substrings the message must not contain


@dataclass(frozen=True)
class Quiet:
    code: str
    source: str
    targets: tuple[str, ...] = ALL


BALLOT = "    icmp_eq p1, r1, r2\n    wave_ballot r3, p1\n"


def WG(body: str, threads: int = 64) -> str:
    """K() in a kernel that declares a workgroup of `threads` threads."""
    return K(f".workgroup_size {threads}, 1, 1\n{body}")
FIRES = [
    Fires("P801", K("    «dadd» r0, r2, r4"), words=("metal has no f64", "wave-metal"),
          absent=("ptx", "hip", "sycl")),
    Fires("P801", K("    «cvt_f64_f32» r0, r2"), ("metal",)),
    Fires("P801", K("    @p1 «dsqrt» r0, r2"), ("metal", "ptx")),
    Fires("P802", K("    iadd r1, r2, «r20»"), words=("r20", "r0..r15", "wave-ptx", "wave-sycl")),
    Fires("P802", K("    device_load_u64 «r15», r1"), ("hip",), words=("r15..r16", "wave-hip"),
          absent=("wave-ptx",)),
    Fires("P803", K(BALLOT + "    device_store_u32 r4, «r3»"), words=("hip", "64 lanes")),
    Fires("P803", K(BALLOT + "    mov r5, r3\n    local_store_u32 r4, «r5»"), ("hip",)),
    Fires("P803", K(BALLOT + "    bitcount r6, «r3»"), words=("not counted",)),
    Fires("P803", K(BALLOT + "    mov_imm r7, 0xFFFFFFFF\n    «icmp_eq p2, r3, r7»"),
          ("sycl",), words=("0xffffffff", "sycl runs 8/16/32-lane waves")),
    Fires("P804", K("    mov_imm r1, 40\n    wave_shuffle r2, r3, «r1»"), ("ptx",),
          words=("lane 40", "ptx waves of 32 lanes")),
    Fires("P804", K("    mov_imm r1, 16\n    wave_broadcast r2, r3, «r1»"), ("sycl", "hip"),
          words=("sycl waves of 8/16 lanes",), absent=("hip",)),
    Fires("P804", K("    mov_imm r1, 16\n    wave_shuffle_xor r2, r3, «r1»"), ("sycl",),
          words=("xor mask 16",)),
    Fires("P804", K("    mov_imm r1, 32\n    wave_shuffle_down r2, r3, «r1»"), ("hip",),
          words=("offset 32", "hip waves of 32 lanes")),
    Fires("P805", K("    mov_sr r1, sr_wave_width\n    mov_imm r2, 32\n    «icmp_eq p1, r1, r2»"),
          ("ptx", "hip"), words=("sr_wave_width with 32", "false at width 64")),
    Fires("P805", K("    mov_sr r1, sr_wave_width\n    mov_imm r2, 16\n    «icmp_gt p1, r2, r1»"),
          ("sycl",), words=("sr_wave_width with 16",)),
    Fires("P805", K("    mov r1, sr_lane_id\n    mov_imm r2, 31\n    «icmp_eq p1, r1, r2»"),
          ("metal", "sycl"), words=("lane 31", "sycl (8/16/32) may lack lane 31")),
    Fires("P806", K("    «atomic_sub» r1, r2, r3, .device"), ("ptx",), words=("atom.add",)),
    Fires("P807", WG("    mov r0, sr_lane_id\n    mov_imm r1, 2\n    shl r2, r0, r1\n"
                     "    device_store_u32 «r2», r0"), ("ptx", "hip"),
          words=("64 threads", "ptx runs it as waves of 32 lanes", "hip runs it as waves of 32")),
    Fires("P807", WG("    mov r0, sr_lane_id\n    local_store_u32 «r0», r0", 16), ("sycl",),
          words=("sycl runs it as waves of 8 lanes",)),
    Fires("P806", K("    «wave_reduce_add» r1, r2"), ("hip", "metal"), words=("hip:",),
          absent=("metal",)),
    Fires("P811", K("    «cvt_f32_f64» r1, r2"), ("ptx",), words=("opposite conversion", "wave-ptx")),
    Fires("P811", K("    «cvt_f16_f32» r1, r2"), words=("wave-hip", "wave-sycl"),
          absent=("wave-metal",)),
    Fires("P811", K("    «cvt_bf16_f32» r1, r2"), words=("wave-hip", "wave-metal"),
          absent=("wave-ptx", "wave-sycl")),
    Fires("P812", K("    @p1 «device_store_u32» r1, r2"), words=("guard is dropped",
                                                              "on every emitted line")),
    Fires("P812", K("    @!p2 «wave_shuffle» r1, r2, r3"), ("ptx", "hip"),
          words=("ballot of the guard", "write of the result", "--compat upstream")),
    Fires("P813", K("    «atomic_cas» r1, r2, r3, r4, .device"), words=("wave-metal", "wave-sycl",
                                                                       "compare_exchange_strong"),
          absent=("wave-ptx", "wave-hip")),
    Fires("P814", K("    «imul_hi» r1, r2, r3"), ("hip",), words=("unsigned product",)),
    Fires("P815", K("    «bitfind» r1, r2"), words=("leading zeros",)),
    Fires("P816", K("    «fround» r1, r2"), ("metal",), words=("away from zero",)),
    Fires("P817", K("    «bmul» r1, r2, r3"), words=("wave-hip", "wave-sycl", "r[N]"),
          absent=("wave-ptx", "wave-metal")),
    Fires("P823", K("    «atomic_xor» r1, r2, r3, .device"), ("ptx",), words=("wave-ptx", ".b32"),
          absent=("wave-hip",)),
    Fires("P823", K("    «hma2» r1, r2, r3, r4"), ("hip",), words=("wave-hip", "__half2")),
    Fires("P818", K("    «mma_compute» r1, r2, r3"), words=("wave-ptx", "16x16x16",
                                                                    "4x4 f32", "--compat upstream")),
    Fires("P819", K("    «wave_reduce_min» r1, r2"), words=("wave-ptx", "wave-hip", "wave-sycl",
                                                          "signed", "unsigned"),
          absent=("wave-metal",)),
    Fires("P819", K("    «wave_reduce_max» r1, r2"), ("sycl",), words=("int32_t",)),
    Fires("P820", K("    «wave_shuffle_up» r1, r2, r3"), words=("wave-ptx", "wave-metal",
                                                          "own value", "reads 0")),
    # a constant offset: upstream is right only for offset 0
    Fires("P820", K("    mov_imm r3, 1\n    «wave_shuffle_down» r1, r2, r3"), ("metal",)),
    # lane 16 is in range on PTX and HIP but not on SYCL's 8-lane sub-groups
    Fires("P820", K("    mov_imm r3, 16\n    «wave_shuffle» r1, r2, r3"), words=("wave-sycl",),
          absent=("wave-ptx", "wave-hip", "wave-metal")),
    # in divergent code a constant lane may be inactive
    Fires("P820", K("    mov_imm r3, 1\n    if p1\n    «wave_shuffle_xor» r1, r2, r3\n    endif"),
          ("ptx",), words=("inactive",)),
    Fires("P821", K("    mov_sr r3, sr_lane_id\n    «wave_broadcast» r1, r2, r3"),
          words=("first active lane", "wave-ptx", "wave-sycl")),
    Fires("P822", K("    if p1\n    «wave_reduce_add» r1, r2\n    endif"),
          words=("wave-ptx: shfl.sync", "wave-hip: a shuffle tree", "wave-sycl: a sub-group",
                 "no correct SYCL translation")),
    Fires("P822", K("    loop\n    «wave_ballot» r1, p2\n    break p1\n    endloop"), ("ptx", "hip"),
          words=("member mask 0xFFFFFFFF",), absent=("wave-hip",)),
    Fires("P822", K("    @p2 halt\n    «wave_any» p3, p1"), ("sycl",)),
    Fires("P822", K("    @p2 «wave_prefix_sum» r1, r2"), ("hip",), words=("__ballot(1)",)),
]

QUIET = [
    Quiet("P801", K("    dadd r0, r2, r4"), ("ptx", "hip", "sycl")),
    Quiet("P801", K("    fadd r0, r2, r4")),
    Quiet("P802", K("    iadd r1, r2, r15")),
    Quiet("P802", K("    device_load_u64 r14, r1")),
    # a ballot compared with 0 means "any lane": right at every width
    Quiet("P803", K(BALLOT + "    mov_imm r7, 0\n    icmp_ne p2, r3, r7")),
    # the register no longer holds the mask
    Quiet("P803", K(BALLOT + "    iadd r3, r1, r2\n    device_store_u32 r4, r3")),
    Quiet("P803", K(BALLOT + "    device_store_u32 r4, r3"), ("ptx", "metal", "sycl")),
    Quiet("P804", K("    mov_imm r1, 7\n    wave_shuffle r2, r3, r1")),
    Quiet("P804", K("    mov_imm r1, 16\n    wave_shuffle_xor r2, r3, r1"), ("ptx", "hip", "metal")),
    # the lane register is changed inside the loop: not a constant there
    Quiet("P804", K("    mov_imm r1, 40\n    loop\n    wave_shuffle r2, r3, r1\n    iadd r1, r1, r4\n"
                    "    icmp_eq p1, r1, r4\n    break p1\n    endloop"), ("ptx",)),
    # written in one branch only: unknown after endif
    Quiet("P804", K("    mov_imm r1, 4\n    if p1\n    mov_imm r1, 40\n    endif\n"
                    "    wave_shuffle r2, r3, r1"), ("ptx",)),
    Quiet("P804", K("    @p1 mov_imm r1, 40\n    wave_shuffle r2, r3, r1"), ("ptx",)),
    # every configured width gives the same outcome
    Quiet("P805", K("    mov_sr r1, sr_wave_width\n    mov_imm r2, 32\n    icmp_eq p1, r1, r2"),
          ("ptx", "metal")),
    Quiet("P805", K("    mov r1, sr_lane_id\n    mov_imm r2, 7\n    icmp_eq p1, r1, r2")),
    Quiet("P806", K("    atomic_sub r1, r2, r3, .device"), ("hip", "metal", "sycl")),
    # the launcher chooses the workgroup: nothing known
    Quiet("P807", K("    mov r0, sr_lane_id\n    device_store_u32 r0, r0")),
    # one wave covers the workgroup on every target
    Quiet("P807", WG("    mov r0, sr_lane_id\n    device_store_u32 r0, r0", 8)),
    Quiet("P807", WG("    mov r0, sr_lane_id\n    device_store_u32 r0, r0", 32), ("ptx", "hip")),
    # wave id * 64 + lane id is a thread position
    Quiet("P807", WG("    mov r0, sr_lane_id\n    mov_sr r3, sr_wave_id\n    mov_imm r4, 64\n"
                     "    imul r3, r3, r4\n    iadd r3, r3, r0\n    device_store_u32 r3, r0")),
    Quiet("P807", WG("    mov r0, sr_lane_id\n    device_load_u32 r1, r0")),
    Quiet("P811", K("    cvt_f32_f16 r1, r2"), ("metal",)),
    Quiet("P811", K("    cvt_f32_bf16 r1, r2"), ("ptx", "sycl")),
    Quiet("P812", K("    device_store_u32 r1, r2")),
    Quiet("P812", K("    @p0 device_store_u32 r1, r2")),
    Quiet("P812", K("    @p1 device_store_u32 r1, r2"), ("hip", "metal", "sycl")),
    Quiet("P812", K("    @p1 iadd r1, r2, r3")),
    Quiet("P813", K("    atomic_cas r1, r2, r3, r4, .device"), ("ptx", "hip")),
    Quiet("P814", K("    imul_hi r1, r2, r3"), ("ptx",)),
    Quiet("P815", K("    bitcount r1, r2")),
    Quiet("P816", K("    ffloor r1, r2")),
    Quiet("P817", K("    bmul r1, r2, r3"), ("ptx", "metal")),
    Quiet("P818", K("    mma_compute r1, r2, r3"), ("hip", "metal", "sycl")),
    Quiet("P823", K("    atomic_add r1, r2, r3, .device\n    hadd2 r1, r2, r3"), ("ptx",)),
    Quiet("P823", K("    hadd r1, r2, r3"), ("hip", "metal", "sycl")),
    Quiet("P819", K("    wave_reduce_min r1, r2"), ("metal",)),
    Quiet("P819", K("    wave_reduce_add r1, r2")),
    # constants in range on every target, in code every lane runs
    Quiet("P820", K("    mov_imm r3, 1\n    wave_shuffle_xor r1, r2, r3")),
    Quiet("P820", K("    mov_imm r3, 0\n    wave_shuffle_up r1, r2, r3")),
    Quiet("P820", K("    mov_imm r3, 16\n    wave_shuffle r1, r2, r3"), ("ptx", "hip", "metal")),
    Quiet("P821", K("    mov_imm r3, 2\n    wave_broadcast r1, r2, r3")),
    Quiet("P821", K("    wave_shuffle r1, r2, r3")),
    Quiet("P822", K("    wave_reduce_add r1, r2\n    if p1\n    iadd r1, r1, r1\n    endif")),
    # after the endif every lane runs again
    Quiet("P822", K("    if p1\n    iadd r1, r1, r1\n    endif\n    wave_ballot r1, p2")),
    Quiet("P822", K("    if p1\n    wave_reduce_add r1, r2\n    endif"), ("metal",)),
    Quiet("P822", K("    if p1\n    wave_shuffle r1, r2, r3\n    endif"), ("hip", "metal")),
]


def _config(targets, extra=None):
    data = {"targets": list(targets)}
    data.update(extra or {})
    config, problems = config_from_mapping(data, "test")
    assert problems == []
    return config


def _enabled(code: str, targets) -> dict:
    """Configuration turning on an off-by-default code."""
    return {} if CODES[code].enabled else {"severity": {code: "information"}}


@pytest.mark.parametrize("case", FIRES, ids=[f"{c.code}-{i}" for i, c in enumerate(FIRES)])
def test_fires(case):
    text, expected = strip_markers(case.source)
    config = _config(case.targets, _enabled(case.code, case.targets))
    found = [d for d in analyze(text, config) if d.code == case.code]
    assert len(found) == 1, found
    r = found[0].range
    assert (r.start_line, r.start_col, r.end_line, r.end_col) == expected
    for word in case.words:
        assert word in found[0].message
    for word in case.absent:
        assert word not in found[0].message


@pytest.mark.parametrize("case", QUIET, ids=[f"{c.code}-{i}" for i, c in enumerate(QUIET)])
def test_quiet(case):
    config = _config(case.targets, _enabled(case.code, case.targets))
    assert [d for d in analyze(case.source, config) if d.code == case.code] == []


def test_every_portability_code_is_tested_both_ways():
    # P824 comes from the vendors' compilers in the editor, not from the analysis
    # (tests/test_vendor_diagnostics.py, tests/server/test_vendor_explained.py)
    codes = {c for c in CODES if c.startswith("P8")} - {"P824"}
    assert {c.code for c in FIRES} == codes
    assert {c.code for c in QUIET} == codes


def test_p806_is_off_by_default_and_severity_turns_it_on():
    source = K("    atomic_sub r1, r2, r3, .device")
    assert not [d for d in analyze(source) if d.code == "P806"]
    on = analyze(source, _config(ALL, {"severity": {"P806": "hint"}}))
    assert [d.severity.label for d in on if d.code == "P806"] == ["hint"]


def test_disable_and_suppression_comment():
    source = K("    dadd r0, r2, r4")
    assert [d.code for d in analyze(source) if d.code.startswith("P")] == ["P801"]
    assert not [d for d in analyze(source, _config(ALL, {"disable": ["P801"]}))
                if d.code == "P801"]
    quiet = K("    dadd r0, r2, r4    ; wave-lsp: ignore[P801]")
    assert not [d for d in analyze(quiet) if d.code.startswith("P")]


def test_no_targets_no_portability_diagnostics():
    source = K("    dadd r0, r2, r4\n    iadd r1, r2, r30")
    assert not [d for d in analyze(source, _config(())) if d.code.startswith("P")]


def test_targets_setting_is_validated():
    config, problems = config_from_mapping({"targets": ["ptx", "cuda"]}, "test")
    assert config.targets == ("ptx",)
    assert problems and "unknown target 'cuda'" in problems[0].message
    config, problems = config_from_mapping({"targets": "ptx"}, "test")
    assert problems and "must be a list" in problems[0].message
    assert config_from_mapping({}, "test")[0].targets == ALL


def test_targets_in_project_file(tmp_path):
    path = tmp_path / "wave-lsp.toml"
    path.write_text('targets = ["metal"]\n')
    config, problems = load_config(path)
    assert problems == [] and config.targets == ("metal",)
    source = K("    dadd r0, r2, r4\n    mov_imm r1, 16\n    wave_shuffle_xor r2, r3, r1")
    codes = sorted(d.code for d in analyze(source, config) if d.code.startswith("P"))
    assert codes == ["P801"]


def test_lint_command_reads_targets(tmp_path):
    from conftest import run_wave_lsp
    (tmp_path / "wave-lsp.toml").write_text('targets = ["ptx", "hip"]\n')
    kernel = tmp_path / "k.wave"
    kernel.write_text(K("    dadd r0, r2, r4\n    mov_imm r1, 40\n    wave_shuffle r2, r3, r1"))
    result = run_wave_lsp("lint", str(kernel))
    out = result.stdout.decode()
    assert "P801" not in out            # ptx and hip have f64
    assert "P804" in out and "ptx waves of 32 lanes" in out and "hip waves of 32" in out
    (tmp_path / "wave-lsp.toml").write_text('targets = ["metal"]\n')
    out = run_wave_lsp("lint", str(kernel)).stdout.decode()
    assert "P801 warning" in out


def test_lint_targets_option_overrides_the_configuration(tmp_path):
    from conftest import run_wave_lsp
    (tmp_path / "wave-lsp.toml").write_text('targets = ["metal"]\n')
    kernel = tmp_path / "k.wave"
    kernel.write_text(K("    dadd r0, r2, r4"))
    assert b"P801" in run_wave_lsp("lint", str(kernel)).stdout
    result = run_wave_lsp("lint", "--targets", "ptx,hip", str(kernel))
    assert result.returncode == 0 and b"P801" not in result.stdout
    result = run_wave_lsp("lint", "--targets", "cuda", str(kernel))
    assert result.returncode == 2 and b"unknown target(s) cuda" in result.stderr


def test_upstream_wave_defect_lints_are_off_by_default():
    source = K("    mov_sr r3, sr_lane_id\n    if p1\n    wave_reduce_min r1, r2\n"
               "    wave_broadcast r1, r2, r3\n    wave_shuffle_up r1, r2, r3\n    endif")
    assert not [d for d in analyze(source) if d.code in ("P819", "P820", "P821", "P822")]
    on = {code: "warning" for code in ("P819", "P820", "P821", "P822")}
    found = {d.code for d in analyze(source, _config(ALL, {"severity": on}))}
    assert found >= {"P819", "P820", "P821", "P822"}

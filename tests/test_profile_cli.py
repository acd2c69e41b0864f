"""`wave-lsp run FILE ... --profile [--profile-target T] [--json]`: the table after
the normal output, hottest first, the totals, the JSON "profile" object, the presets, errors."""

from __future__ import annotations

import json
import re

import pytest

from profile_launches import shared_source
from shared import EXAMPLES, examples_dir
from wave_lsp.cli.main import main
from wave_lsp.emu import IotaFill, Launch, RunOptions, run
from wave_lsp.emu.profile import COUNTERS, profile_for
from wave_lsp.isa.profile_presets import PROFILE_TARGETS

REDUCTION = ["--fill-iota", "0:f32:256:1"]
# a local-memory column read (stride 33 words: conflict-free) and a row read with stride 32
# words (every lane in one bank), and a strided device load
STRIDED = """.kernel strided
.registers 8
.workgroup_size 64, 1, 1
.local_memory 16384
    mov_sr  r0, sr_thread_id_x
    mov_imm r1, 128
    imul    r2, r0, r1
    local_load_u32 r3, r2
    mov_imm r1, 132
    imul    r2, r0, r1
    local_load_u32 r4, r2
    mov_imm r1, 8
    imul    r2, r0, r1
    device_load_u32 r5, r2
    halt
.end
"""


def cli(capsys, *args):
    status = main(["run", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def strided(tmp_path):
    path = tmp_path / "strided.wave"
    path.write_text(STRIDED)
    return path


def test_table_follows_the_normal_output_hottest_first(capsys, strided):
    status, out, _ = cli(capsys, strided, "--dump-u32", "0:2", "--profile")
    assert status == 0
    lines = out.splitlines()
    assert lines[:2] == ["0", "0"]                        # the dump comes first, unchanged
    assert lines[2].startswith("Profile (default: wave 32, 32 banks x 4 B, 32-byte sectors)")
    rows = [line for line in lines[4:] if re.match(r"\s+\d+ ", line)]
    first = rows[0].split()
    # line 8: every lane of a wave in bank 0: 32 passes where 1 would do
    assert first[:6] == ["8", "2", "100.0%", "-", "32.0", "-"], rows[0]
    assert "local_load_u32 r3, r2" in rows[0]
    by_line = {row.split()[0]: row.split() for row in rows}
    assert by_line["11"][4] == "1.0"                      # stride 33 words: no conflict
    assert by_line["14"][5:8] == ["16", "/", "8"]         # 8-byte stride: half of each sector
    profile = profile_for(run(STRIDED, Launch(), RunOptions(profile=True)).profile)
    cost = {c.line + 1: c.executions + c.local_wavefronts + c.global_sectors
            for c in profile.lines}
    shown = [cost[int(row.split()[0])] for row in rows]
    assert shown == sorted(shown, reverse=True) and len(rows) == len(cost)
    assert lines[-2].startswith("Totals: ")
    assert "conflict ratio 16.50 (66 local wavefronts, ideal 4)" in lines[-2]
    assert "memory efficiency 50.0% (16 sectors, ideal 8)" in lines[-2]
    assert lines[-2].endswith("; 0 divergent branches")
    assert "--stats keeps upstream's count" in lines[-1]


def test_json_has_the_profile_object(capsys, strided):
    status, out, _ = cli(capsys, strided, "--profile", "--json")
    assert status == 0
    data = json.loads(out)
    profile = data["profile"]
    assert list(profile) == ["target", "lines", "totals"]
    assert profile["target"] == "default"
    for row in profile["lines"]:
        assert list(row) == ["line", *COUNTERS]
    report = run(STRIDED, Launch(), RunOptions(profile=True))
    expected = profile_for(report.profile)
    assert [row["line"] for row in profile["lines"]] == [c.line + 1 for c in expected.lines]
    assert profile["lines"][3] == {"line": 8, "executions": 2, "active_lanes": 64,
                                   "lane_slots": 64, "local_wavefronts": 64,
                                   "local_ideal_wavefronts": 2, "global_sectors": 0,
                                   "global_ideal_sectors": 0, "divergent_branches": 0}
    assert profile["totals"]["conflict_ratio"] == 16.5
    assert profile["totals"]["memory_efficiency"] == 0.5


@pytest.mark.parametrize("target", PROFILE_TARGETS)
def test_every_target_prints_its_preset(capsys, strided, target):
    status, out, _ = cli(capsys, strided, "--profile-target", target, "--json")
    assert status == 0
    profile = json.loads(out)["profile"]
    assert profile["target"] == target
    width = {"default": 32, "ptx": 32, "hip-cdna": 64, "hip-rdna": 32, "metal": 32,
             "sycl": 16}[target]
    assert profile["totals"]["wave_width"] == width
    status, out, _ = cli(capsys, strided, "--profile-target", target)
    assert f"Profile ({target}: wave {width}," in out


def test_one_run_gives_different_costs_per_target(capsys, strided):
    """Line 8 (stride 32 words, every lane in one bank): 32-way in each 32-lane wave on NVIDIA,
    the same passes over 64-lane waves on CDNA (ideal 2 per wave), 16-way in each of four
    16-lane sub-groups on Intel's 16 banks."""
    out = {}
    for target in ("ptx", "hip-cdna", "sycl"):
        _, text, _ = cli(capsys, strided, "--profile-target", target, "--json")
        lines = {r["line"]: r for r in json.loads(text)["profile"]["lines"]}
        out[target] = lines[8]["local_wavefronts"], lines[8]["local_ideal_wavefronts"]
    assert out == {"ptx": (64, 2), "hip-cdna": (64, 2), "sycl": (64, 4)}


def test_unknown_target_is_an_error_listing_the_targets(capsys, strided):
    status, out, err = cli(capsys, strided, "--profile-target", "cuda")
    assert status == 1 and out == ""
    assert err.strip() == ("Error: unknown profile target 'cuda' (targets: default, ptx, "
                           "hip-cdna, hip-rdna, metal, sycl)")


def test_profile_with_wave_widths_is_an_error(capsys, strided):
    status, _, err = cli(capsys, strided, "--profile", "--wave-widths", "16,32")
    assert status == 1 and "does not go with --wave-widths" in err


def test_the_table_and_json_are_the_numpy_engines_counters(capsys):
    """The command runs on the native core where it can; its table and JSON give the numpy
    engine's counters, line for line."""
    examples_dir()
    path = EXAMPLES / "reduction.wave"
    _, text, _ = cli(capsys, path, *REDUCTION, "--profile", "--profile-lines", "0")
    _, js, _ = cli(capsys, path, *REDUCTION, "--profile", "--json")
    numpy = run(shared_source("reduction"), Launch(memory_init=[IotaFill(0, 256, 1.0)]),
                RunOptions(profile=True, engine="numpy"))
    expected = profile_for(numpy.profile).to_json()
    assert json.loads(js)["profile"] == expected
    rows = [line.split() for line in text.splitlines() if re.match(r"\s+\d+ ", line)]
    assert sorted(int(r[0]) for r in rows) == [r["line"] for r in expected["lines"]]
    for row in rows:
        record = next(r for r in expected["lines"] if r["line"] == int(row[0]))
        assert int(row[1]) == record["executions"]
    assert shared_source("reduction").splitlines()[int(rows[0][0]) - 1].strip() in text


def test_wbin_input_profiles_by_pc(capsys, tmp_path):
    from wave_lsp.asm import assemble
    path = tmp_path / "strided.wbin"
    path.write_bytes(assemble(STRIDED).wbin())
    status, out, _ = cli(capsys, path, "--profile", "--json")
    assert status == 0
    lines = json.loads(out)["profile"]["lines"]
    assert [r["line"] for r in lines][:2] == [0, 4]            # byte offsets, not lines
    _, text, _ = cli(capsys, path, "--profile")
    assert re.search(r"0x00\w\w .*local_load_u32", text)


def test_profiled_output_is_the_plain_output_plus_the_table(capsys):
    examples_dir()
    path = EXAMPLES / "vector_add.wave"
    flags = ["--workgroup", "256,1,1", "--fill-iota", "0:f32:256:1", "--fill-iota",
             "1024:f32:256:2", "--dump-f32", "2048:4", "--stats"]
    _, plain, _ = cli(capsys, path, *flags)
    _, profiled, _ = cli(capsys, path, *flags, "--profile")
    assert profiled.startswith(plain)
    assert profiled[len(plain):].startswith("Profile (default:")


def test_api_profile_is_empty_of_memory_counters_without_accesses():
    report = run(".kernel k\n.registers 2\n    mov_imm r0, 1\n    halt\n.end\n",
                 Launch(workgroup=(8, 1, 1), wave_width=4), RunOptions(profile=True))
    profile = profile_for(report.profile)
    assert [(c.line, c.executions, c.active_lanes, c.lane_slots) for c in profile.lines] == \
        [(2, 2, 8, 8), (3, 2, 8, 8)]
    assert profile.totals["conflict_ratio"] is None

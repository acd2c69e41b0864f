"""What the profile teaches: examples/tile_transpose.wave reads a tile column with a
row of 128 bytes, a 32-way bank conflict the profile points at; padding the row by one word
(the change its comment names) gives the same output with conflict-free reads under every
preset, and the kernel's local wavefronts drop accordingly."""

from __future__ import annotations

from profile_launches import ROOT, example_launch
from wave_lsp.emu import RunOptions, run
from wave_lsp.emu.profile import profile_for
from wave_lsp.isa.profile_presets import PROFILE_TARGETS

EXAMPLE = ROOT / "examples" / "tile_transpose.wave"
ROW = "mov_imm r2, 128                 ; ROW"
PADDED = "mov_imm r2, 132                 ; ROW"
COLUMN_READ = 43                                  # 1-based, the local_load_u32


def profiles(text):
    report = run(text, example_launch(EXAMPLE), RunOptions(profile=True, engine="numpy"))
    assert not report.errors
    return report, {t: profile_for(report.profile, t) for t in PROFILE_TARGETS}


def line(profile, number):
    return next(c for c in profile.lines if c.line + 1 == number)


def test_padding_the_row_removes_the_conflict_the_profile_shows():
    text = EXAMPLE.read_text()
    assert text.count(ROW) == 1
    assert text.splitlines()[COLUMN_READ - 1].strip().startswith("local_load_u32")
    before_report, before = profiles(text)
    after_report, after = profiles(text.replace(ROW, PADDED))
    out = slice(4096, 8192)
    assert bytes(after_report.device_memory[out]) == bytes(before_report.device_memory[out])
    ways = {t: (line(before[t], COLUMN_READ).local_wavefronts
                / line(before[t], COLUMN_READ).local_ideal_wavefronts,
                line(after[t], COLUMN_READ).local_wavefronts
                / line(after[t], COLUMN_READ).local_ideal_wavefronts) for t in PROFILE_TARGETS}
    # 32 lanes in one bank (NVIDIA, RDNA, Apple, default); two 32-word banks per 64-lane CDNA
    # wave (16 times its ideal 2); one of Intel's 16 banks per 16-lane sub-group
    assert ways == {"default": (32.0, 1.0), "ptx": (32.0, 1.0), "hip-cdna": (16.0, 1.0),
                    "hip-rdna": (32.0, 1.0), "metal": (32.0, 1.0), "sycl": (16.0, 1.0)}
    for target in PROFILE_TARGETS:
        assert after[target].totals["conflict_ratio"] == 1.0
        assert after[target].totals["local_wavefronts"] < before[target].totals[
            "local_wavefronts"]
        assert after[target].totals["executions"] == before[target].totals["executions"]

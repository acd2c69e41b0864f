"""`wave-lsp run`: upstream output formats, errors, --json, --trace, --kernel; float format."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wave_lsp.cli.main import main
from wave_lsp.emu import implemented
from wave_lsp.launch.formats import rust_debug_f32, rust_debug_f32_many
from wave_lsp.isa import INSTRUCTIONS

PROGRAM = """\
.kernel first
    mov r0, sr_lane_id
    mov_imm r1, 4
    imul r2, r0, r1
    mov_imm r3, 0x3F000000
    device_store_u32 r2, r3
    halt
.end
.kernel second
    mov_imm r1, 0
    mov_imm r2, 0x41424344
    device_store_u32 r1, r2
    halt
.end
"""


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(PROGRAM)
    return path


def test_every_mnemonic_has_an_emulator_implementation():
    assert [m for m in INSTRUCTIONS if not implemented(m)] == []


@pytest.mark.parametrize("value, text", [
    (3.0, "3.0"), (0.5, "0.5"), (float("inf"), "inf"), (float("-inf"), "-inf"),
    (float("nan"), "NaN"), (1e-7, "1e-7"), (1.5e-7, "1.5e-7"), (1e16, "1e16"),
    (1e15, "1000000000000000.0"), (0.1, "0.1"), (-0.0, "-0.0"), (1e-4, "0.0001"),
    (123456789.0, "123456790.0"), (1.4e-45, "1e-45"), (3.4028235e38, "3.4028235e38"),
])
def test_rust_debug_float_format(value, text):
    assert rust_debug_f32(value) == text
    assert rust_debug_f32_many(np.array([value], dtype=np.float32)) == [text]


def test_dumps_in_upstream_order(program, capsys):
    status = main(["run", str(program), "--workgroup", "4,1,1", "--dump-memory", "0:20",
                   "--dump-u32", "0:2", "--dump-f32", "0:1", "--dump-f16", "2:1",
                   "--dump-bf16", "2:1", "--stats"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert out[0] == "Device memory 0x00000000-0x00000014:"
    assert out[1] == ("00000000: 00 00 00 3f 00 00 00 3f  00 00 00 3f 00 00 00 3f  "
                      "|...?...?...?...?|")
    assert out[2].startswith("00000010: 00 00 00 00")
    assert out[3:7] == ["1056964608", "1056964608", "0.5", "1.75"]
    assert out[7] == "0.5"
    assert out[8] == "Execution Statistics:"


def test_kernel_selection(program, capsys):
    assert main(["run", str(program), "--kernel", "second", "--dump-u32", "0:1"]) == 0
    assert capsys.readouterr().out == f"{0x41424344}\n"
    assert main(["run", str(program), "--kernel", "nope"]) == 1
    assert "no kernel named 'nope'" in capsys.readouterr().err


def test_errors_print_error_and_exit_1(tmp_path, capsys):
    path = tmp_path / "oob.wave"
    path.write_text(".kernel k\n    mov_imm r1, 0x100000\n    device_load_u32 r2, r1\n"
                    "    halt\n.end\n")
    assert main(["run", str(path), "--workgroup", "1,1,1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: memory access out of bounds: address 0x0000000000100000")
    assert "line 3" in err
    assert main(["run", str(tmp_path / "missing.wave")]) == 1
    assert capsys.readouterr().err.startswith("Error: ")
    bad = tmp_path / "bad.wave"
    bad.write_text(".kernel k\n    frobnicate r1\n.end\n")
    assert main(["run", str(bad)]) == 1
    assert "does not assemble" in capsys.readouterr().err
    assert main(["run", str(program_path(tmp_path)), "--dump-u32", "1048570:4"]) == 1


def program_path(tmp_path):
    path = tmp_path / "ok.wave"
    path.write_text(PROGRAM)
    return path


def test_json_report(program, capsys):
    assert main(["run", str(program), "--workgroup", "4,1,1", "--json",
                 "--dump-u32", "0:4"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["kernel"] == "first"
    assert data["dumps"]["u32"] == ["1056964608"] * 4
    assert data["stats"]["total"] == 6


def test_trace_format(program, capsys):
    assert main(["run", str(program), "--workgroup", "4,1,1", "--wave-width", "4",
                 "--trace-lines"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "wg(0,0,0) wave[0] pc=0x0000: mov_sr r0, sr_lane_id ; line 2 mask=0xf"
    assert lines[3] == ("wg(0,0,0) wave[0] pc=0x0014: mov_imm r3, 0x3f000000 ; line 5 "
                        "mask=0xf")
    assert len(lines) == 6


def test_wbin_input_and_set_reg(tmp_path, capsys):
    from wave_lsp.asm import assemble
    path = tmp_path / "k.wbin"
    path.write_bytes(assemble(".kernel k\n    iadd r2, r0, r1\n    mov_imm r3, 0\n"
                              "    device_store_u32 r3, r2\n    halt\n.end\n").wbin())
    assert main(["run", str(path), "--workgroup", "1,1,1", "--set-reg", "0:40",
                 "--set-reg", "r1:0x2", "--dump-u32", "0:1"]) == 0
    assert capsys.readouterr().out == "42\n"


def test_upstream_trace_format(program, capsys):
    assert main(["run", str(program), "--workgroup", "4,1,1", "--wave-width", "4",
                 "--trace"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "wg(0,0,0) wave[0] pc=0x0000: mov r0, sr_4"
    assert lines[3] == "wg(0,0,0) wave[0] pc=0x0014: mov_imm r3, 0x3f000000"
    assert len(lines) == 6


def test_run_help_describes_the_debugging_flags(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag in ("--mem-trace", "--trace-wave N", "--trace-lane N", "--trace-pc START:END",
                 "--break PC|line:N"):
        assert flag in text
    assert "upstream has no --mem-trace" in text and "upstream has no --break" in text
    assert "upstream has no trace filters" in text
    assert "mem step=S wg(X,Y,Z) wave[W] lane[L] pc=0xPPPP line N:" in text
    assert "END exclusive" in text and "[c]ontinue, [s]tep, [q]uit?" in text

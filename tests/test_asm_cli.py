"""`wave-lsp asm` and `wave-lsp dis` in-process: outputs, refusal of erroneous programs, the
`--dump-hex` format, `--no-symbols`, and clear errors for unreadable or invalid files."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from wave_lsp.asm import assemble, read_wbin
from wave_lsp.cli.main import main

PROGRAM = ".kernel k\n.registers 8\n    mov_imm r1, 1.5\n    call f\nf:\n    halt\n.end\n"


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "prog.wave"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def test_asm_writes_next_to_the_source(source):
    assert main(["asm", str(source)]) == 0
    assert source.with_suffix(".wbin").read_bytes() == assemble(PROGRAM).wbin()


def test_asm_compat_and_output_path(source, tmp_path):
    out = tmp_path / "out.bin"
    assert main(["asm", str(source), "-o", str(out), "--compat", "wave-asm"]) == 0
    assert out.read_bytes() == assemble(PROGRAM, compat=True).wbin()
    assert out.read_bytes() != assemble(PROGRAM).wbin()


def test_asm_no_symbols(source, tmp_path):
    out = tmp_path / "out.wbin"
    assert main(["asm", str(source), "-o", str(out), "--no-symbols"]) == 0
    wbin = read_wbin(out.read_bytes())
    assert wbin.symbol_size == 0 and wbin.kernels[0].name == ""


def test_dump_hex_format(source, capsys):
    assert main(["asm", str(source), "--dump-hex"]) == 0
    out = capsys.readouterr().out
    data = assemble(PROGRAM).wbin()
    lines = out.splitlines()
    assert len(lines) == (len(data) + 15) // 16
    assert lines[0] == "00000000: " + "".join(f"{b:02x} " for b in data[:16])
    assert lines[1].startswith("00000010: ")
    assert not source.with_suffix(".wbin").exists()


def test_asm_refuses_a_program_with_errors(tmp_path, capsys):
    path = tmp_path / "bad.wave"
    path.write_text(".kernel k\n    iadd r1, r2\n    frob r1\n.end\n", encoding="utf-8")
    assert main(["asm", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith(f"{path}:2:") and " error " in line for line in out)
    assert any(line.startswith(f"{path}:3:") for line in out)
    assert not path.with_suffix(".wbin").exists()


def test_asm_missing_file(tmp_path, capsys):
    assert main(["asm", str(tmp_path / "nope.wave")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_dis_round_trip(source, tmp_path, capsys):
    wbin = tmp_path / "prog.wbin"
    wbin.write_bytes(assemble(PROGRAM).wbin())
    assert main(["dis", str(wbin)]) == 0
    text = capsys.readouterr().out
    assert "call loc_0010" in text and "loc_0010:" in text and ".registers 8" in text
    assert assemble(text).wbin() == wbin.read_bytes()


def test_dis_offsets_and_raw_stay_assemblable(tmp_path, capsys):
    wbin = tmp_path / "prog.wbin"
    wbin.write_bytes(assemble(PROGRAM).wbin())
    assert main(["dis", str(wbin), "--offsets", "--raw"]) == 0
    text = capsys.readouterr().out
    assert "; 0x0020 41010010 3FC00000" in text
    assert assemble(text).wbin() == wbin.read_bytes()


def test_dis_compat_reads_wave_asm_call_targets(tmp_path, capsys):
    source = ".kernel k\n    iadd r1, r2, r3\n    call f\nf:\n    halt\n.end\n"
    data = assemble(source, compat=True).wbin()
    wbin = tmp_path / "up.wbin"
    wbin.write_bytes(data)
    assert main(["dis", str(wbin), "--compat", "wave-asm"]) == 0
    text = capsys.readouterr().out
    assert hashlib.sha256(assemble(text, compat=True).wbin()).digest() == \
        hashlib.sha256(data).digest()


def test_dis_invalid_file(tmp_path, capsys):
    path = tmp_path / "junk.wbin"
    path.write_bytes(b"WAVE\x01\x00")
    assert main(["dis", str(path)]) == 1
    assert "file too short" in capsys.readouterr().err


F64 = (".kernel f64\n.registers 8\n.workgroup_size 1, 1, 1\n    mov_imm r2, 1.5\n"
       "    dadd r0, r2, r4\n    halt\n.end\n")


@pytest.mark.parametrize("config", ["", '[tool.wave-lsp]\nseverity = { P801 = "error" }\n'])
def test_portability_findings_never_stop_assembling(tmp_path, capsys, config):
    """f64 is an optional capability (Metal lacks it): P801 is shown, the bytes are written,
    even where a project raised it to an error."""
    if config:
        (tmp_path / "pyproject.toml").write_text(config, encoding="utf-8")
    path = tmp_path / "f64.wave"
    path.write_text(F64, encoding="utf-8")
    assert main(["asm", str(path)]) == 0
    assert path.with_suffix(".wbin").read_bytes() == assemble(F64).wbin()
    err = capsys.readouterr().err
    assert "P801" in err and "nothing assembled" not in err
    assert ("P801 error" in err) == bool(config)


def test_portability_findings_never_stop_a_run(tmp_path, capsys):
    path = tmp_path / "f64.wave"
    path.write_text(F64, encoding="utf-8")
    assert main(["run", str(path), "--workgroup", "1,1,1"]) == 0
    assert "P801" not in capsys.readouterr().err


def test_syntax_errors_still_stop_assembling(tmp_path, capsys):
    path = tmp_path / "bad.wave"
    path.write_text(F64.replace("dadd r0, r2, r4", "dadd r0, r2,"), encoding="utf-8")
    assert main(["asm", str(path)]) == 1
    assert "1 error(s); nothing assembled" in capsys.readouterr().err
    assert not path.with_suffix(".wbin").exists()

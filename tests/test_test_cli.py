"""`wave-lsp test` as a command: real files, the real subprocess, its output and exit status;
and the in-process run of a test against the real `wave-lsp run` it stands for."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from wave_lsp.ide.kernel_run import run_flags

import kernel_test_cases as cases
from conftest import run_wave_lsp


def wave_test(*args, cwd: Path):
    r = run_wave_lsp("test", *map(str, args), cwd=cwd)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    return path


def test_passing_failing_error_and_tolerance_tests_in_a_folder(tmp_path):
    write(tmp_path, "a_store.wave", cases.store("0", "10", "20", "30"))
    wrong = list(cases.LOOP_BRANCH_OUTPUT)
    wrong[5] = "42"
    branch = write(tmp_path, "sub/b_branch.wave", cases.loop_branch(wrong))
    write(tmp_path, "sub/deeper/c_error.wave", cases.OUT_OF_BOUNDS.format(
        expect="; wave-lsp expect-exit: 1"))
    write(tmp_path, "sub/deeper/d_thirds.wave", cases.thirds(["0.3333", "0.6667", "1.0"],
                                                             "--tolerance 1e-4"))
    write(tmp_path, "notes.txt", "; wave-lsp run: --bogus\n; wave-lsp expect: 1\n")
    status, out, err = wave_test(".", cwd=tmp_path)
    store = cases.line_of(branch.read_text(), cases.ELSE_STORE) + 1
    assert status == 1, err
    assert out.splitlines() == [
        "a_store.wave:3: ok kernel store",
        "sub/b_branch.wave:3: FAIL kernel loop_branch",
        "    output line 6: expected 42",
        "                   got      8",
        f"    written by line {store}, lane 5",
        "sub/deeper/c_error.wave:3: ok kernel oob",
        "sub/deeper/d_thirds.wave:3: ok kernel thirds",
        "4 tests in 4 files: 3 passed, 1 failed",
    ]
    assert err == ""


def test_all_passing_exits_0_and_a_file_without_tests_is_fine(tmp_path):
    good = write(tmp_path, "good.wave", cases.store("0", "10", "20", "30"))
    plain = write(tmp_path, "plain.wave", ".kernel k\n; wave-lsp run: --dump-u32 0:1\n"
                                         "    halt\n.end\n")
    status, out, _ = wave_test(good, plain, cwd=tmp_path)
    assert status == 0
    assert out.splitlines()[-1] == "1 test in 2 files: 1 passed, 0 failed"


def test_a_folder_without_wave_files_is_a_warning(tmp_path):
    (tmp_path / "docs").mkdir()
    status, out, err = wave_test("docs", cwd=tmp_path)
    assert (status, out, err) == (0, "0 tests in 0 files: 0 passed, 0 failed\n",
                                  "docs: warning: no .wave file found there\n")


def test_unreadable_paths_exit_2(tmp_path):
    good = write(tmp_path, "good.wave", cases.store("0", "10", "20", "30"))
    (tmp_path / "latin1.wave").write_bytes(b"; caf\xe9\n")
    status, out, err = wave_test(good, "latin1.wave", "missing.wave", cwd=tmp_path)
    assert status == 2
    assert "missing.wave: error: no such file or directory" in err
    assert "latin1.wave: error: cannot read: not UTF-8 text" in err
    assert "good.wave:3: ok kernel store" in out


def test_a_failure_of_a_missing_line_and_an_unexpected_error(tmp_path):
    write(tmp_path, "short.wave", cases.store("0", "10", "20"))
    write(tmp_path, "oob.wave", cases.OUT_OF_BOUNDS.format(expect="; wave-lsp expect: 0"))
    status, out, _ = wave_test("short.wave", "oob.wave", cwd=tmp_path)
    assert status == 1
    lines = out.splitlines()
    assert lines[:3] == ["short.wave:3: FAIL kernel store",
                         "    output line 4: expected (no more lines)",
                         "                   got      30"]
    assert lines[3:5] == ["oob.wave:3: FAIL kernel oob",
                          "    exit status: expected 0, got 1"]
    assert lines[5].startswith("    stderr: Error: memory access out of bounds")


def test_update_rewrites_failing_tests_byte_for_byte(tmp_path):
    crlf = (cases.store("9").replace("\n", "\r\n").replace("    mov_sr", "\tmov_sr")
            .rstrip("\r\n"))
    path = write(tmp_path, "crlf.wave", crlf)
    passing = write(tmp_path, "pass.wave", cases.thirds(["0.3333", "0.6667", "1.0"],
                                                        "--tolerance 1e-4"))
    before = passing.read_bytes()
    status, out, _ = wave_test("--update", path, passing, cwd=tmp_path)
    assert status == 0
    assert "crlf.wave:3: updated kernel store" in out and "pass.wave:3: ok kernel thirds" in out
    assert out.splitlines()[-1] == "2 tests in 2 files: 1 passed, 0 failed, 1 updated"
    assert path.read_bytes() == crlf.replace(
        "; wave-lsp expect: 9\r\n", "".join(f"; wave-lsp expect: {v}\r\n"
                                             for v in (0, 10, 20, 30))).encode()
    assert passing.read_bytes() == before            # passing: untouched by --update
    status, out, _ = wave_test("--update", "all", passing, cwd=tmp_path)
    assert status == 0 and "pass.wave:3: updated kernel thirds" in out
    assert passing.read_bytes() == before.replace(b"0.3333", b"0.33333334").replace(
        b"0.6667", b"0.6666667")
    assert wave_test(path, passing, cwd=tmp_path)[0] == 0


def test_json_format(tmp_path):
    wrong = list(cases.LOOP_BRANCH_OUTPUT)
    wrong[1] = "4"
    text = cases.loop_branch(wrong)
    write(tmp_path, "b.wave", text)
    status, out, _ = wave_test("--format", "json", "b.wave", "nothing", cwd=tmp_path)
    assert status == 2
    data = json.loads(out)
    assert (data["files"], data["passed"], data["failed"]) == (1, 0, 1)
    assert data["unreadable"][0]["path"] == "nothing"
    [test] = data["tests"]
    assert (test["path"], test["line"], test["kernel"], test["status"]) == \
        ("b.wave", 3, "loop_branch", "failed")
    assert test["difference"] == {"what": "output", "index": 1, "line": 5, "expected": "4",
                                  "got": "3"}
    assert test["written_by"] == {"line": cases.line_of(text, cases.IF_STORE) + 1, "lane": 1}
    assert test["actual"] == cases.LOOP_BRANCH_OUTPUT and test["exit"] == 0
    assert test["flags"][-2:] == ["--kernel", "loop_branch"] and test["address"] == 4


def test_parallel_files_report_as_the_serial_run(tmp_path):
    for n in range(6):
        values = ["0", "10", "20", str(30 + (n % 2))]
        write(tmp_path, f"k{n}.wave", cases.store(*values))
    serial = wave_test("--jobs", "1", ".", cwd=tmp_path)
    parallel = wave_test("--jobs", "2", ".", cwd=tmp_path)
    assert serial == parallel
    assert serial[0] == 1 and serial[1].count("FAIL") == 3


def test_help_documents_the_format():
    r = run_wave_lsp("test", "--help")
    text = r.stdout.decode()
    for words in ("; wave-lsp expect:", "expect-exit:", "expect-stderr:", "--tolerance ATOL",
                  "--update", "--format", "written by line"):
        assert words in text


# --- the in-process run is `wave-lsp run FILE FLAGS --kernel K` -------------------------------

EQUAL_RUNS = [
    (cases.store(""), "--workgroup 4,1,1 --wave-width 4 --dump-u32 0:4 --stats"),
    (cases.store(""), "--workgroup 4,1,1 --dump-memory 0:40 --dump-f32 0:2 --dump-f16 0:3 "
                      "--dump-bf16 2:2 --dump-regs"),
    (cases.loop_branch([""]), "--workgroup 8,1,1 --wave-width 4 --dump-u32 0:8"),
    (cases.thirds([""]), "--workgroup 3,1,1 --dump-f32 0:3 --tolerance 1e-3 --lanes 0-2"),
    (cases.OUT_OF_BOUNDS.format(expect=""), "--device-memory 64 --dump-u32 0:1"),
    (cases.store(""), "--dump-u32 0:300000"),                         # a flag error
    (cases.store(""), "--grid 0,1,1"),                                # a launch error
    (cases.store(""), "--workgroup 4,1,1 --dump-u32 0:2 --json"),
    (cases.store("").replace("mov_imm r1, 10", "mov_imm r1, 1.5"),
     "--compat wave-asm --dump-u32 0:2"),                             # upstream's bytes
    (".kernel w\n.registers 4\n    iadd r1, r2, r3\n    mov_imm r0, 0\n"
     "    device_store_u32 r0, r1\n    halt\n.end\n", "--dump-u32 0:1"),   # a warning
    (".kernel a\n    halt\n.end\n.kernel b\n    mov_imm r0, 0\n    mov_imm r1, 5\n"
     "    device_store_u32 r0, r1\n    halt\n.end\n", "--arg 4:data.bin --dump-u32 0:2"),
]


@pytest.mark.parametrize("source, flags", EQUAL_RUNS)
def test_the_in_process_run_equals_wave_lsp_run(tmp_path, source, flags):
    path = write(tmp_path, "k.wave", source)
    (tmp_path / "data.bin").write_bytes((77).to_bytes(4, "little"))
    kernel = source.split(".kernel ")[-1].split()[0]
    words = shlex.split(flags)
    real = run_wave_lsp("run", "k.wave", *[w for w in words if w not in ("--lanes", "0-2")],
                        "--kernel", kernel, cwd=tmp_path)
    ours = run_flags(source, words, kernel, tmp_path)
    assert ours.stdout == real.stdout.decode().splitlines()
    assert ours.status == real.returncode
    assert ours.stderr == (real.stderr.decode().splitlines() or [""])[0]
    assert ours.status or ours.stdout            # every case prints or fails


def test_update_of_a_read_only_file_exits_2_and_leaves_it(tmp_path):
    path = write(tmp_path, "ro.wave", cases.store("9"))
    path.chmod(0o444)
    before = path.read_bytes()
    status, out, err = wave_test("--update", "ro.wave", cwd=tmp_path)
    assert status == 2
    assert "ro.wave: error: cannot write (the file is unchanged)" in err
    assert path.read_bytes() == before

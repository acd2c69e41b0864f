"""`wave-lsp lint` as a real subprocess: formats, exit statuses, configuration, bad files."""

from __future__ import annotations

import json
import re

import pytest

from conftest import ROOT, run_wave_lsp, shared_example_names, shared_examples_dir

GOOD = ".kernel k\n.registers 8\n    mov_sr r1, sr_lane_id\n    halt\n.end\n"
BAD = ".kernel k\n    ADD r1, r2, r3\n    @p0 nop\n    halt\n.end\n"
WARN = ".kernel k\n    @p0 nop\n    halt\n.end\n"
LINE = re.compile(r"^(.+):(\d+):(\d+): ([A-Z]\d{3}) (error|warning|information|hint) (.+)$")


def write(tmp_path, name, text):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def diagnostics(r) -> list[str]:
    """The diagnostic lines of a text report (without the closing summary)."""
    return [l for l in r.stdout.decode().splitlines() if LINE.match(l)]


def test_clean_file_exits_0(tmp_path):
    r = run_wave_lsp("lint", str(write(tmp_path, "good.wave", GOOD)))
    assert r.returncode == 0 and r.stdout == b"All checks passed: 1 file\n"
    r = run_wave_lsp("lint", "--quiet", str(write(tmp_path, "good.wave", GOOD)))
    assert r.returncode == 0 and r.stdout == b"" and r.stderr == b""


def test_errors_exit_1_with_sorted_lines(tmp_path):
    path = write(tmp_path, "bad.wave", BAD)
    r = run_wave_lsp("lint", str(path))
    assert r.returncode == 1
    lines = r.stdout.decode().splitlines()
    parsed = [LINE.match(l).groups() for l in lines[:-2]]
    assert [(p[1], p[2], p[3], p[4]) for p in parsed] == [
        ("2", "5", "L401", "error"), ("3", "5", "U501", "warning")]
    assert lines[-2:] == ["Found 2 problems (1 error, 1 warning) in 1 of 1 file",
                          "1 fixable with --fix"]
    assert all(p[0] == str(path) for p in parsed)


def test_warnings_fail_only_with_strict(tmp_path):
    path = str(write(tmp_path, "warn.wave", WARN))
    assert run_wave_lsp("lint", path).returncode == 0
    assert run_wave_lsp("lint", "--strict", path).returncode == 1


def test_json_format(tmp_path):
    r = run_wave_lsp("lint", "--format", "json", str(write(tmp_path, "bad.wave", BAD)))
    data = json.loads(r.stdout)
    assert [d["code"] for d in data] == ["L401", "U501"]
    fix = data[0]["fixes"][0]
    assert fix["edits"] == [{"line": 2, "column": 5, "end_line": 2, "end_column": 8,
                             "new_text": "iadd"}]


def test_directories_recursively_and_unreadable_paths(tmp_path):
    write(tmp_path, "a/one.wave", GOOD)
    write(tmp_path, "a/b/two.wave", BAD)
    write(tmp_path, "a/notes.txt", "ADD")
    r = run_wave_lsp("lint", str(tmp_path / "a"), str(tmp_path / "missing.wave"))
    assert r.returncode == 2  # an I/O problem wins, but the other files are still linted
    assert "missing.wave" in r.stderr.decode()
    assert "two.wave:2:5: L401" in r.stdout.decode() and "notes" not in r.stdout.decode()


def test_binary_and_non_utf8_files(tmp_path):
    binary = tmp_path / "k.wave"
    binary.write_bytes(b"WAVE\x01\x00\x00\x00" + bytes(40))
    latin = tmp_path / "l.wave"
    latin.write_bytes(b".kernel k\n    halt ; caf\xe9\n.end\n")
    r = run_wave_lsp("lint", str(binary), str(latin))
    out = r.stdout.decode()
    assert r.returncode == 1
    assert "k.wave:1:1: X900 error" in out and ".wbin" in out
    assert "l.wave:2:15: X901 error" in out and "0xe9" in out


def test_suppression_comments(tmp_path):
    text = (".kernel k\n    @p0 nop ; wave-lsp: ignore[U501]\n    ; wave-lsp: ignore[L401]\n"
            "    ADD r1, r2, r3\n    @p0 nop ; wave-lsp: ignore\n    @p0 nop\n    halt\n.end\n")
    r = run_wave_lsp("lint", str(write(tmp_path, "s.wave", text)))
    assert [LINE.match(l).group(2, 4) for l in diagnostics(r)] == [("6", "U501")]


def test_configuration_files(tmp_path):
    write(tmp_path, "proj/pyproject.toml",
          '[project]\nname = "x"\n\n[tool.wave-lsp]\ndisable = ["U501"]\nseverity = { L401 = "warning" }\n')
    path = write(tmp_path, "proj/src/bad.wave", BAD)
    r = run_wave_lsp("lint", str(path))
    assert r.returncode == 0
    assert [LINE.match(l).group(4, 5) for l in diagnostics(r)] == [("L401", "warning")]
    write(tmp_path, "proj/src/wave-lsp.toml", 'disable = ["L401"]\n')  # nearer file wins
    r = run_wave_lsp("lint", str(path))
    assert [LINE.match(l).group(4) for l in diagnostics(r)] == ["U501"]
    assert run_wave_lsp("lint", "--no-config", str(path)).returncode == 1


def test_invalid_configuration_is_reported(tmp_path):
    cfg = write(tmp_path, "wave-lsp.toml", 'disable = ["NOPE1"]\nseverity = { U501 = "loud" }\nfoo = 1\n')
    path = write(tmp_path, "good.wave", GOOD)
    r = run_wave_lsp("lint", str(path))
    assert r.returncode == 1
    out = diagnostics(r)
    assert all(l.startswith(f"{cfg}:") and " X902 error " in l for l in out) and len(out) == 3
    write(tmp_path, "wave-lsp.toml", "disable = [\n")
    r = run_wave_lsp("lint", str(path))
    assert r.returncode == 1 and "invalid TOML" in r.stdout.decode()


def test_usage_errors_exit_2():
    assert run_wave_lsp("lint").returncode == 2
    assert run_wave_lsp("lint", "--format", "xml", "x.wave").returncode == 2


def test_project_examples_lint_clean():
    r = run_wave_lsp("lint", "--strict", str(ROOT / "examples"))
    assert r.returncode == 0, r.stdout.decode()


# What each upstream example's INDEX.md row implies (sample: the @p0 guard and no halt in either
# kernel; atomic_cas: the CAS-encodes-as-ADD defect). Every other kernel must be clean.
EXPECTED_WARNINGS = {
    "sample.wave": ["U505", "U501", "U505"],
    "atomic_cas.wave": ["U507"],
    # uses local memory without .local_memory (the emulator's 16 KiB default hides it)
    "barrier_in_loop.wave": ["U510"],
}


@pytest.mark.parametrize("name", shared_example_names())
def test_shared_examples(name):
    folder = shared_examples_dir()
    r = run_wave_lsp("lint", "--format", "json", str(folder / name))
    data = json.loads(r.stdout)
    assert [d for d in data if d["severity"] == "error"] == []
    assert [d["code"] for d in data] == EXPECTED_WARNINGS.get(name, [])
    assert r.returncode == 0


def test_fix_rewrites_legacy_syntax_in_place(tmp_path):
    path = tmp_path / "legacy.wave"
    path.write_bytes(b".kernel k\r\n    add.s32 r1, r2, r3\r\n    ld.global.b32 r4, [r1]\r\n"
                     b"    mov r5, %tid.x\r\n    @p0 nop\r\n    halt\r\n.end\r\n")
    r = run_wave_lsp("lint", "--fix", str(path))
    assert r.returncode == 0  # what is left is a warning without a mechanical fix
    assert path.read_bytes() == (b".kernel k\r\n    iadd r1, r2, r3\r\n    device_load_u32 r4, r1\r\n"
                                 b"    mov r5, sr_thread_id_x\r\n    @p0 nop\r\n    halt\r\n.end\r\n")
    assert [LINE.match(l).group(4) for l in diagnostics(r)] == ["U501"]


def test_summary_counts_the_files_checked(tmp_path):
    write(tmp_path / "kernels", "a.wave", GOOD)
    write(tmp_path / "kernels" / "deep", "b.wave", GOOD)
    r = run_wave_lsp("lint", str(tmp_path / "kernels"), str(write(tmp_path, "c.wave", GOOD)))
    assert r.returncode == 0
    assert r.stdout.decode() == "All checks passed: 3 files\n" and r.stderr == b""


def test_a_path_without_wave_files_is_a_warning(tmp_path):
    (tmp_path / "docs").mkdir()
    write(tmp_path / "docs", "notes.txt", "not a kernel\n")
    good = str(write(tmp_path, "good.wave", GOOD))
    r = run_wave_lsp("lint", str(tmp_path / "docs"), good)
    assert r.returncode == 0
    assert r.stderr.decode() == f"{tmp_path / 'docs'}: warning: no .wave file found there\n"
    assert r.stdout.decode() == "All checks passed: 1 file\n"
    r = run_wave_lsp("lint", str(tmp_path / "docs"))
    assert r.returncode == 0 and "no .wave file found" in r.stderr.decode()
    assert r.stdout == b""
    quiet = run_wave_lsp("lint", "--quiet", str(tmp_path / "docs"), good)
    assert quiet.returncode == 0 and quiet.stdout == b"" and quiet.stderr == b""


TYPOS = ".kernel k\n.registers 8\n    add.s32 r1, r2, r3\n    iaddd r1, r2, r3\n    halt\n.end\n"


def test_fix_applies_only_safe_fixes_and_says_what_it_changed(tmp_path):
    path = write(tmp_path, "typo.wave", TYPOS)
    r = run_wave_lsp("lint", "--fix", str(path))
    assert r.returncode == 1  # the typo is left: a guess is not applied without asking
    assert path.read_text() == TYPOS.replace("add.s32", "iadd")
    assert r.stdout.decode().splitlines() == [
        f"{path}:3:5: fixed L401: Replace with 'iadd'",
        f"{path}:4:5: O201 error unknown instruction 'iaddd'; did you mean 'iadd'?",
        "Fixed 1 problem",
        "Found 1 problem (1 error) in 1 of 1 file",
        "1 fixable with --fix --unsafe-fixes",
    ]
    r = run_wave_lsp("lint", "--fix", "--unsafe-fixes", str(path))
    assert r.returncode == 0
    assert path.read_text() == TYPOS.replace("add.s32", "iadd").replace("iaddd", "iadd")
    assert r.stdout.decode().splitlines() == [f"{path}:4:5: fixed O201: Replace with 'iadd'",
                                              "Fixed 1 problem", "All checks passed: 1 file"]


def test_without_fix_the_summary_says_which_fixes_wait(tmp_path):
    path = write(tmp_path, "typo.wave", TYPOS)
    r = run_wave_lsp("lint", str(path))
    assert r.stdout.decode().splitlines()[-1] == \
        "1 fixable with --fix; 1 more fixable with --fix --unsafe-fixes"
    assert path.read_text() == TYPOS
    quiet = run_wave_lsp("lint", "--quiet", "--fix", str(path))
    assert [l for l in quiet.stdout.decode().splitlines()] == [
        f"{path}:4:5: O201 error unknown instruction 'iaddd'; did you mean 'iadd'?"]


def test_unsafe_fixes_alone_changes_nothing(tmp_path):
    path = write(tmp_path, "typo.wave", TYPOS)
    r = run_wave_lsp("lint", "--unsafe-fixes", str(path))
    assert r.returncode == 1 and path.read_text() == TYPOS
    assert r.stdout.decode().splitlines()[-1] == \
        "1 fixable with --fix; 1 more fixable with --fix --unsafe-fixes"

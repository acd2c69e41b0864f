"""`wave-lsp why`: the chain of writers of a memory word or a register lane printed down to the
kernel's inputs (lines 1-based), the recording flags, and one-line errors for bad input."""

from __future__ import annotations

import pytest

from wave_lsp.cli.main import main

KERNEL = """.kernel k
.registers 8
    mov_sr r0, sr_thread_id_x
    mov_imm r1, 4
    imul r2, r0, r1
    device_load_u32 r3, r2
    iadd r3, r3, r6
    device_store_u32 r2, r3
    halt
.end
"""
FLAGS = ["--grid", "2,1,1", "--workgroup", "4,1,1", "--wave-width", "4",
         "--fill-iota", "0:f32:8:1", "--set-reg", "6:7"]


@pytest.fixture
def kernel(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(KERNEL)
    return str(path)


def why(capsys, *args) -> tuple[int, str, str]:
    status = main(["why", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_memory_word_down_to_the_inputs(kernel, capsys):
    status, out, err = why(capsys, kernel, *FLAGS, "--address", "8")
    assert status == 0, err
    assert out.splitlines() == [
        "device[0x8] = 0x4000000e",
        "  ← line 8, lane 6: device_store_u32 r2, r3 (workgroup 1, wave 0, step 5, iteration 1)",
        "      r2 = 0x8",
        "      ← line 5, lane 6: imul r2, r0, r1 (workgroup 1, wave 0, step 2, iteration 1)",
        "          r0 = 0x2",
        "          ← line 3, lane 6: mov_sr r0, sr_thread_id_x (workgroup 1, wave 0, step 0, "
        "iteration 1)",
        "              sr_thread_id_x = 0x2 ← special register sr_thread_id_x",
        "          r1 = 0x4",
        "          ← line 4, lane 6: mov_imm r1, 0x00000004 (workgroup 1, wave 0, step 1, "
        "iteration 1)",
        "              0x4 (a constant in the code)",
        "      r3 = 0x4000000e",
        "      ← line 7, lane 6: iadd r3, r3, r6 (workgroup 1, wave 0, step 4, iteration 1)",
        "          r3 = 0x40000007",
        "          ← line 6, lane 6: device_load_u32 r3, r2 (workgroup 1, wave 0, step 3, "
        "iteration 1)",
        "              r2 = 0x8",
        "              ← line 5, lane 6: imul r2, r0, r1 (workgroup 1, wave 0, step 2, "
        "iteration 1) (above)",
        "              device[0x8] = 0x40000007",
        "              ← line 8, lane 2: device_store_u32 r2, r3 (workgroup 0, wave 0, step 5, "
        "iteration 1)",
        "                  r2 = 0x8",
        "                  ← line 5, lane 2: imul r2, r0, r1 (workgroup 0, wave 0, step 2, "
        "iteration 1) …",
        "                  r3 = 0x40000007",
        "                  ← line 7, lane 2: iadd r3, r3, r6 (workgroup 0, wave 0, step 4, "
        "iteration 1) …",
        "          r6 = 0x7 ← --set-reg 6:7"]


def test_a_register_lane_at_a_line(kernel, capsys):
    status, out, err = why(capsys, kernel, *FLAGS, "--register", "r3", "--lane", "1",
                           "--line", "8", "--depth", "1")
    assert status == 0, err
    assert out.splitlines() == [
        "r3 of thread 1 at line 8 = 0x3f800007",
        "  ← line 7, lane 1: iadd r3, r3, r6 (workgroup 0, wave 0, step 4, iteration 1)",
        "      r3 = 0x3f800000",
        "      ← line 6, lane 1: device_load_u32 r3, r2 (workgroup 0, wave 0, step 3, "
        "iteration 1) …",
        "      r6 = 0x7 ← --set-reg 6:7"]


def test_an_input_is_named(kernel, capsys):
    status, out, _ = why(capsys, kernel, *FLAGS, "--address", "0x1c")
    assert status == 0 and out.splitlines() == ["device[0x1c] = 0x40e00000",
                                                "  ← --fill-iota 0:f32:8:1"]


def test_recording_flags(kernel, capsys):
    status, out, err = why(capsys, kernel, *FLAGS, "--record-workgroups", "1", "--register",
                           "r3", "--lane", "1", "--line", "8")
    assert status == 1 and err == ("Error: thread 1 is in workgroup 0, which was not recorded "
                                   "(--record-workgroups)\n")
    status, out, err = why(capsys, kernel, *FLAGS, "--record-steps", "4:", "--register", "r3",
                           "--lane", "5", "--line", "8", "--depth", "1")
    assert status == 0, err
    assert out.splitlines()[2:] == [
        "      r3 = ? ← written before step 4 (outside --record-steps)",
        "      r6 = 0x7 ← --set-reg 6:7"]


def test_a_budget_too_small_says_what_to_do(kernel, capsys):
    big = ["--grid", "1024,1,1", "--workgroup", "256,1,1", "--device-memory", "65536"]
    status, out, err = why(capsys, kernel, *big, "--record-budget", "1", "--address", "0")
    assert status == 1 and out == ""
    assert err.startswith("Error: the recording needs more than its budget of 1 MiB (it stopped "
                          "at workgroup ")
    assert "--record-workgroups 0" in err and "--record-steps" in err and err.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    ([], "give --address A or --register REG --lane T --line L"),
    (["--address", "8", "--register", "r1"], "give --address or --register, not both"),
    (["--register", "r3", "--lane", "1"], "--register needs --lane T and --line L"),
    (["--register", "r3", "--lane", "1", "--line", "0"], "--line: lines count from 1, got 0"),
    (["--register", "r9", "--lane", "1", "--line", "8"], "'r9' is not a register or predicate"),
    (["--register", "r3", "--lane", "x", "--line", "8"], "--lane: 'x' is not an integer"),
    (["--register", "r3", "--lane", "1", "--line", "3", "--iteration", "2"],
     "line 3 ran 1 times in thread 1, not 2"),
    (["--address", "4096"], "address 0x1000 is outside device memory"),
    (["--address", "0", "--record-steps", "5"], "--record-steps: expected FIRST:END"),
    (["--address", "0", "--record-steps", "5:2"], "--record-steps: FIRST:END with 0 <= FIRST"),
    (["--address", "0", "--record-workgroups", "1-"],
     "--record-workgroups: '1-' is not an id or range"),
    (["--address", "0", "--record-budget", "0"], "--record-budget: must be at least 1 MiB"),
])
def test_bad_input_is_one_line(kernel, capsys, args, message):
    status, out, err = why(capsys, kernel, "--device-memory", "4096", *args)
    assert status == 1 and out == ""
    assert err.startswith("Error: ") and message in err and err.count("\n") == 1, err


def test_a_missing_file(tmp_path, capsys):
    status, _, err = why(capsys, str(tmp_path / "none.wave"), "--address", "0")
    assert status == 1 and err.startswith(f"Error: cannot read '{tmp_path / 'none.wave'}'")

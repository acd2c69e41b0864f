"""`wave_lsp.ide.kernel_tests` in process: finding the tests of a file, running and comparing
them, tracing a wrong value to its store, and rewriting expectations byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_lsp.ide.expectations import Tolerance, lines_match, parse_tolerance, ToleranceError
from wave_lsp.ide.kernel_run import dump_address
from wave_lsp.launch.flags import DumpRequest
from wave_lsp.ide.kernel_tests import discover, run_test, update_expectations, updated_text

import kernel_test_cases as cases

PATH = Path("/nonexistent/k.wave")      # the folder is only used for --arg files


def only(text: str):
    tests = discover(text)
    assert len(tests) == 1, tests
    return run_test(text, tests[0], path=PATH)


def test_discover_reads_the_expectation_block():
    text = cases.store("0", "", "20") + (
        "; wave-lsp run: --dump-u32 0:1\n"        # no expectations: an editor launch line
        "\n"
        "; wave-lsp expect: 7\n")                 # not directly after its launch line
    [test] = discover(text)
    assert (test.kernel, test.launch_line) == ("store", 2)
    assert test.expect_lines == (3, 4, 5)
    assert test.expected == ("0", "", "20")
    assert (test.exit_status, test.stderr, test.tolerance, test.problem) == (0, None, None, None)
    assert test.block == range(3, 6)
    assert test.command == ["--workgroup", "4,1,1", "--wave-width", "4", "--dump-u32", "0:4",
                            "--kernel", "store"]


def test_discover_exit_stderr_tolerance_and_problems():
    [test] = discover(cases.thirds(["1"], "--tolerance 1e-6:0.01 --lanes 0-2"))
    assert test.tolerance == Tolerance(1e-6, 0.01)
    assert "--lanes" not in test.command and "--tolerance" in test.command
    block = ("; wave-lsp run: --dump-u32 0:1\n; wave-lsp expect-exit: 1\n"
             "; wave-lsp expect-stderr: Error: boom\n; wave-lsp expect-exit: 2\n")
    [test] = discover(".kernel k\n" + block + "    halt\n.end\n")
    assert (test.exit_status, test.exit_line) == (1, 2)
    assert (test.stderr, test.stderr_line) == ("Error: boom", 3)
    assert test.problem == "line 5: a second 'expect-exit:' (the first is on line 3)"
    [test] = discover(".kernel k\n; wave-lsp run: --tolerance x\n; wave-lsp expect-exit: one\n"
                      "    halt\n.end\n")
    assert "'one' is not an exit status" in test.problem and "--tolerance" in test.problem
    outcome = run_test("", test, path=PATH)
    assert not outcome.passed and not outcome.ran and outcome.message == test.problem


def test_a_passing_test():
    outcome = only(cases.store("0", "10", "20", "30"))
    assert outcome.passed and outcome.ran and outcome.message == "passed"
    assert outcome.actual == ("0", "10", "20", "30") and outcome.first_difference is None


def test_a_failing_value_names_its_store():
    outcome = only(cases.store("0", "10", "25", "30"))
    assert not outcome.passed
    assert outcome.first_difference[:3] == (2, "25", "20")
    assert outcome.line == 5                    # the expect line of the wrong value
    assert outcome.address == 8
    store = cases.line_of(cases.store("0"), "device_store_u32") + 3
    assert outcome.written_by == (store, 2)
    assert outcome.message == f"line {store + 1}, lane 2 wrote 20, expected 25"


def test_a_failing_test_is_explained_from_its_one_run(monkeypatch):
    """The test's run carries the store-writer record: no second run finds the writer."""
    import wave_lsp.emu as emu
    real, runs = emu.run, []

    def counted(*args, **kwargs):
        report = real(*args, **kwargs)
        runs.append(report.engine)
        return report

    monkeypatch.setattr(emu, "run", counted)
    outcome = only(cases.store("0", "10", "25", "30"))
    store = cases.line_of(cases.store("0"), "device_store_u32") + 3
    assert len(runs) == 1
    from wave_lsp.emu.native import core
    if core() is not None:          # the native core records the writers itself
        assert runs == ["native"]
    assert outcome.written_by == (store, 2)
    assert outcome.message == f"line {store + 1}, lane 2 wrote 20, expected 25"
    runs.clear()
    assert only(cases.store("0", "10", "20", "30")).passed and len(runs) == 1


def test_the_last_of_several_stores_is_named():
    """Both workgroups store to the same words; workgroups run in order, so the second wrote
    them last: lane is the writing thread's global id (4 + lane)."""
    text = cases.store("0", "10", "21", "30").replace("--workgroup 4,1,1",
                                                      "--grid 2,1,1 --workgroup 4,1,1")
    outcome = only(text)
    assert outcome.written_by == (cases.line_of(text, "device_store_u32"), 6)


@pytest.mark.parametrize("thread, store", [(1, cases.IF_STORE), (5, cases.ELSE_STORE)])
def test_attribution_through_a_loop_and_a_divergent_branch(thread, store):
    expected = list(cases.LOOP_BRANCH_OUTPUT)
    expected[thread] = "42"
    text = cases.loop_branch(expected)
    outcome = only(text)
    assert outcome.first_difference[:3] == (thread, "42", cases.LOOP_BRANCH_OUTPUT[thread])
    assert outcome.written_by == (cases.line_of(text, store), thread)
    assert outcome.address == 4 * thread


def test_missing_and_extra_lines():
    short = only(cases.store("0", "10"))
    assert short.first_difference[:3] == (2, None, "20")
    assert short.message == "2 more output line(s) than expected, the first: '20'"
    long = only(cases.store("0", "10", "20", "30", "40"))
    assert long.first_difference[:3] == (4, "40", None)
    assert long.message == "the output ends after 4 line(s), expected 5"
    assert long.line == 7                       # the last expect line


def test_expecting_an_error():
    error = ("Error: memory access out of bounds: address 0x0000000000001000 (4-byte device "
             "access, device memory is 64 bytes) [pc 0x0008, line 7, workgroup (0,0,0), "
             "wave 0, lanes 0]")
    ok = only(cases.OUT_OF_BOUNDS.format(expect="; wave-lsp expect-exit: 1\n"
                                                "; wave-lsp expect-stderr: " + error))
    assert ok.passed and ok.exit_status == 1 and ok.stderr == error
    wrong = only(cases.OUT_OF_BOUNDS.format(expect="; wave-lsp expect-exit: 1\n"
                                                   "; wave-lsp expect-stderr: Error: other"))
    assert not wrong.passed and wrong.first_difference.what == "stderr" and wrong.line == 4
    unexpected = only(cases.OUT_OF_BOUNDS.format(expect="; wave-lsp expect: 0"))
    assert unexpected.first_difference[:4] == (1, "0", "1", "exit")
    assert unexpected.message == "exit status 1, expected 0: " + error.replace("line 7", "line 6")


def test_tolerance():
    exact = ["0.33333334", "0.6666667", "1.0"]
    rounded = ["0.3333", "0.6667", "1.0"]
    assert only(cases.thirds(exact)).passed
    assert not only(cases.thirds(rounded)).passed
    assert only(cases.thirds(rounded, "--tolerance 1e-4")).passed
    assert only(cases.thirds(rounded, "--tolerance 0:3e-4")).passed
    failed = only(cases.thirds(rounded, "--tolerance 1e-5"))
    assert failed.first_difference[:3] == (0, "0.3333", "0.33333334")


def test_line_comparison_rules():
    tol = parse_tolerance("0.01")
    assert lines_match("a 1.0  2", "a 1.005  2", tol)
    assert not lines_match("a 1.0  2", "a 1.005 2", tol)        # separators are exact
    assert not lines_match("1.0", "1.005", None)
    assert lines_match("NaN", "NaN", tol) and not lines_match("NaN", "1.0", tol)
    assert not lines_match("inf", "-inf", Tolerance(1e30)) and lines_match("-inf", "-inf", tol)
    assert not lines_match("x1.0", "x1.001", tol)              # not a number: exact
    assert parse_tolerance("1e-6:0.5") == Tolerance(1e-6, 0.5)
    for bad in ("", "-1", "nan", "1:2:3", "inf"):
        with pytest.raises(ToleranceError):
            parse_tolerance(bad)


def test_memory_dump_lines_map_to_their_first_differing_byte():
    requests = (DumpRequest("memory", 16, 40), DumpRequest("u32", 256, 3),
                DumpRequest("f16", 512, 2))
    row = "00000020: 00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|"
    other = row.replace("0a 0b", "0a 7b")
    assert dump_address(requests, 0, None, None) is None                  # the header
    assert dump_address(requests, 2, row, other) == (32 + 11, 1)
    assert dump_address(requests, 4, "3", "4") == (256, 4)
    assert dump_address(requests, 6, "3", "4") == (264, 4)
    assert dump_address(requests, 8, "1.0", "2.0") == (514, 2)
    assert dump_address(requests, 9, "1.0", "2.0") is None                # past the dumps


def test_a_memory_dump_failure_names_the_byte_and_store():
    text = cases.STORE.replace("--dump-u32 0:4", "--dump-memory 0:16").format(
        expect="; wave-lsp expect: x")
    [test] = discover(text)
    actual = run_test(text, test, path=PATH).actual
    assert actual[1].startswith("00000000: 00 00 00 00 0a 00 00 00")
    wrong = actual[1].replace("0a 00 00 00", "0b 00 00 00", 1)
    text = text.replace("; wave-lsp expect: x", "; wave-lsp expect: " + actual[0] +
                        "\n; wave-lsp expect: " + wrong)
    outcome = only(text)
    assert outcome.address == 4
    assert outcome.written_by == (cases.line_of(text, "device_store_u32"), 1)


def test_update_rewrites_only_expectations_byte_for_byte():
    text = ("; header\twith a tab\r\n.kernel store\r\n.registers 8\r\n"
            "\t;; wave-lsp run: --workgroup 4,1,1 --wave-width 4 --dump-u32 0:4\r\n"
            "\t;; wave-lsp expect: 1\r\n"
            "    mov_sr  r0, sr_lane_id\r\n    mov_imm r1, 10\r\n    imul    r2, r0, r1\r\n"
            "    mov_imm r3, 4\r\n    imul    r4, r0, r3\r\n    device_store_u32 r4, r2\r\n"
            "    halt\r\n; wave-lsp run: --dump-u32 0:1\r\n; wave-lsp expect: 0\r\n.end")
    tests = discover(text)
    outcomes = [run_test(text, t, path=PATH) for t in tests]
    assert [o.passed for o in outcomes] == [False, True]
    new = updated_text(text, outcomes)
    assert new == text.replace("\t;; wave-lsp expect: 1\r\n",
                               "\t;; wave-lsp expect: 0\r\n\t;; wave-lsp expect: 10\r\n"
                               "\t;; wave-lsp expect: 20\r\n\t;; wave-lsp expect: 30\r\n")
    assert updated_text(text, outcomes, all_tests=True) == new    # the passing one is equal
    again = [run_test(new, t, path=PATH) for t in discover(new)]
    assert all(o.passed for o in again)
    assert updated_text(new, again) == new


def test_update_of_a_block_ending_the_text():
    """A block that ends the text keeps having no line break after it (updated_text works on
    any lines the caller gives, though a test always has code after its block)."""
    text = ".kernel k\n; wave-lsp run: --dump-u32 0:2\n; wave-lsp expect: 9\n    halt\n.end"
    [outcome] = [run_test(text, t, path=PATH) for t in discover(text)]
    cut = text[:text.index("\n    halt")]
    assert updated_text(cut, [outcome]) == cut.replace(
        "; wave-lsp expect: 9", "; wave-lsp expect: 0\n; wave-lsp expect: 0")


def test_update_writes_errors_and_an_empty_output():
    text = cases.OUT_OF_BOUNDS.format(expect="; wave-lsp expect: 0")
    [outcome] = [run_test(text, t, path=PATH) for t in discover(text)]
    once = updated_text(text, [outcome])
    assert "; wave-lsp expect-exit: 1\n; wave-lsp expect-stderr: Error: memory access out " \
           "of bounds" in once and "; wave-lsp expect: 0" not in once
    assert "line 6," in once and not only(once).passed    # the error's line moved down by one
    new, chosen = update_expectations(text, PATH)
    assert chosen == [0] and new == once.replace("line 6,", "line 7,")
    assert only(new).passed
    empty = cases.STORE.replace(" --dump-u32 0:4", "").format(expect="; wave-lsp expect: 1")
    [outcome] = [run_test(empty, t, path=PATH) for t in discover(empty)]
    updated = updated_text(empty, [outcome])
    assert "; wave-lsp expect-exit: 0\n" in updated and only(updated).passed


def test_a_launch_line_that_cannot_be_parsed_is_not_run():
    outcome = only(cases.store("0").replace("--dump-u32 0:4", "--dump-u32 0:4 --bogus"))
    assert not outcome.ran and "--bogus" in outcome.message
    text = cases.store("0").replace("--dump-u32 0:4", "--dump-u32 0:4 --bogus")
    assert updated_text(text, [outcome], all_tests=True) == text


def test_arg_files_are_relative_to_the_file_and_confined_to_a_root(tmp_path):
    (tmp_path / "data.bin").write_bytes((7).to_bytes(4, "little"))
    text = (".kernel k\n; wave-lsp run: --arg 0:data.bin --dump-u32 0:1\n; wave-lsp expect: 7\n"
            "    halt\n.end\n")
    [test] = discover(text)
    assert run_test(text, test, path=tmp_path / "k.wave").passed
    assert run_test(text, test, path=tmp_path / "k.wave", root=tmp_path).passed
    outside = run_test(text, test, path=tmp_path / "k.wave", root=tmp_path / "sub")
    assert not outside.ran and not outside.passed and "leaves" in outside.message


def test_trace_is_left_out_and_gpu_or_several_widths_cannot_be_tests():
    traced = only(cases.store("0", "10", "20", "30").replace("--dump-u32", "--trace --dump-u32"))
    assert traced.passed and traced.stderr == ""
    for flags, words in (("--device cuda", "--device"), ("--wave-widths 4,8", "--wave-widths")):
        outcome = only(cases.store("0").replace("--dump-u32", f"{flags} --dump-u32"))
        assert not outcome.ran and words in outcome.message


def test_update_all_names_only_the_tests_it_changed():
    text = cases.store("0", "10", "20", "30") + cases.store("0").replace(".kernel store",
                                                                         ".kernel other")
    new, changed = update_expectations(text, PATH, all_tests=True)
    assert changed == [1]
    right = cases.store("0", "10", "20", "30")
    assert new == right + right.replace(".kernel store", ".kernel other")


def test_update_of_one_test_keeps_a_passing_test_below_it_passing():
    """A rewritten block of another length moves the lines below it: a test there that passed,
    and whose error names a source line, must pass in the written text too (found by
    benchmarks/fuzz_surfaces.py: `test --update` exited 0, then `test` failed)."""
    failing = cases.store("99", "98", "97", "96", "95")            # one line too many
    same_length = cases.store("0", "10", "20", "30") + "; five lines, as above\n"
    oob = cases.OUT_OF_BOUNDS.format(expect="; wave-lsp expect: 0")
    right, _ = update_expectations(same_length + oob, PATH)       # the error's line as it is
    text = failing + right[len(same_length):]
    assert [run_test(text, t, path=PATH).passed for t in discover(text)] == [False, True]
    new, chosen = update_expectations(text, PATH)
    assert [run_test(new, t, path=PATH).passed for t in discover(new)] == [True, True]
    assert chosen == [0, 1]       # the error line of the second test moved with the first

"""The window of a kernel test's output: the editor (and `wave-lsp test`'s text
report) keeps the first lines of what a test printed, at least one more than it expects, and
counts the rest; the comparison, the messages and the diagnostics are those of the whole
output, an update never writes a window as expectations, and the window stays small whatever
the test prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wave_lsp.cli.main import main
from wave_lsp.ide.kernel_run import first_lines
from wave_lsp.ide.kernel_tests import discover, run_test, updated_text
from wave_lsp.ide import test_view
from wave_lsp.ide.test_view import KEPT_OUTPUT_LINES, DocumentTests, problems

PATH = Path("/nonexistent/k.wave")


def dumping(values: int, *expected: str) -> str:
    return (".kernel dumping\n.registers 4\n    mov_sr r1, sr_thread_id_x\n    halt\n"
            f"; wave-lsp run: --device-memory {4 * values} --fill-iota 0:f32:{values} "
            f"--dump-f32 0:{values}\n"
            + "".join(f"; wave-lsp expect: {e}\n" for e in expected) + ".end\n")


@pytest.mark.parametrize("text", ["", "a", "a\n", "a\nb", "a\r\nb\n\nc", "x\n" * 50])
@pytest.mark.parametrize("size", [1, 2, 3, 7])
@pytest.mark.parametrize("keep", [0, 1, 3, 1000])
def test_first_lines_are_those_splitlines_gives(text, size, keep):
    chunks = [text[i:i + size] for i in range(0, len(text), size)]
    lines = text.splitlines()
    assert first_lines(chunks, keep) == (lines[:keep], len(lines))


def test_a_window_compares_as_the_whole_output():
    text = dumping(5000, "0.0", "1.0")
    [test] = discover(text)
    whole = run_test(text, test, path=PATH)
    window = run_test(text, test, path=PATH, keep_lines=16)
    assert (whole.printed, len(whole.actual), whole.left_out) == (5000, 5000, 0)
    assert (window.printed, len(window.actual), window.left_out) == (5000, 16, 4984)
    assert window.actual == whole.actual[:16]
    assert window.message == whole.message == \
        "4,998 more output line(s) than expected, the first: '2.0'"
    assert (window.passed, window.first_difference) == (whole.passed, whole.first_difference)
    lines = text.split("\n")
    assert [p.diagnostic.message for p in problems(test, window, lines)] == \
        [p.diagnostic.message for p in problems(test, whole, lines)] == [
            "kernel test dumping: the run printed 4,998 more line(s) after this one, the "
            "first: “2.0”"]


def test_a_window_keeps_one_more_line_than_the_test_expects():
    expected = [f"{float(i)}" for i in range(40)]
    text = dumping(100, *expected)
    [test] = discover(text)
    outcome = run_test(text, test, path=PATH, keep_lines=4)
    assert len(outcome.actual) == 41 and outcome.printed == 100
    assert outcome.message == "60 more output line(s) than expected, the first: '40.0'"


def test_a_window_is_never_written_as_expectations():
    text = dumping(3000, "0.0")
    [test] = discover(text)
    window = run_test(text, test, path=PATH, keep_lines=KEPT_OUTPUT_LINES)
    assert updated_text(text, [window]) == text
    small = run_test(text, test, path=PATH)
    assert updated_text(text, [small]).count("wave-lsp expect:") == 3000


def test_the_editor_state_keeps_the_window_and_the_count():
    text = dumping(3000, "0.0")
    [test] = discover(text)
    outcome = run_test(text, test, path=PATH, keep_lines=KEPT_OUTPUT_LINES)
    state = DocumentTests()
    state.store([test_view.TestRecord(test, outcome, 1)])
    kept, printed = state.printed[(test.kernel, test.flags)]
    assert (len(kept), printed) == (KEPT_OUTPUT_LINES, 3000)


def test_the_text_report_and_the_json_of_wave_lsp_test(capsys, tmp_path):
    path = tmp_path / "dumping.wave"
    path.write_text(dumping(3000, "0.0"))
    assert main(["test", str(path)]) == 1
    out = capsys.readouterr().out
    assert "3,000" not in out and "2,999 more output line(s) than expected" not in out
    assert "output line 2: expected (no more lines)" in out
    assert main(["test", "--format", "json", str(path)]) == 1
    [found] = json.loads(capsys.readouterr().out)["tests"]
    assert len(found["actual"]) == 3000            # the JSON report keeps the whole output

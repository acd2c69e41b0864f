"""Kernel tests in VS Code's Testing view, in a real VS Code (code-server) at 1280×800: the
workspace's tests listed file → kernel → launch line, run icons in the gutter, Run All with a
failure shown as an expected/actual diff and a message at the store that wrote the wrong value,
the outcome lens, and the Debug profile stopping at a breakpoint in the kernel debugger.
Screenshots under test-artifacts/vscode/testing/; the README's (a failing test) under
vscode-extension/media/screenshots/."""

from __future__ import annotations

import pytest

from kernel_test_cases import LOOP_BRANCH_OUTPUT, loop_branch, store

from .conftest import workbench
from .test_first_hour import readme_shot

WRONG = ["0", "10", "25", "30"]        # lane 2 stores 20
EXPLORER = ".test-explorer .monaco-list-row"


@pytest.fixture(scope="module")
def vscode(vsix, tmp_path_factory):
    def prepare(folder):
        (folder / "store_test.wave").write_text(store(*WRONG))
        (folder / "loop_test.wave").write_text(loop_branch(LOOP_BRANCH_OUTPUT))

    with workbench(tmp_path_factory, vsix, "testing", {"debug.toolBarLocation": "docked"},
                   prepare) as wb:
        wb.viewport(1280, 800)
        yield wb


def rows(vscode) -> list[str]:
    return vscode.texts(EXPLORER)


def icons(vscode, where: str, state: str) -> int:
    return vscode.count(f"{where} .codicon-testing-{state}-icon")


def expand(vscode, file: str, kernel: str) -> None:
    """Opens a file's row and its first kernel's in the tree (a click toggles a row; the
    keyboard then goes down to the kernel and opens it)."""
    def shown(start: str) -> bool:
        return any(r.startswith(start) for r in rows(vscode))
    vscode.click(EXPLORER, file)
    if not shown(kernel):
        vscode.click(EXPLORER, file)
    vscode.wait_until(lambda: shown(kernel), f"{kernel} under {file}")
    vscode.press(["ArrowDown", "ArrowRight"])
    vscode.wait_until(lambda: shown("line "), f"the tests of {kernel}")


def lens_text(vscode) -> str:
    return " ".join(vscode.texts(".codelens-decoration"))


def gutter(vscode, state: str = "") -> list[str]:
    """The editor's test glyphs (`testing-run-glyph`), those showing `state` when given."""
    return [c for c in vscode.classNames(".testing-run-glyph") if state in c]


def test_the_workspace_tests_are_listed_with_run_icons_in_the_gutter(vscode):
    vscode.openFile("store_test.wave")
    vscode.command("View: Show Testing")
    listed = vscode.wait_until(
        lambda: (r := rows(vscode)) and {"store_test.wave", "loop_test.wave"} <= set(r) and r,
        "both test files in the Testing view")
    assert len(listed) == 2      # collapsed: one row per file
    # the kernel's `.kernel` line and the test's launch line get run icons
    glyphs = vscode.wait_until(lambda: len(gutter(vscode)) == 2 and gutter(vscode),
                               "two run icons in the gutter")
    # the kernel's runs all its tests, the launch line's its own
    assert ["run-all-icon" in glyphs[0], "testing-run-icon" in glyphs[1]] == [True, True]
    vscode.screenshot("01-tests-listed")


def top_of_the_editor(vscode) -> None:
    """The editor scrolled to its first line (opening the results panel, which shrinks the
    editor, leaves code-server's editor scrolled past the end of a short file)."""
    vscode.click(".editor-instance .monaco-editor .view-lines")
    vscode.press("Control+Home")
    vscode.wait_until(lambda: ".kernel store" in vscode.editorText(), "the top of the file")


def test_run_all_shows_the_failure_as_a_diff_and_the_wrong_store(vscode):
    vscode.command("Test: Run All Tests")
    vscode.wait_until(lambda: icons(vscode, EXPLORER, "failed") >= 1 and
                      icons(vscode, EXPLORER, "passed") >= 1, "the results in the tree")
    expand(vscode, "store_test.wave", "store")
    listed = vscode.wait_until(lambda: len(rows(vscode)) == 4 and rows(vscode),
                               "the failing file's kernel and test")
    starts = ["loop_test.wave", "store_test.wave", "store", "line 3"]
    assert all(row.startswith(start) for row, start in zip(listed, starts)), listed
    assert listed[3].startswith("line 3") and "--dump-u32 0:4" in listed[3]
    assert icons(vscode, EXPLORER, "failed") == 3 and icons(vscode, EXPLORER, "passed") == 1
    top_of_the_editor(vscode)
    vscode.wait_until(lambda: len(gutter(vscode, "failed")) == 2, "failed icons in the gutter")
    vscode.wait_until(lambda: "✕ failed: line 13" in lens_text(vscode), "the outcome lens")
    vscode.click(".monaco-list-row", 'expected "25", got "20"')
    # the store's message, inline at its line
    vscode.wait_until(lambda: "The first wrong value was stored here: line 13" in
                      " ".join(vscode.texts(".editor-instance .monaco-editor")),
                      "the message at the store line")
    # with its link to a debug session paused where the wrong value was written
    vscode.wait_until(lambda: "Debug at this moment" in
                      " ".join(vscode.texts(".editor-instance .monaco-editor")),
                      "the message's Debug at this moment link")
    diff = vscode.wait_until(lambda: " ".join(vscode.texts(".monaco-diff-editor")),
                             "the expected/actual diff")
    # the whole output, side by side: the expected 25 against the printed 20
    assert "Expected" in diff and "Actual" in diff
    assert "25" in diff and "20" in diff and "30" in diff
    vscode.screenshot("02-failure-diff")
    readme_shot(vscode, "testing-view")       # vscode-extension/README.md shows it


def test_update_expectation_quick_fix_retests_in_the_editor(vscode):
    vscode.press("Escape")
    top_of_the_editor(vscode)
    vscode.clickText("expect: 25", 0, 9)
    vscode.press("Control+.")
    vscode.waitFor(".action-widget", "Update expectation")
    vscode.screenshot("03-update-expectation")
    vscode.chooseAction("Update expectation to “20”")
    vscode.wait_until(lambda: "expect: 25" not in vscode.editorText(), "the updated line")
    assert "; wave-lsp expect: 20" in vscode.editorText()
    # the server tests the edited text again: the lens passes, the diagnostic goes
    vscode.wait_until(lambda: "✓ passed" in lens_text(vscode), "the passing lens")
    vscode.wait_until(lambda: vscode.count(".monaco-editor .squiggly-error") == 0,
                      "no failed expectation")
    # the gutter and the Testing view say what the lens says (the server's outcome)
    vscode.wait_until(lambda: not gutter(vscode, "failed") and gutter(vscode, "passed"),
                      "the gutter icons passed like the lens")
    vscode.screenshot("03b-lens-and-gutter-agree")
    assert "✕" not in lens_text(vscode)


def test_debug_profile_starts_the_kernel_debugger_on_the_test(vscode):
    vscode.clickText("device_store_u32")
    vscode.press("F9")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-breakpoint") > 0, "the breakpoint")
    vscode.clickText("expect: 10")
    vscode.command("Test: Debug Test at Cursor")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-stackframe") > 0,
                      "the stop at the breakpoint", timeout=60)
    r2 = vscode.wait_until(
        lambda: [r for r in vscode.texts(".pane:has(.pane-header[aria-label*='Variables' i]) "
                                         ".monaco-list-row") if r.startswith("r2")],
        "r2 in the Variables view")
    assert "[0, 10, 20, 30]" in r2[0]            # the test's launch: 4 lanes, one wave
    vscode.screenshot("04-debugging-a-test")
    vscode.press("F5")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-stackframe") == 0,
                      "the end of the session", timeout=60)
    # when the session ends the test runs, and passes now
    top_of_the_editor(vscode)
    vscode.wait_until(lambda: len(gutter(vscode, "passed")) == 2, "the test reported passed")
    vscode.screenshot("05-after-debugging")


def test_a_file_changed_on_disk_is_discovered_again(vscode):
    path = vscode.workspace / "loop_test.wave"
    text = path.read_text().replace(
        "    halt\n.end", "    halt\n; wave-lsp run: --workgroup 2,1,1 --wave-width 4 "
                         "--dump-u32 0:2\n; wave-lsp expect: 3\n; wave-lsp expect: 3\n.end")
    path.write_text(text)
    launch = text.split("\n").index("; wave-lsp run: --workgroup 2,1,1 --wave-width 4 "
                                    "--dump-u32 0:2") + 1
    vscode.command("View: Show Testing")
    expand(vscode, "loop_test.wave", "loop_branch")
    listed = vscode.wait_until(
        lambda: (r := rows(vscode)) and any(x.startswith(f"line {launch}") for x in r) and r,
        "the new test in the tree")
    tests = [r for r in listed if r.startswith("line ")]
    assert tests[0].startswith("line 3") and tests[1].startswith(f"line {launch}")
    assert "--dump-u32 0:2" in tests[1]
    vscode.screenshot("06-discovered-again")

"""The extension in a real VS Code (code-server 4.100.3 in Chromium), as a user meets it.

One workbench for the module; the tests run in order as one session: open a broken kernel, see
the squiggle and the Problems entry, apply the quick fix, hover, complete, watch the status bar,
change settings live, run a kernel from its lens and the palette, show the encoding, assemble,
restart the server. Every step saves a screenshot under test-artifacts/vscode/workbench/.
"""

from __future__ import annotations

import json
import re
import time

from .workbench import StepFailed


def test_diagnostic_squiggle_and_problems_entry(vscode):
    vscode.openFile("broken.wave")
    vscode.wait_until(lambda: vscode.count(".monaco-editor .squiggly-error") > 0,
                      "the error squiggle")
    vscode.press("Control+Shift+M")
    rows = vscode.wait_until(
        lambda: [r for r in vscode.texts(".markers-panel .monaco-list-row") if "L401" in r],
        "the L401 entry in Problems")
    vscode.screenshot("01-squiggle-and-problems")
    assert "'add.s32' is obsolete" in rows[0]
    assert "iadd" in rows[0]
    assert "[Ln 6, Col 5]" in rows[0]


def test_quick_fix_applied(vscode):
    vscode.clickText("add.s32")
    vscode.press("Control+.")
    vscode.waitFor(".action-widget", "Replace with 'iadd'")
    vscode.screenshot("02-quick-fix-menu")
    vscode.chooseAction("Replace with 'iadd'")
    vscode.wait_until(lambda: "iadd r2, r0, r1" in vscode.editorText(), "the fixed line")
    vscode.wait_until(lambda: vscode.count(".monaco-editor .squiggly-error") == 0,
                      "the squiggle to go")
    vscode.screenshot("03-quick-fix-applied")
    assert "add.s32" not in vscode.editorText()


def test_hover_shows_the_encoding_table(vscode):
    text = vscode.hover("imul", "imul rd")
    vscode.screenshot("04-hover")
    assert "imul" in text
    # This very instruction's words (imul r3, r0, r1) and its field table.
    assert "02030000" in text.replace(" ", "").lower() or "0x02030000" in text.lower()
    assert re.search(r"opcode", text, re.IGNORECASE)


def test_completion_lists_mnemonics(vscode):
    vscode.clickText("halt")
    vscode.press(["End", "Enter"])
    vscode.type("wave_red")
    vscode.press("Control+Space")
    labels = vscode.suggestions("wave_reduce_min")
    vscode.screenshot("05-completion")
    names = " ".join(labels)
    for mnemonic in ("wave_reduce_add", "wave_reduce_max", "wave_reduce_min"):
        assert mnemonic in names
    vscode.press(["Escape", "Control+Shift+K"])  # leave the kernel as it was
    vscode.wait_until(lambda: "wave_red" not in vscode.editorText(), "the line deleted")


def test_snippet_indentation_and_comment_toggle(vscode):
    vscode.clickText("halt")
    vscode.press(["End", "Enter"])
    vscode.type("ifelse")
    vscode.press("Control+Space")
    assert any("ifelse" in label for label in vscode.suggestions("ifelse"))
    vscode.press("Enter")
    words = ("if p0", "else", "endif")

    def snippet():      # its lines, once all are drawn (the editor draws them a frame apart)
        rows = vscode.editorLines()
        found = [[i for i, row in enumerate(rows) if re.search(rf"\b{word}\b", row)]
                 for word in words]
        return all(found) and [f[0] for f in found]
    found = vscode.wait_until(snippet, "the if/else snippet")
    assert found == sorted(found) and found[2] - found[0] == 4   # if, body, else, body, endif
    vscode.clickText("mov_sr")
    vscode.press("Control+/")
    vscode.wait_until(lambda: re.search(r";\s*mov_sr", vscode.editorText()), "a ; comment")
    vscode.screenshot("05b-snippet-and-comment")
    vscode.command("File: Revert File")
    vscode.wait_until(lambda: "endif" not in vscode.editorText(), "the file reverted")


def test_status_bar_item_shows_server_state(vscode):
    item = vscode.statusBar()
    vscode.screenshot("06-status-bar")
    assert item["text"].strip() == "WAVE"
    assert "wave-lsp: running" in item["label"]
    assert "Encoding: specification" in item["label"]


def _workspace_settings(vscode, settings: dict) -> None:
    folder = vscode.workspace / ".vscode"
    folder.mkdir(exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings, indent=2))


def test_settings_change_takes_effect_without_restart(vscode):
    vscode.openFile("scale.wave")
    vscode.wait_until(lambda: "mov_imm" in vscode.editorText(), "the kernel")
    # encoded words are opt-in: none by default
    assert "00000003" not in vscode.editorText()
    starts = vscode.server.output_channel().count("Starting the server")
    _workspace_settings(vscode, {"wave.inlayHints.encoding": True, "wave.compat": "wave-asm"})
    # The encoding inlay hint of `mov_imm r1, 3` (words 41010010 00000003).
    vscode.wait_until(lambda: "00000003" in vscode.editorText(), "the encoding inlay hint")
    vscode.wait_until(lambda: "wave-asm" in vscode.statusBar()["text"],
                      "the compat mode in the status bar")
    vscode.screenshot("07-settings-applied")
    assert vscode.server.output_channel().count("Starting the server") == starts
    _workspace_settings(vscode, {})
    vscode.wait_until(lambda: "00000003" not in vscode.editorText(), "the encoding hints to go")
    vscode.wait_until(lambda: "wave-asm" not in vscode.statusBar()["text"], "compat off")


def test_run_lens_clicked_and_inline_values_appear(vscode):
    vscode.openFile("scale.wave")
    vscode.click(".contentWidgets .codelens-decoration a", "Run")
    lens = vscode.waitFor(".contentWidgets .codelens-decoration", "Run again", 60000)
    assert "✓" in lens
    # Inline values after the executed lines: r2 = 3 * tid for the 8 lanes.
    text = vscode.wait_until(lambda: (t := vscode.editorText()) and "21" in t and t,
                             "inline values")
    vscode.screenshot("08-run-lens-values")
    imul_line = next(line for line in text.splitlines() if "imul    r2" in line)
    assert "21" in imul_line or "0, 3, 6" in imul_line.replace(" ", ", ")
    vscode.command("WAVE: Clear Results")
    vscode.wait_until(lambda: "Run again" not in " ".join(
        vscode.texts(".contentWidgets .codelens-decoration")), "the results cleared")
    vscode.command("WAVE: Run Kernel")
    vscode.waitFor(".contentWidgets .codelens-decoration", "Run again", 60000)
    vscode.screenshot("09-run-kernel-command")


def test_show_encoding_beside_the_source(vscode):
    vscode.openFile("scale.wave")
    vscode.command("WAVE: Show Encoding")
    vscode.waitFor(".tab", "scale.wave.encoding")
    text = vscode.wait_until(
        lambda: " ".join(vscode.texts(".editor-instance .monaco-editor .view-lines")),
        "the encoding listing")
    vscode.screenshot("10-show-encoding")
    assert "41010010" in text
    # It follows edits of the source: a new `mov_imm r5, 77` shows its immediate word.
    vscode.clickText("halt")
    vscode.press(["End", "Enter"])
    vscode.type("mov_imm r5, 77")
    vscode.wait_until(lambda: "0000004D" in vscode.texts(
        ".editor-instance .monaco-editor .view-lines")[-1], "the listing to follow the edit")
    vscode.screenshot("10b-show-encoding-follows-edits")
    vscode.command("File: Revert File")
    vscode.command("View: Close All Editor Groups")


def test_assemble_writes_the_wbin(vscode):
    vscode.openFile("scale.wave")
    target = vscode.workspace / "scale.wbin"
    target.unlink(missing_ok=True)
    vscode.command("WAVE: Assemble")
    vscode.wait_until(target.is_file, "scale.wbin on disk")
    note = vscode.wait_until(
        lambda: [n for n in vscode.notifications() if "assembled" in n], "the assembled message")
    vscode.screenshot("11-assemble")
    assert f"assembled {target.stat().st_size} bytes" in note[0]


def test_restart_server_and_show_log(vscode):
    log = vscode.server.output_channel
    starts = log().count("Starting the server")
    vscode.command("WAVE: Restart Server")
    vscode.wait_until(lambda: log().count("Starting the server") == starts + 1, "a restart")
    vscode.wait_until(lambda: "running" in vscode.statusBar()["label"], "the server running")
    vscode.command("WAVE: Show Server Log")
    vscode.waitFor(".panel .output-view, .panel .monaco-editor", "Starting the server")
    vscode.screenshot("12-server-log")
    assert re.search(r"First diagnostics \d+ ms after activation", log())


def test_a_run_clicked_right_after_a_restart_is_not_lost(vscode):
    """▶ Run clicked while the server restarts waits for the new server and runs;
    a normal restart (the old server exits with 0) logs no error."""
    vscode.openFile("scale.wave")
    vscode.press("Control+Home")      # the launch line in view (an earlier test may scroll away)
    vscode.command("WAVE: Clear Results")
    vscode.wait_until(lambda: "▶ Run" in (l := (vscode.lensLine("wave-lsp run:") or {})
                                          .get("text", "")) and "Run again" not in l,
                      "the plain ▶ Run lens")
    log = vscode.server.output_channel
    vscode.wait_until(lambda: "Server started" in log(), "the log written")
    starts = log().count("Starting the server")
    vscode.command("WAVE: Restart Server")
    # the lens as soon as the new server has drawn it
    vscode.wait_until(lambda: "▶ Run" in (vscode.lensLine("wave-lsp run:") or {})
                      .get("text", ""), "the lens back", interval=0.05)
    # the new server's lenses are drawn twice (then resolved): a lens may go between finding
    # it and clicking it, so the click is tried until one lands (and it must land)
    deadline = time.monotonic() + 45
    while True:
        try:
            vscode.clickLens("wave-lsp run:", "▶ Run")
            break
        except StepFailed:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    vscode.wait_until(lambda: log().count("Starting the server") == starts + 1, "a restart")
    vscode.wait_until(lambda: "Run again" in (vscode.lensLine("wave-lsp run:") or {})
                      .get("text", ""), "the run's outcome", timeout=90)
    text = vscode.wait_until(lambda: (t := vscode.editorText()) and "r2 = 0, 3, 6" in t and t,
                             "the run's values")
    vscode.screenshot("13-run-right-after-restart")
    assert "21" in next(row for row in text.splitlines() if "imul    r2" in row)
    vscode.wait_until(lambda: "exited with code 0" in log(), "the old server's exit logged")
    assert not re.search(r"\[Error[^\]]*\] Server process exited with code 0", log()), log()[-2000:]

    # Run Kernel from the palette at once after a restart waits for the new server
    vscode.command("WAVE: Clear Results")
    vscode.wait_until(lambda: "Run again" not in (vscode.lensLine("wave-lsp run:") or {})
                      .get("text", "Run again"), "the results cleared")
    vscode.command("WAVE: Restart Server")
    vscode.command("WAVE: Run Kernel")
    vscode.wait_until(lambda: "Run again" in (vscode.lensLine("wave-lsp run:") or {})
                      .get("text", ""), "the palette run's outcome", timeout=90)
    vscode.screenshot("13b-run-kernel-right-after-restart")
    notes = " ".join(vscode.notifications())
    assert "not running" not in notes and "failed" not in notes, notes


def test_go_to_definition_of_a_register(vscode):
    """F12 on a register read jumps to the write that reaches it (server: analysis.reaching)."""
    vscode.openFile("square.wave")
    vscode.wait_until(lambda: "imul    r3, r0, r2" in vscode.editorText(), "square.wave")

    def on_line_8():        # clicked again while lenses drawn meanwhile move the lines down
        vscode.clickText("r2", 1)                        # `imul r3, r0, r2`, line 8
        return any("Ln 8," in t for t in vscode.texts(".statusbar-item"))
    vscode.wait_until(on_line_8, "the cursor on line 8")
    vscode.press("F12")
    where = vscode.wait_until(
        lambda: [t for t in vscode.texts(".statusbar-item") if "Ln 7, Col 1" in t],
        "the cursor on `mov_imm r2, 4`")
    vscode.screenshot("14-register-definition")
    assert "Ln 7, Col 13" in where[0]

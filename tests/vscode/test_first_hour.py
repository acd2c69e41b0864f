"""The first hour of a new user in a real VS Code (code-server), at 1280×800 and 1920×1080:
the ▶ Run and Debug Kernel lenses on a kernel without a launch line are first and on screen, and
clicking them runs the kernel inline and stops the debugger; Enter continues a `;` comment only
from the end of a comment line; debugging a file that does not assemble shows the assembler's
error with its line; "create a launch.json file" writes one configuration; a `.wbin` opens as its
disassembly; Show PTX is coloured; the Getting Started walkthrough. Screenshots under
test-artifacts/vscode/first-hour/, and the README's under vscode-extension/media/screenshots/."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from .conftest import extension_lock, workbench
from .workbench import EXTENSION, ROOT, pane_rows as rows

SIZES = [(1280, 800), (1920, 1080)]
README_SHOTS = EXTENSION / "media" / "screenshots"


@pytest.fixture(scope="module")
def vscode(vsix, tmp_path_factory):
    def assemble(workspace):   # a .wbin in the workspace, as a build would leave it
        subprocess.run([str(ROOT / ".venv" / "bin" / "wave-lsp"), "asm",
                        str(workspace / "square.wave"), "-o", str(workspace / "square.wbin")],
                       check=True)

    with workbench(tmp_path_factory, vsix, "first-hour", {"debug.toolBarLocation": "docked"},
                   assemble) as wb:
        yield wb


def readme_shot(vscode, name: str) -> None:
    """A screenshot for the README (taken at 1280×800)."""
    README_SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(vscode.screenshot(f"readme-{name}"), README_SHOTS / f"{name}.png")


def open_from_explorer(vscode, name: str) -> None:
    """Opens a workspace file by clicking it in the Explorer (keyboard-free: the focus may be in
    a webview or a notification)."""
    if not vscode.count(".activitybar .action-item.checked a[aria-label^='Explorer']"):
        vscode.click(".activitybar .action-item a[aria-label^='Explorer']")
    vscode.click(".explorer-folders-view .monaco-list-row", name)
    vscode.waitFor(".tab.active", name)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_run_and_debug_lenses_first_on_screen_and_working(vscode, size):
    width, height = size
    vscode.viewport(width, height)
    vscode.openFile("square.wave")
    line = vscode.wait_until(lambda: (l := vscode.lensLine(".kernel square")) and
                             "Debug Kernel" in l["text"] and "Assemble" in l["text"] and l,
                             "the lenses of the .kernel line")
    titles = [lens["text"] for lens in line["lenses"]]
    assert titles[0].startswith("▶ Run") and "Debug Kernel" in titles[1], titles
    assert titles[2] == "◔ Profile", titles
    assert re.fullmatch(r"8 regs · 0 B local · 1 wave/wg \(W32\)", titles[3]), titles
    assert len(" | ".join(titles)) <= 120, titles
    assert all(lens["right"] <= line["editorRight"] for lens in line["lenses"]), line
    vscode.screenshot(f"{width}x{height}-01-lenses")

    vscode.clickLens(".kernel square", "▶ Run")
    line = vscode.wait_until(lambda: (l := vscode.lensLine(".kernel square")) and
                             "Run again" in l["text"] and l, "the run's outcome lens", timeout=90)
    titles = [lens["text"] for lens in line["lenses"]]
    assert titles[0] == "▶ Run again" and "Debug Kernel" in titles[1] and titles[2].startswith("✓")
    assert len(" | ".join(titles)) <= 120 and all(
        lens["right"] <= line["editorRight"] for lens in line["lenses"]), line
    # r1 = tid * tid for the 8 lanes, after the imul line
    text = vscode.wait_until(lambda: (t := vscode.editorText()) and "49" in t and t,
                             "the inline values of the run")
    imul = next(row for row in text.splitlines() if "imul    r1" in row)
    assert "r1 = 0, 1, 4" in imul and "49" in imul
    vscode.screenshot(f"{width}x{height}-02-run-results")
    if size == SIZES[0]:
        readme_shot(vscode, "run-lens")

    vscode.clickText("device_store_u32")
    vscode.press("F9")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-breakpoint") > 0, "the breakpoint dot")
    vscode.clickLens(".kernel square", "Debug Kernel")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-stackframe") > 0,
                      "the debugger stopped at the breakpoint", timeout=90)
    r1 = vscode.wait_until(lambda: [r for r in rows(vscode, "Variables") if r.startswith("r1")],
                           "r1 in the Variables view")
    assert "[0, 1, 4, 9" in r1[0]
    vscode.screenshot(f"{width}x{height}-03-debugger-stopped")
    if size == SIZES[0]:
        readme_shot(vscode, "debugger")
    vscode.press("Shift+F5")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-stackframe") == 0, "the session ended")
    vscode.clickText("device_store_u32")
    vscode.press("F9")   # the breakpoint off again
    vscode.command("WAVE: Clear Results")
    vscode.wait_until(lambda: "Run again" not in (vscode.lensLine(".kernel square") or {})
                      .get("text", "Run again"), "the results cleared")


def test_enter_continues_a_comment_only_from_its_end(vscode):
    vscode.viewport(1280, 800)
    open_from_explorer(vscode, "square.wave")
    vscode.wait_until(lambda: "running" in vscode.statusBar()["label"], "the server running")
    vscode.wait_until(lambda: vscode.lensLine(".kernel square"), "the lenses")
    vscode.clickText("Squares each")
    vscode.press("End")
    vscode.press("Enter")
    vscode.type("more words")
    vscode.wait_until(lambda: "; more words" in vscode.editorText(), "the comment continued")
    text = vscode.editorText()
    assert re.search(r"^; more words$", text, re.M), text
    vscode.screenshot("enter-01-comment-continued")
    # Enter in the middle of a comment splits it without turning the code below into comment.
    vscode.clickText("more words")
    vscode.press(["Home", "ArrowRight", "ArrowRight", "ArrowRight", "ArrowRight", "ArrowRight",
                  "ArrowRight", "ArrowRight", "Enter"])
    vscode.press(["End", "Enter"])   # after "words", which is not a comment line any more
    vscode.type("halt")
    text = vscode.editorText()
    vscode.screenshot("enter-02-no-continuation")
    assert re.search(r"^words\nhalt$", text, re.M), text
    assert re.search(r"^\.kernel square", text, re.M)
    vscode.command("File: Revert File")
    vscode.wait_until(lambda: "more" not in vscode.editorText(), "the file reverted")
    vscode.command("View: Close All Editor Groups")


def test_enter_after_an_operand_starts_a_line_and_kernel_completes_once(vscode):
    """Enter after `iadd r8, r8, r1` (the suggest widget open on `r1`) starts a
    new line (`editor.acceptSuggestionOnEnter: smart` for WAVE), and `.kernel` is proposed
    once (the skeleton snippet; the server's directive item of the same name is dropped)."""
    vscode.viewport(1280, 800)
    open_from_explorer(vscode, "square.wave")
    vscode.wait_until(lambda: "running" in vscode.statusBar()["label"], "the server running")
    vscode.clickText("halt")
    vscode.press(["Home", "Enter", "ArrowUp"])
    vscode.type("iadd r8, r8, r1")
    vscode.wait_until(lambda: vscode.count(".editor-widget.suggest-widget.visible"),
                      "the suggestions while typing")
    vscode.screenshot("enter-03-suggestions-open")
    vscode.press("Enter")
    vscode.type("halt")
    text = vscode.editorText()
    vscode.screenshot("enter-04-new-line")
    # (the editor's lines are not in document order in its DOM: counted, not matched in order)
    assert re.search(r"^\s*iadd r8, r8, r1$", text, re.M), text
    assert len(re.findall(r"^\s*halt$", text, re.M)) == 2, text
    vscode.command("File: Revert File")
    vscode.wait_until(lambda: "iadd r8" not in vscode.editorText(), "the file reverted")

    vscode.clickText(".end")
    vscode.press(["End", "Enter", "Enter"])
    vscode.type(".kern")
    vscode.press("Control+Space")
    rows = vscode.wait_until(lambda: [r for r in vscode.suggestions(".kernel") if ".kernel" in r],
                             "the .kernel proposal")
    vscode.screenshot("kernel-completion-once")
    assert len(rows) == 1, rows
    vscode.press("Enter")
    vscode.wait_until(lambda: "global thread id" in vscode.editorText(), "the kernel skeleton")
    vscode.screenshot("kernel-skeleton-inserted")
    vscode.press("Escape")
    vscode.command("File: Revert File")
    vscode.wait_until(lambda: "global thread id" not in vscode.editorText(), "the file reverted")
    vscode.command("View: Close All Editor Groups")


def test_debugging_a_file_that_does_not_assemble_shows_the_assembler_error(vscode):
    open_from_explorer(vscode, "broken.wave")
    vscode.command("WAVE: Debug Kernel")
    note = vscode.wait_until(
        lambda: [n for n in vscode.notifications() if "does not assemble" in n],
        "the assembler's error")
    vscode.screenshot("debug-broken-01-assembler-error")
    assert "line 6" in note[0] and "add.s32" in note[0] and "Go to Line" in note[0]
    assert vscode.count(".monaco-dialog-box") == 0   # no modal "Open launch.json"
    assert vscode.count(".codicon-debug-stackframe") == 0
    vscode.click(".notification-list-item .monaco-button", "Go to Line")
    vscode.waitFor(".statusbar-item", "Ln 6,")
    vscode.command("Notifications: Clear All Notifications")
    vscode.command("View: Close All Editor Groups")


def test_create_launch_json_writes_one_configuration(vscode):
    open_from_explorer(vscode, "scale.wave")
    launch = vscode.workspace / ".vscode" / "launch.json"
    launch.unlink(missing_ok=True)
    vscode.press("Control+Shift+D")
    vscode.click(".debug-view-content a, .welcome-view-content a", "create a launch.json file")

    def picker_or_file():   # VS Code asks which debugger, or writes the file at once
        if any("WAVE Kernel" in row
               for row in vscode.texts(".quick-input-widget .monaco-list-row")):
            return "picker"
        return vscode.count(".tab.active:has-text('launch.json')") and "file"
    if vscode.wait_until(picker_or_file, "the debugger pick or launch.json") == "picker":
        vscode.click(".quick-input-widget .monaco-list-row", "WAVE Kernel")   # the debugger pick
    vscode.waitFor(".tab", "launch.json")
    # The link also adds a configuration: a new line in "configurations", then suggestions. Saved
    # before that edit, the editor is left with unsaved changes, and closing it asks in a modal.
    vscode.wait_until(lambda: vscode.count(".tab.active.dirty"), "the added configuration's line")
    vscode.press(["Escape", "Control+s"])
    vscode.wait_until(lambda: not vscode.count(".tab.dirty"), "launch.json saved")
    vscode.wait_until(launch.is_file, "launch.json written")
    text = vscode.wait_until(lambda: (t := launch.read_text()) and "Debug WAVE kernel" in t
                             and t.rstrip().endswith("}") and t, "the configuration")
    vscode.screenshot("launch-json-01-one-configuration")
    configurations = json.loads(re.sub(r"^[ \t]*//.*$", "", text, flags=re.M))["configurations"]
    assert [c["name"] for c in configurations] == ["Debug WAVE kernel"]
    vscode.command("View: Close All Editor Groups")
    launch.unlink()


def test_wbin_opens_as_its_disassembly(vscode):
    hide_panel = ".part.panel .action-label[aria-label^='Hide Panel']"
    if vscode.count(hide_panel):
        vscode.click(hide_panel)   # the debug console of the earlier session
    vscode.viewport(1280, 800)
    open_from_explorer(vscode, "scale.wave")
    vscode.click(".explorer-folders-view .monaco-list-row", "square.wbin")   # as a user would
    listing = vscode.wait_until(lambda: vscode.frameText("#listing"), "the disassembly listing")
    assert ".kernel square" in listing and "imul r1, r0, r0" in listing
    assert "device_store_u32 r3, r1" in listing and "; 0x" in listing
    vscode.screenshot("wbin-01-disassembly")
    readme_shot(vscode, "wbin-disassembly")
    vscode.command("View: Close All Editor Groups")


def test_ptx_view_is_coloured(vscode):
    open_from_explorer(vscode, "scale.wave")
    vscode.command("WAVE: Show PTX")
    vscode.waitFor(".tab", "scale.wave.ptx")
    vscode.wait_until(lambda: "mul.lo.s32" in vscode.groupText(1), "the PTX text")
    colours = vscode.wait_until(
        lambda: (c := {t["text"].strip(): t["color"] for t in vscode.lineTokensIn(1, "mul.lo.s32 %r2")})
        and len(set(c.values())) >= 3 and c, "the PTX coloured")
    vscode.screenshot("ptx-01-coloured")
    readme_shot(vscode, "show-ptx")
    mnemonic = next(colour for text, colour in colours.items() if text.startswith("mul"))
    register = next(colour for text, colour in colours.items() if text.startswith("%r"))
    assert mnemonic != register
    vscode.command("View: Close All Editor Groups")


@pytest.fixture
def fresh(vsix, tmp_path_factory):
    """A workbench of its own: the walkthrough's steps start unticked, nothing run yet."""
    with workbench(tmp_path_factory, vsix, "walkthrough", {}) as wb:
        wb.viewport(1280, 800)
        yield wb


def test_getting_started_walkthrough(fresh):
    vscode = fresh
    vscode.command("Welcome: Open Walkthrough...")
    vscode.waitFor(".quick-input-widget .monaco-list-row", "Get Started with WAVE Assembly")
    vscode.click(".quick-input-widget .monaco-list-row", "Get Started with WAVE Assembly")
    page = vscode.waitFor(".gettingStartedContainer", "Open an example kernel")
    for step in ("Install the language server", "Run the kernel", "Debug the kernel"):
        assert step in page
    # the open step's page (a webview of media/walkthrough/server.md) drawn beside it
    vscode.wait_until(lambda: any("The wave-lsp language server" in text
                                  for text in vscode.frameTexts()), "the step's page")
    vscode.screenshot("walkthrough-01")
    readme_shot(vscode, "walkthrough")
    vscode.click(".gettingStartedContainer .getting-started-step", "Open an example kernel")
    vscode.click(".gettingStartedContainer a, .gettingStartedContainer .monaco-button",
                 "Open the Example")
    vscode.waitFor(".tab", "vector_add.wave")
    assert (vscode.workspace / "vector_add.wave").is_file()
    vscode.screenshot("walkthrough-02-example-opened")
    # steps 3 and 4 from the walkthrough's own tab act on the example just opened
    # (the last .wave editor), and a step is ticked when its action succeeded
    steps = ".gettingStartedContainer .getting-started-step"

    def ticked(step: str) -> int:   # the step's checkbox (id `...#STEP`) shows it done
        return vscode.count(f".gettingStartedContainer .codicon.complete[data-done-step-id$='{step}']")

    vscode.click(".tab", "Walkthrough")
    for step in ("server", "example"):
        vscode.wait_until(lambda: ticked(step), f"the step '{step}' ticked")
    assert not ticked("run") and not ticked("debug")
    for title, step, button, done in (
            ("Run the kernel", "run", "Run Kernel",
             lambda: "Run again" in " ".join(vscode.texts(".contentWidgets .codelens-decoration"))),
            ("Debug the kernel", "debug", "Debug Kernel",
             lambda: vscode.count(".debug-toolbar, .codicon-debug-stop"))):
        vscode.click(".tab", "Walkthrough")
        vscode.click(steps, title)
        vscode.click(".gettingStartedContainer a, .gettingStartedContainer .monaco-button", button)
        vscode.wait_until(done, f"{button} to act on vector_add.wave", timeout=90)
        notes = " ".join(vscode.texts(".notifications-toasts .notification-list-item"))
        assert "open a .wave file" not in notes, notes
        vscode.screenshot(f"walkthrough-0{3 if step == 'run' else 4}-{step}")
        vscode.click(".tab", "Walkthrough")
        vscode.wait_until(lambda: ticked(step), f"the step '{step}' ticked")
    vscode.screenshot("walkthrough-05-all-ticked")
    assert vscode.count(".gettingStartedContainer .codicon.complete[data-done-step-id]") == 4
    vscode.press("Shift+F5")


def test_the_extension_page_shows_the_readme_screenshots(vscode):
    """The extension's page (its README) shows every screenshot, none broken."""
    vscode.viewport(1280, 800)
    vscode.click(".activitybar .action-item a[aria-label^='Extensions']")
    vscode.click(".extensions-viewlet .monaco-list-row", "WAVE")
    vscode.waitFor(".extension-editor", "WAVE")
    with extension_lock():      # packaging rewrites it for a moment (scripts/package.mjs)
        readme = (EXTENSION / "README.md").read_text()
    wanted = re.findall(r"!\[([^\]]*)\]\([^)]+\.png\)", readme)     # their alt texts
    assert wanted, "the README shows no screenshot"

    def screenshots():
        shown = [i for i in vscode.frameImages() if i["alt"] in wanted]
        return shown if len(shown) >= len(wanted) and all(i["loaded"] for i in shown) else None
    try:
        shown = vscode.wait_until(screenshots, "the README's screenshots loaded", timeout=30)
    except AssertionError:
        raise AssertionError(f"broken: {vscode.frameImages()}")
    finally:
        vscode.screenshot("extension-page")
    assert len(shown) == len(wanted), shown

"""Go to Writer in a real VS Code (code-server): with the cursor on a register, the command asks
for the thread, moves the cursor to the line that wrote the value there and says where its
operands came from. Screenshots under test-artifacts/vscode/writer/."""

from __future__ import annotations

import re

import pytest

from .conftest import workbench
from tests.time_travel_kernels import WRITERS_BODY, WRITERS_FLAGS, kernel

KERNEL = kernel("k", WRITERS_BODY, WRITERS_FLAGS)


@pytest.fixture(scope="module")
def vscode(vsix, tmp_path_factory):
    def prepare(folder):
        (folder / "writer.wave").write_text(KERNEL)
    with workbench(tmp_path_factory, vsix, "writer", {"editor.inlayHints.enabled": "off"},
                   prepare) as wb:
        yield wb


def cursor_line(vscode) -> int:
    for text in vscode.texts(".statusbar-item"):
        found = re.search(r"Ln (\d+), Col \d+", text)
        if found:
            return int(found.group(1))
    raise AssertionError("no cursor position in the status bar")


def test_go_to_writer_moves_to_the_writing_line(vscode):
    vscode.openFile("writer.wave")
    # the lenses first: drawn after the click, they would move the line clicked
    vscode.wait_until(lambda: [t for t in vscode.texts(".codelens-decoration") if "Run" in t],
                      "the kernel's lenses")
    vscode.clickText("r5", 1)                # the store's r5 (the first is line 9's)
    vscode.wait_until(lambda: cursor_line(vscode) == 12, "the cursor on the store's line")
    vscode.command("WAVE: Go to Writer")
    vscode.waitFor(".quick-input-widget", "in which thread")
    vscode.press("Control+A")
    vscode.type("19")
    vscode.press("Enter")
    vscode.wait_until(lambda: cursor_line(vscode) == 9, "the cursor on the writer's line")
    vscode.screenshot("01-writer")
    said = " ".join(vscode.notifications())
    assert "line 9, thread 19, step 5: iadd r5, r4, r6" in said
    assert "r6 from --set-reg 6:1000" in said

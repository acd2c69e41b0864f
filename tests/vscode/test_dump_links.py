"""The rest of a dump from its hover in a real VS Code (code-server): the launch
line's hover links to the next values (a trusted `wave-lsp.dump` command link); clicking it
makes the next hover show them. Screenshots under test-artifacts/vscode/dumps/."""

from __future__ import annotations

import pytest

from .conftest import workbench

KERNEL = """.kernel iota
; wave-lsp run: --workgroup 8,1,1 --device-memory 4096 --fill-iota 0:f32:1024 --dump-f32 0:1024
.registers 4
    mov_sr r0, sr_thread_id_x
    halt
.end
"""


@pytest.fixture(scope="module")
def vscode(vsix, tmp_path_factory):
    def prepare(folder):
        (folder / "dumps.wave").write_text(KERNEL)
    with workbench(tmp_path_factory, vsix, "dumps", {"editor.inlayHints.enabled": "off"},
                   prepare) as wb:
        yield wb


def test_the_hover_link_shows_the_next_values(vscode):
    vscode.openFile("dumps.wave")
    vscode.click(".contentWidgets .codelens-decoration a", "Run")
    vscode.waitFor(".contentWidgets .codelens-decoration", "Run again", 60000)
    first = vscode.hover("dump-f32", "next 256 values")
    vscode.screenshot("01-dump-hover")
    assert "255.0" in first and "256.0" not in first and "768 more after these" in first
    vscode.click(".monaco-hover a", "next 256 values")
    text = vscode.wait_until(
        lambda: (t := vscode.hover("dump-f32", "values 256..511")) and "511.0" in t and t,
        "the next values in the hover")
    vscode.screenshot("02-next-values")
    assert "256.0" in text and "511.0" in text and "255.0\n" not in text
    assert "previous 256 values" in text

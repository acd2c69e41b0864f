"""What the editor shows beside a kernel, in a real VS Code (code-server), in one workbench:

- Show PTX/HIP/Metal/SYCL and Check Portability: the PTX of a kernel beside its source,
  refreshed after an edit, the generated lines of the instruction under the cursor highlighted,
  and the source instruction in the hover of a generated line;
- a dump's hover: the launch line's hover links to the next values (a trusted `wave-lsp.dump`
  command link), and clicking it makes the next hover show them;
- Go to Writer: with the cursor on a register, the command asks for the thread, moves the
  cursor to the line that wrote the value there and says where its operands came from.

Screenshots under test-artifacts/vscode/views/."""

from __future__ import annotations

import re

import pytest

from .conftest import workbench
from tests.time_travel_kernels import WRITERS_BODY, WRITERS_FLAGS, kernel

SOURCE, VIEW = 0, 1  # the editor groups: the source, and the backend's text beside it

DUMPS = """.kernel iota
; wave-lsp run: --workgroup 8,1,1 --device-memory 4096 --fill-iota 0:f32:1024 --dump-f32 0:1024
.registers 4
    mov_sr r0, sr_thread_id_x
    halt
.end
"""
WRITER = kernel("k", WRITERS_BODY, WRITERS_FLAGS)


@pytest.fixture(scope="module")
def vscode(vsix, tmp_path_factory):
    def prepare(folder):
        (folder / "dumps.wave").write_text(DUMPS)
        (folder / "writer.wave").write_text(WRITER)
    with workbench(tmp_path_factory, vsix, "views", {"editor.inlayHints.enabled": "off"},
                   prepare) as wb:
        yield wb


def test_show_ptx_beside_the_source(vscode):
    vscode.openFile("scale.wave")
    vscode.command("WAVE: Show PTX")
    vscode.waitFor(".tab", "scale.wave.ptx")
    text = vscode.wait_until(lambda: (t := vscode.groupText(VIEW)) and "mul.lo.s32" in t and t,
                             "the PTX beside the source")
    vscode.screenshot("backends-01-show-ptx")
    assert ".entry scale(" in text
    assert "mov.b32 %r1, 3;" in text and "mov.u32 %r0, %tid.x;" in text
    assert "mov_imm" in vscode.groupText(SOURCE)  # the source stays in the first group


def test_ptx_follows_edits_of_the_source(vscode):
    # a new line after the store, typed last: no Enter after the typing, which a completion
    # widget still open under load could take, and nothing typed up against another word
    vscode.clickText("device_store_u32")
    vscode.press(["End", "Enter"])
    vscode.type("mov_imm r5, 77")
    vscode.press("Escape")
    try:
        vscode.wait_until(lambda: "mov.b32 %r5, 77;" in vscode.groupText(VIEW),
                          "the PTX to follow the edit")
        vscode.screenshot("backends-02-ptx-follows-edit")
    finally:        # the module's other tests start from the file as it was
        vscode.command("File: Revert File")
    vscode.wait_until(lambda: "%r5, 77" not in vscode.groupText(VIEW), "the PTX after the revert")


def test_cursor_in_the_source_highlights_its_generated_lines(vscode):
    vscode.clickText("device_store_u32")
    store = ["cvt.u64.u32 %rd1, %r4;", "add.u64 %rd1, %rd0, %rd1;", "st.global.u32 [%rd1], %r2;"]
    # (polled: the highlight of the previous cursor line may still show for a moment)
    vscode.wait_until(lambda: [line.strip() for line in vscode.decoratedLines(VIEW)] == store,
                      "the store's three PTX lines highlighted")
    vscode.screenshot("backends-03-store-highlights-its-ptx")
    vscode.clickText("mov_sr")
    vscode.wait_until(lambda: [line.strip() for line in vscode.decoratedLines(VIEW)]
                      == ["mov.u32 %r0, %tid.x;"], "the mov_sr line highlighted instead")
    vscode.screenshot("backends-04-mov-sr-highlights-its-ptx")


def test_hover_on_a_generated_line_shows_its_instruction(vscode):
    # (the PTX grammar colours `st` and `.global.u32` as two tokens)
    text = vscode.hover(".global.u32", "device_store_u32", 0, VIEW)
    vscode.screenshot("backends-05-hover-generated-line")
    assert "scale.wave:10" in text
    assert "device_store_u32 r4, r2" in text


def test_show_hip_metal_and_sycl(vscode):
    vscode.openFile("scale.wave")
    vscode.clickText("mov_sr")
    for title, marker, tid in (("HIP", "__global__ void scale", "threadIdx.x"),
                               ("Metal", "kernel void scale", "tid.x"),
                               ("SYCL", "using namespace sycl", "it.get_local_id(2)")):
        if title == "SYCL":   # from the editor title's menu, as a mouse user would
            vscode.click(".editor-actions [aria-label='Show Backend Code']")
            vscode.chooseMenuItem(f"Show {title}")
        else:
            vscode.command(f"WAVE: Show {title}")
        vscode.waitFor(".tab", f"scale.wave.{title.lower()}")
        vscode.wait_until(lambda: marker in vscode.groupText(VIEW), f"the {title} text")
        # highlighted as C++ (the tokenizer runs after the text shows): several token colours
        vscode.wait_until(lambda: len(vscode.groupTokenClasses(VIEW)) > 3, f"{title} as C++")
        # the cursor's instruction (mov_sr r0, sr_thread_id_x) highlighted in the new view
        lines = vscode.wait_until(lambda: vscode.decoratedLines(VIEW), f"the {title} highlight")
        vscode.screenshot(f"backends-06-show-{title.lower()}")
        assert [line.strip() for line in lines] == [f"r0 = (uint32_t){tid};"]


def test_check_portability_reports_the_widths(vscode):
    vscode.openFile("scale.wave")
    vscode.command("WAVE: Check Portability")
    note = vscode.wait_until(
        lambda: [n for n in vscode.notifications() if "same device memory" in n],
        "the portability message", timeout=90)
    vscode.screenshot("backends-07-check-portability")
    assert "kernel scale" in note[0] and "W32" in note[0] and "W64" in note[0]


def test_the_hover_link_shows_the_next_values(vscode):
    vscode.command("View: Close All Editor Groups")   # the backends' views of the tests above
    vscode.openFile("dumps.wave")
    vscode.click(".contentWidgets .codelens-decoration a", "Run")
    vscode.waitFor(".contentWidgets .codelens-decoration", "Run again", 60000)
    first = vscode.hover("dump-f32", "next 256 values")
    vscode.screenshot("dumps-01-hover")
    assert "255.0" in first and "256.0" not in first and "768 more after these" in first
    vscode.click(".monaco-hover a", "next 256 values")
    text = vscode.wait_until(
        lambda: (t := vscode.hover("dump-f32", "values 256..511")) and "511.0" in t and t,
        "the next values in the hover")
    vscode.screenshot("dumps-02-next-values")
    assert "256.0" in text and "511.0" in text and "255.0\n" not in text
    assert "previous 256 values" in text


def cursor_line(vscode) -> int:
    for text in vscode.texts(".statusbar-item"):
        found = re.search(r"Ln (\d+), Col \d+", text)
        if found:
            return int(found.group(1))
    raise AssertionError("no cursor position in the status bar")


def test_go_to_writer_moves_to_the_writing_line(vscode):
    vscode.command("View: Close All Editor Groups")
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
    vscode.screenshot("writer-01")
    said = " ".join(vscode.notifications())
    assert "line 9, thread 19, step 5: iadd r5, r4, r6" in said
    assert "r6 from --set-reg 6:1000" in said

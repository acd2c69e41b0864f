"""Show PTX/HIP/Metal/SYCL and Check Portability in a real VS Code (code-server): the PTX of a
kernel beside its source, refreshed after an edit, the generated lines of the instruction under
the cursor highlighted, and the source instruction in the hover of a generated line.
Screenshots under test-artifacts/vscode/backends/."""

from __future__ import annotations

import pytest

from .conftest import workbench

SOURCE, VIEW = 0, 1  # the editor groups: the source, and the backend's text beside it


@pytest.fixture(scope="module")
def vscode(vsix, tmp_path_factory):
    with workbench(tmp_path_factory, vsix, "backends", {"editor.inlayHints.enabled": "off"}) as wb:
        yield wb


def test_show_ptx_beside_the_source(vscode):
    vscode.openFile("scale.wave")
    vscode.command("WAVE: Show PTX")
    vscode.waitFor(".tab", "scale.wave.ptx")
    text = vscode.wait_until(lambda: (t := vscode.groupText(VIEW)) and "mul.lo.s32" in t and t,
                             "the PTX beside the source")
    vscode.screenshot("01-show-ptx")
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
        vscode.screenshot("02-ptx-follows-edit")
    finally:        # the module's other tests start from the file as it was
        vscode.command("File: Revert File")
    vscode.wait_until(lambda: "%r5, 77" not in vscode.groupText(VIEW), "the PTX after the revert")


def test_cursor_in_the_source_highlights_its_generated_lines(vscode):
    vscode.clickText("device_store_u32")
    store = ["cvt.u64.u32 %rd1, %r4;", "add.u64 %rd1, %rd0, %rd1;", "st.global.u32 [%rd1], %r2;"]
    # (polled: the highlight of the previous cursor line may still show for a moment)
    vscode.wait_until(lambda: [line.strip() for line in vscode.decoratedLines(VIEW)] == store,
                      "the store's three PTX lines highlighted")
    vscode.screenshot("03-store-highlights-its-ptx")
    vscode.clickText("mov_sr")
    vscode.wait_until(lambda: [line.strip() for line in vscode.decoratedLines(VIEW)]
                      == ["mov.u32 %r0, %tid.x;"], "the mov_sr line highlighted instead")
    vscode.screenshot("04-mov-sr-highlights-its-ptx")


def test_hover_on_a_generated_line_shows_its_instruction(vscode):
    # (the PTX grammar colours `st` and `.global.u32` as two tokens)
    text = vscode.hover(".global.u32", "device_store_u32", 0, VIEW)
    vscode.screenshot("05-hover-generated-line")
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
        vscode.screenshot(f"06-show-{title.lower()}")
        assert [line.strip() for line in lines] == [f"r0 = (uint32_t){tid};"]


def test_check_portability_reports_the_widths(vscode):
    vscode.openFile("scale.wave")
    vscode.command("WAVE: Check Portability")
    note = vscode.wait_until(
        lambda: [n for n in vscode.notifications() if "same device memory" in n],
        "the portability message", timeout=90)
    vscode.screenshot("07-check-portability")
    assert "kernel scale" in note[0] and "W32" in note[0] and "W64" in note[0]

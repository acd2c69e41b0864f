"""The kernel profile's heat view in a real VS Code (code-server) at 1280×800: the
Profile lens beside Run profiles the kernel; every profiled line that costs gets a gutter bar and a faint
background in the colour of its heat level (the levels the server computes, checked against the
`ide` layer on the same text) and the overview ruler shows them; the hints say what matters; an
edit re-profiles and the colours follow; another editor and back keeps them; "✕ Clear profile"
removes them all. Screenshots under test-artifacts/vscode/profile/."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from .conftest import workbench
from .workbench import EXTENSION

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from profile_kernels import BANKS, SECTORS, STRIDE_WORDS, STRIDED  # noqa: E402

NAME = "strided.wave"


def heat_colours() -> list[tuple[int, int, int]]:
    """The level colours, from the extension's own table (heat.ts)."""
    text = (EXTENSION / "src" / "heat.ts").read_text()
    table = re.search(r"HEAT_COLOURS = \[([^\]]*)\]", text).group(1)
    return [tuple(int(h[i:i + 2], 16) for i in (0, 2, 4)) for h in re.findall(r"#(\w{6})", table)]


def expected_levels(text: str) -> dict[str, int]:
    """Each profiled line that costs (heat level 2 or more, or 5% of the kernel's cost: the
    extension colours no other) -> its heat level, from the ide layer."""
    from wave_lsp.ide.profile_session import profile_kernels
    from wave_lsp.ide.run_limits import RunLimits
    from wave_lsp.ide.run_session import kernel_launch_lines, plan_runs
    from wave_lsp.ide.state import DocumentState
    doc = DocumentState("file:///heat.wave", text, 1)
    snapshot = plan_runs(doc, {"strided": None}, kernel_launch_lines(doc, None))
    view = profile_kernels(snapshot, RunLimits())[0].view
    return {doc.lines[h.line].strip(): h.level for h in view.heat.values()
            if h.level >= 2 or h.share >= 0.05}


def level_of(background: str) -> int | None:
    """The heat level whose colour a computed `rgba(...)` background is (None: not heat)."""
    rgb = tuple(int(v) for v in re.findall(r"[\d.]+", background)[:3])
    colours = heat_colours()
    return colours.index(rgb) + 1 if rgb in colours else None


def shown_levels(vscode) -> dict[str, int]:
    """Visible heat lines: text (without inlay hints) -> level; each must have its gutter bar."""
    out = {}
    for line in vscode.heatLines(0):
        level = level_of(line["background"])
        if level is None:
            continue
        assert line["gutter"].startswith('url("data:image/svg+xml'), line
        text = line["text"].strip()
        source = next((s.strip() for s in STRIDED.split("\n") if s.strip()
                       and text.startswith(s.strip())), text)
        out[source] = level
    return out


def lens_text(vscode) -> str:
    """The code lenses above the launch line, as shown."""
    return (vscode.lensLine("wave-lsp run:") or {}).get("text", "").replace("\n", "")


@pytest.fixture(scope="module")
def vscode(vsix, tmp_path_factory):
    def prepare(folder):
        (folder / NAME).write_text(STRIDED)
    with workbench(tmp_path_factory, vsix, "profile", {}, prepare) as wb:
        wb.viewport(1280, 800)
        yield wb


def test_the_profile_lens_paints_the_heat(vscode):
    vscode.openFile(NAME)
    vscode.wait_until(lambda: "◔ Profile" in ((vscode.lensLine("wave-lsp run:") or {})
                                              .get("text", "")), "the Profile lens")
    vscode.screenshot("01-profile-lens")
    vscode.clickLens("wave-lsp run:", "◔ Profile")
    expected = expected_levels(STRIDED)
    shown = vscode.wait_until(lambda: (s := shown_levels(vscode)) and len(s) >= 2 and s,
                              "the heat decorations")
    vscode.screenshot("02-heat-after-profile")
    assert shown == expected, (shown, expected)     # the costly lines alone: cold code plain
    banks, sectors = (STRIDED.split("\n")[n].split(";")[0].strip() for n in (BANKS, SECTORS))
    assert shown[sectors] == 5 and shown[banks] < 5
    assert len(set(shown.values())) >= 2            # not one colour for all
    ruler = set(vscode.rulerColours(0))         # the overview ruler: each level shown there
    assert {"#%02x%02x%02x" % heat_colours()[level - 1] for level in shown.values()} <= ruler, \
        ruler
    # the hints are inlay hints, asked for after the decorations: they may come a moment later
    vscode.wait_until(lambda: "2-way bank conflict" in (text := vscode.editorText())
                      and "32 sectors (ideal 4)" in text, "the profile's hints")
    vscode.wait_until(lambda: "◔ Profile: " in (lens := lens_text(vscode))
                      and "Clear profile" in lens, "the lens with the kernel's figures")
    hover = vscode.hover("local_store_u32", "Profile of")
    vscode.screenshot("02b-hover-with-every-preset")
    for preset in ("default", "ptx", "hip-cdna", "hip-rdna", "metal", "sycl"):
        assert preset in hover, hover


def test_an_edit_reprofiles_and_the_heat_follows(vscode):
    vscode.clickText("8 bytes apart")                # the comment of the line below it
    vscode.press(["ArrowUp", "End", "Backspace"])
    vscode.type("4")                                  # stride-1 words: no more conflict
    edited = STRIDED.replace(STRIDE_WORDS, "mov_imm r1, 4")
    expected = expected_levels(edited)
    vscode.wait_until(lambda: "2-way bank conflict" not in vscode.editorText(),
                      "the conflict hint to go")
    banks = STRIDED.split("\n")[BANKS].split(";")[0].strip()
    assert banks not in expected           # the conflict gone, its line costs no more
    vscode.wait_until(lambda: shown_levels(vscode) == expected, "the heat of the edited kernel")
    vscode.wait_until(lambda: "2-way banks" not in (lens := lens_text(vscode))
                      and "◔ Profile: " in lens, "the lens of the new profile")
    vscode.screenshot("03-heat-after-edit")
    assert "32 sectors (ideal 4)" in vscode.editorText()


def test_the_heat_survives_switching_editors_and_clears(vscode):
    before = shown_levels(vscode)
    vscode.openFile("square.wave")
    vscode.wait_until(lambda: not shown_levels(vscode), "no heat in another file")
    vscode.click(".tab", NAME)                         # back to its tab (edited, unsaved)
    vscode.waitFor(".tab.active", NAME)
    vscode.wait_until(lambda: shown_levels(vscode) == before, "the heat back")
    vscode.click(".contentWidgets .codelens-decoration a", "Clear profile")
    vscode.wait_until(lambda: not vscode.heatLines(0), "the heat cleared")
    vscode.wait_until(lambda: "32 sectors" not in vscode.editorText(), "the hints cleared")
    vscode.wait_until(lambda: "Clear profile" not in (lens := lens_text(vscode))
                      and "◔ Profile" in lens and "◔ Profile:" not in lens, "the plain lens back")
    vscode.screenshot("04-cleared")


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_run_and_profile_on_one_line_show_every_figure_uncut(vscode, size):
    """Run values and profile hints on one line, and the run's and the profile's
    summaries on one lens row, each whole (no `…` cut by the editor) at both window sizes."""
    vscode.viewport(*size)
    vscode.command("File: Revert File")
    vscode.wait_until(lambda: "mov_imm r1, 8" in vscode.editorText(), "the kernel as it was")
    vscode.clickLens("wave-lsp run:", "▶ Run")
    vscode.wait_until(lambda: "Run again" in lens_text(vscode), "the run", timeout=90)
    vscode.clickLens("wave-lsp run:", "◔ Profile")
    lens = vscode.wait_until(lambda: "◔ Profile: " in (t := lens_text(vscode)) and t,
                             "the profile's lens", timeout=90)
    text = vscode.wait_until(lambda: (t := vscode.editorText()) and "32 sectors (ideal 4)" in t
                             and "r5 = " in t and t, "the run's and the profile's hints")
    vscode.screenshot(f"05-run-and-profile-{size[0]}x{size[1]}")
    load = next(row for row in text.splitlines() if "device_load_u32 r5" in row)
    assert "r5 = " in load and load.rstrip().endswith("32 sectors (ideal 4)"), load
    store = next(row for row in text.splitlines() if "local_store_u32" in row)
    assert store.rstrip().endswith("2-way bank conflict"), store
    assert "✓" in lens and "2-way banks" in lens and "sectors" in lens, lens
    row = vscode.lensLine("wave-lsp run:")
    assert all(part["right"] <= row["editorRight"] for part in row["lenses"]), row
    vscode.click(".contentWidgets .codelens-decoration a", "Clear profile")
    vscode.command("WAVE: Clear Results")

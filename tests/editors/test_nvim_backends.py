"""`:LspWaveEmit {ptx|hip|metal|sycl}` and `:LspWavePortability` in the real Neovim 0.11 against
the real server: the backend's text in a read-only split with its filetype and the line map, and
the wave-width check of the kernel at the cursor."""

from __future__ import annotations

import json
import time

import pytest

from wave_lsp.asm.backends import emit
from wave_lsp.syntax.document import Document

from .nvim import ROOT, run_nvim
from .test_nvim_terminal import save, terminal  # noqa: F401 (the tmux fixture)

EXAMPLE = ROOT / "examples" / "divergent_break.wave"

EMIT = """
    local buf = H.attach(path)
    vim.cmd('LspWaveEmit ' .. target)
    H.wait('the backend split', function() return #vim.api.nvim_list_wins() == 2 end)
    local view = vim.api.nvim_get_current_buf()
    H.wait('the line map', function() return vim.b[view].wave_emit_map ~= nil end)
    return { name = vim.api.nvim_buf_get_name(view), filetype = vim.bo[view].filetype,
             modifiable = vim.bo[view].modifiable, map = vim.b[view].wave_emit_map,
             lines = vim.api.nvim_buf_get_lines(view, 0, -1, false) }
"""


@pytest.mark.parametrize("target, filetype", [("ptx", "asm"), ("hip", "cpp"), ("metal", "cpp"),
                                              ("sycl", "cpp")])
def test_emit_opens_the_backend_text_beside_the_source(tmp_path, target, filetype):
    path = tmp_path / EXAMPLE.name
    text = EXAMPLE.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    result = run_nvim(tmp_path, f"local path, target = {json.dumps(str(path))}, '{target}'\n"
                      + EMIT)
    expected = emit(Document(text, uri=path.as_uri()), target)
    assert result["name"] == f"wave-{target}://{path}"
    assert result["lines"] == expected.text.split("\n")
    assert result["filetype"] == filetype and result["modifiable"] is False
    assert result["map"] == expected.map() and result["map"]
    source = text.split("\n")
    # every mapped source line is an instruction line of the kernel
    for _, line in result["map"]:
        assert source[line].strip() and not source[line].lstrip().startswith((";", "."))


def test_emit_rejects_an_unknown_target(tmp_path):
    path = tmp_path / EXAMPLE.name
    path.write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    result = run_nvim(tmp_path, f"""
        local messages = {{}}
        vim.notify = function(message) messages[#messages + 1] = message end
        local buf = H.attach({json.dumps(str(path))})
        vim.cmd('LspWaveEmit vulkan')
        return {{ messages = messages, windows = #vim.api.nvim_list_wins() }}
    """)
    assert result["windows"] == 1
    assert any("unknown target" in m and "vulkan" in m for m in result["messages"])


def test_portability_checks_the_kernel_at_the_cursor(tmp_path):
    path = tmp_path / "scale.wave"
    path.write_text((ROOT / "tests" / "vscode" / "kernels" / "scale.wave").read_text(),
                    encoding="utf-8")
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        vim.api.nvim_win_set_cursor(0, {{ 6, 0 }})
        vim.cmd('LspWavePortability')
        H.wait('the check', function() return vim.b[buf].wave_last_portability ~= nil end)
        return vim.b[buf].wave_last_portability
    """, timeout=120)
    assert result["kernel"] == "scale"
    assert result["uri"] == path.as_uri()
    assert len(result["widths"]) >= 2 and result["portable"] is True  # out[tid] = 3 * tid


def test_terminal_shows_the_ptx_beside_the_source(tmp_path, terminal):
    path = tmp_path / "scale.wave"
    path.write_text((ROOT / "tests" / "vscode" / "kernels" / "scale.wave").read_text(),
                    encoding="utf-8")
    term = terminal(path)
    term.wait_for("mov_sr")
    time.sleep(1)
    term.keys(":LspWaveEmit ptx", "Enter")
    screen = term.wait_for("mul.lo.s32", "wave-ptx://")
    save("nvim-tmux-emit-ptx.txt", screen)
    rows = screen.split("\n")
    # two windows side by side: the PTX in one, the source in the other
    split = [row.split("│") for row in rows if "│" in row]
    ptx = "\n".join(sides[0] for sides in split)
    source = "\n".join(sides[-1] for sides in split)
    assert ".entry scale(" in ptx and "mov.b32 %r1, 3;" in ptx, screen
    assert "st.global.u32 [%rd1], %r2;" in ptx, screen
    assert "mov_sr  r0, sr_thread_id_x" in source and "mov.b32" not in source, screen

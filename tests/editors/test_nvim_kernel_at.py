"""The kernel at the cursor in the real Neovim 0.11 comes from the real server's
`wave-lsp.kernelAt` (`wave.kernel_at`): inside a kernel, on its `.kernel` and `.end` lines, and
nothing between kernels, where `:WaveDebug`'s `kernel_at_cursor` falls back to the nearest kernel
above; a buffer without a wave-lsp client gets no answer from the server."""

from __future__ import annotations

import json

from .nvim import run_nvim

TEXT = """\
; first line
.kernel first
    halt
.end
; between
.kernel second
    halt
.end
"""


def test_the_kernel_at_a_line_is_the_servers_answer(tmp_path):
    path = tmp_path / "two.wave"
    path.write_text(TEXT, encoding="utf-8")
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        local at = require('wave.kernel_at')
        local names = {{}}
        for line = 0, 8 do
          names[#names + 1] = at.name(buf, line) or 'none'
        end
        vim.api.nvim_win_set_cursor(0, {{ 5, 0 }})     -- `; between` (1-based row)
        local between = require('wave.dap').kernel_at_cursor(buf)
        vim.api.nvim_win_set_cursor(0, {{ 7, 0 }})
        local inside = require('wave.dap').kernel_at_cursor(buf)
        local scratch = vim.api.nvim_create_buf(false, true)
        return {{ names = names, between = between, inside = inside,
                 detached = at.name(scratch, 0) or 'none' }}
    """, timeout=60)
    assert result["names"] == ["none", "first", "first", "first", "none", "second", "second",
                               "second", "none"]
    assert result["between"] == "first" and result["inside"] == "second"
    assert result["detached"] == "none"

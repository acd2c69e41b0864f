"""`:LspWaveWhoWrote` in the real Neovim 0.11 against the real server: on a register, the cursor
goes to the line that wrote it in the thread asked for and the answer names its inputs; on no
register, the device word at an address; a bad argument is a one-line warning."""

from __future__ import annotations

import json

from .nvim import run_nvim
from tests.time_travel_kernels import WRITERS_BODY, WRITERS_FLAGS, kernel

KERNEL = kernel("k", WRITERS_BODY, WRITERS_FLAGS)
ASK = """
    local buf = H.attach({path})
    vim.api.nvim_win_set_cursor(0, {{ {row}, {col} }})
    vim.cmd({command})
    H.wait('the answer', function() return vim.b[buf].wave_who_wrote ~= nil end)
    local answer = vim.b[buf].wave_who_wrote
    return {{ cursor = vim.api.nvim_win_get_cursor(0)[1], line = answer.line, lane = answer.lane,
              step = answer.step, instruction = answer.instruction,
              summary = require('wave.who_wrote').summary(answer) }}
"""


def _ask(tmp_path, row: int, col: int, command: str) -> dict:
    path = tmp_path / "k.wave"
    path.write_text(KERNEL, encoding="utf-8")
    return run_nvim(tmp_path, ASK.format(path=json.dumps(str(path)), row=row, col=col,
                                         command=json.dumps(command)))


def test_on_a_register_the_cursor_goes_to_its_writer(tmp_path):
    # row 12 (1-based): `device_store_u32 r7, r5`, the cursor on r5; thread 19 (workgroup 2)
    got = _ask(tmp_path, 12, 26, "LspWaveWhoWrote 19")
    assert got == {"cursor": 9, "line": 8, "lane": 19, "step": 5,
                   "instruction": "iadd r5, r4, r6",
                   "summary": "line 9, thread 19, step 5: iadd r5, r4, r6 ← r4 from line 8, "
                              "r6 from --set-reg 6:1000"}


def test_elsewhere_an_address(tmp_path):
    got = _ask(tmp_path, 2, 0, "LspWaveWhoWrote 0x34")
    assert (got["cursor"], got["line"], got["lane"]) == (12, 11, 13)
    assert got["summary"].startswith("line 12, thread 13, step 8: device_store_u32 r7, r5 ← ")


def test_a_bad_argument_is_a_warning(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(KERNEL, encoding="utf-8")
    got = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        local said = {{}}
        require('wave.messages').notify = function(message) said[#said + 1] = message end
        vim.api.nvim_win_set_cursor(0, {{ 2, 0 }})
        vim.cmd('LspWaveWhoWrote nowhere')
        return said
    """)
    assert got == ["wave-lsp: put the cursor on a register, or give a device address: "
                   "LspWaveWhoWrote 0x40"]

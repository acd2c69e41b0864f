"""`:LspWaveEmit {ptx|hip|metal|sycl}` and `:LspWavePortability` in the real Neovim 0.11 against
the real server: the backend's text in a read-only split with its filetype and the line map, and
the wave-width check of the kernel at the cursor."""

from __future__ import annotations

import json
import re

import pytest

from wave_lsp.asm.backends import emit
from wave_lsp.syntax.document import Document

from .nvim import ROOT, run_nvim
from .test_nvim_terminal import save, terminal  # noqa: F401 (the tmux fixture)

pytestmark = pytest.mark.hipcc      # Show HIP adds hipcc's figures

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
    _shows(result["lines"], expected)
    assert result["filetype"] == filetype and result["modifiable"] is False
    assert result["map"] == expected.map() and result["map"]
    source = text.split("\n")
    # every mapped source line is an instruction line of the kernel
    for _, line in result["map"]:
        assert source[line].strip() and not source[line].lstrip().startswith((";", "."))


def _shows(shown: list[str], expected) -> None:
    """The split holds `wave-lsp emit`'s text, then, where the vendor's compiler is found (PTX,
    HIP), its verdict as comment lines."""
    lines = expected.text.split("\n")[:-1]
    assert shown[:len(lines)] == lines
    verdict = [line for line in shown[len(lines):] if line]
    assert all(line.startswith("// ") for line in verdict), verdict
    assert not verdict or (expected.target in ("ptx", "hip") and "accepted" in verdict[0]
                           and "REJECTED" not in verdict[0])


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
    assert any("(use hip, metal, ptx, sycl)" in m for m in result["messages"])  # targets.lua


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


def _ptx_split(tmp_path, terminal):
    """Neovim in tmux on scale.wave with `:LspWaveEmit ptx` open; the terminal and screen."""
    path = tmp_path / "scale.wave"
    path.write_text((ROOT / "tests" / "vscode" / "kernels" / "scale.wave").read_text(),
                    encoding="utf-8")
    term = terminal(path)
    # the code lens shows once the server has attached (and the buffer's commands exist)
    term.wait_for("mov_sr", "▶ Run", timeout=60)
    term.keys(":LspWaveEmit ptx", "Enter")
    # the split's status line ends with its name (`<…/scale.wave` when the name is cut)
    return term, term.wait_for("mul.lo.s32", "st.global.u32", "/scale.wave ")


def test_terminal_shows_the_ptx_beside_the_source(tmp_path, terminal):
    term, screen = _ptx_split(tmp_path, terminal)
    save("nvim-tmux-emit-ptx.txt", screen)
    rows = screen.split("\n")
    # two windows side by side: the source on the left, the PTX on the right
    split = [row.split("│") for row in rows if "│" in row]
    source = "\n".join(sides[0] for sides in split)
    ptx = "\n".join(sides[-1] for sides in split)
    assert ".entry scale(" in ptx and "mov.b32 %r1, 3;" in ptx, screen
    assert "st.global.u32 [%rd1], %r2;" in ptx, screen
    assert "mov_sr  r0, sr_thread_id_x" in source and "mov.b32" not in source, screen


MAPPING = """
    local map_module = require('wave.emit_map')
    local buf = H.attach(path)
    vim.cmd('LspWaveEmit ptx')
    H.wait('the backend split', function() return #vim.api.nvim_list_wins() == 2 end)
    local view = vim.api.nvim_get_current_buf()
    H.wait('the line map', function() return vim.b[view].wave_emit_map ~= nil end)
    local view_win, source_win = vim.fn.bufwinid(view), vim.fn.bufwinid(buf)
    local out = { linked = vim.b[view].wave_emit_source == buf }
    -- the cursor on an instruction of the source (CursorMoved is what the editor fires)
    vim.api.nvim_set_current_win(source_win)
    vim.api.nvim_win_set_cursor(source_win, { source_row + 1, 0 })
    vim.api.nvim_exec_autocmds('CursorMoved', { buffer = buf })
    out.view_marks = map_module.highlighted(view)
    out.view_cursor = vim.api.nvim_win_get_cursor(view_win)[1] - 1
    out.current = vim.api.nvim_get_current_buf() == buf
    -- the cursor on a generated line of the split
    vim.api.nvim_set_current_win(view_win)
    vim.api.nvim_win_set_cursor(view_win, { view_row + 1, 0 })
    vim.api.nvim_exec_autocmds('CursorMoved', { buffer = view })
    out.source_marks = map_module.highlighted(buf)
    out.view_marks_back = map_module.highlighted(view)
    out.source_cursor = vim.api.nvim_win_get_cursor(source_win)[1] - 1
    -- an edit of the source: the split is emitted again with a new map
    vim.api.nvim_set_current_win(source_win)
    local before = vim.b[view].wave_emit_map
    vim.api.nvim_buf_set_lines(buf, insert_at, insert_at, false, { '    iadd r1, r1, r1' })
    vim.api.nvim_exec_autocmds('TextChanged', { buffer = buf })
    H.wait('the refreshed split', function()
      return not vim.deep_equal(vim.b[view].wave_emit_map, before)
    end)
    out.map_after = vim.b[view].wave_emit_map
    out.lines_after = vim.api.nvim_buf_get_lines(view, 0, -1, false)
    vim.api.nvim_buf_delete(view, { force = true })
    vim.wait(100)
    out.source_marks_after_close = map_module.highlighted(buf)
    return out
"""


def test_emit_split_maps_the_cursor_both_ways_and_follows_edits(tmp_path):
    """The equivalent of VS Code's view: the instruction under the cursor highlights its
    generated lines in the split (scrolled there), a generated line highlights its instruction
    in the source, and an edit re-emits the split with a renewed map."""
    path = tmp_path / EXAMPLE.name
    text = EXAMPLE.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    expected = emit(Document(text, uri=path.as_uri()), "ptx")
    pairs = expected.map()
    counts = {}
    for _g, s in pairs:
        counts[s] = counts.get(s, 0) + 1
    source_row = max(counts, key=lambda s: (counts[s], -s))      # several generated lines
    view_row = next(g for g, s in pairs if s != source_row)      # another instruction's line
    insert_at = source_row
    result = run_nvim(tmp_path, f"local path = {json.dumps(str(path))}\n"
                      f"local source_row, view_row, insert_at = {source_row}, {view_row}, "
                      f"{insert_at}\n" + MAPPING)
    assert result["linked"] is True and result["current"] is True
    assert sorted(result["view_marks"]) == expected.generated_for(source_row)
    assert len(result["view_marks"]) >= 2
    assert result["view_cursor"] == expected.generated_for(source_row)[0]
    origin = dict(pairs)[view_row]
    assert result["source_marks"] == [origin]
    assert sorted(result["view_marks_back"]) == expected.generated_for(origin)
    assert result["source_cursor"] == origin
    lines = text.split("\n")
    lines.insert(insert_at, "    iadd r1, r1, r1")
    edited = emit(Document("\n".join(lines), uri=path.as_uri()), "ptx")
    assert result["map_after"] == edited.map() and result["map_after"] != pairs
    _shows(result["lines_after"], edited)
    assert result["source_marks_after_close"] == []


_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
_BACKGROUND = re.compile(r"\x1b\[(?:4[0-7]|10[0-7]|48;[0-9;]*)m")


def _highlighted(screen: str, text: str, side: int) -> bool:
    """Whether the row showing `text` carries a background colour on one side of the split
    (0 left, 1 right)."""
    for row in screen.split("\n"):
        if text in _ESCAPE.sub("", row):
            parts = row.split("│")
            return bool(_BACKGROUND.search(parts[side] if len(parts) > 1 else ""))
    raise AssertionError(f"{text!r} is not on the screen")


def test_terminal_highlights_the_mapped_lines(tmp_path, terminal):
    """In a real terminal: moving the cursor in the PTX split highlights its instruction in the
    source, and moving it in the source highlights the PTX of the instruction."""
    term, _ = _ptx_split(tmp_path, terminal)
    term.keys("/mul.lo.s32 %r4", "Enter")           # the cursor in the PTX split
    screen = term.screen_when(lambda s: _highlighted(s, "imul    r4, r0, r3", 0) and
                              not _highlighted(s, "imul    r2, r0, r1", 0), escapes=True)
    save("nvim-tmux-emit-map-from-ptx.txt", screen)
    assert _highlighted(screen, "imul    r4, r0, r3", 0), screen
    assert not _highlighted(screen, "imul    r2, r0, r1", 0), screen
    term.keys("C-w", "h")                            # the cursor in the source
    term.keys("/imul    r2", "Enter")
    screen = term.screen_when(lambda s: _highlighted(s, "mul.lo.s32 %r2, %r0, %r1;", 1) and
                              not _highlighted(s, "mul.lo.s32 %r4, %r0, %r3;", 1), escapes=True)
    save("nvim-tmux-emit-map-from-source.txt", screen)
    assert _highlighted(screen, "mul.lo.s32 %r2, %r0, %r1;", 1), screen
    assert not _highlighted(screen, "mul.lo.s32 %r4, %r0, %r3;", 1), screen


def test_verify_and_replay_the_kernel_at_the_cursor(tmp_path):
    path = tmp_path / "missing_barrier.wave"
    path.write_text((ROOT / "tests" / "verify" / "corpus" / "missing_barrier.wave").read_text(),
                    encoding="utf-8")
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        vim.api.nvim_win_set_cursor(0, {{ 9, 0 }})
        vim.cmd('LspWaveVerify')
        H.wait('the verdict', function() return vim.b[buf].wave_last_verify ~= nil end)
        local verdict = vim.b[buf].wave_last_verify
        vim.b[buf].wave_last_verify = nil
        vim.cmd('LspWaveVerify!')
        H.wait('the replay', function() return vim.b[buf].wave_last_verify ~= nil end)
        return {{ verdict = verdict, replay = vim.b[buf].wave_last_verify }}
    """, timeout=120)
    assert result["verdict"]["kernel"] == "missing_barrier"
    assert result["verdict"]["verdict"] == "race"
    assert sorted(result["verdict"]["witness"]["lines"]) == [11, 13]
    assert result["replay"]["shown"] is True and "data race" in result["replay"]["message"]


def test_debug_witness_hands_the_witness_launch_to_nvim_dap(tmp_path):
    """`:WaveDebugWitness` verifies the kernel at the cursor and gives nvim-dap (a stand-in
    that records `dap.run`) the witness's launch paused at its first access; the real adapter
    then stops there with both threads in "Finding lanes"."""
    import sys
    sys.path[:0] = [str(ROOT / "tests" / "debug"), str(ROOT / "tests")]
    from dap_client import DapClient
    path = tmp_path / "missing_barrier.wave"
    path.write_text((ROOT / "tests" / "verify" / "corpus" / "missing_barrier.wave").read_text(),
                    encoding="utf-8")
    result = run_nvim(tmp_path, f"""
        local recorded
        package.loaded.dap = {{ adapters = {{}}, configurations = {{}},
                               run = function(c) recorded = c end }}
        assert(require('wave.dap').setup({{ checkpoint_budget_mib = 64 }}))
        local buf = H.attach({json.dumps(str(path))})
        vim.api.nvim_win_set_cursor(0, {{ 9, 0 }})
        vim.cmd('WaveDebugWitness')
        H.wait('the debug configuration', function() return recorded ~= nil end)
        return {{ run = recorded, verdict = vim.b[buf].wave_last_verify }}
    """, timeout=120)
    run, verdict = result["run"], result["verdict"]
    assert verdict["verdict"] == "race" and run["checkpointBudgetMiB"] == 64
    assert run["program"] == str(path) and run["kernel"] == "missing_barrier"
    assert run["stopAt"]["threads"] == verdict["witness"]["threads"]
    assert " ".join(run["args"]) in verdict["witness"]["launch"]
    dap = DapClient(cwd=ROOT)
    try:
        launch = {k: v for k, v in run.items() if k not in ("type", "request", "name")}
        dap.start(launch.pop("program"), **launch)
        stop = dap.stopped()
        frame = dap.top_frame(stop["threadId"])
        assert stop["reason"] == "goto" and frame["line"] in verdict["witness"]["lines"]
        assert [v["name"] for v in dap.scope(frame["id"], "Finding lanes")] == \
            [f"thread {n}" for n in verdict["witness"]["threads"]]
    finally:
        dap.close()

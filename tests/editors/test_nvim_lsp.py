"""wave-lsp in the real Neovim 0.11: `vim.lsp.enable('wave')` with the repository's editors/nvim,
then diagnostics (utf-8 positions after astral-plane characters), hover, completion, formatting
and a quick fix, each through Neovim's own LSP client."""

from __future__ import annotations

import json

from wave_lsp.isa import INSTRUCTIONS
from wave_lsp.ide.formatting import format_text

from .nvim import run_nvim

# A label of astral-plane letters (4 utf-8 bytes, 2 utf-16 units each) before an obsolete
# mnemonic on the same line: the error's range must be counted in bytes.
ASTRAL = """.kernel k
.registers 8
𝒜𝒜: add.s32 r1, r2, r3   ; 😀 sum
    halt
.end
"""


def write(folder, name: str, text: str):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_attach_filetype_and_root(tmp_path):
    project = tmp_path / "project"
    (project / "kernels").mkdir(parents=True)
    (project / "wave-lsp.toml").write_text('disable = ["U505"]\n')
    path = write(project / "kernels", "k.wave", ASTRAL)
    result = run_nvim(tmp_path, f"""
        local buf = H.open({json.dumps(str(path))})
        local client = H.client(buf)
        return {{ filetype = vim.bo[buf].filetype, name = client.name,
                  root = client.root_dir, encoding = client.offset_encoding,
                  cmd = client.config.cmd, commentstring = vim.bo[buf].commentstring,
                  commands = vim.tbl_keys(vim.api.nvim_buf_get_commands(buf, {{}})),
                  inlay = vim.lsp.inlay_hint.is_enabled({{ bufnr = buf }}) }}
    """)
    assert result["filetype"] == "wave"
    assert result["name"] == "wave"
    assert result["root"] == str(project)
    assert result["encoding"] == "utf-8"
    assert result["cmd"] == ["wave-lsp", "serve"]
    assert result["commentstring"] == "; %s"
    assert sorted(result["commands"]) == ["LspWaveAssemble", "LspWaveClear", "LspWaveDump",
                                          "LspWaveEmit", "LspWaveEncoding", "LspWavePortability",
                                          "LspWaveProfile", "LspWaveRun", "LspWaveTest",
                                          "LspWaveVerify", "LspWaveWhoWrote"]
    assert result["inlay"] is True


def test_diagnostics_ranges_in_bytes_after_astral_characters(tmp_path):
    path = write(tmp_path, "astral.wave", ASTRAL)
    result = run_nvim(tmp_path, f"""
        local buf = H.open({json.dumps(str(path))})
        local out = {{}}
        for _, d in ipairs(H.diagnostics(buf, 2)) do
          out[#out + 1] = {{ code = d.code, lnum = d.lnum, col = d.col, end_col = d.end_col,
                            severity = d.severity, message = d.message }}
        end
        table.sort(out, function(a, b) return a.col < b.col end)
        return out
    """)
    line = ASTRAL.split("\n")[2]
    prefix = lambda text: len(line[:line.index(text)].encode("utf-8"))  # noqa: E731
    by_code = {d["code"]: d for d in result}
    legacy = by_code["L401"]
    assert (legacy["lnum"], legacy["col"]) == (2, prefix("add.s32"))
    assert legacy["end_col"] == prefix("add.s32") + len("add.s32")
    assert legacy["severity"] == 1  # vim.diagnostic.severity.ERROR
    assert "iadd" in legacy["message"]
    label = by_code["S104"]
    assert (label["col"], label["end_col"]) == (0, len("𝒜𝒜".encode("utf-8")))


def request_at(tmp_path, line: str, column: int, method: str, answer: str):
    """`method` at `column` of `line` (inside a small kernel) through Neovim's client; `answer`
    is a Lua expression over the result `r`, returned to Python."""
    path = write(tmp_path, "request.wave", f".kernel k\n.registers 8\n{line}\n    halt\n.end\n")
    return run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        local r = H.request_at(buf, 3, {column}, {json.dumps(method)})
        return {answer}
    """)


def test_hover_shows_the_instruction(tmp_path):
    result = request_at(tmp_path, "    fma r1, r2, r3, r4", 5, "textDocument/hover",
                        "r.contents.value or r.contents")
    spec = INSTRUCTIONS["fma"]
    assert spec.summary in result
    assert spec.syntax in result


def test_completion_offers_mnemonics(tmp_path):
    result = request_at(tmp_path, "    device_lo", 13, "textDocument/completion",
                        "vim.tbl_map(function(item) return item.label end, r.items or r)")
    loads = sorted(m for m in INSTRUCTIONS if m.startswith("device_load"))
    assert set(loads) <= set(result)


def test_formatting_through_vim_lsp_buf_format(tmp_path):
    source = (".kernel k\n.registers 8\n  mov_imm r1,4 ;   😀 four\nloop_top:   iadd r2,  r1, r1\n"
              "        halt\n.end\n")
    path = write(tmp_path, "format.wave", source)
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        vim.lsp.buf.format({{ bufnr = buf, async = false, timeout_ms = 20000 }})
        return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    """)
    assert result == format_text(source).split("\n")[:-1]
    assert result != source.split("\n")[:-1]


def test_quick_fix_replaces_the_obsolete_mnemonic(tmp_path):
    path = write(tmp_path, "fix.wave", ASTRAL)
    result = run_nvim(tmp_path, f"""
        local buf = H.open({json.dumps(str(path))})
        H.diagnostics(buf, 2)
        local line = vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1]
        vim.api.nvim_win_set_cursor(0, {{ 3, (line:find('add.s32', 1, true)) }})
        vim.lsp.buf.code_action({{
          apply = true,
          filter = function(action) return action.title:find('iadd', 1, true) ~= nil end,
        }})
        H.wait('the fix to apply', function()
          return not vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1]:find('add.s32', 1, true)
        end)
        return vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1]
    """)
    assert result == ASTRAL.split("\n")[2].replace("add.s32", "iadd")


def test_hover_float_has_a_border_and_aligned_tables(tmp_path):
    """`K` shows the hover in a bordered float and the kernel's resource table as
    aligned columns (a list where the editor is too narrow for them), never `| resource |
    value |` and `|---|---|` lines."""
    path = write(tmp_path, "k.wave", ".kernel k\n.registers 8\n    halt\n.end\n")
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        local function hover(columns)
          vim.o.columns = columns
          vim.api.nvim_win_set_cursor(0, {{ 1, 8 }})
          vim.api.nvim_feedkeys('K', 'x', false)
          local float
          H.wait('the hover float', function()
            for _, win in ipairs(vim.api.nvim_list_wins()) do
              if vim.api.nvim_win_get_config(win).relative ~= '' then float = win end
            end
            return float ~= nil
          end)
          local out = {{ border = vim.api.nvim_win_get_config(float).border,
                         lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0,
                                                            -1, false) }}
          vim.api.nvim_win_close(float, true)
          return out
        end
        return {{ mapped = vim.fn.maparg('K', 'n', false, true).desc, wide = hover(240),
                  narrow = hover(80) }}
    """)
    assert "wave.hover" in result["mapped"]
    for shown in (result["wide"], result["narrow"]):
        assert shown["border"] and set(shown["border"]) != {""}, shown["border"]
        assert not any(line.lstrip().startswith("|") for line in shown["lines"]), shown
    lines = result["wide"]["lines"]
    header = next(line for line in lines if line.startswith("resource"))
    assert header.split() == ["resource", "value"], lines
    rows = lines[lines.index(header) + 2:lines.index("```", lines.index(header))]
    value_column = header.index("value")
    assert len(rows) > 2 and all(row[value_column - 2:value_column] == "  " and
                                 row[value_column] != " " for row in rows), lines
    assert "- registers declared: 8" in result["narrow"]["lines"], result["narrow"]


def test_gq_rewraps_comments_and_formats_code_through_the_server(tmp_path):
    """`gq` on a long comment rewraps it at 'textwidth' (the ftplugin promised it);
    on code it is still the server's formatting."""
    words = " ".join(f"word{i}" for i in range(30))
    path = write(tmp_path, "k.wave", f"; {words}\n.kernel k\n.registers 8\nhalt\n.end\n")
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        vim.bo[buf].textwidth = 40
        vim.api.nvim_win_set_cursor(0, {{ 1, 0 }})
        vim.cmd('normal! gqq')
        local n = vim.api.nvim_buf_line_count(buf)
        vim.api.nvim_win_set_cursor(0, {{ n - 1, 0 }})
        vim.cmd('normal! gqq')
        return {{ lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
                  formatexpr = vim.bo[buf].formatexpr }}
    """)
    lines = result["lines"]
    comment = [line for line in lines if line.startswith(";")]
    assert len(comment) > 1 and all(len(line) <= 40 for line in comment), lines
    assert " ".join(line[2:] for line in comment) == words
    assert "    halt" in lines, lines                        # code: the server indents it


REGISTERS = """.kernel k
.registers 8
    mov_imm r1, 0
    if p1
    mov_imm r1, 2
    endif
    mov_imm r3, 7
    iadd r2, r1, r3
    halt
.end
"""


def test_go_to_definition_and_references_of_a_register(tmp_path):
    """`vim.lsp.buf.definition()` on a register read jumps to the one write that reaches it;
    with two writes reaching a read (through an if) and for references, Neovim lists them."""
    path = write(tmp_path, "registers.wave", REGISTERS)
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        local out = {{}}
        vim.api.nvim_win_set_cursor(0, {{ 8, 17 }})            -- the r3 of the iadd
        vim.lsp.buf.definition()
        H.wait('the jump', function() return vim.api.nvim_win_get_cursor(0)[1] ~= 8 end)
        out.jump = vim.api.nvim_win_get_cursor(0)
        local function listed(call)
          local items
          vim.api.nvim_win_set_cursor(0, {{ 8, 13 }})          -- the r1 of the iadd
          call({{ on_list = function(t) items = t.items end }})
          H.wait('the list', function() return items ~= nil end)
          return vim.tbl_map(function(i) return {{ i.lnum, i.col }} end, items)
        end
        out.definitions = listed(vim.lsp.buf.definition)
        out.references = listed(function(opts) vim.lsp.buf.references(nil, opts) end)
        return out
    """)
    assert result["jump"] == [7, 12]                              # `mov_imm r3, 7`, at r3
    assert result["definitions"] == [[3, 13], [5, 13]]            # 1-based, as Neovim lists
    assert result["references"] == [[3, 13], [5, 13], [8, 14]]

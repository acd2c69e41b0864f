"""Neovim's `=` (indent/wave.lua) and `gq` (on code the server's range formatting through
vim.lsp.formatexpr, by lua/wave/format.lua) give the project's examples back from a carelessly typed copy: one layout
for typing, re-indenting and formatting."""

from __future__ import annotations

import json

from conftest import ROOT

from test_formatting import flattened
from .nvim import run_nvim

EXAMPLES = sorted((ROOT / "examples").glob("*.wave"))


def test_indent_and_gq_give_the_examples_back(tmp_path):
    paths = []
    for example in EXAMPLES:
        path = tmp_path / example.name
        path.write_text(flattened(example.read_text()), encoding="utf-8")
        paths.append(str(path))
    result = run_nvim(tmp_path, f"""
        local out = {{}}
        for _, path in ipairs(vim.json.decode({json.dumps(json.dumps(paths))})) do
          local buf = H.attach(path)
          vim.cmd('normal! gg=G')
          local indented = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
          vim.cmd('normal! gggqG')
          out[#out + 1] = {{ name = vim.fn.fnamemodify(path, ':t'), indented = indented,
                             formatexpr = vim.bo[buf].formatexpr,
                             formatted = vim.api.nvim_buf_get_lines(buf, 0, -1, false) }}
        end
        return out
    """, timeout=120)
    assert [r["name"] for r in result] == [p.name for p in EXAMPLES]
    for r, example in zip(result, EXAMPLES):
        want = example.read_text().splitlines()
        assert "wave.format" in r["formatexpr"]      # code: vim.lsp.formatexpr (wave/format.lua)
        indents = [len(line) - len(line.lstrip()) for line in r["indented"]]
        assert indents == [len(line) - len(line.lstrip()) for line in want], r["name"]
        assert r["formatted"] == want, r["name"]

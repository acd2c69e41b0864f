--- 'formatexpr' of wave buffers: `gq` over comment lines rewraps them at 'textwidth' (Neovim's
--- own formatting, with 'comments' `;` and `#`); over code it is the server's range formatting
--- (`vim.lsp.formatexpr()`, as `=` indents), so `gq` and `=` agree on code. Neovim 0.11 sets
--- the LSP formatexpr for every line, and comments were never rewrapped. The server gets up to
--- FORMAT_TIMEOUT_MS to answer: Neovim's default, 500 ms, leaves the lines as they were, without a
--- word, whenever the machine is busy (a large file opening, a run).

local M = {}

local FORMAT_TIMEOUT_MS = 5000

function M.expr()
  local first, last = vim.v.lnum, vim.v.lnum + vim.v.count - 1
  local comments_only = true
  for _, line in ipairs(vim.api.nvim_buf_get_lines(0, first - 1, last, false)) do
    if not (line:match('^%s*[;#]') or line:match('^%s*$')) then
      comments_only = false
      break
    end
  end
  if comments_only or #vim.lsp.get_clients({ bufnr = 0, name = 'wave' }) == 0 then
    return 1 -- Neovim's own formatting
  end
  return vim.lsp.formatexpr({ timeout_ms = FORMAT_TIMEOUT_MS })
end

return M

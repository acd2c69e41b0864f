-- WAVE GPU assembly buffers: comments, indentation, and the language server's code lenses,
-- inlay hints and folds turned on for the buffer once wave-lsp attaches.
--
-- Opt out per buffer or globally: vim.b.wave_inlay_hints / vim.g.wave_inlay_hints = false,
-- vim.b.wave_codelens / vim.g.wave_codelens = false, vim.b.wave_folding / vim.g.wave_folding =
-- false.

if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = true

local bufnr = vim.api.nvim_get_current_buf()

vim.bo.commentstring = '; %s'
vim.bo.comments = ':;,:#'
vim.bo.expandtab = true
vim.bo.shiftwidth = 4
vim.bo.softtabstop = 4
-- comments wrap at 'textwidth' and `gq` formats them, but neither `o` nor Enter starts a new
-- comment: a line typed under a comment header is code
vim.opt_local.formatoptions:remove({ 't', 'o', 'r' })
vim.opt_local.formatoptions:append('cqlj')
vim.opt_local.iskeyword = '@,48-57,_,192-255'
-- gq: comments rewrapped by Neovim, code formatted by the server (wave.format)
vim.bo.formatexpr = "v:lua.require'wave.format'.expr()"
require('wave.highlight').setup()
require('wave.health').warn_if_unstartable()

local function enabled(name)
  local value = vim.b[bufnr][name]
  if value == nil then
    value = vim.g[name]
  end
  return value ~= false
end

local group = vim.api.nvim_create_augroup('wave_ftplugin_' .. bufnr, { clear = true })

vim.api.nvim_create_autocmd('LspAttach', {
  group = group,
  buffer = bufnr,
  desc = 'wave: inlay hints and code lenses',
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if not client then
      return
    end
    if enabled('wave_inlay_hints') and client:supports_method('textDocument/inlayHint', bufnr) then
      vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
    end
    if enabled('wave_folding') and client:supports_method('textDocument/foldingRange', bufnr) then
      -- folds from the server (kernels, if/else/endif, loop/endloop, comment blocks), all open
      local function fold(win)
        vim.wo[win][0].foldmethod = 'expr'
        vim.wo[win][0].foldexpr = 'v:lua.vim.lsp.foldexpr()'
        vim.wo[win][0].foldlevel = 99
      end
      for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
        fold(win)
      end
      vim.api.nvim_create_autocmd('BufWinEnter', {
        group = group,
        buffer = bufnr,
        desc = 'wave: folds from wave-lsp in every window of the buffer',
        callback = function()
          fold(vim.api.nvim_get_current_win())
        end,
      })
    end
    if enabled('wave_codelens') and client:supports_method('textDocument/codeLens', bufnr) then
      require('wave.codelens').install() -- lenses that do not fit go below their line
      vim.lsp.codelens.refresh({ bufnr = bufnr })
      vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged', 'CursorHold',
                                    'VimResized' }, {
        group = group,
        buffer = bufnr,
        desc = 'wave: refresh code lenses',
        callback = function()
          vim.lsp.codelens.refresh({ bufnr = bufnr })
        end,
      })
    end
  end,
})

vim.b.undo_ftplugin = table.concat({
  'setlocal commentstring< comments< expandtab< shiftwidth< softtabstop< formatoptions< iskeyword<'
    .. ' formatexpr<',
  'silent! autocmd! wave_ftplugin_' .. bufnr,
}, ' | ')

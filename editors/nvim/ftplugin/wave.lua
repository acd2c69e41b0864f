-- WAVE GPU assembly buffers: comments, indentation, and the language server's code lenses and
-- inlay hints turned on for the buffer once wave-lsp attaches.
--
-- Opt out per buffer or globally: vim.b.wave_inlay_hints / vim.g.wave_inlay_hints = false,
-- vim.b.wave_codelens / vim.g.wave_codelens = false.

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
vim.opt_local.formatoptions:remove('t')
vim.opt_local.formatoptions:append('croql')
vim.opt_local.iskeyword = '@,48-57,_,192-255'
require('wave.highlight').setup()

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
    if enabled('wave_codelens') and client:supports_method('textDocument/codeLens', bufnr) then
      vim.lsp.codelens.refresh({ bufnr = bufnr })
      vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged', 'CursorHold' }, {
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
  'setlocal commentstring< comments< expandtab< shiftwidth< softtabstop< formatoptions< iskeyword<',
  'silent! autocmd! wave_ftplugin_' .. bufnr,
}, ' | ')

-- wave-lsp, the language server for WAVE GPU assembly, in the Neovim 0.11 style:
--
--   vim.lsp.enable('wave')
--
-- is all a configuration needs once editors/nvim is on 'runtimepath'. Override any field with
-- vim.lsp.config('wave', { ... }); e.g. `cmd = { '/path/to/venv/bin/wave-lsp', 'serve' }`.
--
-- Settings (section `wave`, also accepted as init_options): disable = { 'U501' },
-- severity = { U505 = 'error' }, compat = 'wave-asm', inlayHints = { offsets, encoding },
-- diagnostics = { mode = 'auto'|'push'|'pull', debounceMs }, run = { maxInstructions,
-- timeLimitMs, live }. The server's defaults apply to whatever is left out.

---@type vim.lsp.Config
return {
  cmd = { 'wave-lsp', 'serve' },
  filetypes = { 'wave' },
  root_markers = { 'wave-lsp.toml', 'pyproject.toml', '.git' },
  settings = { wave = vim.empty_dict() },
  init_options = vim.empty_dict(),
  handlers = {
    ['wave-lsp/runsChanged'] = function(...)
      return require('wave.commands').runs_changed(...)
    end,
    ['wave-lsp/profileChanged'] = function(...)
      return require('wave.profile').changed(...)
    end,
    -- one line through vim.notify, never a "Press ENTER" prompt
    ['window/showMessage'] = function(...)
      return require('wave.messages').show_message(...)
    end,
  },
  on_attach = function(client, bufnr)
    require('wave.diagnostic').attach(client) -- not-executed lines greyed, not written
    require('wave.commands').attach(client, bufnr)
    require('wave.hover').attach(bufnr) -- K: a bordered float, markdown tables aligned
  end,
}

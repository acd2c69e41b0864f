--- Default highlights for wave-lsp's semantic tokens, so that the server never makes a buffer
--- less colourful than the syntax file does. Neovim's own defaults link `@lsp.type.variable` to
--- `@variable` (plain text in the default colour scheme) and semantic tokens outrank syntax
--- groups, so without these registers and `sr_*` turn plain once the server attaches.
---
--- Each link is a default (`:hi def link`): a colour scheme or the user's own
--- `vim.api.nvim_set_hl(0, '@lsp.type.variable.wave', ...)` wins. They are the groups the syntax
--- file gives the same tokens (syntax/wave.vim): registers and predicates `Identifier`, special
--- registers `Special`, labels `Label`, kernel names `Function`.

local M = {}

M.links = {
  ['@lsp.type.variable.wave'] = 'Identifier', -- r0, r7.lo
  ['@lsp.type.parameter.wave'] = 'Identifier', -- p1 (also in a guard)
  ['@lsp.typemod.variable.defaultLibrary.wave'] = 'Special', -- sr_lane_id
  ['@lsp.type.label.wave'] = 'Label', -- top:, call top
  ['@lsp.type.namespace.wave'] = 'Function', -- .kernel NAME
}

--- Set the default links (again after a `:colorscheme`, which clears them).
function M.apply()
  for group, target in pairs(M.links) do
    vim.api.nvim_set_hl(0, group, { link = target, default = true })
  end
end

--- Apply now and after every colour scheme change (once per session).
function M.setup()
  M.apply()
  if not M.autocmd then
    M.autocmd = vim.api.nvim_create_autocmd('ColorScheme', {
      group = vim.api.nvim_create_augroup('wave_highlight', { clear = true }),
      desc = 'wave: default links for the semantic tokens of wave-lsp',
      callback = M.apply,
    })
  end
end

return M

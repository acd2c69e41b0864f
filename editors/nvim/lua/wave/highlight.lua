--- Default highlights for wave-lsp's semantic tokens, so that the server never makes a buffer
--- less colourful than the syntax file does. Neovim's own defaults link `@lsp.type.variable` to
--- `@variable` (plain text in the default colour scheme) and semantic tokens outrank syntax
--- groups, so without these registers and `sr_*` turn plain once the server attaches.
---
--- Each link is a default (`:hi def link`): a colour scheme or the user's own
--- `vim.api.nvim_set_hl(0, '@lsp.type.variable.wave', ...)` wins. They are the groups the syntax
--- file gives the same tokens (syntax/wave.vim): registers and predicates `Identifier`, special
--- registers `Special`, labels `Label`, kernel names `Function`.
---
--- Also the heat of kernel profiles (wave.profile): WaveHeat1..WaveHeat5, cool to hot, in the
--- colours of the VS Code heat view (vscode-extension/src/heat.ts) with the nearest 256-colour
--- entries for terminals without 'termguicolors', and WaveHeatLine (the hottest lines).

local M = {}

M.links = {
  ['@lsp.type.variable.wave'] = 'Identifier', -- r0, r7.lo
  ['@lsp.type.parameter.wave'] = 'Identifier', -- p1 (also in a guard)
  ['@lsp.typemod.variable.defaultLibrary.wave'] = 'Special', -- sr_lane_id
  ['@lsp.type.label.wave'] = 'Label', -- top:, call top
  ['@lsp.type.namespace.wave'] = 'Function', -- .kernel NAME
}

--- 256-colour foregrounds for Neovim's groups that show wave-lsp's results, used only where the
--- colour scheme gives the group none: the default scheme colours NonText (which inlay hints and
--- code lenses link to) and Comment (greyed not-executed lines) only with 'termguicolors', so
--- without it values and lenses were drawn in the text's own colour and read like code.
M.cterm = {
  LspInlayHint = 244,         -- run values, profile figures: mid grey
  LspCodeLens = 109,          -- ▶ Run | ✓ …: grey-blue, apart from the hints
  LspCodeLensSeparator = 240,
  DiagnosticUnnecessary = 242, -- lines a run did not execute: dim
}

M.heat = {
  { gui = '#f2d65c', cterm = 221 },
  { gui = '#f5a742', cterm = 215 },
  { gui = '#ec7036', cterm = 209 },
  { gui = '#d6402b', cterm = 166 },
  { gui = '#a81f2a', cterm = 124 },
}

--- Set the default links and colours (again after a `:colorscheme`, which clears them).
function M.apply()
  for group, target in pairs(M.links) do
    vim.api.nvim_set_hl(0, group, { link = target, default = true })
  end
  for level, colour in ipairs(M.heat) do
    vim.api.nvim_set_hl(0, 'WaveHeat' .. level,
      { fg = colour.gui, ctermfg = colour.cterm, bold = level == #M.heat, default = true })
  end
  vim.api.nvim_set_hl(0, 'WaveHeatLine', { bg = '#3a1d1f', ctermbg = 52, default = true })
  for group, colour in pairs(M.cterm) do
    local resolved = vim.api.nvim_get_hl(0, { name = group, link = false })
    if resolved.ctermfg == nil and not resolved.reverse then
      resolved.ctermfg = colour
      resolved.cterm = resolved.cterm or { italic = resolved.italic }
      vim.api.nvim_set_hl(0, group, resolved)
    end
  end
end

--- Apply now and after every colour scheme change (once per session).
function M.setup()
  M.apply()
  if not M.autocmd then
    M.autocmd = vim.api.nvim_create_autocmd('ColorScheme', {
      group = vim.api.nvim_create_augroup('wave_highlight', { clear = true }),
      desc = 'wave: default links for the semantic tokens of wave-lsp, and the heat colours',
      callback = M.apply,
    })
  end
end

return M

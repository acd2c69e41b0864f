-- The user configuration the Neovim tests start with (`nvim -u init.lua`): exactly what the
-- README tells a user to write, with the repository's editors/nvim as the plugin directory.
local root = assert(os.getenv('WAVE_REPO'), 'WAVE_REPO not set')
vim.opt.runtimepath:prepend(root .. '/editors/nvim')
if os.getenv('WAVE_NO_LSP') ~= '1' then
  vim.lsp.enable('wave')
end
vim.diagnostic.config({ virtual_text = true })

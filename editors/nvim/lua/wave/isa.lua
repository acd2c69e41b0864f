-- WAVE facts for the Neovim runtime files.
-- GENERATED from wave_lsp/isa by `python -m wave_lsp.generate.vim_files`: do not edit.
return {
  block_openers = { ["if"] = true, ["loop"] = true },
  block_middles = { ["else"] = true },
  block_closers = { ["endif"] = true, ["endloop"] = true },
}

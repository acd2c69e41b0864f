-- WAVE GPU assembly: directives and labels at column 0, instructions one 'shiftwidth' in, and
-- one more level inside each if/else/endif and loop/endloop block (lua/wave/indent.lua).

if vim.b.did_indent then
  return
end
vim.b.did_indent = true

vim.bo.indentexpr = "v:lua.require'wave.indent'.indentexpr(v:lnum)"
vim.bo.indentkeys = require('wave.indent').indentkeys()
vim.bo.autoindent = true
vim.b.undo_indent = 'setlocal indentexpr< indentkeys< autoindent<'

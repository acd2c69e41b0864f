-- Patterns of wave-lsp's tool comments (`; wave-lsp VERB: TEXT`), each capturing TEXT.
-- GENERATED from wave_lsp/syntax by `python -m wave_lsp.syntax.tool_comment_lua`: do not edit.
return {
  run = '^%s*[;#]+%s*wave%-lsp run:%s*(.-)%s*$',
  expect = '^%s*[;#]+%s*wave%-lsp expect: ?(.*)$',
  args = '^%s*[;#]+%s*wave%-lsp args:%s*(.-)%s*$',
}

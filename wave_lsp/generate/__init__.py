"""Files the editor clients need that restate facts the package owns, generated from it.

Each module renders some checked-in files and rewrites them with `python -m
wave_lsp.generate.<module>` (`--check` only reports the stale ones, for tests and CI):
`textmate` (VS Code's TextMate grammar), `vim_files` (Vim, Neovim and Emacs keyword lists),
`backend_lists` (the backend targets of Neovim and VS Code) from `wave_lsp.isa`, and `ts_types`
(the TypeScript types of the server's protocol extensions) from `wave_lsp.server.extensions`.
The shared staleness check and command line is `wave_lsp.isa.generated` (generators below this
layer use it too).
"""

"""The `wave-lsp run` vocabulary, between the emulator (`emu`) and the editor (`ide`).

One table of the command's flags (`table`), from which the command line's parser, a launch
line's (`; wave-lsp run: FLAGS` in a source file) and a kernel test's are built; what parsed flags
ask for (`flags`: the `Launch` and `RunOptions`; `request`: a `RunRequest`, everything
`wave-lsp run FILE FLAGS` runs and prints); the editor's limits on a run (`limits`); and the
command's output text (`output`, `formats`, `run_text`, `profile_text`), so the command, the
editor and kernel tests print the same. The modules are imported by name; this package loads
nothing (`wave-lsp run --help` stays quick).
"""

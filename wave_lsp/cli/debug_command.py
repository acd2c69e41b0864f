"""`wave-lsp debug`: the kernel debugger, a Debug Adapter Protocol server on stdin/stdout.

Editors start it as their debug adapter for debug type `wave` (VS Code: the extension's
`debuggers` contribution; Neovim: `editors/nvim/lua/wave/dap.lua`). Launch arguments:
`program`, `kernel`, `args` (the flags of `wave-lsp run`), `stopOnEntry`, `cwd`.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "debug", help="debug adapter (Debug Adapter Protocol on stdio) for the emulator",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=debug)


def debug(args) -> int:
    from ..debug import serve
    return serve(sys.stdin.buffer, sys.stdout.buffer)

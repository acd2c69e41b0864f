"""`wave-lsp debug`: the kernel debugger, a Debug Adapter Protocol server on stdin/stdout.

Editors start it as their debug adapter for debug type `wave` (VS Code: the extension's
`debuggers` contribution; Neovim: `editors/nvim/lua/wave/dap.lua`). Launch arguments:
`program`, `kernel`, `args` (the flags of `wave-lsp run`), `stopOnEntry`, `cwd`, `stopAt`,
`checkpointBudgetMiB`.

`--server` keeps a warm adapter: the debugger is loaded once and serves one session per
connection (a Unix socket in a private directory, or TCP on 127.0.0.1 with `--port`), printing
where it listens as one JSON line (`{"socket": PATH}` or `{"port": N}`) and exiting when its
stdin ends. VS Code's extension starts one per window (setting `wave.debug.warmAdapter`).
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "debug", help="debug adapter (Debug Adapter Protocol on stdio) for the emulator",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", action="store_true",
                   help="serve sessions over a socket, one per connection, until stdin ends")
    p.add_argument("--port", type=_port, default=None, metavar="N",
                   help="with --server: listen on TCP 127.0.0.1:N (0: any free port) instead "
                        "of a Unix socket")
    p.set_defaults(func=debug)


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"a port is a number 0..65535, not {text!r}")
    return int(text)


def debug(args) -> int:
    if args.server:
        from ..debug.listener import listen
        return listen(args.port)
    if args.port is not None:
        print("wave-lsp debug: --port needs --server", file=sys.stderr)
        return 2
    from ..debug import serve
    from ..framing import whole_writer
    return serve(sys.stdin.buffer, whole_writer(sys.stdout.buffer))

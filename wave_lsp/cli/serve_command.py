"""`wave-lsp serve`: run the language server on stdio (default), TCP or WebSocket (one client
per server; see `wave_lsp.server.network`)."""

from __future__ import annotations

import argparse
import gc
import os
import sys


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT (for example 127.0.0.1:2087), "
                                         f"not {text!r}")
    return host, int(port)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the language server",
        description="Run the WAVE language server (Language Server Protocol). "
                    "It talks over stdin/stdout unless --tcp or --ws is given.")
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="use stdin/stdout (default)")
    transport.add_argument("--tcp", metavar="HOST:PORT", type=_address,
                           help="listen for one client on a TCP socket (a second "
                                "connection is refused while it is connected)")
    transport.add_argument("--ws", metavar="HOST:PORT", type=_address,
                           help="listen for one client on a WebSocket (likewise)")
    parser.add_argument("--log-file", metavar="PATH", help="write the server log to PATH")
    parser.add_argument("--log-level", default="WARNING",
                        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="log level (default WARNING)")
    parser.set_defaults(func=run)


def on_c_allocator() -> None:
    """Re-run this command with Python's objects on the C allocator (`PYTHONMALLOC=malloc`),
    on glibc, unless the variable is set. Python's own allocator keeps each 1 MiB arena while
    one object in it lives: after a hundred large documents closed, every one of some 270
    arenas held a few survivors (a cached value, a log record), ~250 MB of free pools the
    process never gave back. glibc's `malloc_trim` (`AnalysisHost.release_memory`) returns
    the free pages between live blocks. Only the process started as `wave-lsp serve` does
    this: the exec keeps its pid and stdio, and nothing has been read yet. `cli.main` calls it
    before it builds its parser, so that the process replaced loads no more than it must."""
    if (sys.platform != "linux" or "PYTHONMALLOC" in os.environ
            or "serve" not in sys.argv[1:] or not getattr(sys, "orig_argv", None)
            or not _on_glibc()):
        return
    try:
        os.execve(sys.executable, sys.orig_argv, {**os.environ, "PYTHONMALLOC": "malloc"})
    except OSError:
        pass              # it runs on as it is


def _on_glibc() -> bool:
    """Whether the C library is glibc (whose `malloc_trim` gives free pages back)."""
    try:
        return os.confstr("CS_GNU_LIBC_VERSION") is not None
    except (ValueError, OSError):
        return False


def run(args: argparse.Namespace) -> int:
    on_c_allocator()      # done already where `serve` came first (`cli.main`); else here
    import logging

    handler: logging.Handler = (logging.FileHandler(args.log_file) if args.log_file
                                else logging.StreamHandler(sys.stderr))
    logging.basicConfig(level=args.log_level, handlers=[handler],
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    prefix, stdout = b"", sys.stdout.buffer
    if not args.tcp and not args.ws:
        from ..framing import whole_writer
        from ..server.handshake import early_initialize

        prefix, stdout = early_initialize(sys.stdin.buffer, whole_writer(sys.stdout.buffer))
    from ..server.server import create_server

    if args.ws:
        try:
            import websockets  # noqa: F401
        except ImportError:
            print("wave-lsp serve: --ws needs the 'websockets' package "
                  "(pip install websockets)", file=sys.stderr)
            return 2
    server = create_server()
    # What loading made (some 60,000 objects of 430 modules: classes, functions, tables that
    # live as long as the process) leaves the collector's reach, so that the full collections
    # of the server's life do not scan it again. (Pausing the collector while the server loads
    # would save a twelfth of a start's CPU, only by keeping 10 MB of the libraries' garbage.)
    gc.freeze()
    if args.tcp or args.ws:
        from ..server.network import run_network

        host, port = args.tcp or args.ws
        status = run_network(server, "tcp" if args.tcp else "ws", host, port)
    else:
        status = server.start_io(stdout=stdout, prefix=prefix)
    from ..server.server import exit_soon
    exit_soon(status)      # `exit` ends the process, even with a worker still busy
    return status

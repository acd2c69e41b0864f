"""`wave-lsp`: one command with subcommands (lint, asm, dis, run, test, serve, emit, debug, why).

Each subcommand lives in its own module of this package with a `register(subparsers)` function
that adds its parser and sets `func` (called with the parsed arguments, returning an exit status).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys

from .. import __version__

SUBCOMMANDS = ("lint", "asm", "dis", "run", "test", "serve", "emit", "debug", "why", "verify")


class _Version(argparse.Action):
    """`--version`: the version and the engine that runs kernels (the native core, or the
    numpy engine and why), looked up only when asked."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show the version and the emulator engine, and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from ..emu import engine_summary

        print(f"wave-lsp {__version__} ({engine_summary()})")
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with `only`, just that subcommand is imported and registered, so a
    command starts without loading the others (the emulator does not need the linter); with
    `only=""`, none (`--version` prints and exits before a subcommand is looked at)."""
    parser = argparse.ArgumentParser(
        prog="wave-lsp", description="Editor tooling for WAVE GPU assembly.")
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(f"{__package__}.{name}_command")
        except ModuleNotFoundError as err:
            if err.name != f"{__package__}.{name}_command":
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line `argv` (the process's own when None: then whatever the command
    leaves is kept from the interpreter's last garbage collection at exit, which scans every
    object left -- a quarter of a second after a 10,000-line `lint` -- with `gc.freeze`)."""
    if argv is None:
        try:
            return _main(sys.argv[1:])
        finally:
            gc.freeze()
    return _main(argv)


def _main(argv: list[str]) -> int:
    if argv[:1] == ["serve"]:
        from .serve_command import on_c_allocator

        on_c_allocator()          # the process re-runs itself before it loads anything more
    parser = build_parser(_needed(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _needed(argv: list[str]) -> str | None:
    """The subcommand `argv` needs registered: the one it names first, none when it starts with
    `--version`, else all of them (the overall help lists them)."""
    if not argv:
        return None
    if argv[0] == "--version":
        return ""
    return argv[0] if argv[0] in SUBCOMMANDS else None


if __name__ == "__main__":
    sys.exit(main())

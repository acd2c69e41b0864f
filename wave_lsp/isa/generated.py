"""Checked-in files that restate ISA facts for another language (Vim, Lua, Emacs Lisp, C,
TypeScript), generated from this package: finding the stale ones and the command line that
rewrites them (`--check` only reports, for tests and CI)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

Renderers = dict[Path, Callable[[], str]]
REPOSITORY = Path(__file__).resolve().parents[2]


def stale(root: Path, generated: Renderers) -> list[Path]:
    """The files of `generated` under repository `root` that are missing or differ."""
    out = []
    for path, render in generated.items():
        target = root / path
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current != render():
            out.append(path)
    return out


def main(module: str, description: str, generated: Renderers,
         argv: list[str] | None = None) -> int:
    """`python -m <module> [--root R] [--check]`: rewrite (or only report) the stale files."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description=description)
    parser.add_argument("--root", type=Path, default=REPOSITORY,
                        help="repository root (default: the one this package is in)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a file differs from the table")
    args = parser.parse_args(argv)
    outdated = stale(args.root, generated)
    if args.check:
        for path in outdated:
            print(f"{path} is stale: run python -m {module}", file=sys.stderr)
        return 1 if outdated else 0
    for path in outdated:
        target = args.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(generated[path](), encoding="utf-8")
        print(f"wrote {path}")
    return 0

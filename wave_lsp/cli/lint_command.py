"""`wave-lsp lint PATH...`: diagnostics for files and directories, for people, CI and pre-commit.

Text output is one `path:line:col: CODE severity message` per line, sorted by position (line and
column are 1-based; columns count Unicode characters), then one summary line ("All checks passed:
3 files", or what was found); `--quiet` prints the diagnostics only. `--format json` prints one
JSON array. A path that holds no `.wave` file is a warning on stderr. `--fix` applies the safe
fixes (`analysis.fixes`) and prints each one it made; `--unsafe-fixes` adds the guesses. Exit status: 0 without errors, 1 with errors (or with warnings under `--strict`), 2 when a path
could not be read or the command line is wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from ..analysis import Config, Diagnostic, Severity, analyze, find_config, load_config
from ..analysis.codes import severity_of
from ..analysis.diagnostic import Range
from ..analysis.fixes import apply_edits, fixes_to_apply
from ..analysis.source import decode_source
from ..files import FileWriteError, read_regular, rewrite_source
from ..isa.backends import TARGET_NAMES
from ..syntax.document import Document, collector_paused

# Linting takes about 10 s per MiB of source with many findings: a larger file is refused
# with a clear message rather than running for minutes (docs/user/limits-and-security.md).
MAX_LINT_BYTES = 4 << 20


class FileReadError(OSError):
    """A file to lint could not be read."""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "lint", help="report diagnostics for .wave files",
        description="Report diagnostics for WAVE assembly files and directories (searched "
                    "recursively for *.wave).")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--strict", action="store_true", help="warnings fail the run too")
    p.add_argument("--config", type=Path, metavar="FILE",
                   help="configuration file (default: nearest wave-lsp.toml or pyproject.toml "
                        "with [tool.wave-lsp])")
    p.add_argument("--no-config", action="store_true", help="ignore configuration files")
    p.add_argument("--compat", choices=("wave-asm",), help="analyse for wave-asm's exact bytes")
    p.add_argument("--targets", type=_targets, metavar="T1,T2",
                   help="backends the portability lints check (ptx, hip, metal, sycl; "
                        "overrides the configuration's 'targets')")
    p.add_argument("--fix", action="store_true",
                   help="apply the safe fixes (rewrites of legacy syntax) in place, print each, "
                        "then report what is left")
    p.add_argument("--unsafe-fixes", action="store_true",
                   help="with --fix, also apply the guesses (the closest name to a typo, ...)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print the diagnostics only (no summary, no fixes, no warnings)")
    p.set_defaults(func=run)


def _targets(text: str) -> tuple[str, ...]:
    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    unknown = [t for t in names if t not in TARGET_NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown target(s) {', '.join(unknown)} "
                                         f"(known: {', '.join(TARGET_NAMES)})")
    return tuple(t for t in TARGET_NAMES if t in names)


def collect(paths: list[str], empty: list[str] | None = None) -> tuple[list[Path], list[str]]:
    """The .wave files named or found below directories, and a problem for each path that is
    missing or cannot be read (a directory that cannot be listed is never skipped silently);
    directories without a `.wave` file are added to `empty`."""
    files: list[Path] = []
    problems: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found, unreadable = walk_wave_files(path)
            files.extend(found)
            problems.extend(f"{p}: error: cannot read directory: {why}" for p, why in unreadable)
            if not found and not unreadable and empty is not None:
                empty.append(raw)
        elif path.exists():
            files.append(path)
        else:
            problems.append(f"{raw}: error: no such file or directory")
    return files, problems


def walk_wave_files(root: Path) -> tuple[list[Path], list[tuple[str, str]]]:
    """`*.wave` files below `root` (not following directory links), sorted, and the
    directories that could not be listed with the reason."""
    found: list[Path] = []
    unreadable: list[tuple[str, str]] = []

    def failed(err: OSError) -> None:
        unreadable.append((err.filename or str(root), err.strerror or str(err)))

    for folder, dirs, names in os.walk(root, onerror=failed):
        dirs.sort()
        found.extend(Path(folder) / n for n in names if n.endswith(".wave"))
    return sorted(found), unreadable


class ConfigCache:
    """Configuration per file, found once per directory; problems are reported once."""

    def __init__(self, explicit: Path | None, disabled: bool, compat: bool) -> None:
        self.explicit, self.disabled, self.compat = explicit, disabled, compat
        self._by_path: dict[Path, Config] = {}
        self.problems: list[tuple[str, Diagnostic]] = []

    def for_file(self, path: Path) -> Config:
        if self.disabled:
            return Config(compat=self.compat)
        cfg_path = self.explicit or find_config(path)
        if cfg_path is None:
            return Config(compat=self.compat)
        if cfg_path not in self._by_path:
            config, problems = load_config(cfg_path)
            for p in problems:
                self.problems.append((str(cfg_path), Diagnostic(
                    "X902", severity_of("X902"), Range(p.line, 0, p.line, 0),
                    f"invalid configuration: {p.message}")))
            self._by_path[cfg_path] = config
        config = self._by_path[cfg_path]
        if self.compat and not config.compat:
            config = replace(config, compat=True)
        return config


def lint_file(path: Path, config: Config, fix: bool = False, unsafe: bool = False,
              applied: list[Diagnostic] | None = None) -> list[Diagnostic]:
    """Diagnostics of one file (after applying the safe fixes when `fix`, every fix with
    `unsafe`; the diagnostics fixed are appended to `applied`); raises FileReadError or
    FileWriteError when it cannot be read or written."""
    try:
        data = read_regular(path, MAX_LINT_BYTES)
    except OSError as err:
        raise FileReadError(err.errno, err.strerror or str(err), str(path)) from err
    text, problem = decode_source(data)
    if problem is not None:
        return [problem]
    with collector_paused():   # collections took nearly half of a large file's time
        diagnostics = analyze(Document(text, uri=str(path)), config)
    if fix:
        for _ in range(4):  # a fix can reveal another (a legacy mnemonic, then its operands)
            chosen = fixes_to_apply(diagnostics, unsafe)
            if not chosen:
                break
            if applied is not None:
                applied.extend(chosen)
            text = apply_edits(text, [e for d in chosen for e in d.fixes[0].edits])
            diagnostics = analyze(Document(text, uri=str(path)), config)
        if text.encode("utf-8") != data:
            rewrite_source(path, data, text.encode("utf-8"), MAX_LINT_BYTES)  # or unchanged
    return diagnostics


def format_text(path: str, d: Diagnostic) -> str:
    r = d.range
    return f"{path}:{r.start_line + 1}:{r.start_col + 1}: {d.code} {d.severity.label} {d.message}"


def as_json(path: str, d: Diagnostic) -> dict:
    r = d.range
    return {
        "path": path, "line": r.start_line + 1, "column": r.start_col + 1,
        "end_line": r.end_line + 1, "end_column": r.end_col + 1, "code": d.code,
        "severity": d.severity.label, "message": d.message,
        "fixes": [{"title": f.title, "edits": [
            {"line": e.range.start_line + 1, "column": e.range.start_col + 1,
             "end_line": e.range.end_line + 1, "end_column": e.range.end_col + 1,
             "new_text": e.new_text} for e in f.edits]} for f in d.fixes],
        "related": [{"line": rel.range.start_line + 1, "column": rel.range.start_col + 1,
                     "message": rel.message} for rel in d.related],
    }


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary(files: int, results: list[tuple[str, Diagnostic]], fixed: int, fixable: int,
            unsafe: int) -> str:
    """The closing lines of a text report: what was fixed, checked and found, and the fixes
    left (`fixable` safe ones, `unsafe` guesses) with the option that applies them."""
    lines = [f"Fixed {_plural(fixed, 'problem')}"] if fixed else []
    if not results:
        if files:
            lines.append(f"All checks passed: {_plural(files, 'file')}")
    else:
        by_severity: dict[str, int] = {}
        for _, d in results:
            by_severity[d.severity.label] = by_severity.get(d.severity.label, 0) + 1
        counts = ", ".join(_plural(n, s) for s, n in by_severity.items())
        affected = len({p for p, _ in results})
        lines.append(f"Found {_plural(len(results), 'problem')} ({counts}) in {affected} of "
                     f"{_plural(files, 'file')}")
    offers = []
    if fixable:
        offers.append(f"{fixable} fixable with --fix")
    if unsafe:
        offers.append(f"{unsafe} {'more ' if fixable else ''}fixable with --fix --unsafe-fixes")
    if offers:
        lines.append("; ".join(offers))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    empty: list[str] = []
    files, io_problems = collect(args.paths, empty)
    configs = ConfigCache(args.config, args.no_config, args.compat == "wave-asm")
    if args.config is not None and not args.config.is_file():
        io_problems.append(f"{args.config}: error: configuration file not found")
    results: list[tuple[str, Diagnostic]] = []
    fixed: list[tuple[str, Diagnostic]] = []
    for path in files:
        applied: list[Diagnostic] = []
        try:
            config = configs.for_file(path)
            if args.targets is not None:
                config = replace(config, targets=args.targets)
            diags = lint_file(path, config, args.fix, args.unsafe_fixes, applied)
        except FileWriteError as err:
            io_problems.append(f"{path}: error: cannot write (the file is unchanged): "
                               f"{err.strerror or err}")
            continue
        except OSError as err:
            io_problems.append(f"{path}: error: cannot read: {err.strerror or err}")
            continue
        results.extend((str(path), d) for d in diags)
        fixed.extend((str(path), d) for d in applied)
    results = configs.problems + results
    for line in io_problems:
        print(line, file=sys.stderr)
    if not args.quiet:
        for raw in empty:
            print(f"{raw}: warning: no .wave file found there", file=sys.stderr)
        if not files and not io_problems and not empty:
            print("warning: no .wave file to check", file=sys.stderr)
    if args.format == "json":
        json.dump([as_json(p, d) for p, d in results], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        if not args.quiet:
            for p, d in fixed:
                r = d.range
                print(f"{p}:{r.start_line + 1}:{r.start_col + 1}: fixed {d.code}: "
                      f"{d.fixes[0].title}")
        for p, d in results:
            print(format_text(p, d))
        if not args.quiet:
            left = [d for _, d in results]
            safe = len(fixes_to_apply(left))
            guesses = len(fixes_to_apply(left, unsafe=True)) - safe
            if args.fix:  # what --fix could take it took; the guesses wait for --unsafe-fixes
                safe, guesses = 0, 0 if args.unsafe_fixes else guesses
            text = summary(len(files), results, len(fixed), safe, guesses)
            if text:
                print(text)
    if io_problems:
        return 2
    worst = min((d.severity for _, d in results), default=Severity.HINT + 1)
    if worst == Severity.ERROR or (args.strict and worst <= Severity.WARNING):
        return 1
    return 0

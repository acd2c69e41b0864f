"""Launch lines: `; wave-lsp run: FLAGS` comments that say how the editor runs a kernel.

A launch line sits inside a kernel's block or directly above its `.kernel` (only comments and
blank lines between). Its flags are exactly those of `wave-lsp run` (`launch.table`, parsed
once into the `LaunchRequest` kept on its `LaunchLine`, which kernel tests reuse), plus `--lanes`
choosing which threads' values the editor shows (default: the first wave of workgroup 0). The
inline run is a plain run of the launch: flags that only change what the command prints or where
it runs (traces, `--stats`, `--json`, `--compat`, `--device`, `--compare`, `--wave-widths`, the
profile flags: `table.EDITOR_IGNORED`) are accepted, checked and left out; the Profile lens
profiles a kernel, and a kernel test on the line prints what the command prints. `--arg OFFSET:FILE` is relative to the
document's folder; given a `root` (the editor does), a file must stay inside it and is not read
here but when the kernel runs (`arg_files.py`). A kernel may have several launch lines; one without any runs with the default
launch (its `.workgroup_size`, grid 1, zeroed memory). A flag that cannot be parsed becomes a
`LaunchProblem` with the columns of the flag at fault; a line of more than MAX_LAUNCH_FLAGS flags
or MAX_LAUNCH_LINE_CHARS characters is not read at all (one problem on the whole line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator, Sequence

from ..emu import Launch, RunOptions
from ..launch.flags import (DumpRequest, LaunchFlagError, arg_spec, build_launch, build_options,
                            dump_requests, number)
from ..launch.profile_text import check_profile_flags
from ..launch.request import LaunchRequest, parse_request
from ..launch.table import BY_NAME, FLAGS, LANES_FLAG
from ..syntax.program import Kernel
from ..syntax.tool_comments import kernel_comment_lines, launch_comment
from .arg_files import confined_path

MAX_SHOWN_LANES = 64
# A launch line is parsed on every revision of its document: past these caps it is not read
# at all (an R004 on the line says so) rather than parsed for seconds per keystroke.
MAX_LAUNCH_FLAGS = 10_000
MAX_LAUNCH_LINE_CHARS = 1 << 19
_TOKEN = re.compile(r"\"[^\"]*\"|'[^']*'|\S+")
_FLAG_START = re.compile(r"(?<!\S)[\"']?--")      # where a word that is a flag begins


@dataclass(frozen=True)
class Token:
    """One whitespace-separated word of a launch line, with its columns [start, end)."""

    text: str
    start: int
    end: int

    @property
    def value(self) -> str:
        """The word without surrounding quotes."""
        if len(self.text) >= 2 and self.text[0] == self.text[-1] and self.text[0] in "\"'":
            return self.text[1:-1]
        return self.text


@dataclass(frozen=True)
class LaunchProblem:
    """Why a launch line cannot run, and the columns to underline."""

    message: str
    start: int
    end: int
    flag: str | None = None
    unread: bool = False   # over a cap (`MAX_LAUNCH_FLAGS`, `..._CHARS`): no flag was read


@dataclass(frozen=True)
class LaunchLine:
    """One launch comment, parsed. `launch` is None exactly when `problem` is set."""

    line: int
    kernel: str
    ordinal: int                   # position among the kernel's launch lines (0 = first)
    start: int                     # columns of the whole comment
    end: int
    flags_start: int               # column where the flags begin
    tokens: tuple[Token, ...]
    launch: Launch | None
    lanes: tuple[int, ...] | None  # None: the first wave of workgroup 0
    dumps: tuple[DumpRequest, ...]
    explicit: frozenset[str]       # flags written on the line
    problem: LaunchProblem | None = None
    arg_files: tuple[tuple[int, Path], ...] = ()   # --arg files read when it runs (with a root)
    options: RunOptions | None = None   # the line's limits and checks (None with a problem)
    request: LaunchRequest | None = None   # the flags parsed (None: they do not parse)

    @property
    def flags(self) -> str:
        return " ".join(t.text for t in self.tokens)


def tokens_of(text: str, start: int) -> tuple[Token, ...]:
    """The words of `text` from column `start` (quotes keep spaces inside a word)."""
    return tuple(Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text, start))


def parse_lanes(text: str) -> tuple[int, ...]:
    """`--lanes` value: global thread ids and inclusive ranges, `0-7,32,40-47`."""
    lanes: list[int] = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first:
            raise LaunchFlagError(f"--lanes: expected THREAD or FIRST-LAST, got '{part}'",
                                  LANES_FLAG)
        lo = number(first, LANES_FLAG)
        hi = number(last, LANES_FLAG) if dash else lo
        if lo < 0 or hi < lo:
            raise LaunchFlagError(f"--lanes: '{part}' is not a thread or an increasing range",
                                  LANES_FLAG)
        lanes.extend(range(lo, min(hi, lo + MAX_SHOWN_LANES) + 1))
        if len(set(lanes)) > MAX_SHOWN_LANES:
            raise LaunchFlagError(f"--lanes: at most {MAX_SHOWN_LANES} threads can be shown",
                                  LANES_FLAG)
    return tuple(sorted(set(lanes)))


def _split_lanes(tokens: Sequence[Token]) -> tuple[list[str], str | None]:
    """The flag words for the run parser, and the `--lanes` value (taken out)."""
    words, lanes = [], None
    i = 0
    while i < len(tokens):
        word = tokens[i].value
        if word == LANES_FLAG:
            if i + 1 >= len(tokens):
                raise LaunchFlagError("--lanes expects THREADS, e.g. 0-7,32", LANES_FLAG)
            lanes = tokens[i + 1].value
            i += 2
            continue
        if word.startswith(LANES_FLAG + "="):
            lanes = word.split("=", 1)[1]
        else:
            words.append(word)
        i += 1
    return words, lanes


def flag_columns(tokens: Sequence[Token], flag: str | None, message: str) -> tuple[int, int]:
    """Columns of the flag at fault (with its value); the whole flag list when unknown. Of
    several uses of one flag, the one whose value the message quotes."""
    if not tokens:
        return 0, 0
    whole = (tokens[0].start, tokens[-1].end)
    if not flag:
        return whole
    places = []
    for i, tok in enumerate(tokens):
        name = tok.value.split("=", 1)[0]
        if name == flag:
            end = tok.end
            if "=" not in tok.value and i + 1 < len(tokens) \
                    and not tokens[i + 1].value.startswith("--"):
                end = tokens[i + 1].end
            value = tokens[i + 1].value if end != tok.end else tok.value.partition("=")[2]
            places.append((tok.start, end, value))
    if not places:
        return whole
    for start, end, value in places:
        if value and value in message:
            return start, end
    return places[0][0], places[0][1]


def over_cap(text: str, flags_start: int) -> str | None:
    """Why a launch line is too large to be read (None when it is not), found before it is
    split into words."""
    if len(text) > MAX_LAUNCH_LINE_CHARS:
        return (f"a launch line is read up to {MAX_LAUNCH_LINE_CHARS:,} characters; this one "
                f"has {len(text):,}, so it does not run")
    flags = sum(1 for _ in _FLAG_START.finditer(text, flags_start))
    if flags > MAX_LAUNCH_FLAGS:
        return (f"the launch line has {flags:,} flags; at most {MAX_LAUNCH_FLAGS:,} are read, "
                f"so it does not run")
    return None


def parse_launch_line(text: str, line: int, kernel: str, ordinal: int,
                      base_dir: Path | None, root: Path | None = None) -> LaunchLine | None:
    """Parse the launch comment on one line (None when the line is not a launch comment).
    With a `root`, `--arg` files are confined to it and left unread (`arg_files`)."""
    flags_start = launch_comment(text)
    if flags_start is None:
        return None
    stripped = len(text) - len(text.lstrip())
    place = dict(line=line, kernel=kernel, ordinal=ordinal, start=stripped, end=len(text.rstrip()),
                 flags_start=flags_start)
    too_many = over_cap(text, flags_start)
    if too_many is not None:
        problem = LaunchProblem(too_many, flags_start, place["end"], unread=True)
        return LaunchLine(**place, tokens=(), launch=None, lanes=None, dumps=(),
                          explicit=frozenset(), problem=problem)
    place["tokens"] = tokens = tokens_of(text, flags_start)
    explicit = frozenset(t.value.split("=", 1)[0] for t in tokens if t.value.startswith("--"))
    request = None
    try:
        words, lanes_text = _split_lanes(tokens)
        request = parse_request(words, lanes_text)
        args = request.args()
        check_profile_flags(args)       # checked as the command does; the inline run is plain
        if args.kernel is not None and args.kernel != kernel:
            raise LaunchFlagError(f"--kernel: this launch line belongs to kernel '{kernel}', "
                                  f"not '{args.kernel}'", "--kernel")
        if base_dir is None and args.arg:
            raise LaunchFlagError("--arg: the document has no folder to read files from "
                                  "(save it first; a path with a NUL byte is no file's)",
                                  "--arg")
        arg_files = ()
        if root is not None and base_dir is not None:
            arg_files = tuple((offset, confined_path(name, base_dir, root))
                              for offset, name in map(arg_spec, args.arg))
            args.arg = []
        launch = build_launch(args, base_dir, kernel=kernel)
        options = build_options(args).unobserved()
        dumps = tuple(dump_requests(args))
        lanes = parse_lanes(lanes_text) if lanes_text is not None else None
    except LaunchFlagError as err:
        start, end = flag_columns(tokens, err.flag, str(err))
        problem = LaunchProblem(str(err), start, end, err.flag)
        return LaunchLine(**place, launch=None, lanes=None, dumps=(), explicit=explicit,
                          problem=problem, request=request)
    return LaunchLine(**place, launch=launch, lanes=lanes, dumps=dumps, explicit=explicit,
                      arg_files=arg_files, options=options, request=request)


def launch_comment_lines(doc) -> Iterator[tuple[Kernel, list[int]]]:
    """Each kernel of a document (a syntax `Document`) with the lines of its launch comments,
    found but not parsed."""
    lines = doc.lines
    for kernel in doc.program.kernels:
        found: list[int] = []
        for line in kernel_comment_lines(lines, kernel):
            if launch_comment(lines[line]) is not None:
                found.append(line)
        yield kernel, found


def launch_lines(doc, base_dir: Path | None = None, root: Path | None = None,
                 parsed: dict | None = None) -> list[LaunchLine]:
    """Every launch line of a document (a syntax `Document`), in line order (`root`: see
    `parse_launch_line`). `parsed`, a dict its caller keeps between revisions, holds the
    parses of the last call by what decides them (the line's text, kernel, ordinal, folder and
    root): a launch line the edit did not touch is not parsed again. Only with a `root` or
    without a folder, where a parse reads no file."""
    out: list[LaunchLine] = []
    lines = doc.lines
    reuse = parsed if parsed is not None and (root is not None or base_dir is None) else None
    kept: dict = {}
    for kernel, found in launch_comment_lines(doc):
        for ordinal, line in enumerate(found):
            key = (lines[line], kernel.name, ordinal, base_dir, root)
            one = reuse.get(key) if reuse is not None else None
            if one is None:
                one = parse_launch_line(lines[line], line, kernel.name, ordinal, base_dir, root)
            elif one.line != line:
                one = replace(one, line=line)
            if one is not None:
                kept[key] = one
                out.append(one)
    if reuse is not None:
        reuse.clear()
        reuse.update(kept)
    out.sort(key=lambda ll: ll.line)
    return out


def default_launch(kernel: str) -> Launch:
    """The launch of a kernel without a launch line: its `.workgroup_size` (else upstream's
    default), grid 1, zeroed device memory."""
    return Launch(kernel=kernel)


def flag_help() -> list[tuple[str, str]]:
    """(flag, help) for every flag a launch line accepts that shapes the editor's run, for
    completion (`--lanes` first)."""
    out = [(LANES_FLAG, BY_NAME[LANES_FLAG].help)]
    for flag in FLAGS:
        if flag.editor == "runs":
            metavar = flag.argparse.get("metavar")
            out.append((flag.name, flag.help + (f" — {metavar}" if metavar else "")))
    return out


def flag_word_at(text: str, col: int) -> int | None:
    """Where a flag being typed at `col` on a launch line starts (None when the cursor is not
    where a flag may be written)."""
    flags_start = launch_comment(text)
    if flags_start is None or col < flags_start:
        return None
    prefix = text[flags_start:col]
    word = re.search(r"\S*$", prefix).group(0)
    if word and not word.startswith("-"):
        return None
    return col - len(word)

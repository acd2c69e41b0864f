"""In-process `ide` tests in rust-analyzer's `check(fixture, expect)` style (DESIGN.md §4).

A fixture is WAVE source with a cursor marker `$0` (two markers: a range); `check` builds a
`DocumentState` from it, calls a feature's renderer (which calls the `ide` functions directly:
no server, no protocol) and compares the WHOLE rendered answer with the expectation:

    check(render_hover, '''
    .kernel k
        ia$0dd r1, r2, r3
    ''', expect('''
    ...the complete answer...
    '''))

`expect` remembers where it was written. With `UPDATE_EXPECT=1` in the environment a mismatch
does not fail: the expected text in the test file is rewritten with the actual answer when the
test process ends (as rust's expect-test does), so a change of behaviour is reviewed as a diff.
"""

from __future__ import annotations

import atexit
import inspect
import io
import os
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from wave_lsp.ide.state import DocumentState

CURSOR = "$0"
UPDATE = os.environ.get("UPDATE_EXPECT") == "1"
_PENDING: dict[Path, dict[int, str]] = {}   # file -> {line of `expect(` -> new text}


@dataclass(frozen=True)
class Fixture:
    """The source without its markers, and where they were: `cursor` is (line, column) of the
    first, `end` of the second (the same as `cursor` with one marker)."""

    text: str
    cursor: tuple[int, int]
    end: tuple[int, int]

    def state(self) -> DocumentState:
        return DocumentState("file:///fixture.wave", self.text, 1)


def _position(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n"), offset - (before.rfind("\n") + 1)


def parse_fixture(source: str) -> Fixture:
    """Strip the first newline (the one after the opening quotes) and the `$0` markers."""
    text = source[1:] if source.startswith("\n") else source
    marks = []
    while CURSOR in text:
        offset = text.index(CURSOR)
        marks.append(_position(text, offset))
        text = text[:offset] + text[offset + len(CURSOR):]
    if len(marks) > 2:
        raise ValueError("a fixture has at most two $0 markers")
    cursor = marks[0] if marks else (0, 0)
    return Fixture(text, cursor, marks[-1] if marks else cursor)


class Expect:
    """An expected answer and the place in the test file that states it."""

    def __init__(self, text: str, path: Path, line: int):
        self.text = text[1:] if text.startswith("\n") else text
        self.path = path
        self.line = line

    def assert_eq(self, actual: str) -> None:
        if actual == self.text:
            return
        if UPDATE:
            _PENDING.setdefault(self.path, {})[self.line] = actual
            return
        assert actual == self.text, (
            f"answer differs from the expectation at {self.path.name}:{self.line} "
            "(UPDATE_EXPECT=1 rewrites it)")


def expect(text: str) -> Expect:
    """The expected whole answer (remembers the caller's file and line for UPDATE_EXPECT)."""
    caller = inspect.stack()[1]
    return Expect(text, Path(caller.filename), caller.lineno)


def check(render: Callable[[Fixture], str], source: str, expected: Expect) -> None:
    """Render the answer for `source` and compare all of it with `expected`."""
    expected.assert_eq(render(parse_fixture(source)))


def literal(text: str) -> str:
    """`text` as the triple-quoted literal `expect` takes (a newline after the opening
    quotes; backslashes and quotes escaped so that the literal reads back as `text`)."""
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if body.endswith('"'):
        body = body[:-1] + '\\"'
    return '"""\n' + body + '"""'


def rewrite(path: Path, updates: dict[int, str]) -> None:
    """Replace the string literal of each `expect(` call that starts on one of the lines of
    `updates` (1-based) by the literal of the new text."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    spans = []
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    for i, tok in enumerate(tokens):
        if not (tok.type == tokenize.NAME and tok.string == "expect"
                and tokens[i + 1].string == "(" and tokens[i + 2].type == tokenize.STRING):
            continue
        string = tokens[i + 2]
        # the caller's line is where the call starts or, on some Pythons, inside its argument
        line = next((n for n in updates if tok.start[0] <= n <= string.end[0]), None)
        if line is not None:
            spans.append((starts[string.start[0] - 1] + string.start[1],
                          starts[string.end[0] - 1] + string.end[1], updates[line]))
    for start, end, text in sorted(spans, reverse=True):
        source = source[:start] + literal(text) + source[end:]
    path.write_text(source, encoding="utf-8")


@atexit.register
def _apply_updates() -> None:
    for path, updates in _PENDING.items():
        rewrite(path, updates)

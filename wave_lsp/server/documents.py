"""Text synchronisation and position conversion.

The client owns the text of an open document and sends it with `didOpen`, then edits with
`didChange` (incremental ranges). The IDE layer keeps one `DocumentState` per URI (ide/host.py);
each edit is applied to it, so only the touched lines are re-parsed. Client positions count UTF-16 code units (VS Code) or
UTF-8 bytes (Neovim, when negotiated); our columns count code points. Every conversion goes
through pygls' `PositionCodec`, applied to *our* lines (LF, CRLF and CR breaks).
"""

from __future__ import annotations

from typing import Callable

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from ..analysis.diagnostic import Range
from ..ide.state import DocumentState
from ..syntax.document import Document, split_lines


def apply_changes(state: DocumentState, version: int,
                  changes: list[types.TextDocumentContentChangeEvent], codec: PositionCodec,
                  warn: Callable[[str], None]) -> None:
    """Apply `didChange` content changes in order. An invalid change (a range past the end,
    an end before its start, a version not above the current one) is applied as editors
    expect (clamped, ends swapped) and reported with one line through `warn`."""
    if version is not None and version <= state.version:
        warn(f"{state.uri}: version {version} of a change is not above the current version "
             f"{state.version}; applying the change anyway")
    for change in changes:
        rng = getattr(change, "range", None)
        if rng is None:
            state.replace(change.text, version)
            continue
        if state.binary:
            text = state.binary_text or ""
            lines, breaks = split_lines(text)
            start = _offset(lines, breaks, rng.start, codec)
            end = _offset(lines, breaks, rng.end, codec)
            state.edit_binary(min(start, end), max(start, end), change.text, version)
            continue
        problem = invalid_range(state.document, rng, codec)
        if problem:
            warn(f"{state.uri}: invalid change range {_show(rng)} ({problem}); clamped to the "
                 f"document")
        start = to_server_position(state.document, rng.start, codec)
        end = to_server_position(state.document, rng.end, codec)
        if end < start:
            start, end = end, start
        state.apply_edit(start, end, change.text, version)
    if version is not None:
        state.version = version


def _offset(lines: list[str], breaks: list[str], position: types.Position,
            codec: PositionCodec) -> int:
    """A client position in a text split into `lines` and `breaks` as a code-point offset,
    clamped to the text."""
    if position.line >= len(lines):
        return sum(map(len, lines)) + sum(map(len, breaks))
    start = sum(len(line) + len(brk) for line, brk in zip(lines[:position.line],
                                                          breaks[:position.line]))
    line = lines[position.line]
    if position.character >= codec.client_num_units(line):
        return start + len(line)
    pos = codec.position_from_client_units(
        lines, types.Position(line=position.line, character=position.character))
    return start + pos.character


def invalid_range(doc: Document, rng: types.Range, codec: PositionCodec) -> str | None:
    """Why a client range cannot be applied as it is to `doc`, or None."""
    for name, pos in (("start", rng.start), ("end", rng.end)):
        if pos.line < 0 or pos.character < 0:
            return f"negative {name}"
        if pos.line >= len(doc.lines):
            if pos.line == len(doc.lines) and pos.character == 0:
                continue        # the position just after a final line break
            return f"{name} line {pos.line} past the last line {len(doc.lines) - 1}"
        if pos.character > codec.client_num_units(doc.lines[pos.line]):
            return f"{name} character {pos.character} past the end of line {pos.line}"
    if (rng.end.line, rng.end.character) < (rng.start.line, rng.start.character):
        return "end before start"
    return None


def _show(rng: types.Range) -> str:
    return f"{rng.start.line}:{rng.start.character}-{rng.end.line}:{rng.end.character}"


def to_server_position(doc: Document, position: types.Position,
                       codec: PositionCodec) -> tuple[int, int]:
    """Client (line, code units) to our (line, code points), clamped to the document."""
    lines = doc.lines
    if position.line >= len(lines):
        last = len(lines) - 1
        return last, len(lines[last])
    line = lines[position.line]
    if line.isascii():
        return position.line, min(position.character, len(line))
    units = codec.client_num_units(line)
    if position.character >= units:
        return position.line, len(line)
    pos = codec.position_from_client_units(
        lines, types.Position(line=position.line, character=position.character))
    return pos.line, pos.character


def to_client_position(doc: Document, line: int, column: int,
                       codec: PositionCodec) -> types.Position:
    """Our (line, code points) to the client's units."""
    lines = doc.lines
    if line >= len(lines):
        return types.Position(line=len(lines) - 1, character=codec.client_num_units(lines[-1]))
    text = lines[line]
    if text.isascii():
        return types.Position(line=line, character=min(column, len(text)))
    return types.Position(line=line, character=codec.client_num_units(text[:column]))


def to_client_range(doc: Document, rng: Range, codec: PositionCodec) -> types.Range:
    return types.Range(start=to_client_position(doc, rng.start_line, rng.start_col, codec),
                       end=to_client_position(doc, rng.end_line, rng.end_col, codec))


def span(doc: Document, line: int, start: int, end: int, codec: PositionCodec) -> types.Range:
    """The client range of columns [start, end) on one line."""
    return to_client_range(doc, Range(line, start, line, end), codec)


def line_range(doc: Document, line: int, codec: PositionCodec) -> types.Range:
    """The whole content of one line (without its break)."""
    return span(doc, line, 0, len(doc.lines[line]), codec)


def command_kernel(server, args: tuple) -> tuple[DocumentState | None, object, str]:
    """The open document and the kernel named by a command's `[uri, kernel, ...]` arguments,
    and the message to answer when either is missing (the kernel is None then)."""
    uri, name = (list(args) + [None, None])[:2]
    doc = server.text_document(uri) if isinstance(uri, str) else None
    kernel = doc.program.kernel_named(name) if doc is not None and isinstance(name, str) else None
    return doc, kernel, f"no kernel {name!r} in {uri!r}"

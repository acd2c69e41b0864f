"""Applying `didChange`: the client's content changes, in its position units, to the document
state. Incremental ranges go through `proto` (pygls' position codec); a binary document keeps its
text in step by code-point offsets, so it becomes WAVE text again exactly when its binary bytes
are deleted.
"""

from __future__ import annotations

from typing import Callable

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from ..ide.state import DocumentState
from ..syntax.document import split_lines
from .proto import invalid_range, to_server_position


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


def _show(rng: types.Range) -> str:
    return f"{rng.start.line}:{rng.start.character}-{rng.end.line}:{rng.end.character}"

"""Open documents and position conversion (text synchronisation).

The client owns the text of an open document and sends it with `didOpen`, then edits with
`didChange` (incremental ranges). We keep one `Document` per URI and apply each edit to it, so
only the touched lines are re-parsed. Client positions count UTF-16 code units (VS Code) or
UTF-8 bytes (Neovim, when negotiated); our columns count code points. Every conversion goes
through pygls' `PositionCodec`, applied to *our* lines (LF, CRLF and CR breaks).
"""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from ..analysis.diagnostic import Range
from ..syntax.document import Document, split_lines

# Files with NUL bytes are treated as binary: kept, but never analysed or parsed line by line.
BINARY_MARKER = "\x00"


class OpenDocument(Document):
    """A `Document` plus what the server needs about it."""

    def __init__(self, text: str, uri: str, version: int) -> None:
        self.binary = BINARY_MARKER in text
        # a binary document is not parsed, but its text is kept in step with the client's, so
        # it becomes WAVE text again, exactly, when its NUL bytes are deleted
        self.binary_text: str | None = text if self.binary else None
        self._derived: dict[str, tuple[int, object]] = {}
        super().__init__("" if self.binary else text, uri=uri, version=version)

    def derived(self, key: str, compute):
        """`compute(self)`, cached until the next edit (per `key`)."""
        hit = self._derived.get(key)
        if hit is not None and hit[0] == self.revision:
            return hit[1]
        value = compute(self)
        self._derived[key] = (self.revision, value)
        return value


class DocumentStore:
    """The open documents, by URI."""

    def __init__(self) -> None:
        self._docs: dict[str, OpenDocument] = {}

    def open(self, uri: str, text: str, version: int) -> OpenDocument:
        doc = OpenDocument(text, uri, version)
        self._docs[uri] = doc
        return doc

    def close(self, uri: str) -> None:
        self._docs.pop(uri, None)

    def get(self, uri: str) -> OpenDocument | None:
        return self._docs.get(uri)

    def all(self) -> list[OpenDocument]:
        return list(self._docs.values())

    def change(self, uri: str, version: int,
               changes: list[types.TextDocumentContentChangeEvent],
               codec: PositionCodec) -> OpenDocument | None:
        """Apply `didChange` content changes in order; returns the document (None if unknown)."""
        doc = self._docs.get(uri)
        if doc is None:
            return None
        for change in changes:
            rng = getattr(change, "range", None)
            if rng is None:
                _set_text(doc, change.text, version)
                continue
            if doc.binary:
                text = doc.binary_text or ""
                lines, breaks = split_lines(text)
                start = _offset(lines, breaks, rng.start, codec)
                end = _offset(lines, breaks, rng.end, codec)
                start, end = min(start, end), max(start, end)
                _set_text(doc, text[:start] + change.text + text[end:], version)
                continue
            start = to_server_position(doc, rng.start, codec)
            end = to_server_position(doc, rng.end, codec)
            doc.apply_edit(start, end, change.text, version)
            if BINARY_MARKER in change.text:
                _set_text(doc, doc.text, version)
        doc.version = version
        return doc


def _set_text(doc: OpenDocument, text: str, version: int) -> None:
    """Replace the whole text; a text with NUL bytes is kept aside, unparsed, as binary."""
    if BINARY_MARKER in text:
        doc.binary, doc.binary_text = True, text
        doc.replace("", version)
    else:
        doc.binary, doc.binary_text = False, None
        doc.replace(text, version)


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

"""The one conversion between `ide` plain data and lsprotocol (rust-analyzer's `to_proto` and
`from_proto`): positions, ranges, locations, edits, diagnostics and commands.

Below the server, positions are (line, column) with columns in code points. Client positions
count UTF-16 code units (VS Code) or UTF-8 bytes (Neovim, when negotiated): every conversion goes
through pygls' `PositionCodec`, applied to *our* lines (LF, CRLF and CR breaks), so an astral
character in a comment never shifts a range. `from_proto`-side functions (`to_server_position`,
`invalid_range`) read client positions; the rest build lsprotocol values from `ide` data.
The JSON of the server's own extensions (`extensions`: positional command arguments, results
as dataclasses) is built here too (`Arguments`, `Open`, `wire`).
"""

from __future__ import annotations

import json
from dataclasses import Field, fields, is_dataclass
from pathlib import Path
from typing import Any, Iterable

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import PositionCodec

from ..analysis.diagnostic import Diagnostic, Range, Severity
from ..ide.state import DocumentState
from ..syntax.document import Document

SOURCE = "wave-lsp"
SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


def file_path(uri: str) -> Path | None:
    """The file a `file:` document URI names; None for another scheme, and for a path no file
    can have (a NUL byte, `%00`: the operating system refuses it, and every file operation on
    it raised): such a document works in memory, and its file-based features say it has no
    file (no folder for `--arg` files, no `.wbin`, no tests run from disk)."""
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    if not path or "\0" in path:
        return None
    return Path(path)


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


def client_place(doc: Document, line: int, column: int, codec: PositionCodec) -> tuple[int, int]:
    """Our (line, code points) to the client's (line, units), as plain integers."""
    lines = doc.lines
    if line >= len(lines):
        return len(lines) - 1, codec.client_num_units(lines[-1])
    text = lines[line]
    if text.isascii():
        return line, min(column, len(text))
    return line, codec.client_num_units(text[:column])


def to_client_position(doc: Document, line: int, column: int,
                       codec: PositionCodec) -> types.Position:
    """Our (line, code points) to the client's units."""
    line, character = client_place(doc, line, column, codec)
    return types.Position(line=line, character=character)


def to_client_range(doc: Document, rng: Range, codec: PositionCodec) -> types.Range:
    return types.Range(start=to_client_position(doc, rng.start_line, rng.start_col, codec),
                       end=to_client_position(doc, rng.end_line, rng.end_col, codec))


def span(doc: Document, line: int, start: int, end: int, codec: PositionCodec) -> types.Range:
    """The client range of columns [start, end) on one line."""
    return to_client_range(doc, Range(line, start, line, end), codec)


def line_range(doc: Document, line: int, codec: PositionCodec) -> types.Range:
    """The whole content of one line (without its break)."""
    return span(doc, line, 0, len(doc.lines[line]), codec)


def location(doc: DocumentState, rng: Range, codec: PositionCodec) -> types.Location:
    return types.Location(uri=doc.uri, range=to_client_range(doc, rng, codec))


def text_edit(doc: DocumentState, rng: Range, new_text: str,
              codec: PositionCodec) -> types.TextEdit:
    return types.TextEdit(range=to_client_range(doc, rng, codec), new_text=new_text)


def document_edit(doc: DocumentState, edits: list[types.TextEdit], versioned: bool
                  ) -> types.WorkspaceEdit:
    """Edits of one document as a workspace edit: with `versioned` (a client that takes
    `documentChanges`) tied to the version they were computed for, so a client refuses them
    once the document has changed, instead of applying them to other text."""
    if not versioned:
        return types.WorkspaceEdit(changes={doc.uri: edits})
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=doc.uri,
                                                                    version=doc.version),
        edits=edits)])


def workspace_edit(doc: DocumentState, edits: Iterable, codec: PositionCodec,
                   versioned: bool = False) -> types.WorkspaceEdit:
    """One document's edits (`ide` edits: `.range`, `.new_text`) as a workspace edit."""
    return document_edit(doc, [text_edit(doc, e.range, e.new_text, codec) for e in edits],
                         versioned)


def diagnostic(doc: DocumentState, d: Diagnostic, codec: PositionCodec,
               related_information: bool = True) -> types.Diagnostic:
    """One analysis diagnostic as an lsprotocol Diagnostic (with its related information when
    the client shows it)."""
    related = None
    if d.related and related_information:
        related = [types.DiagnosticRelatedInformation(location=location(doc, r.range, codec),
                                                      message=r.message) for r in d.related]
    return types.Diagnostic(range=to_client_range(doc, d.range, codec),
                            severity=SEVERITY[d.severity], code=d.code, source=SOURCE,
                            message=d.message, related_information=related)


_RANGE = '{"start": {"line": %d, "character": %d}, "end": {"line": %d, "character": %d}}'
_SOURCE = json.dumps(SOURCE)


def _range_json(doc: DocumentState, rng: Range, codec: PositionCodec) -> str:
    return _RANGE % (client_place(doc, rng.start_line, rng.start_col, codec) +
                     client_place(doc, rng.end_line, rng.end_col, codec))


def diagnostic_json(doc: DocumentState, d: Diagnostic, codec: PositionCodec,
                    related_information: bool = True) -> bytes:
    """The JSON of `diagnostic(doc, d, codec, related_information)` as pygls writes it
    (lsprotocol's member order, absent members left out), written directly: building and
    unstructuring the lsprotocol value costs ten times more, for each of thousands of
    diagnostics a publication carries. tests/server/test_diagnostic_json.py keeps the two
    equal, diagnostic for diagnostic."""
    text = (f'{{"range": {_range_json(doc, d.range, codec)}, "message": {json.dumps(d.message)}, '
            f'"severity": {SEVERITY[d.severity].value}, "code": {json.dumps(d.code)}, '
            f'"source": {_SOURCE}')
    if d.related and related_information:
        uri = json.dumps(doc.uri)
        text += ', "relatedInformation": [' + ", ".join(
            f'{{"location": {{"uri": {uri}, "range": {_range_json(doc, r.range, codec)}}}, '
            f'"message": {json.dumps(r.message)}}}' for r in d.related) + "]"
    return (text + "}").encode()


def command(title: str, name: str, *arguments, tooltip: str | None = None) -> types.Command:
    return types.Command(title=title, command=name, arguments=list(arguments), tooltip=tooltip)


def lens(doc: DocumentState, line: int, start: int, end: int, codec: PositionCodec,
         title: str, name: str, *arguments, tooltip: str | None = None) -> types.CodeLens:
    """A code lens over columns [start, end) of `line` that runs command `name`."""
    return types.CodeLens(range=span(doc, line, start, end, codec),
                          command=command(title, name, *arguments, tooltip=tooltip))


def markup(text: str, markdown: bool) -> types.MarkupContent:
    return types.MarkupContent(
        kind=types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText, value=text)


# ---- the JSON of the extensions (`extensions`) ---------------------------------------------
class _Absent:
    """The value of a result's field that is left out of its JSON."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def wire_name(f: Field) -> str:
    """A field's JSON name: camelCase, unless its metadata names it (`{"wire": name}`)."""
    return f.metadata.get("wire", camel(f.name))


def wire(value: Any) -> Any:
    """The JSON of a result dataclass (recursively; in the order of its fields, without those
    left `ABSENT`); other values as they are."""
    if is_dataclass(value) and not isinstance(value, type):
        return {wire_name(f): wire(v) for f in fields(value)
                if (v := getattr(value, f.name)) is not ABSENT}
    if isinstance(value, (list, tuple)):
        return [wire(v) for v in value]
    return value


class Arguments:
    """A command's positional arguments, named by the dataclass' fields (values as sent; a
    field with a default may be left out by clients, and is null then, as any missing one)."""

    @classmethod
    def parse(cls, args: tuple | list) -> Any:
        names = [f.name for f in fields(cls)]
        values = (list(args) + [None] * len(names))[:len(names)]
        return cls(**dict(zip(names, values)))


class Open:
    """A result that restates an `ide` value: the named fields, then whatever else it has."""

    @classmethod
    def answer(cls, **parts: Any) -> dict:
        """`parts` (keyword `body`: the `ide` value's JSON, merged last) as the wire answer;
        a named field missing from it is a bug in the server, raised here."""
        body = parts.pop("body", {})
        out = {**{camel(k): wire(v) for k, v in parts.items()}, **body}
        missing = [wire_name(f) for f in fields(cls) if wire_name(f) not in out
                   and f.default is not ABSENT]
        if missing:
            raise ValueError(f"{cls.__name__} lacks {', '.join(missing)}")
        return out

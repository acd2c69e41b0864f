"""The JSON of a document's diagnostics, each diagnostic written once and kept.

A publication of a large file carries thousands of diagnostics. Each is written as JSON
directly (`proto.diagnostic_json`, a few microseconds; through lsprotocol and cattrs it took
ten times more), and kept: the next publication of the document finds it by the diagnostic
object (the analysis keeps the objects of unchanged lines and kernels, so the lookup needs no
hashing of the value) and reuses it while the lines its client columns depend on (`touched`)
keep their text, under the same position encoding and related-information capability
(`setting`; another drops every kept one). The whole list is kept too, for the next call with
the same diagnostics at the same revision (the publication that follows the one made while an
edit's debounce waited). The publisher (`diagnostics.Publisher`) owns one `Conversions`.
"""

from __future__ import annotations

import json
from operator import is_, itemgetter

from pygls.protocol import JsonRPCProtocol

from ..analysis.diagnostic import Diagnostic
from ..cancellation import checkpoint
from ..ide.state import DocumentState
from .proto import diagnostic_json
from .protocol import converter as converter_of
from .server import WaveLanguageServer

CHECKPOINT_EVERY = 512      # diagnostics written between cancellation checkpoints


def _touched(d: Diagnostic) -> tuple[int, ...]:
    """The lines whose text a diagnostic's client positions depend on."""
    r = d.range
    if not d.related:
        return (r.start_line,) if r.start_line == r.end_line else (r.start_line, r.end_line)
    return tuple(sorted({r.start_line, r.end_line, *(x.range.start_line for x in d.related),
                         *(x.range.end_line for x in d.related)}))


class Conversion:
    """One diagnostic's JSON, and the lines it depends on with their texts then."""

    __slots__ = ("diagnostic", "touched", "texts", "reader", "json")

    def __init__(self, d: Diagnostic, lines: list[str], count: int, text: bytes) -> None:
        self.diagnostic = d
        self.touched = touched = _touched(d)
        self.texts = tuple(lines[n] if n < count else "" for n in touched)
        self.reader = itemgetter(*touched) if len(touched) > 1 else None
        self.json = text

    def still(self, lines: list[str], count: int) -> bool:
        """Whether the lines it depends on still have the texts it was made for."""
        if self.reader is None:         # most diagnostics: one line
            n = self.touched[0]
            return (lines[n] if n < count else "") == self.texts[0]
        try:
            return self.reader(lines) == self.texts
        except IndexError:              # a line past the end (its text counts as "")
            return all((lines[n] if n < count else "") == text
                       for n, text in zip(self.touched, self.texts))


class DocumentConversions:
    """The conversions of one document's last publication, by the diagnostic's identity, and
    the JSON of its whole list (`joined`: revision, diagnostics, JSON)."""

    def __init__(self, setting: tuple) -> None:
        self.setting = setting
        self.by_id: dict[int, Conversion] = {}
        self.joined: tuple[int, list[Diagnostic], bytes] | None = None


class Conversions:
    """Each open document's `DocumentConversions`."""

    def __init__(self) -> None:
        self.documents: dict[str, DocumentConversions] = {}

    def forget(self, uri: str) -> None:
        self.documents.pop(uri, None)

    def items(self, server: WaveLanguageServer, doc: DocumentState,
              diagnostics: list[Diagnostic]) -> bytes:
        """The JSON of the diagnostics as the items of a list (joined by ", ", without the
        brackets), each diagnostic's reused where it can be (see the module docstring)."""
        setting = (server.codec.encoding, server.client.related_information)
        last = self.documents.get(doc.uri)
        if last is not None and last.setting != setting:
            last = None
        joined = last.joined if last is not None else None
        if joined is not None and joined[0] == doc.revision and \
                len(joined[1]) == len(diagnostics) and all(map(is_, joined[1], diagnostics)):
            return joined[2]
        fresh = DocumentConversions(setting)
        kept = last.by_id if last is not None else {}
        by_id = fresh.by_id
        codec, related = server.codec, setting[1]
        lines = doc.lines
        count = len(lines)
        out = []
        made = 0
        for d in diagnostics:
            hit = kept.get(id(d))
            if hit is None or hit.diagnostic is not d or not hit.still(lines, count):
                made += 1
                if made % CHECKPOINT_EVERY == 0:    # an edit waits for this job to stop
                    checkpoint()
                hit = Conversion(d, lines, count, diagnostic_json(doc, d, codec, related))
            by_id[id(d)] = hit
            out.append(hit.json)
        text = b", ".join(out)
        fresh.joined = (doc.revision, diagnostics, text)
        if server.document(doc.uri) is doc:     # not for a document closed meanwhile
            self.documents[doc.uri] = fresh
        return text


def with_items(value: dict, member: str, items: list[bytes]) -> bytes:
    """`json.dumps(value)` (as bytes), whose `member` is an empty list in `value`, with the
    JSON `items` in that list: the JSON pygls writes for the same value with its items."""
    empty = b'"%s": []' % member.encode()
    head, marker, tail = json.dumps(value).encode().partition(empty)
    assert marker and empty not in tail
    return b"".join([head, empty[:-1], b", ".join(items), b"]", tail])


def notification(server: WaveLanguageServer, method: str, params, member: str,
                 items: list[bytes]) -> bytes:
    """The JSON body of notification `method` with lsprotocol `params` whose list `member` is
    empty, filled with the JSON `items` (see `with_items`)."""
    return with_items({"method": method, "params": converter_of(server).unstructure(params),
                       "jsonrpc": JsonRPCProtocol.VERSION}, member, items)

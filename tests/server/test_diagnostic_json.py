"""`proto.diagnostic_json` writes, for every diagnostic, exactly the JSON pygls writes for
`proto.diagnostic` (the lsprotocol value, unstructured by the server's cattrs converter), in
every position encoding, with and without related information: on every generator of the
benchmark corpus, on lines with characters outside the ASCII range (some outside the Basic
Multilingual Plane), and on diagnostics that reach past the last line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from lsprotocol import types as t
from pygls.workspace.position_codec import PositionCodec

from wave_lsp.analysis.diagnostic import Diagnostic, Range, Related, Severity
from wave_lsp.ide.state import DocumentState
from wave_lsp.server.proto import diagnostic, diagnostic_json
from wave_lsp.server.protocol import converter
from wave_lsp.server.server import create_server

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from corpus_kernels import GENERATORS  # noqa: E402

ENCODINGS = (t.PositionEncodingKind.Utf16, t.PositionEncodingKind.Utf8,
             t.PositionEncodingKind.Utf32)

UNICODE = """\
.kernel wide  ; ümlaut and 𝛑 and \u2014 dash "quoted" \\ back
    mov_imm r1, 1       ; 𝛑𝛑 before a read
    iadd r2, r3, r1     ; r3 is read before any write — ü
    halt
"""


@pytest.fixture(scope="module")
def cattrs_json():
    server = create_server()
    unstructure = converter(server).unstructure
    return lambda value: json.dumps(unstructure(value)).encode()


def check(doc: DocumentState, diagnostics: list[Diagnostic], cattrs_json) -> int:
    compared = 0
    for encoding in ENCODINGS:
        codec = PositionCodec(encoding=encoding)
        for related in (True, False):
            for d in diagnostics:
                assert diagnostic_json(doc, d, codec, related) == \
                    cattrs_json(diagnostic(doc, d, codec, related)), (encoding, related, d)
                compared += 1
    return compared


@pytest.mark.parametrize("generator", sorted(GENERATORS))
def test_each_generator_s_diagnostics(generator, cattrs_json):
    doc = DocumentState(f"file:///{generator}.wave", GENERATORS[generator](1_500, 7), 1)
    diagnostics = doc.diagnostics()
    if generator in ("calls", "math", "mixed-many"):      # the others have few or none
        assert len(diagnostics) > 100
    if generator in ("calls", "mixed-many"):
        assert any(d.related for d in diagnostics)
    assert check(doc, diagnostics, cattrs_json) == 6 * len(diagnostics)


def test_non_ascii_lines_quotes_and_places_past_the_end(cattrs_json):
    doc = DocumentState("file:///w%C3%BCrfel%20%22q%22.wave", UNICODE, 1)
    found = doc.diagnostics()
    assert any(not doc.lines[d.range.start_line].isascii() for d in found)
    made = [
        Diagnostic("U511", Severity.WARNING, Range(2, 9, 2, 11), 'a "quoted" \\ message — 𝛑',
                   related=(Related(Range(0, 20, 0, 27), "where 𝛑 is"),
                            Related(Range(9, 0, 12, 3), "past the last line"))),
        Diagnostic("E001", Severity.ERROR, Range(1, 40, 1, 60), "columns past the line's end"),
        Diagnostic("W100", Severity.HINT, Range(0, 0, 3, 4), "several lines"),
        Diagnostic("I1", Severity.INFORMATION, Range(7, 0, 7, 1), "a line past the end"),
    ]
    assert check(doc, found + made, cattrs_json) == 6 * (len(found) + len(made))

"""`wave-lsp.kernelAt [uri, line]`: the kernel whose `.kernel` … `.end` holds a line, through the
real server: on the directives' own lines, inside, between kernels (null), an unclosed kernel up
to its last instruction, and junk arguments (null, never an error or a failure message)."""

from __future__ import annotations

import pytest

from .conftest import diagnostics, open_document
from .test_portability import execute

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

TEXT = """\
; two kernels and an unclosed third
.kernel first
.registers 4
    mov r0, r1
.end

.kernel second
    halt
.end
; between
.kernel third
    mov r0, r1
    halt
"""
#      line: 0 comment, 1 .kernel first, 4 .end, 5 blank, 6 .kernel second, 8 .end, 9 comment,
#            10 .kernel third, 12 its last instruction, 13 past the end


@pytest.mark.parametrize("line, expected", [
    (0, None), (1, ("first", 1, 4)), (3, ("first", 1, 4)), (4, ("first", 1, 4)), (5, None),
    (6, ("second", 6, 8)), (8, ("second", 6, 8)), (9, None), (10, ("third", 10, 12)),
    (12, ("third", 10, 12)), (13, None), (10_000, None),
])
async def test_the_kernel_at_a_line(client, line, expected):
    uri = open_document(client, TEXT, "kernel-at")
    await diagnostics(client, uri)
    answer = await execute(client, "wave-lsp.kernelAt", uri, line)
    if expected is None:
        assert answer is None
    else:
        assert answer == dict(zip(("kernel", "line", "endLine"), expected))


@pytest.mark.parametrize("arguments", [
    [], [None], ["file:///tmp/wave-lsp-tests/not-open.wave", 1], [42, 1], ["URI", "1"],
    ["URI", -1], ["URI", True], ["URI", 1.5], ["URI", None], ["URI", [1]],
])
async def test_junk_arguments_answer_null_without_a_failure(client, arguments):
    uri = open_document(client, TEXT, "kernel-at-junk")
    await diagnostics(client, uri)
    logged = len(client.log_messages)
    arguments = [uri if a == "URI" else a for a in arguments]
    assert await execute(client, "wave-lsp.kernelAt", *arguments) is None
    failures = [m.message for m in client.log_messages[logged:] if "failed" in m.message]
    assert failures == []


async def test_the_kernel_at_a_line_follows_edits(client):
    from lsprotocol import types as t
    uri = open_document(client, TEXT, "kernel-at-edit")
    await diagnostics(client, uri)
    assert (await execute(client, "wave-lsp.kernelAt", uri, 0)) is None
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangeWholeDocument(text=".kernel zero\n" + TEXT)]))
    assert (await execute(client, "wave-lsp.kernelAt", uri, 0)) == {
        "kernel": "zero", "line": 0, "endLine": 0}
    assert (await execute(client, "wave-lsp.kernelAt", uri, 2))["kernel"] == "first"

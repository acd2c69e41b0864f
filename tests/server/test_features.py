"""End-to-end feature tests, data-driven on source text with a cursor marker and on the shared
example kernels; every test runs as Neovim and as VS Code."""

from __future__ import annotations

import pytest
from lsprotocol import types as t

from wave_lsp.analysis import analyze
from wave_lsp.isa import INSTRUCTIONS
from wave_lsp.syntax.document import Document

from .lspclient import edits_of
from .conftest import client_position, configure, diagnostics, example, example_names, open_document, \
    split_cursor

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

KERNEL = """.kernel k
.registers 8
{body}
    halt
.end
"""


def ident(uri: str) -> t.TextDocumentIdentifier:
    return t.TextDocumentIdentifier(uri=uri)


async def hover_at(client, source: str) -> str | None:
    text, line, col = split_cursor(source)
    uri = open_document(client, text)
    result = await client.text_document_hover_async(t.HoverParams(
        text_document=ident(uri), position=client_position(client, text, line, col)))
    return result.contents.value if result else None


HOVERS = [
    ("    i<|>add r1, r2, r3", ["iadd rd, rs1, rs2", "Integer add", "§6.2", "byte offset",
                               "| opcode |", "rd"]),
    ("    dadd r2, r4, r<|>6", ["r6", "declares 8"]),
    ("    iadd r1, r2, r<|>9", ["beyond", ".registers 8"]),
    ("    mov_sr r1, sr_la<|>ne_id", ["sr_lane_id", "0 .. wave_width - 1"]),
    ("    @p<|>0 iadd r1, r2, r3", ["p0", "no guard"]),
    ("    fence_acquire .dev<|>ice", ["scope", "device"]),
    ("    dadd r2, r4, r6", []),
    ("    atomic_add r1, r2, r3, .device", []),
    ("    icmp_lt p1, r1, r2\n    if p<|>1\n    endif", ["p1", "predicate"]),
]


@pytest.mark.parametrize("body, expected", HOVERS)
async def test_hover(client, body, expected):
    if "<|>" not in body:
        body = "    " + body.strip()[0] + "<|>" + body.strip()[1:]
        expected = [INSTRUCTIONS[body.replace("<|>", "").split()[0]].syntax, "Semantics"]
    value = await hover_at(client, KERNEL.format(body=body))
    assert value is not None
    for fragment in expected:
        assert fragment in value


async def test_hover_directive_label_and_kernel(client):
    src = ".kernel <|>main\n.registers 40\n.workgroup_size 64, 1, 1\n    call f\n    halt\nf:\n    return\n.end\n"
    value = await hover_at(client, src)
    assert "registers declared | 40" in value and "wave width 32" in value
    assert "floor(16384 / (40 x 32 x 4))" in value
    value = await hover_at(client, src.replace("<|>main", "main").replace("call f", "call <|>f"))
    assert "label `f`" in value and "line 6" in value and "byte offset" in value
    value = await hover_at(client, src.replace("<|>main", "main").replace(".registers", ".reg<|>isters"))
    assert "Registers per thread" in value


async def test_hover_nowhere(client):
    assert await hover_at(client, KERNEL.format(body="  <|>  ; just a comment")) is None


COMPLETIONS = [
    ("    <|>", "iadd", "mnemonic"),
    ("    .<|>", ".registers", "directive"),
    ("    @<|>", "p3", "predicate"),
    ("    iadd r1, <|>", "r7", "register"),
    ("    mov_sr r1, <|>", "sr_lane_id", "special"),
    ("    icmp_lt <|>", "p2", "predicate slot"),
    ("    fence_release <|>", ".device", "scope"),
    ("    call <|>\nhere:", "here", "label"),
]


@pytest.mark.parametrize("body, label, _what", COMPLETIONS)
async def test_completion(client, body, label, _what):
    text, line, col = split_cursor(KERNEL.format(body=body))
    uri = open_document(client, text)
    result = await client.text_document_completion_async(t.CompletionParams(
        text_document=ident(uri), position=client_position(client, text, line, col)))
    labels = [i.label for i in result.items]
    assert label in labels
    if label == "r7":
        assert "r8" not in labels  # only the kernel's 8 registers
    if label == "iadd":
        item = next(i for i in result.items if i.label == "iadd")
        assert item.insert_text_format == t.InsertTextFormat.Snippet  # both presets have snippets
        assert item.insert_text == "iadd ${1:rd}, ${2:rs1}, ${3:rs2}"
        assert len(result.items) == len(INSTRUCTIONS)


async def test_completion_in_comment_is_empty(client):
    text, line, col = split_cursor(KERNEL.format(body="    ; iadd <|>"))
    uri = open_document(client, text)
    result = await client.text_document_completion_async(t.CompletionParams(
        text_document=ident(uri), position=client_position(client, text, line, col)))
    assert list(result.items) == []


@pytest.mark.parametrize("body, active", [("    fma r1, <|>", 1), ("    fma r1, r2, r3, <|>", 3),
                                          ("    atomic_cas r1, r2, <|>", 2)])
async def test_signature_help(client, body, active):
    text, line, col = split_cursor(KERNEL.format(body=body))
    uri = open_document(client, text)
    help_ = await client.text_document_signature_help_async(t.SignatureHelpParams(
        text_document=ident(uri), position=client_position(client, text, line, col)))
    sig = help_.signatures[0]
    mnemonic = text.split("\n")[line].split()[0]
    assert sig.label == INSTRUCTIONS[mnemonic].syntax
    assert help_.active_parameter == active
    start, end = sig.parameters[active].label
    assert sig.label[start:end] == INSTRUCTIONS[mnemonic].operands[active].name


NAV = ".kernel main\n    call work\n    halt\nwork:\n    call work\n    return\n.end\n"


async def test_navigation_and_rename(client):
    uri = open_document(client, NAV)
    pos = t.Position(line=1, character=10)
    defs = await client.text_document_definition_async(t.DefinitionParams(
        text_document=ident(uri), position=pos))
    assert [(d.range.start.line, d.range.start.character) for d in defs] == [(3, 0)]
    refs = await client.text_document_references_async(t.ReferenceParams(
        text_document=ident(uri), position=pos, context=t.ReferenceContext(include_declaration=True)))
    assert sorted(r.range.start.line for r in refs) == [1, 3, 4]
    marks = await client.text_document_document_highlight_async(t.DocumentHighlightParams(
        text_document=ident(uri), position=t.Position(line=3, character=1)))
    assert len(marks) == 3
    prep = await client.text_document_prepare_rename_async(t.PrepareRenameParams(
        text_document=ident(uri), position=pos))
    assert prep.placeholder == "work"
    edit = await client.text_document_rename_async(t.RenameParams(
        text_document=ident(uri), position=pos, new_name="compute"))
    assert sorted(e.range.start.line for e in edits_of(edit, uri)) == [1, 3, 4]
    assert {e.new_text for e in edits_of(edit, uri)} == {"compute"}
    with pytest.raises(Exception, match="register"):
        await client.text_document_rename_async(t.RenameParams(
            text_document=ident(uri), position=pos, new_name="r12"))
    syms = await client.text_document_document_symbol_async(t.DocumentSymbolParams(
        text_document=ident(uri)))
    assert [(s.name, [c.name for c in s.children]) for s in syms] == [("main", ["work"])]
    found = await client.workspace_symbol_async(t.WorkspaceSymbolParams(query="wor"))
    assert any(s.name == "work" and s.location.uri == uri for s in found)


async def test_folding_and_selection(client):
    src = (".kernel k\n; one\n; two\n    icmp_lt p1, r1, r2\n    if p1\n    loop\n"
           "    break p1\n    endloop\n    else\n    nop\n    endif\n    halt\n.end\n")
    uri = open_document(client, src)
    folds = await client.text_document_folding_range_async(t.FoldingRangeParams(
        text_document=ident(uri)))
    got = {(f.start_line, f.end_line, f.kind) for f in folds}
    assert (0, 11, "region") in got and (1, 2, "comment") in got
    assert (4, 7, "region") in got and (5, 6, "region") in got and (8, 9, "region") in got
    sel = await client.text_document_selection_range_async(t.SelectionRangeParams(
        text_document=ident(uri), positions=[t.Position(line=6, character=11)]))
    chain = []
    node = sel[0]
    while node:
        chain.append((node.range.start.line, node.range.start.character,
                      node.range.end.line, node.range.end.character))
        node = node.parent
    assert chain[0] == (6, 10, 6, 12)          # p1
    assert chain[1] == (6, 4, 6, 12)           # break p1
    assert (5, 0, 7, 11) in chain and (0, 0, 12, 4) in chain


async def test_inlay_hints_and_code_lens(client):
    uri = open_document(client, KERNEL.format(body="    iadd r1, r2, r3\n    mov_imm r1, 5"))

    async def hints():
        return await client.text_document_inlay_hint_async(t.InlayHintParams(
            text_document=ident(uri), range=t.Range(start=t.Position(line=0, character=0),
                                                    end=t.Position(line=6, character=0))))
    assert list(await hints()) == []    # offsets and encodings are opt-in
    await configure(client, {"inlayHints": {"offsets": True, "encoding": True}})
    try:
        labels = [h.label for h in await hints()]
    finally:
        await configure(client, {})
    assert "0000" in labels and "0008" in labels and "0010" in labels
    assert any(isinstance(l, str) and len(l.replace(" ", "")) >= 8 and l != "0000" and
               not l.startswith("00") or len(l) > 4 for l in labels)
    lenses = await client.text_document_code_lens_async(t.CodeLensParams(text_document=ident(uri)))
    titles = [l.command.title for l in lenses]
    assert titles[0] == "▶ Run" and titles[1] == "◔ Profile" and titles[3] == "Assemble"
    assert titles[2].startswith("8 regs · 0 B local") and "registers declared: 8" in \
        lenses[2].command.tooltip
    res = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command=lenses[2].command.command, arguments=lenses[2].command.arguments))
    assert res["registersDeclared"] == 8 and res["residentWaves"]["32"] == 16


@pytest.mark.parametrize("name", example_names())
async def test_example_diagnostics_match_analysis(client, name):
    text = example(name)
    uri = open_document(client, text, name)
    got = await diagnostics(client, uri)
    want = analyze(Document(text))
    assert sorted((d.code, d.range.start.line) for d in got) == \
        sorted((d.code, d.range.start_line) for d in want)


@pytest.mark.parametrize("name", example_names())
async def test_example_semantic_tokens_and_hover(client, name):
    text = example(name)
    uri = open_document(client, text, name)
    tokens = await client.text_document_semantic_tokens_full_async(t.SemanticTokensParams(
        text_document=ident(uri)))
    assert tokens.data and len(tokens.data) % 5 == 0
    doc = Document(text)
    line, ins = doc.program.kernels[0].instructions[0]
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=ident(uri), position=t.Position(line=line, character=ins.mnemonic.start)))
    spec = INSTRUCTIONS[ins.mnemonic.text]
    assert spec.syntax in hover.contents.value and "byte offset `0x0000`" in hover.contents.value
    again = await client.text_document_semantic_tokens_full_delta_async(t.SemanticTokensDeltaParams(
        text_document=ident(uri), previous_result_id=tokens.result_id))
    assert list(again.edits) == []


async def test_encoding_command_lists_words_beside_source(client):
    from wave_lsp.asm.assembler import assemble

    body = "    iadd r1, r2, r3\n    mov_imm r1, 5"
    uri = open_document(client, KERNEL.format(body=body + "\n    bogus r1"))
    res = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.encoding", arguments=[uri]))
    assert res["uri"] == uri and "; kernel k" in res["text"]
    code = assemble(KERNEL.format(body=body)).kernels[0].code
    word = lambda at: int.from_bytes(code[at:at + 4], "little")
    rows = {row.split()[0]: row for row in res["text"].splitlines() if row and row[0] != ";"}
    assert rows["0000"].split()[1:] == [f"{word(0):08X}", f"{word(4):08X}", "3", "iadd", "r1,",
                                       "r2,", "r3"]
    assert rows["0008"].split()[1:4] == [f"{word(8):08X}", f"{word(12):08X}", "4"]
    assert rows["0010"].split()[2:] == ["6", "halt"]   # the unknown line takes no bytes
    missing = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.encoding", arguments=["file:///not-open.wave"]))
    assert missing is None

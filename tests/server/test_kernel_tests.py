"""Kernel tests in the language server, end to end through the real server (as Neovim and as
VS Code): the "▶ Test" lens and its outcome, unmet expectations as diagnostics with the quick
fix "Update expectation", completion of an expect line from the last run, the commands
`wave-lsp.test` and `wave-lsp.discoverTests` (open documents and files on disk), re-testing
after edits."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types as t

from kernel_test_cases import ELSE_STORE, LOOP_BRANCH_OUTPUT, line_of, loop_branch, store
from wave_lsp.ide.lens_layout import LINE_BUDGET, SEPARATOR

from .lspclient import edits_of
from .conftest import client_position, configure, open_document
from .test_hostile_launches import untrusted_once  # noqa: F401  (a server told not to run)
from .test_run_results import eventually

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

TEST = "wave-lsp.test"
WAIT = 20.0                            # seconds for a re-test to show
DISCOVER = "wave-lsp.discoverTests"
RIGHT = ["0", "10", "20", "30"]
WRONG = ["0", "10", "25", "30"]        # lane 2 stores 20



def ident(uri: str) -> t.TextDocumentIdentifier:
    return t.TextDocumentIdentifier(uri=uri)


async def command(client, name: str, *arguments):
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command=name, arguments=list(arguments)))


async def lens_line(client, uri: str, line: int) -> list[t.Command]:
    got = await client.text_document_code_lens_async(t.CodeLensParams(text_document=ident(uri)))
    return [lens.command for lens in sorted(got, key=lambda l: l.range.start.character)
            if lens.range.start.line == line]


def kernel_test_diagnostics(client, uri: str) -> list[t.Diagnostic]:
    return [d for d in client.diagnostics.get(uri, []) if d.code in ("R011", "R012")]


async def shown(client, uri: str) -> list[t.Diagnostic]:
    """The kernel test diagnostics of `uri`, once there are some."""
    return await eventually(lambda: asyncio.sleep(0, kernel_test_diagnostics(client, uri)), WAIT)


def close(client, uri: str) -> None:
    client.text_document_did_close(t.DidCloseTextDocumentParams(text_document=ident(uri)))


def change_line(client, uri: str, version: int, text: str, line: int, new: str) -> str:
    """Replace the whole of `line` by `new` (an incremental edit); returns the new text."""
    lines = text.split("\n")
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=line, character=0),
                          end=t.Position(line=line, character=len(lines[line]))), text=new)]))
    lines[line] = new
    return "\n".join(lines)


def apply(text: str, edits: list[t.TextEdit]) -> str:
    """The text after one-line edits (ASCII text: client columns are characters)."""
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                    reverse=True):
        first, last = e.range.start, e.range.end
        lines[first.line:last.line + 1] = (lines[first.line][:first.character] + e.new_text
                                           + lines[last.line][last.character:]).split("\n")
    return "\n".join(lines)


async def test_lens_runs_the_test_and_shows_the_store_that_failed(client):
    text = store(*WRONG)
    uri = open_document(client, text, "store")
    launch = line_of(text, "wave-lsp run:")
    before = await lens_line(client, uri, launch)
    # the run lenses (▶ Run, ◔ Profile) lead the line, the test's follow
    assert [c.title for c in before] == ["▶ Run", "◔ Profile", "▶ Test"]
    assert before[-1].command == TEST and list(before[-1].arguments) == [uri, "store", launch]
    answer = await command(client, TEST, *before[-1].arguments)
    [outcome] = answer["tests"]
    assert (answer["passed"], answer["failed"]) == (0, 1)
    assert outcome["status"] == "failed" and not outcome["passed"]
    store_line = line_of(text, "device_store_u32")
    assert outcome["message"] == f"line {store_line + 1}, lane 2 wrote 20, expected 25"
    assert outcome["writtenBy"] == {"line": store_line, "lane": 2}
    assert outcome["difference"]["line"] == line_of(text, "expect: 25")
    assert outcome["actual"] == RIGHT and outcome["expected"] == WRONG
    after = await lens_line(client, uri, launch)
    assert [c.title for c in after] == ["▶ Run", "◔ Profile", "▶ Test",
                                        f"✕ failed: line {store_line + 1}, lane 2 wrote 20, "
                                        f"expected 25"]
    assert len(SEPARATOR.join(c.title for c in after)) <= LINE_BUDGET


async def test_a_long_outcome_is_shortened_after_the_run_lenses(client):
    text = loop_branch(["3", "3", "5", "6", "7", "8", "9", "10000000000000000000000000000000"])
    uri = open_document(client, text, "long")
    launch = line_of(text, "wave-lsp run:")
    await command(client, "wave-lsp.run", uri, "loop_branch", launch)
    answer = await command(client, TEST, uri, "loop_branch", launch)
    # the last value is thread 7's, stored in the loop's else branch (the lane is the thread)
    assert answer["tests"][0]["writtenBy"] == {"line": line_of(text, ELSE_STORE), "lane": 7}
    titles = [c.title for c in await lens_line(client, uri, launch)]
    assert titles[:3] == ["▶ Run again", titles[1], "✕ Clear"] and titles[1].startswith("✓")
    assert titles[-2] == "▶ Test" and titles[-1].startswith("✕ failed: line ")
    assert len(SEPARATOR.join(titles)) <= LINE_BUDGET


async def test_updating_a_crlf_document_keeps_its_line_breaks_and_names_its_version(client):
    """The block grows by a line (one expectation is missing): the inserted break is CRLF, as
    in the rest of the document, and a client of versioned edits gets the document's version."""
    text = store(*WRONG[:3]).replace("\n", "\r\n")
    uri = open_document(client, text, "crlf")
    await command(client, TEST, uri, "store", line_of(text, "wave-lsp run:"))
    diag = (await shown(client, uri))[0]
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=ident(uri), range=diag.range,
        context=t.CodeActionContext(diagnostics=[diag])))
    whole = next(a for a in actions if a.title.startswith("Update the expectations of kernel"))
    [edit] = edits_of(whole.edit, uri)
    assert "\r\n" in edit.new_text and "\n" not in edit.new_text.replace("\r\n", "")
    lines = text.split("\r\n")
    first, last = edit.range.start, edit.range.end
    lines[first.line:last.line + 1] = (lines[first.line][:first.character] + edit.new_text
                                       + lines[last.line][last.character:]).split("\r\n")
    assert "\r\n".join(lines) == store(*RIGHT).replace("\n", "\r\n")
    if client.preset == "visual-studio-code":       # announces documentChanges
        [change] = whole.edit.document_changes
        assert change.text_document.version == 1 and whole.edit.changes is None


async def test_unmet_expectation_is_a_diagnostic_with_its_quick_fix(client):
    text = store(*WRONG)
    uri = open_document(client, text, "fix")
    launch = line_of(text, "wave-lsp run:")
    await command(client, TEST, uri, "store", launch)
    wrong = line_of(text, "expect: 25")
    found = await shown(client, uri)
    [diag] = found
    assert diag.code == "R011" and diag.severity == t.DiagnosticSeverity.Error
    assert diag.range.start.line == wrong == diag.range.end.line
    assert text.split("\n")[wrong][diag.range.start.character:] == "25"
    assert "expected “25”, got “20”" in diag.message
    store_line = line_of(text, "device_store_u32") + 1
    assert f"(line {store_line}, lane 2 wrote 20, expected 25)" in diag.message
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=ident(uri), range=diag.range,
        context=t.CodeActionContext(diagnostics=[diag])))
    fix = next(a for a in actions if a.title == "Update expectation to “20”")
    assert fix.kind == t.CodeActionKind.QuickFix and fix.is_preferred
    [edit] = edits_of(fix.edit, uri)
    assert edit.range.start.line == edit.range.end.line == wrong
    fixed = apply(text, [edit])
    assert fixed == store(*RIGHT)
    whole = next(a for a in actions if a.title.startswith("Update the expectations of kernel"))
    assert apply(text, edits_of(whole.edit, uri)) == store(*RIGHT)
    # the edit re-runs the test: it passes, and the diagnostic goes
    change_line(client, uri, 2, text, wrong, fixed.split("\n")[wrong])

    async def passed():
        titles = [c.title for c in await lens_line(client, uri, launch)]
        return titles[-1] == "✓ passed" and not kernel_test_diagnostics(client, uri)
    await eventually(passed, WAIT)


async def test_missing_and_extra_output_lines(client):
    text = store("0", "10", "20")
    uri = open_document(client, text, "extra")
    answer = await command(client, TEST, uri, None, None)
    assert answer["tests"][0]["difference"]["got"] == "30"
    [diag] = await shown(client, uri)
    assert diag.range.start.line == line_of(text, "expect: 20")
    assert "1 more line(s)" in diag.message and "“30”" in diag.message
    text = store("0", "10", "20", "30", "40")
    uri = open_document(client, text, "missing")
    await command(client, TEST, uri, "store", None)
    [diag] = await shown(client, uri)
    assert diag.range.start.line == line_of(text, "expect: 40")
    assert "the output ends after 4 line(s)" in diag.message


async def test_a_test_that_cannot_run_says_why_on_its_launch_line(client):
    text = store(*RIGHT).replace("--dump-u32 0:4", "--dump-u32 0:4 --tolerance abc")
    uri = open_document(client, text, "bad")
    answer = await command(client, TEST, uri, "store", None)
    assert answer["tests"][0]["status"] == "error"
    [diag] = await shown(client, uri)
    assert diag.code == "R012" and diag.range.start.line == line_of(text, "wave-lsp run:")
    assert "--tolerance" in diag.message and "abc" in diag.message


async def test_a_run_error_is_a_wrong_exit_status(client):
    text = store(*RIGHT).replace("--dump-u32 0:4", "--dump-u32 0:4 --grid x")
    uri = open_document(client, text, "exit")
    answer = await command(client, TEST, uri, "store", None)
    outcome = answer["tests"][0]
    assert outcome["status"] == "failed" and outcome["exitStatus"] == 1
    assert outcome["difference"]["what"] == "exit"
    [diag] = await shown(client, uri)
    assert diag.code == "R011" and diag.range.start.line == line_of(text, "wave-lsp run:")
    assert "exit status 1, expected 0: Error: " in diag.message and "--grid" in diag.message


async def test_expect_lines_complete_with_what_the_last_run_printed(client):
    text = store("0", "10")
    uri = open_document(client, text, "complete")
    await command(client, TEST, uri, "store", None)
    line = line_of(text, "expect: 10") + 1
    lines = text.split("\n")
    lines.insert(line, "; wave-lsp expect: ")
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=line, character=0),
                          end=t.Position(line=line, character=0)),
            text="; wave-lsp expect: \n")]))
    text = "\n".join(lines)
    got = await client.text_document_completion_async(t.CompletionParams(
        text_document=ident(uri), position=client_position(client, text, line, 19)))
    items = got.items if isinstance(got, t.CompletionList) else got
    assert [i.label for i in items] == ["20", "20 … (2 lines)"]
    # from after the blank typed after `expect:` (a text starting with a blank is an empty
    # word to Neovim, which then inserted nothing)
    assert items[0].text_edit.new_text == "20"
    assert items[0].text_edit.range.start.character == 19
    assert apply(text, [items[0].text_edit]) == store("0", "10", "20")
    assert apply(text, [items[1].text_edit]) == store(*RIGHT)
    elsewhere = await client.text_document_completion_async(t.CompletionParams(
        text_document=ident(uri), position=t.Position(line=line - 1, character=5)))
    assert not (elsewhere.items if isinstance(elsewhere, t.CompletionList) else elsewhere)


async def test_discovery_of_open_documents_and_files_on_disk(client, tmp_path):
    text = store(*RIGHT) + "\n" + loop_branch(LOOP_BRANCH_OUTPUT)
    uri = open_document(client, text, "discover")
    found = await command(client, DISCOVER, uri)
    assert [(x["kernel"], x["launchLine"], x["ordinal"]) for x in found["tests"]] == [
        ("store", 2, 0), ("loop_branch", line_of(text, "--dump-u32 0:8"), 0)]
    first = found["tests"][0]
    assert first["args"] == ["--workgroup", "4,1,1", "--wave-width", "4", "--dump-u32", "0:4"]
    assert first["range"]["start"] == {"line": 2, "character": 0}
    assert first["range"]["end"]["line"] == 6
    assert first["kernelRange"]["start"]["line"] == 0
    assert first["kernelRange"]["end"]["line"] == text.split("\n").index(".end")
    path = tmp_path / "on_disk.wave"
    path.write_text(store(*WRONG))
    on_disk = await command(client, DISCOVER, path.as_uri())
    assert [x["launchLine"] for x in on_disk["tests"]] == [2]
    answer = await command(client, TEST, path.as_uri(), None, None)
    assert answer["failed"] == 1
    assert "lane 2 wrote 20, expected 25" in answer["tests"][0]["message"]
    missing = await command(client, DISCOVER, (tmp_path / "gone.wave").as_uri())
    assert missing["tests"] == [] and "cannot read" in missing["error"]


async def test_an_edit_retests_and_never_shows_a_stale_outcome(client):
    text = store(*RIGHT)
    uri = open_document(client, text, "stale")
    launch = line_of(text, "wave-lsp run:")
    await command(client, TEST, uri, "store", launch)
    assert [c.title for c in await lens_line(client, uri, launch)][-1] == "✓ passed"
    line = line_of(text, "mov_imm r1, 10")
    text = change_line(client, uri, 2, text, line, "    mov_imm r1, 11")
    # right after the edit no outcome of the old text is shown; the re-run then fails
    assert [c.title for c in await lens_line(client, uri, launch)][-1] != "✓ passed"

    async def failed():
        titles = [c.title for c in await lens_line(client, uri, launch)]
        return titles[-1].startswith("✕ failed: line ") and titles
    titles = await eventually(failed, WAIT)
    assert "lane 1 wrote 11, expected 10" in titles[-1]


# an endless loop, whose launch line lifts `wave-lsp run`'s own instruction limit
SPIN = """.kernel spin
.registers 8
; wave-lsp run: --workgroup 1,1,1 --max-instructions 0
; wave-lsp expect-exit: 0
    mov_imm r0, 0
    loop
        icmp_ne p1, r0, r0
        break p1
    endloop
    halt
.end
"""


async def test_tests_run_within_the_settings_run_limits(client):
    """The settings' limit holds: the launch line's 0 (no limit) does not lift it."""
    await configure(client, {"run": {"maxInstructions": 5000}})
    uri = open_document(client, SPIN, "spin")
    try:
        answer = await command(client, TEST, uri, "spin", 2)
        outcome = answer["tests"][0]
        assert outcome["status"] == "failed" and outcome["exitStatus"] == 1
        assert "instruction limit exceeded" in outcome["stderr"]
        assert "limit: 5000 wave-instructions" in outcome["stderr"]
    finally:
        close(client, uri)              # its endless test is live: no re-run under new limits
        await configure(client, {})


async def test_an_edit_during_a_test_runs_it_again_on_the_new_text(client):
    await configure(client, {"run": {"maxInstructions": 0, "timeLimitMs": 60000}})
    uri = open_document(client, SPIN, "spin_edit")
    try:
        pending = asyncio.ensure_future(command(client, TEST, uri, "spin", 2))
        await asyncio.sleep(0.5)            # the endless loop is running, for up to 60 s
        # the loop ends now: the test passes, on the new text only
        change_line(client, uri, 2, SPIN, line_of(SPIN, "icmp_ne"), "        icmp_eq p1, r0, r0")
        answer = await asyncio.wait_for(pending, 30)      # the edit cancelled the first run
        assert answer["version"] == 2
        outcome = answer["tests"][0]
        assert outcome["passed"] and outcome["exitStatus"] == 0
    finally:
        close(client, uri)
        await configure(client, {})


@pytest.mark.parametrize("arguments", [
    [], [123], ["file:///nowhere/at/all.wave"], ["untitled:Untitled-1"],
    ["file:///dev/zero"], ["file:///tmp"], ["OPEN", 5, None], ["OPEN", "store", "x"],
    ["OPEN", "store", True], ["OPEN", "store", 0], ["OPEN", "nosuch", None]])
async def test_bad_arguments_are_answered_never_fatal(client, arguments):
    uri = open_document(client, store(*RIGHT), "hostile")
    arguments = [uri if a == "OPEN" else a for a in arguments]
    answer = await command(client, TEST, *arguments)
    assert answer["tests"] == []
    if len(arguments) < 2 or arguments[1] != "nosuch":
        assert answer["error"]
    found = await command(client, DISCOVER, *arguments[:1])
    assert found["tests"] == [] or arguments[0] == uri
    # the server still answers
    assert (await command(client, DISCOVER, uri))["tests"][0]["kernel"] == "store"


async def test_a_new_expect_line_completes_with_the_output_of_a_first_run(client):
    text = store("")                      # a launch line and one empty expect line: never run
    uri = open_document(client, text, "first")
    line = text.split("\n").index("; wave-lsp expect:")
    got = await client.text_document_completion_async(t.CompletionParams(
        text_document=ident(uri), position=client_position(client, text, line, 18)))
    items = got.items if isinstance(got, t.CompletionList) else got
    assert [i.label for i in items] == ["0", "0 … (4 lines)"]
    assert apply(text, [items[1].text_edit]) == store(*RIGHT)


async def test_an_untrusted_workspace_never_runs_a_test(untrusted_once):  # noqa: F811
    untrusted = untrusted_once
    uri = open_document(untrusted, store(*WRONG), "untrusted")
    answer = await command(untrusted, TEST, uri, None, None)
    assert answer["tests"] == [] and "untrusted" in answer["error"]
    # its tests are still listed (nothing runs to list them)
    assert [x["kernel"] for x in (await command(untrusted, DISCOVER, uri))["tests"]] == ["store"]

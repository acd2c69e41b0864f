"""Bounded work in the real server, as Neovim and as VS Code:

- a profile of a kernel whose access stride changes every iteration (a new access pattern each
  time round the loop) stops at `run.timeLimitMs` with a message, its hover says the figures are
  estimated, and hovers on other documents are answered while it runs;
- a kernel test dumping 1,000,000 values: the test command, the completion on its expect line
  and the code actions there answer in a bounded size that says what was left out, and hovers
  are answered while the test runs."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from lsprotocol import types as t
from pytest_lsp import client_capabilities

from corpus import STRIDE_WALK

from .conftest import client_position, configure, open_document
from .test_run_results import INIT, client, ident  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

SMALL = ".kernel small\n.registers 4\n    mov_imm r1, 5\n    halt\n.end\n"
# STRIDE_WALK (benchmarks/corpus.py): 16 workgroups of 256 threads, a new stride each iteration
LOAD = next(i for i, line in enumerate(STRIDE_WALK.split("\n")) if "device_load_u32" in line)
VALUES = 1_000_000
DUMPING = f"""\
.kernel dumping
.registers 4
    halt
; wave-lsp run: --device-memory {4 * VALUES} --dump-u32 0:{VALUES}
; wave-lsp expect: 0
.end
"""
EXPECT = 4
ANSWER_BYTES = 1 << 20          # an answer about a huge output stays under a megabyte


async def hovered_meanwhile(client, pending: asyncio.Future, uri: str) -> list[bool]:
    """Hover on `uri` until `pending` is done: whether each hover was answered while it was
    still running (the event loop free while the work runs; the last one may come after it
    finished). How long they waited is measured in benchmarks/bench_profile_bounds.py."""
    answered = []
    while not pending.done():
        hover = await client.text_document_hover_async(t.HoverParams(
            text_document=ident(uri), position=t.Position(line=2, character=5)))
        answered.append(hover is not None and not pending.done())
        await asyncio.sleep(0.05)
    return answered


async def command(client, name: str, *arguments):
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command=name, arguments=list(arguments)))


def size(answer) -> int:
    return len(json.dumps(answer if isinstance(answer, (dict, list)) else
                          [client_converter(a) for a in answer]))


def client_converter(value):
    from lsprotocol import converters
    return converters.get_converter().unstructure(value)


async def test_a_profile_of_ever_new_patterns_stops_at_the_time_limit(client):
    """Counting the presets of 16 x 300 new patterns of 4,096 lanes takes longer than 200 ms:
    the profile stops there, says so, and hovers are answered meanwhile. (On a loaded machine
    the run itself can take the 200 ms: the message then says where the run stopped.)"""
    await configure(client, {**INIT, "run": {"timeLimitMs": 200, "maxInstructions": 0}})
    try:
        small = open_document(client, SMALL, "bounded_small")
        await client.text_document_hover_async(t.HoverParams(      # warm
            text_document=ident(small), position=t.Position(line=2, character=5)))
        uri = open_document(client, STRIDE_WALK.format(iterations=300), "bounded_profile")
        pending = asyncio.ensure_future(command(client, "wave-lsp.profile", uri,
                                                "stride_walk", None))
        answered = await hovered_meanwhile(client, pending, small)
        result = pending.result()
    finally:
        await configure(client, INIT)
    assert any(answered)                        # answered while the profile ran
    assert result["status"] in ("error", "failed") and result["complete"], result
    # the limit named once, where it was met first (and met again, when it was)
    assert re.match(r"time limit: run\.timeLimitMs \(200 ms\) reached (while|at line \d+)",
                    result["message"]), result
    assert result["message"].count("timeLimitMs") == 1, result["message"]


async def test_a_profiles_hover_and_lens_say_the_figures_are_estimated(client):
    text = STRIDE_WALK.format(iterations=300).replace("--grid 16,1,1", "--grid 2,1,1")
    uri = open_document(client, text, "bounded_estimated")
    # a time limit still (the editor's kind of profile, whose patterns are bounded), but one a
    # loaded machine does not reach: the profile must end "ok"
    await configure(client, {**INIT, "run": {"timeLimitMs": 30000}})
    try:
        result = await command(client, "wave-lsp.profile", uri, "stride_walk", None)
    finally:
        await configure(client, INIT)
    assert result["status"] == "ok", result["message"]
    # the device load's patterns: a new one every iteration (the local load's repeat)
    assert [e["line"] for e in result["estimated"]] == [LOAD + 1]
    assert result["summary"].endswith("· estimated")
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=ident(uri), position=t.Position(line=LOAD, character=10)))
    assert f"Estimated: the memory figures of line {LOAD + 1} are scaled from a sample" in \
        hover.contents.value


async def test_a_test_dumping_a_million_values_answers_in_bounded_sizes(client):
    small = open_document(client, SMALL, "bounded_small_test")
    uri = open_document(client, DUMPING, "bounded_test")
    pending = asyncio.ensure_future(command(client, "wave-lsp.test", uri, "dumping", 3))
    answered = await hovered_meanwhile(client, pending, small)
    result = pending.result()
    assert any(answered)                        # answered while the test ran
    outcome = result["tests"][0]
    assert outcome["status"] == "failed" and outcome["actualLines"] == VALUES
    assert len(outcome["actual"]) == 1024 and size(result) < ANSWER_BYTES
    assert outcome["message"] == f"{VALUES - 1:,} more output line(s) than expected, the " \
                                 "first: '0'"

    got = await client.text_document_completion_async(t.CompletionParams(
        text_document=ident(uri), position=client_position(client, DUMPING, EXPECT, 19)))
    items = got.items if isinstance(got, t.CompletionList) else got
    assert [i.label for i in items] == ["0", f"0 … (the first 1,024 of {VALUES:,} lines)"]
    assert "the first 1,024 of 1,000,000 lines" in items[1].detail
    assert items[1].text_edit.new_text.count("\n") == 1023
    assert size(items) < ANSWER_BYTES

    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=ident(uri), range=t.Range(start=t.Position(line=EXPECT, character=0),
                                                end=t.Position(line=EXPECT, character=20)),
        context=t.CodeActionContext(diagnostics=[])))
    assert size(actions) < ANSWER_BYTES
    update = [a for a in actions if a.title.startswith("Update the expectations")]
    if client_capabilities(client.preset).text_document.code_action.disabled_support:
        assert len(update) == 1 and update[0].edit is None
        assert update[0].disabled.reason.startswith(
            "its run printed the first 1,024 of 1,000,000 lines")
    else:
        assert update == []

""""Debug witness" and "⟳ verifying…" through the real server (as VS Code): after
`wave-lsp.verify` finds a race or a divergent barrier, the kernel's lens "Debug witness", the
code action on its R031/R032 and the answer's `debugAtMoment` carry one debug configuration: the
witness's own launch (`--set-reg` values included) with `stopAt` at its first access. Given to
the real debug adapter it opens a session paused there with both threads in the "Finding lanes"
scope. While a kernel is verified (clicked, or again after an edit settles) its lens says
"⟳ verifying…"."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path

import pytest
from lsprotocol import types as t

from .conftest import ONE_PRESET

from .test_debug_moments import _code_action, client, on_disk, paused  # noqa: F401 (fixture)
from .test_run_results import eventually

pytestmark = [pytest.mark.asyncio(loop_scope="module"), ONE_PRESET,
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

CORPUS = Path(__file__).resolve().parents[1] / "verify" / "corpus"
DEBUG = "wave.debugAtMoment"
VERIFYING = "⟳ verifying…"


async def lenses(client, uri: str) -> list[t.CodeLens]:
    return await client.text_document_code_lens_async(t.CodeLensParams(
        text_document=t.TextDocumentIdentifier(uri=uri)))


async def verify(client, uri: str, kernel: str) -> dict:
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.verify", arguments=[uri, kernel]))


async def witness_action(client, uri: str, line: int) -> t.CodeAction:
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        range=t.Range(start=t.Position(line=line, character=0),
                      end=t.Position(line=line, character=0)),
        context=t.CodeActionContext(diagnostics=[])))
    found = [a for a in map(_code_action, actions or [])
             if a is not None and a.command.command == DEBUG
             and a.title.startswith("Debug witness")]
    assert len(found) == 1, actions
    return found[0]


def launch_words(result: dict) -> list[str]:
    """The witness's `wave-lsp run` flags, without `--kernel` (the configuration names it)."""
    words = shlex.split(result["witness"]["launch"])
    at = words.index("--kernel")
    return words[:at] + words[at + 2:]


async def debug_witness(client, tmp_path: Path, name: str) -> tuple[dict, dict]:
    """Verify corpus kernel `name` from a file on disk; check that its lens, its code action
    and the answer carry the same configuration, the witness's launch; return both."""
    uri = on_disk(client, tmp_path, name, (CORPUS / f"{name}.wave").read_text())
    result = await verify(client, uri, name)
    assert result["verdict"] in ("race", "divergence"), result
    config = result["debugAtMoment"]
    assert config["type"] == "wave" and config["kernel"] == name
    assert config["program"] == str(tmp_path / f"{name}.wave")
    assert config["args"] == launch_words(result)
    lens = [lens for lens in await lenses(client, uri) if lens.command.title == "Debug witness"]
    assert len(lens) == 1 and lens[0].command.command == DEBUG
    assert lens[0].command.arguments[0] == config
    first = result["witness"]["lines"][0] - 1
    action = await witness_action(client, uri, first)
    assert action.command.arguments[0] == config
    return result, config


def both_threads_in_view(result: dict, config: dict, lines: set[int]) -> list[dict]:
    """Start the session; it is paused at one of `lines` (1-based) with the witness's two
    threads in "Finding lanes"; returns that scope's rows."""
    dap, stop = paused(config)
    try:
        assert stop["reason"] == "goto", stop
        frame = dap.top_frame(stop["threadId"])
        assert frame["line"] in lines, (frame, lines)
        focus = dap.scope(frame["id"], "Finding lanes")
    finally:
        dap.close()
    threads = result["witness"]["threads"]
    assert [row["name"] for row in focus] == [f"thread {n}" for n in threads]
    return focus


async def test_a_race_witness_opens_the_session_at_its_first_access(client, tmp_path):
    result, config = await debug_witness(client, tmp_path, "missing_barrier")
    assert config["stopAt"]["lines"] == [line - 1 for line in result["witness"]["lines"]]
    both_threads_in_view(result, config, set(result["witness"]["lines"]))


async def test_a_divergence_witness_opens_at_its_barrier(client, tmp_path):
    result, config = await debug_witness(client, tmp_path, "divergent_barrier_if")
    focus = both_threads_in_view(result, config, {11})
    # one thread waits at the barrier, the other does not reach it
    assert sorted("inactive" in row["value"] for row in focus) == [False, True]


async def test_the_witness_inputs_are_the_session_inputs(client, tmp_path):
    result, config = await debug_witness(client, tmp_path, "symbolic_rounds_one_barrier")
    assert result["witness"]["inputs"] == {"r15": 63}
    at = config["args"].index("--set-reg")
    assert config["args"][at + 1] == "r15:63"
    both_threads_in_view(result, config, set(result["witness"]["lines"]))


async def test_no_debug_witness_without_a_file_or_a_witness(client, tmp_path):
    text = (CORPUS / "missing_barrier.wave").read_text()
    uri = "file:///tmp/wave-lsp-tests/not-on-disk/missing_barrier.wave"
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=text)))
    result = await verify(client, uri, "missing_barrier")
    assert result["verdict"] == "race" and "debugAtMoment" not in result
    titles = [lens.command.title for lens in await lenses(client, uri)]
    assert "▶ Replay witness" in titles and "Debug witness" not in titles
    uri = on_disk(client, tmp_path, "with_barrier", (CORPUS / "with_barrier.wave").read_text())
    result = await verify(client, uri, "with_barrier")
    assert result["verdict"] == "proved" and "debugAtMoment" not in result
    assert "Debug witness" not in [lens.command.title for lens in await lenses(client, uri)]


async def test_the_lens_says_verifying_while_it_runs(client, tmp_path):
    """grid_stride takes seconds (loop summaries, then a replay): the lens says so meanwhile,
    on a click and again when an edit settles."""
    text = (CORPUS / "grid_stride.wave").read_text()
    uri = on_disk(client, tmp_path, "grid_stride", text)
    titles = [lens.command.title for lens in await lenses(client, uri)]
    assert "Verify" in titles and VERIFYING not in titles      # first open: nothing runs
    clicked = asyncio.ensure_future(verify(client, uri, "grid_stride"))

    async def verifying():
        return VERIFYING in [lens.command.title for lens in await lenses(client, uri)]
    await eventually(verifying, 20.0, every=0.01)
    assert "Verify" not in [lens.command.title for lens in await lenses(client, uri)]
    result = await clicked
    assert result["verdict"] in ("unknown", "race")
    assert await shown_verdict(client, uri)
    # an edit hides the verdict; when it settles the kernel is verified again, and says so
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangeWholeDocument(text=text + "\n")]))
    await eventually(verifying, 20.0, every=0.01)
    await eventually(lambda: shown_verdict(client, uri), 90.0)    # solver, then a replay: loaded CI


async def shown_verdict(client, uri: str) -> bool:
    """The kernel's lens shows a verdict, and nothing says it is verifying."""
    titles = [lens.command.title for lens in await lenses(client, uri)]
    return VERIFYING not in titles and "Verify" not in titles \
        and any(title[:1] in "✓✕?" for title in titles)


async def test_the_witness_memory_is_the_session_memory(client, tmp_path):
    """A race that depends on loaded device words: the session starts with those words."""
    import base64
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
    from test_witness_memory import SCATTER
    uri = on_disk(client, tmp_path, "scatter", SCATTER)
    result = await verify(client, uri, "scatter")
    memory = {int(a): v for a, v in result["witness"]["memory"].items()}
    config = result["debugAtMoment"]
    assert len(memory) == 2 and "--fill-iota" in config["args"]
    dap, stop = paused(config)
    try:
        assert stop["reason"] == "goto"
        for address, value in memory.items():
            data = dap.request("readMemory", {"memoryReference": "device", "offset": address,
                                              "count": 4})["body"]["data"]
            assert int.from_bytes(base64.b64decode(data), "little") == value
    finally:
        dap.close()

"""The vendors' compilers are bounded in the editor: they run in a pool of their own
(never in the reader that answers the other documents' requests), at most two at once, each
stopped when its document is edited or closed, when the server shuts down, and after
`backends.timeoutSeconds`, which the hover and the views then say; the kernel hover answers
after `hover.VENDOR_WAIT_S` whatever the compilers do.

The compilers here are a planted script (named by `backends.ptxas` and `backends.hipcc` in a
trusted workspace) that appends "<pid> start" to a record, sleeps as long as `sleep.txt` says,
then appends "<pid> end": a run that was stopped has no end.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import LanguageClient, client_capabilities

from wave_lsp.server.vendor_diagnostics import QUIET_S

from .conftest import PRESETS, SERVER, configure, open_document
from .test_portability import execute
from .test_run_results import _watch_refreshes

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

_kernels = itertools.count()
STUCK = 1000           # seconds: longer than any test waits


class Planted:
    def __init__(self, folder: Path) -> None:
        self.record = folder / "runs.txt"
        self.sleep_file = folder / "sleep.txt"
        self.program = folder / "fake-compiler"
        self.program.write_text(
            "#!/bin/sh\nfor a; do case $a in *.ptx|*.hip) src=$a;; esac; done\n"
            "kernel=$(grep -oE '(entry|void) k[0-9]+' \"$src\" | head -1 | cut -d' ' -f2)\n"
            f"echo \"$$ start $kernel\" >> {self.record}\n"
            f"sleep $(cat {self.sleep_file})\n"
            f"echo \"$$ end $kernel\" >> {self.record}\nexit 1\n")
        self.program.chmod(0o755)
        self.sleep(1)

    def sleep(self, seconds: float) -> None:
        self.sleep_file.write_text(f"{seconds}\n")

    def settings(self, **extra) -> dict:
        """The `wave` section naming the planted compilers."""
        return {"backends": {"ptxas": str(self.program), "hipcc": str(self.program), **extra}}

    def options(self) -> dict:
        """`initializationOptions`: the settings, trusted."""
        return {**self.settings(), "workspaceTrusted": True}

    def events(self, kernel: str | None = None) -> list[tuple[int, str]]:
        """(pid, "start" or "end") in order, of the runs on `kernel`'s translation (all runs
        by default: the P824 checks compile every open document too)."""
        if not self.record.exists():
            return []
        return [(int(pid), what) for pid, what, name in
                (line.split() for line in self.record.read_text().splitlines())
                if kernel is None or name == kernel]

    def started(self, kernel: str | None = None) -> list[int]:
        return [pid for pid, what in self.events(kernel) if what == "start"]

    def ended(self) -> set[int]:
        return {pid for pid, what in self.events() if what == "end"}

    async def wait_started(self, count: int, kernel: str) -> list[int]:
        for _ in range(600):
            found = self.started(kernel)
            if len(found) >= count:
                return found
            await asyncio.sleep(0.05)
        raise AssertionError(f"fewer than {count} compilers started: {self.events()}")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):    # reaped between the two looks, or
        return False                                   # while its entry was read
    return not stat.split(")")[1].split()[0] == "Z"


async def wait_gone(pids: list[int]) -> None:
    for _ in range(400):
        if not any(alive(pid) for pid in pids):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"compilers still running: {[p for p in pids if alive(p)]}")


def kernel(lines: int = 0) -> tuple[str, str]:
    """A kernel no other test compiles (the results are cached by text), `lines` long."""
    name = f"k{next(_kernels)}"
    body = "".join(f"    mov_imm r1, {i}\n" for i in range(lines))
    return name, f".kernel {name}\n.registers 4\n    mov_sr r0, sr_lane_id\n{body}    halt\n.end\n"


def hover_params(uri: str) -> t.HoverParams:
    return t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri),
                         position=t.Position(line=0, character=9))


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> Planted:
    return Planted(tmp_path_factory.mktemp("limits"))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def server(lsp_client: LanguageClient, planted):
    _watch_refreshes(lsp_client)
    await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(PRESETS[1]), initialization_options=planted.options()))
    lsp_client.set_configuration(planted.settings(), section="wave")
    yield
    await lsp_client.shutdown_session()


async def test_at_most_two_compilers_run_at_once(server, planted):
    planted.sleep(0.5)
    before = len(planted.events())
    docs = [(open_document(server, text, "limit"), name)
            for name, text in (kernel() for _ in range(3))]
    answers = await asyncio.gather(*(execute(server, "wave-lsp.kernelResources", uri, name)
                                     for uri, name in docs),
                                   *(execute(server, "wave-lsp.emit", uri, "ptx")
                                     for uri, _ in docs))
    running = most = 0
    events = planted.events()[before:]
    for _pid, what in events:
        running += 1 if what == "start" else -1
        most = max(most, running)
    # 3 documents x (ptxas and hipcc, two architectures each): 12 runs (Show PTX's are the
    # same text as kernelResources' ptxas runs: joined or cached, never run again)
    assert len([e for e in events if e[1] == "start"]) == 12, events
    assert most == 2, events
    assert all(len(a["vendor"]) == 4 for a in answers[:3]), answers[:3]


async def test_an_edit_stops_the_compilers_of_the_old_text(server, planted):
    planted.sleep(STUCK)
    name, text = kernel()
    uri = open_document(server, text, "edited")
    asking = asyncio.ensure_future(execute(server, "wave-lsp.kernelResources", uri, name))
    pids = await planted.wait_started(2, name)
    server.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(start=t.Position(line=2, character=0),
                          end=t.Position(line=2, character=0)), text="    mov_imm r2, 1\n")]))
    await wait_gone(pids)
    assert not planted.ended() & set(pids), planted.events()
    result = await asking
    assert result["kernel"] == name and result["vendor"] == []
    planted.sleep(0)


async def test_closing_the_document_stops_its_compilers(server, planted):
    planted.sleep(STUCK)
    name, text = kernel()
    uri = open_document(server, text, "closed")
    asking = asyncio.ensure_future(execute(server, "wave-lsp.emit", uri, "hip"))
    pids = await planted.wait_started(1, name)
    server.text_document_did_close(t.DidCloseTextDocumentParams(
        text_document=t.TextDocumentIdentifier(uri=uri)))
    await wait_gone(pids)
    assert not planted.ended() & set(pids), planted.events()
    result = await asking
    assert "vendor" not in result and result["text"]
    planted.sleep(0)


async def test_other_documents_are_answered_while_compilers_are_stuck(server, planted):
    """Two stuck compilers take both slots; another document's view, hover and code lenses
    are answered meanwhile, and a kernel hover keeps its promise (answered without the figures,
    saying they are being computed), for a large document (computed off the event loop) too."""
    planted.sleep(STUCK)
    name, text = kernel()
    stuck = open_document(server, text, "stuck")
    asking = asyncio.ensure_future(execute(server, "wave-lsp.kernelResources", stuck, name))
    pids = await planted.wait_started(2, name)
    other_name, other_text = kernel(lines=2_500)
    other = open_document(server, other_text, "other")
    shown = await execute(server, "wave-lsp.emit", other, "metal")
    assert "kernel void" in shown["text"]
    lenses = await server.text_document_code_lens_async(t.CodeLensParams(
        text_document=t.TextDocumentIdentifier(uri=other)))
    assert lenses
    hover = await server.text_document_hover_async(hover_params(other))
    assert f"kernel `{other_name}`" in hover.contents.value
    assert "vendor compilers still running" in hover.contents.value
    assert "being computed" in hover.contents.value
    assert all(alive(pid) for pid in pids) and not planted.ended() & set(pids)
    server.text_document_did_close(t.DidCloseTextDocumentParams(
        text_document=t.TextDocumentIdentifier(uri=stuck)))
    server.text_document_did_close(t.DidCloseTextDocumentParams(
        text_document=t.TextDocumentIdentifier(uri=other)))
    await wait_gone(pids)
    await asking
    planted.sleep(0)


async def test_a_compiler_past_its_time_limit_is_stopped_and_the_views_say_so(server, planted):
    planted.sleep(STUCK)
    try:
        await configure(server, planted.settings(timeoutSeconds=1))
        name, text = kernel()
        uri = open_document(server, text, "timeout")
        result = await execute(server, "wave-lsp.kernelResources", uri, name)
        pids = planted.started(name)
        assert len(pids) == 4 and not planted.ended() & set(pids), planted.events()
        await wait_gone(pids)
        assert {v["problem"] for v in result["vendor"]} == \
            {"fake-compiler took longer than 1 s and was stopped"}, result["vendor"]
        shown = await execute(server, "wave-lsp.emit", uri, "ptx")          # cached
        assert [v.get("timedOut") for v in shown["vendor"]] == [1, 1]
        assert "fake-compiler sm_75: STOPPED after 1 s" in shown["text"]
        assert "took longer than 1 s" in shown["text"]
        hover = await server.text_document_hover_async(hover_params(uri))
        assert "fake-compiler took longer than 1 s and was stopped" in hover.contents.value
        assert len(planted.started(name)) == 4               # all of it from the cache
    finally:
        planted.sleep(0)
        await configure(server, planted.settings())


async def test_a_disabled_p824_runs_no_compiler_for_it(server, planted):
    """With P824 disabled, a settled document's rejection check runs no compiler (everything
    it found would be dropped); enabled again, the same document's check compiles it (so the
    first half can fail)."""
    planted.sleep(0)
    await configure(server, {**planted.settings(), "disable": ["P824"]})
    try:
        name, text = kernel()
        open_document(server, text, "disabled")
        await asyncio.sleep(QUIET_S + 1.5)
        assert planted.started(name) == [], planted.events()
    finally:
        await configure(server, planted.settings())
    await planted.wait_started(1, name)       # new settings settle every open document


@pytest_lsp.fixture(config=SERVER, loop_scope="module")
async def ending(lsp_client: LanguageClient, planted):
    _watch_refreshes(lsp_client)
    await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(PRESETS[1]), initialization_options=planted.options()))
    yield


async def test_shutting_down_stops_the_compilers(ending, planted):
    planted.sleep(STUCK)
    name, text = kernel()
    uri = open_document(ending, text, "shutdown")
    asking = asyncio.ensure_future(execute(ending, "wave-lsp.kernelResources", uri, name))
    pids = await planted.wait_started(2, name)
    await ending.shutdown_session()
    await wait_gone(pids)
    assert not planted.ended() & set(pids), planted.events()
    asking.cancel()
    planted.sleep(0)


async def test_a_server_without_settings_checks_with_the_compilers_on_path(tmp_path):
    """No settings at all (no initializationOptions, no configuration: the analysis layer's
    defaults): the P824 check of a settled document runs the compilers it finds on PATH, and
    says nothing of a failure of its own (the check once read the disabled codes of settings
    that were never given)."""
    await asyncio.to_thread(_check_without_settings, tmp_path)


def _check_without_settings(tmp_path: Path) -> None:
    from .rawclient import RawClient
    from .test_runaway_runs import open_doc
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = Planted(folder)
    fake.sleep(0)
    for name in ("ptxas", "hipcc"):
        (folder / name).symlink_to(fake.program)
    client = RawClient(tmp_path, env={"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"})
    try:
        client.initialize()
        name, text = kernel()
        open_doc(client, "file:///tmp/no_settings.wave", text)
        deadline = time.monotonic() + QUIET_S + 30
        while not fake.started(name) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert fake.started(name), (fake.events(), client.stderr[-2000:])
        client.request(99, "shutdown")
        client.response(99, timeout=30)
        messages = [m["params"]["message"] for m in client.seen
                    if m.get("method") == "window/showMessage"]
        assert not [m for m in messages if "failed" in m], messages
    finally:
        client.close()

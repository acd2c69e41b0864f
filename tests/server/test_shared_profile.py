"""A profiled kernel shares its inline run, through the real server (`wave-lsp serve`, with
`WAVE_LSP_SHOW_ENGINE=1`, which logs every emulator job: which kernel, revision, whether it
profiled it too, and the engine): after an edit of a kernel that is both run and profiled, one
run on the native core feeds the inline values and the profile (no profile job of its own),
with the values of a document only run and the profile of a document only profiled; clicking
Profile again on that revision shows the profile without running anything."""

from __future__ import annotations

import os

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import LanguageClient, client_capabilities

from .conftest import VS_CODE, open_document, server_config
from .test_profile import _async, changes_for, lens_titles, profile
from .test_run_results import INIT, _watch_refreshes, change, eventually, hints, run

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

SERVER = server_config({**os.environ, "WAVE_LSP_SHOW_ENGINE": "1"})


@pytest_lsp.fixture(params=VS_CODE, config=SERVER, scope="module")
async def client(request, lsp_client: LanguageClient):
    _watch_refreshes(lsp_client)
    await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(request.param), initialization_options=INIT))
    lsp_client.profile_changes = []
    lsp_client.feature("wave-lsp/profileChanged")(
        lambda params: lsp_client.profile_changes.append(params))
    yield
    await lsp_client.shutdown_session()


SCALE = """\
; scale a vector; a loop and a branch
; wave-lsp run: --grid 4,1,1 --wave-width 32 --device-memory 65536 --fill-iota 0:f32:256:1
.kernel scale
.registers 16
.workgroup_size 64, 1, 1

    mov_sr  r0, sr_thread_id_x
    mov_sr  r1, sr_workgroup_id_x
    mov_imm r2, 64
    imad    r3, r1, r2, r0
    mov_imm r4, 4
    imul    r5, r3, r4
    device_load_u32 r6, r5
    mov_imm r7, 0x40000000          ; the factor
    fmul    r8, r6, r7
    mov_imm r9, 8
    ucmp_lt p1, r0, r9
    if p1
        fadd r8, r8, r7
    endif
    mov_imm r10, 4096
    iadd    r11, r5, r10
    device_store_u32 r11, r8
    halt
.end
"""
LAUNCH = 1
FACTOR = SCALE.split("\n").index("    mov_imm r7, 0x40000000          ; the factor")


def jobs(client, since: int, uri_kernel: str = "scale") -> list[str]:
    """The job lines logged since `since` (`runs.job_lines`)."""
    return [m.message for m in client.log_messages[since:]
            if m.message.startswith(("wave-lsp: ran ", "wave-lsp: profiled "))
            and f" {uri_kernel} " in m.message]


async def all_hints(client, uri: str) -> set[tuple[int, str]]:
    """Every inlay hint (line, label): the run's values and the profile's figures."""
    got = await client.text_document_inlay_hint_async(t.InlayHintParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        range=t.Range(start=t.Position(line=0, character=0),
                      end=t.Position(line=10_000, character=0))))
    return {(h.position.line, h.label if isinstance(h.label, str)
             else "".join(p.value for p in h.label)) for h in got or []}


def shown(answer: dict) -> dict:
    """A profile answer without what differs between documents and runs."""
    return {k: v for k, v in answer.items() if k not in ("uri", "version", "elapsedMs")}


async def complete(client, uri: str, version: int) -> dict:
    """The complete profile of the document's `version` (every preset)."""
    async def probe():
        done = [c for c in changes_for(client, uri, version)
                if c["profiles"] and c["profiles"][0]["complete"]]
        return done[-1]["profiles"][0] if done else None
    return await eventually(probe, timeout=30)


async def test_one_run_per_edit_feeds_values_and_profile(client):
    uri = open_document(client, SCALE, "shared")
    assert (await run(client, uri, "scale", LAUNCH))["ok"]
    first = await profile(client, uri, "scale", LAUNCH)
    assert first["ok"], first
    await complete(client, uri, 1)
    since = len(client.log_messages)
    edited = change(client, uri, 2, FACTOR, "0x40000000", "0x40400000", SCALE)
    after = await complete(client, uri, 2)
    await eventually(lambda: hints(client, uri))
    await eventually(lambda: _async(len(jobs(client, since)) >= 1))
    # one run of the edited revision: the inline run, profiled in the same pass, native
    logged = jobs(client, since)
    assert len(logged) == 1, logged
    assert logged[0].startswith("wave-lsp: ran scale at revision ")
    assert logged[0].endswith(" with its profile (engine: native)"), logged

    # the same values as a document only run, the same profile as one only profiled
    only_run = open_document(client, edited, "shared_run")
    assert (await run(client, only_run, "scale", LAUNCH))["ok"]
    await eventually(lambda: hints(client, only_run))
    only_profiled = open_document(client, edited, "shared_profile")
    mark = len(client.log_messages)
    alone = await profile(client, only_profiled, "scale", LAUNCH)
    assert shown(await complete(client, only_profiled, 1)) == shown(after)
    assert alone["lines"] == after["lines"] and alone["heat"] == after["heat"]
    assert jobs(client, mark) == [m for m in jobs(client, mark)
                                  if m.startswith("wave-lsp: profiled scale at revision ")
                                  and m.endswith(" (engine: native)")] != []
    # its hints are those of the run alone and those of the profile alone
    assert await all_hints(client, uri) == \
        await all_hints(client, only_run) | await all_hints(client, only_profiled)
    lenses = await lens_titles(client, uri)
    assert after["summary"] in [title for title, _, _ in lenses[LAUNCH]]

    # Profile clicked again on this revision: shown at once, nothing runs
    since = len(client.log_messages)
    again = await profile(client, uri, "scale", LAUNCH)
    assert again["ok"] and again["lines"] == after["lines"] and again["complete"]
    assert jobs(client, since) == []

"""Trust granted after start-up: a server started in an untrusted workspace refuses
runs and says so on the kernel's lens, with the client's "manage trust" command; the
notification `wave-lsp/workspaceTrusted` makes the next Run run, without a restart."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import LanguageClient, client_capabilities

from .conftest import SERVER, VS_CODE
from .test_run_results import _watch_refreshes, eventually, hints, ident, run

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

KERNEL = (".kernel k\n; wave-lsp run: --workgroup 4,1,1\n"
          ".registers 8\n    mov_sr r0, sr_lane_id\n    iadd r1, r0, r0\n    halt\n.end\n")


@pytest_lsp.fixture(params=VS_CODE, config=SERVER, scope="module")
async def untrusted(request, lsp_client: LanguageClient):
    _watch_refreshes(lsp_client)
    await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(request.param),
        initialization_options={"workspaceTrusted": False, "diagnostics": {"debounceMs": 5},
                                "inlayHints": {"offsets": False, "encoding": False}}))
    yield
    await lsp_client.shutdown_session()


async def kernel_lenses(client, uri: str, line: int | None = 0) -> list[tuple[str, str]]:
    got = await client.text_document_code_lens_async(t.CodeLensParams(text_document=ident(uri)))
    return [(lens.command.title, lens.command.command) for lens in got
            if line is None or lens.range.start.line == line]


async def test_trust_granted_later_runs_the_next_run(untrusted, tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(KERNEL)
    uri = path.as_uri()
    untrusted.text_document_did_open(t.DidOpenTextDocumentParams(
        text_document=t.TextDocumentItem(uri=uri, language_id="wave", version=1, text=KERNEL)))

    refused = await run(untrusted, uri, "k")
    assert refused["status"] == "invalid-request" and "untrusted" in refused["message"]
    said = await kernel_lenses(untrusted, uri)
    titles = [title for title, _ in said]
    assert titles[0] == "▶ Run", said
    assert ("⚠ not run (untrusted): Manage Trust", "workbench.trust.manage") in said
    assert not await hints(untrusted, uri)

    untrusted.protocol.notify("wave-lsp/workspaceTrusted", None)
    ran = await run(untrusted, uri, "k")
    assert ran["status"] == "ok", ran
    lanes = await eventually(lambda: hints(untrusted, uri))
    assert lanes[3] == "r0 = 0, 1, 2, 3" and lanes[4] == "r1 = 0, 2, 4, 6", lanes
    titles = [title for title, _ in await kernel_lenses(untrusted, uri, None)]
    assert not any("untrusted" in title for title in titles), titles
    assert any(title.startswith("▶ Run again") for title in titles), titles

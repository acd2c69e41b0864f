"""No program a setting names runs in an untrusted workspace: `backends.ptxas` /
`backends.hipcc` may come from the workspace's own settings, so the kernel hover,
`wave-lsp.kernelResources` and Show PTX/HIP use only the compilers on PATH or in the wheel there.
A relative path is refused everywhere (it would resolve against the server's working folder).
Each server starts with a planted "compiler" that leaves a marker file when it runs."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import LanguageClient, client_capabilities

from .conftest import PRESETS, SERVER, open_document
from .test_portability import execute
from .test_run_results import _watch_refreshes

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

KERNEL = ".kernel k\n.registers 4\n    mov_sr r0, sr_lane_id\n    halt\n.end\n"


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("planted")
    marker = folder / "ran.txt"
    program = folder / "fake-compiler"
    program.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {marker}\nexit 1\n")
    program.chmod(0o755)
    return program, marker


async def _session(lsp_client: LanguageClient, planted, trusted) -> None:
    program, marker = planted
    _watch_refreshes(lsp_client)
    await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(PRESETS[0]),
        initialization_options={"workspaceTrusted": trusted,
                                "backends": {"ptxas": str(program), "hipcc": str(program)}}))
    lsp_client.marker = marker


@pytest_lsp.fixture(config=SERVER, scope="module")
async def untrusted(lsp_client: LanguageClient, planted):
    await _session(lsp_client, planted, False)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def trusted(lsp_client: LanguageClient, planted):
    await _session(lsp_client, planted, True)
    yield
    await lsp_client.shutdown_session()


async def _use_every_compiler_feature(client) -> None:
    uri = open_document(client, KERNEL, "planted")
    await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line=0,
                                                                              character=9)))
    await execute(client, "wave-lsp.kernelResources", uri, "k")
    for target in ("ptx", "hip"):
        await execute(client, "wave-lsp.emit", uri, target)


async def test_an_untrusted_workspace_runs_no_program_a_setting_names(untrusted):
    if untrusted.marker.exists():
        untrusted.marker.unlink()
    await _use_every_compiler_feature(untrusted)
    assert not untrusted.marker.exists(), untrusted.marker.read_text()
    assert any("untrusted workspace runs no vendor compiler a setting names" in m.message
               for m in untrusted.log_messages), [m.message for m in untrusted.log_messages]


async def test_a_trusted_workspace_runs_the_named_program(trusted):
    """The same requests, trusted: the planted program runs (so the test above can fail)."""
    if trusted.marker.exists():
        trusted.marker.unlink()
    await _use_every_compiler_feature(trusted)
    assert trusted.marker.exists()


async def test_a_relative_program_path_is_refused(trusted):
    from .conftest import configure
    try:
        await configure(trusted, {"backends": {"ptxas": "bin/ptxas"}})
        shown = [m.message for m in trusted.messages]
        assert any("backends.ptxas: 'bin/ptxas' is a relative path" in m for m in shown), shown
    finally:
        await configure(trusted, {})

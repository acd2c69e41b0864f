"""Fixtures for end-to-end tests of the language server through pytest-lsp.

`client` is a real `wave-lsp serve` subprocess (forked from the fork server of tests/forkserver.py,
which spares each one the interpreter's start), initialised with the capabilities of Neovim or of
VS Code. The two presets differ in how answers reach the client: positions in utf-8 or utf-16
units, and capabilities (snippets, `documentChanges`, refreshes, watched files, pulled
diagnostics). Modules whose answers depend on that run with both; modules about what the server
computes (debug moments and witnesses, vendor figures, verification, work on large documents,
hostile launches) run with VS Code's alone (`ONE_PRESET`): the other would repeat the same
computation on the same text. One server per preset per test module; each test opens its own
documents under fresh URIs. `-W error::pytest_lsp.LspSpecificationWarning` is applied to this
package (see `pytestmark` in the test modules). The client is `lspclient.WaveTestClient`: every
request has a deadline and every publication is recorded, so a lost message fails the test with
a message that says what was missing instead of hanging the run.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

PRESETS = ("neovim", "visual-studio-code")
VS_CODE = PRESETS[1:]
# a module's `pytestmark` entry: its tests run with VS Code's preset only (see above)
ONE_PRESET = pytest.mark.parametrize("client", VS_CODE, indirect=True)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from shared import EXAMPLES, example_names as _names, example_text  # noqa: E402
from .lspclient import make_client  # noqa: E402
from tests.forkserver import real_command, serve_command  # noqa: E402


class ForkedServer(ClientServerConfig):
    """pytest-lsp's configuration of a `wave-lsp serve` with `server_env` (the environment of
    this process when None): its command is chosen as the server starts, a fork of this
    process's fork server or the real command (tests/forkserver.py)."""

    def get_server_command(self, devtools: str | None = None) -> list[str]:
        if devtools is not None:
            return super().get_server_command(devtools)
        return serve_command(*self.server_command[len(real_command()):], env=self.server_env)


def server_config(env: dict[str, str] | None = None) -> ClientServerConfig:
    """The configuration of a `wave-lsp serve` for `pytest_lsp.fixture(config=...)`."""
    return ForkedServer(server_command=real_command(), client_factory=make_client,
                        server_env=env)


SERVER = server_config()
CURSOR = "<|>"
_counter = itertools.count()


def example_names() -> list[str]:
    return _names(stem=True)


def example(name: str) -> str:
    return example_text(name)


@pytest_lsp.fixture(params=PRESETS, config=SERVER, scope="module")
async def client(request, lsp_client: LanguageClient):
    await start_session(lsp_client, request.param)
    yield
    await lsp_client.shutdown_session()


async def start_session(lsp_client: LanguageClient, preset: str) -> None:
    """Initialise a session as the editor `preset` would (`lsp_client.preset` then says which)."""
    # Neovim and VS Code answer the refresh requests their capabilities announce; so does this
    # client (pytest-lsp's has no handler for them), recording each in `lens_refreshes` and
    # `inlay_hint_refreshes` (test_portability's count_refreshes reads the first).
    lsp_client.lens_refreshes = []
    lsp_client.inlay_hint_refreshes = []
    for method, seen in ((t.WORKSPACE_CODE_LENS_REFRESH, lsp_client.lens_refreshes),
                         (t.WORKSPACE_INLAY_HINT_REFRESH, lsp_client.inlay_hint_refreshes)):
        if method not in lsp_client.protocol.fm.features:
            lsp_client.feature(method)(lambda params, seen=seen: seen.append(params))
    result = await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(preset),
        initialization_options={"diagnostics": {"debounceMs": 5}}))
    lsp_client.preset = preset
    lsp_client.server_capabilities = result.capabilities


def pulls(client: LanguageClient) -> bool:
    """Whether the server chose pulled diagnostics for this client (it offers pull only to a
    client that supports both the pull and its refresh: neither preset here does)."""
    return client.server_capabilities.diagnostic_provider is not None


async def configure(client: LanguageClient, settings: dict) -> None:
    """Change the `wave` settings as the editor would (didChangeConfiguration, then the server
    asks for them) and give the server a moment to apply them."""
    import asyncio
    client.set_configuration(settings, section="wave")
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)


def split_cursor(text: str) -> tuple[str, int, int]:
    """Text without the cursor marker, and the marker's (line, code-point column)."""
    before, marker, after = text.partition(CURSOR)
    assert marker, "test source needs a cursor marker"
    line = before.count("\n")
    return before + after, line, len(before) - (before.rfind("\n") + 1)


def client_position(client: LanguageClient, text: str, line: int, col: int) -> t.Position:
    """A code-point position in the client's negotiated units (utf-8 for Neovim)."""
    prefix = text.split("\n")[line][:col]
    if client.preset == "neovim":
        return t.Position(line=line, character=len(prefix.encode("utf-8")))
    return t.Position(line=line, character=len(prefix.encode("utf-16-le")) // 2)


def open_document(client: LanguageClient, text: str, name: str = "doc") -> str:
    uri = f"file:///tmp/wave-lsp-tests/{name}-{next(_counter)}.wave"
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=text)))
    return uri


async def diagnostics(client: LanguageClient, uri: str, version: int = 1) -> list[t.Diagnostic]:
    """The document's diagnostics: pulled when the server offers pull, else the first push of
    `version` or later (already received or still to come)."""
    if pulls(client):
        report = await client.text_document_diagnostic_async(t.DocumentDiagnosticParams(
            text_document=t.TextDocumentIdentifier(uri=uri)))
        return list(report.items)
    params = await client.protocol.publication(
        uri, lambda p: p.version is None or p.version >= version)
    return list(params.diagnostics)

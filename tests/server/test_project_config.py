"""The project's configuration file applies in the editor as in `wave-lsp lint`: the
nearest `wave-lsp.toml` (or `[tool.wave-lsp]` in `pyproject.toml`) at or above the document's
folder, merged with the editor's settings (which win, key by key), read again when it changes:
on `workspace/didChangeWatchedFiles` (the server registers the watcher where the client can) and
on `didSave`."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from lsprotocol import types as t

from .conftest import configure

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

NO_HALT = ".kernel k\n.registers 4\n    mov_imm r1, 1\n.end\n"      # U505: no halt
_names = itertools.count()


def open_file(client, path, text: str = NO_HALT) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=text)))
    return uri


async def codes(client, uri: str, after: int = 0) -> list[str]:
    """The codes of the next publication for `uri` (pulled where the server offers pull)."""
    if client.server_capabilities.diagnostic_provider is not None:
        report = await client.text_document_diagnostic_async(t.DocumentDiagnosticParams(
            text_document=t.TextDocumentIdentifier(uri=uri)))
        return sorted(str(d.code) for d in report.items)
    params = await client.protocol.publication(uri, after=after)
    return sorted(str(d.code) for d in params.diagnostics)


async def test_the_nearest_configuration_file_applies(client, tmp_path):
    project = tmp_path / f"p{next(_names)}"
    (project / "src").mkdir(parents=True)
    (project / "wave-lsp.toml").write_text('disable = ["U505"]\n')
    other = tmp_path / f"q{next(_names)}"
    other.mkdir()
    (other / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.wave-lsp]\n'
                                          'severity = { U505 = "error" }\n')
    inside = open_file(client, project / "src" / "k.wave")
    assert "U505" not in await codes(client, inside)
    beside = open_file(client, other / "k.wave")
    assert "U505" in await codes(client, beside)
    if client.server_capabilities.diagnostic_provider is None:
        found = await client.protocol.publication(beside)
        assert [d.severity for d in found.diagnostics if d.code == "U505"] == \
            [t.DiagnosticSeverity.Error]
    plain = open_file(client, tmp_path / f"plain{next(_names)}.wave")
    assert "U505" in await codes(client, plain)


async def test_a_changed_file_is_read_again(client, tmp_path):
    project = tmp_path / f"p{next(_names)}"
    project.mkdir()
    config = project / "wave-lsp.toml"
    config.write_text('disable = ["U505"]\n')
    uri = open_file(client, project / "k.wave")
    assert "U505" not in await codes(client, uri)
    mark = client.protocol.mark()
    config.write_text('disable = []\n# changed\n')
    await asyncio.sleep(0.05)    # the mtime differs even on a coarse clock
    watched = [r for r in client.registrations
               if r.method == t.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    assert bool(watched) == (client.preset == "visual-studio-code")   # only it can register
    if watched:                  # the server registered its watcher: the editor says
        client.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams(changes=[
            t.FileEvent(uri=config.as_uri(), type=t.FileChangeType.Changed)]))
    else:                        # no watcher: a save looks again
        client.text_document_did_save(t.DidSaveTextDocumentParams(
            text_document=t.TextDocumentIdentifier(uri=uri)))
    await asyncio.sleep(0.2)
    assert "U505" in await codes(client, uri, after=mark)
    mark = client.protocol.mark()
    config.unlink()
    (project / "pyproject.toml").write_text('[tool.wave-lsp]\ndisable = ["U505"]\n')
    client.text_document_did_save(t.DidSaveTextDocumentParams(
        text_document=t.TextDocumentIdentifier(uri=uri)))
    await asyncio.sleep(0.2)
    assert "U505" not in await codes(client, uri, after=mark)


async def test_the_editors_settings_win_over_the_file(client, tmp_path):
    project = tmp_path / f"p{next(_names)}"
    project.mkdir()
    (project / "wave-lsp.toml").write_text('disable = ["U505"]\nseverity = { U505 = "hint" }\n')
    try:
        await configure(client, {"disable": [], "diagnostics": {"debounceMs": 5}})
        uri = open_file(client, project / "k.wave")
        assert "U505" in await codes(client, uri)
    finally:
        await configure(client, {"diagnostics": {"debounceMs": 5}})


async def test_an_invalid_file_is_shown_naming_it(client, tmp_path):
    project = tmp_path / f"p{next(_names)}"
    project.mkdir()
    (project / "wave-lsp.toml").write_text('disable = ["Z999"]\n')
    uri = open_file(client, project / "k.wave")
    await codes(client, uri)
    await asyncio.sleep(0.2)
    assert any("invalid configuration" in m.message and "wave-lsp.toml" in m.message
               and "Z999" in m.message for m in client.messages), \
        [m.message for m in client.messages][-3:]


async def test_the_files_targets_shape_the_lenses_and_the_check(client, tmp_path):
    """`targets` in the file reaches what the editor shows (the resource lens' targets, the
    portability check's widths), not only the diagnostics."""
    from .test_portability import execute, lenses, resource_tooltip
    project = tmp_path / f"p{next(_names)}"
    project.mkdir()
    (project / "wave-lsp.toml").write_text('targets = ["ptx", "metal"]\n')
    uri = open_file(client, project / "k.wave", ".kernel k\n.registers 4\n    halt\n.end\n")
    await codes(client, uri)
    title = resource_tooltip(await lenses(client, uri))
    assert "(ptx: " in title and "(metal: " in title and "(hip: " not in title
    result = await execute(client, "wave-lsp.checkPortability", uri, "k")
    assert result["status"] == "invalid-request" and "only one wave width" in result["message"]

"""Code lenses and commands: `textDocument/codeLens` puts two actionable lines above each
`.kernel`: a resource summary (registers, local memory, workgroup, waves per workgroup, occupancy
for wave widths 32 and 64 and per configured target) and "Assemble". Both are commands run through
`workspace/executeCommand`, so they work in any client, Neovim included:

- `wave-lsp.kernelResources [uri, kernel]` shows and returns the kernel's resources;
- `wave-lsp.assemble [uri]` assembles the document (in the configured compatibility mode),
  writes `NAME.wbin` beside a `file:` document, and shows and returns size and SHA-256.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from ..ide.assemble import assemble_report
from ..ide.resources import resources_of
from ..ide.state import DocumentState
from . import run_view
from .documents import span
from .handlers import command, request
from .portability import portability_lenses

if TYPE_CHECKING:
    from .server import WaveLanguageServer

RESOURCES = "wave-lsp.kernelResources"
ASSEMBLE = "wave-lsp.assemble"


def _show(server: "WaveLanguageServer", message: str,
          kind: types.MessageType = types.MessageType.Info) -> None:
    server.window_show_message(types.ShowMessageParams(type=kind, message=message))


def assemble_document(server: "WaveLanguageServer", doc: DocumentState) -> dict:
    """Assemble (in the configured mode) and write `NAME.wbin` beside a `file:` document."""
    path = None
    if doc.uri.startswith("file:"):
        source = Path(to_fs_path(doc.uri) or "")
        path = source.with_suffix(".wbin") if source.name else None
    return assemble_report(doc, server.settings.compat, path)


def setup(server: "WaveLanguageServer") -> None:
    @request(server, types.TEXT_DOCUMENT_CODE_LENS, default=list)
    def code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return []
        out = []
        for kernel in doc.program.kernels:
            res = resources_of(doc, kernel.name, server.settings.targets)
            if res is None:
                continue
            rng = span(doc, kernel.line, kernel.directive.start, kernel.directive.end,
                       server.codec)
            out.append(types.CodeLens(range=rng, command=types.Command(
                title=res.summary(), command=RESOURCES, arguments=[doc.uri, kernel.name])))
            out.append(types.CodeLens(range=rng, command=types.Command(
                title="Assemble", command=ASSEMBLE, arguments=[doc.uri])))
        out.extend(portability_lenses(server, doc))
        return out + run_view.code_lenses(server, doc)

    @command(server, RESOURCES)
    async def show_resources(*args):
        uri, name = (list(args) + [None, None])[:2]
        doc = await server.documents.ready(uri) if isinstance(uri, str) else None
        res = None
        if doc is not None and not doc.binary and isinstance(name, str):
            targets = server.settings.targets
            res = await server.documents.run(doc, lambda d: resources_of(d, name, targets),
                                             reader=True)
        if res is None:
            _show(server, f"wave-lsp: no kernel {name!r} in {uri}", types.MessageType.Warning)
            return None
        _show(server, f"kernel {res.name}: {res.summary()}")
        return res.as_dict()

    @command(server, ASSEMBLE)
    async def assemble_command(*args):
        uri = args[0] if args else None
        if isinstance(uri, str):
            await server.documents.ready(uri)
        doc = server.text_document(uri) if isinstance(uri, str) else None
        if doc is None:
            _show(server, f"wave-lsp: cannot assemble {uri!r}: not an open WAVE document",
                  types.MessageType.Warning)
            return None
        report = await server.documents.run(doc, lambda d: assemble_document(server, d),
                                            reader=True)
        if "error" in report:
            _show(server, f"wave-lsp: assembly failed at line {report['line'] + 1}: "
                          f"{report['error']}", types.MessageType.Error)
        else:
            where = f" → {report['path']}" if report["path"] else ""
            _show(server, f"wave-lsp: assembled {report['size']} bytes{where} "
                          f"(sha256 {report['sha256'][:16]}…)")
        return report

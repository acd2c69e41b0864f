"""Code lenses and commands: `textDocument/codeLens` puts actionable lenses on each
`.kernel` line: a short resource summary (`16 regs · 1 KiB local · 8 waves/wg (W32)`; the full
table, occupancy per wave width and configured target included, in its tooltip and behind a
click) and "Assemble", beside what the other features contribute (`Feature.code_lenses`: `▶ Run`,
"Check portability", "▶ Run on GPU", ...). Which lenses show, their titles and their layout (the
run lenses first on each line, every line within 120 characters) are `ide.lenses`' plain
values; this module only converts them (`to_code_lens`: each `Action` to its command, columns
through the position codec). All are commands run through `workspace/executeCommand`, so they
work in any client, Neovim included:

- `wave-lsp.kernelResources [uri, kernel]` shows and returns the kernel's resources, with what
  the vendors' compilers report for it per architecture (`vendor`, `vendor_compilers.py`);
- `wave-lsp.assemble [uri]` assembles the document (in the configured compatibility mode),
  writes `NAME.wbin` beside a `NAME.wave` file on disk (atomically; never the document itself,
  never through a link: see `ide.assemble.wbin_target`), and shows and returns size, SHA-256
  and the path written (`path`), or why nothing was written (`not_written`).
"""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from ..cancellation import Cancelled
from ..ide.assemble import assemble_to_file
from ..ide.lenses import Action, Lens, document_lenses
from ..ide.moments import DEBUG_COMMAND
from ..ide.resources import resources_of
from ..ide.state import DocumentState
from ..ide.vendor_usage import figures_text
from . import extensions, vendor_compilers
from .extensions import Assembled, KernelArgs, KernelResources
from .handlers import command, command_document, request
from .proto import lens
from .server import WaveLanguageServer

RESOURCES = extensions.KERNEL_RESOURCES.name
ASSEMBLE = extensions.ASSEMBLE.name
MANAGE_TRUST = "workbench.trust.manage"   # the client command the lens of a refused run offers
# the command each lens action runs
COMMANDS = {
    Action.RUN: extensions.RUN.name,
    Action.CLEAR: extensions.CLEAR.name,
    Action.MANAGE_TRUST: MANAGE_TRUST,
    Action.PROFILE: extensions.PROFILE.name,
    Action.CLEAR_PROFILE: extensions.CLEAR_PROFILE.name,
    Action.TEST: extensions.TEST.name,
    Action.CHECK_PORTABILITY: extensions.CHECK_PORTABILITY.name,
    Action.RUN_ON_GPU: extensions.RUN_ON_GPU.name,
    Action.KERNEL_RESOURCES: RESOURCES,
    Action.ASSEMBLE: ASSEMBLE,
    Action.VERIFY: extensions.VERIFY.name,
    Action.REPLAY_WITNESS: extensions.REPLAY_WITNESS.name,
    Action.DEBUG_WITNESS: DEBUG_COMMAND,
}


def _show(server: WaveLanguageServer, message: str,
          kind: types.MessageType = types.MessageType.Info) -> None:
    server.window_show_message(types.ShowMessageParams(type=kind, message=message))


def to_code_lens(doc: DocumentState, found: Lens, codec: PositionCodec) -> types.CodeLens:
    """An `ide` lens as lsprotocol: its action's command, its columns in the client's units."""
    return lens(doc, found.line, found.start, found.end, codec, found.title,
                COMMANDS[found.action], *found.arguments, tooltip=found.tooltip)


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_CODE_LENS, default=list)
    def code_lens(doc: DocumentState, params: types.CodeLensParams) -> list[types.CodeLens]:
        found = document_lenses(doc, server.config(doc).targets,
                                server.contributions("code_lenses", doc))
        return [to_code_lens(doc, each, server.codec) for each in found]

    @command(server, RESOURCES)
    async def show_resources(*args):
        a = KernelArgs.parse(args)
        uri, name = a.uri, a.kernel
        doc = await server.documents.ready(uri) if isinstance(uri, str) else None
        res = None
        if doc is not None and not doc.binary and isinstance(name, str):
            targets = server.config(doc).targets
            res = await server.documents.run(doc, lambda d: resources_of(d, name, targets),
                                             reader=True)
        if res is None:
            _show(server, f"wave-lsp: no kernel {name!r} in {uri}", types.MessageType.Warning)
            return None
        try:
            vendor = await vendor_compilers.figures(server, doc, res.name)
        except Cancelled:        # edited or closed meanwhile: its compilers were stopped
            vendor = []
        res = res.with_vendor(vendor)
        extra = f" | {figures_text(vendor)}" if vendor else ""
        _show(server, f"kernel {res.name}: {res.summary()}{extra}")
        return KernelResources.answer(body={**res.as_dict(),
                                            "vendor": [f.as_dict() for f in vendor]})

    @command(server, ASSEMBLE)
    async def assemble_command(*args):
        doc = await command_document(server, args, "assemble")
        if doc is None:
            return None
        compat = server.config(doc).compat
        report = await server.documents.run(doc, lambda d: assemble_to_file(d, compat),
                                            reader=True)
        if "error" in report:
            _show(server, f"wave-lsp: assembly failed at line {report['line'] + 1}: "
                          f"{report['error']}", types.MessageType.Error)
        else:
            # the file first: a client that cuts the message to one line keeps where it went
            assembled = f"assembled {report['size']} bytes (sha256 {report['sha256'][:16]}…)"
            _show(server, f"wave-lsp: wrote {report['path']}: {assembled}" if report["path"]
                  else f"wave-lsp: {assembled}; no file written: {report['not_written']}",
                  types.MessageType.Info if report["path"] else types.MessageType.Warning)
        return Assembled.answer(body=report)

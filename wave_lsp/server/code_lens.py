"""Code lenses and commands: `textDocument/codeLens` puts actionable lenses on each
`.kernel` line: a short resource summary (`16 regs · 1 KiB local · 8 waves/wg (W32)`; the full
table, occupancy per wave width and configured target included, in its tooltip and behind a
click) and "Assemble", beside what the other features contribute (`Feature.code_lenses`: `▶ Run`,
"Check portability", "▶ Run on GPU", ...). All are commands run through
`workspace/executeCommand`, so they work in any client, Neovim included. `lens_layout` puts
the lenses of the features' `leading_commands` (the run lenses) first on each line and keeps
every line within 120 characters:

- `wave-lsp.kernelResources [uri, kernel]` shows and returns the kernel's resources, with what
  the vendors' compilers report for it per architecture (`vendor`, `vendor_compilers.py`);
- `wave-lsp.assemble [uri]` assembles the document (in the configured compatibility mode),
  writes `NAME.wbin` beside a `NAME.wave` file on disk (atomically; never the document itself,
  never through a link: see `wbin_target`), and shows and returns size, SHA-256 and the path
  written (`path`), or why nothing was written (`not_written`).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from lsprotocol import types
from pygls.uris import to_fs_path

from ..cancellation import Cancelled
from ..ide.assemble import assemble_report
from ..ide.resources import resources_of
from ..ide.state import DocumentState
from ..ide.vendor_usage import figures_text
from . import extensions, vendor_compilers
from .extensions import Assembled, KernelArgs, KernelResources
from .handlers import command, command_document, request
from .lens_layout import arrange
from .proto import lens
from .server import WaveLanguageServer

RESOURCES = extensions.KERNEL_RESOURCES.name
ASSEMBLE = extensions.ASSEMBLE.name


def _show(server: WaveLanguageServer, message: str,
          kind: types.MessageType = types.MessageType.Info) -> None:
    server.window_show_message(types.ShowMessageParams(type=kind, message=message))


def assemble_document(server: WaveLanguageServer, doc: DocumentState) -> dict:
    """Assemble (in the configured mode); returns a JSON-able report (with `error` when the
    source does not assemble), writing the `.wbin` where `wbin_target` allows."""
    target, why = wbin_target(doc.uri)
    report = assemble_report(doc, server.config(doc).compat, target)
    if "error" not in report and target is None:
        report["not_written"] = why
    return report


def wbin_target(uri: str) -> tuple[Path | None, str]:
    """Where the `.wbin` of the document at `uri` goes: the sibling `NAME.wbin` of a real
    `NAME.wave` file named by an absolute `file:` URI. Otherwise None and why not: nothing is
    written for other schemes, relative or `..` paths, a non-`.wave` document (a `.wbin` would
    overwrite itself), a source that is not a regular file on disk, or a target that is a link
    or not a regular file."""
    parsed = urlsplit(uri)
    if parsed.scheme != "file":
        return None, "the document is not a file on disk"
    if parsed.netloc not in ("", "localhost"):
        return None, f"the file is on another host ({parsed.netloc})"
    raw_path = unquote(parsed.path)
    if "\0" in raw_path:
        return None, "the file URI's path is invalid (it holds a NUL byte)"
    if not raw_path.startswith("/"):
        return None, "the file URI has no absolute path"
    if any(part in (".", "..") for part in raw_path.split("/")):
        return None, "the file URI has '.' or '..' segments"
    source = Path(to_fs_path(uri) or raw_path)
    if source.suffix != ".wave":
        return None, f"only a .wave file is assembled to a file ({source.name} is not one)"
    if not source.is_absolute() or not source.is_file():
        return None, f"{source} is not a file on disk (save it first)"
    target = source.with_suffix(".wbin")
    if target.is_symlink():
        return None, f"{target} is a symbolic link; not written through it"
    if target.exists() and not target.is_file():
        return None, f"{target} exists and is not a regular file"
    return target, ""


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_CODE_LENS, default=list)
    def code_lens(doc: DocumentState, params: types.CodeLensParams) -> list[types.CodeLens]:
        out = []
        for kernel in doc.program.kernels:
            res = resources_of(doc, kernel.name, server.config(doc).targets)
            if res is None:
                continue
            where = (doc, kernel.line, kernel.directive.start, kernel.directive.end, server.codec)
            out.append(lens(*where, res.short_summary(), RESOURCES, doc.uri, kernel.name,
                            tooltip=res.text() + "\n(click: the full summary)"))
            out.append(lens(*where, "Assemble", ASSEMBLE, doc.uri))
        for added in server.contributions("code_lenses", doc):
            out += added
        # Run leads each line (then Run on GPU, where a GPU is present); see lens_layout.
        return arrange(out, tuple(name for feature in server.features
                                  for name in feature.leading_commands))

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
        report = await server.documents.run(doc, lambda d: assemble_document(server, d),
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

"""Where a document's runs come from: its folder and the root its `--arg` files may come from
(`wave_lsp.ide.arg_files`), and its launch lines (found cheaply on every edit, parsed once per
revision by `RunService.launch_lines`)."""

from __future__ import annotations

from pathlib import Path

from ..ide.run_limits import LAUNCH_MARKER
from ..ide.state import DocumentState
from .proto import file_path
from .server import WaveLanguageServer


def document_folder(uri: str) -> Path | None:
    """The folder of a `file:` document (`--arg` files are relative to it)."""
    path = file_path(uri)
    return path.parent if path else None


def arg_root(server: WaveLanguageServer, uri: str) -> Path | None:
    """Where a document's `--arg` files may come from: the innermost workspace folder that
    holds it, else its own folder (`wave_lsp.ide.arg_files`)."""
    folder = document_folder(uri)
    if folder is None:
        return None
    roots = []
    try:
        workspace = server.workspace
        uris = [f.uri for f in workspace.folders.values()] + [workspace.root_uri or ""]
    except Exception:        # before `initialize`
        uris = []
    for root_uri in uris:
        path = file_path(root_uri)
        if path and folder.is_relative_to(path):
            roots.append(path)
    return max(roots, key=lambda p: len(p.parts)) if roots else folder


def launched_kernels(doc: DocumentState) -> list[str]:
    """The kernels with a launch line, found without parsing one (on every edit)."""
    def find(state: DocumentState) -> list[str]:
        if not any(LAUNCH_MARKER in line for line in state.lines):
            return []
        from ..ide.launch_lines import launch_comment_lines
        return [kernel.name for kernel, lines in launch_comment_lines(state) if lines]
    return doc.derived("run.launched", find)


def parse_launch_lines(doc: DocumentState, root: Path | None) -> dict:
    if not any(LAUNCH_MARKER in line for line in doc.lines):
        return {}
    from ..ide.run_session import kernel_launch_lines
    return kernel_launch_lines(doc, document_folder(doc.uri), root, doc.launch_parses)

"""The project's configuration file in the editor (`wave-lsp.toml`, or `[tool.wave-lsp]` in
`pyproject.toml`): the analysis of each document uses the nearest one at or above its folder, as
`wave-lsp lint` does, merged with the editor's settings, which win key by key
(`ide.project_config`); its `compat` and `targets` shape the hovers, lenses, inlay hints and
commands of the document too (`server.config(doc)`).

It is read again when it changes: where the client can register file watchers dynamically
(`workspace.didChangeWatchedFiles.dynamicRegistration`), the server watches `**/wave-lsp.toml`
and `**/pyproject.toml` and, on `workspace/didChangeWatchedFiles`, settles again every document
whose configuration changed; elsewhere it looks again on every `didOpen` and `didSave`. A file's
problems (invalid TOML, unknown codes, ...) are shown once per version of the file, naming it.
A document opened looks for its nearest file afresh (one may have been created meanwhile).
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from ..analysis.config import Config
from ..ide.project_config import ProjectConfigs
from ..ide.state import DocumentState
from .handlers import notification
from .proto import file_path
from .server import Feature, WaveLanguageServer
from .sync import Debounce, refresh_views

WATCHED = ("**/wave-lsp.toml", "**/pyproject.toml")
REGISTRATION = "wave-lsp/project-configuration"


class ProjectConfiguration(Feature):
    """Each document's configuration file, and what the server does when one changes."""

    def __init__(self, server: WaveLanguageServer) -> None:
        super().__init__(server)
        self.files = ProjectConfigs()
        self._applied: dict[str, tuple] = {}       # uri -> (file, stamp) of its last analysis
        self._shown: set[tuple] = set()

    def config(self, doc: DocumentState) -> Config | None:
        """The analysis configuration of `doc` (called inside its job, off the loop too)."""
        settings = self.server.settings
        if doc.uri not in self._applied:     # just opened: a file may have been created
            self.files.forget()
        config, path, stamp, problems = self.files.config(
            file_path(doc.uri), settings.raw, settings.analysis)
        self._applied[doc.uri] = (path, stamp)
        if problems and (path, stamp) not in self._shown:
            self._shown.add((path, stamp))
            self.server.documents.call_on_loop(lambda: self._show(problems))
        return config

    def _show(self, problems) -> None:
        for problem in problems:
            self.server.log(f"wave-lsp: invalid configuration {problem.source}: {problem.message}",
                            types.MessageType.Warning)
        first = problems[0]
        more = f" (and {len(problems) - 1} more: see the log)" if len(problems) > 1 else ""
        self.server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning,
            message=f"wave-lsp: invalid configuration {first.source}: {first.message}{more}"))

    def look_again(self) -> None:
        """A configuration file may have changed, appeared or gone: settle again every open
        document whose file or its version is not the one its analysis used."""
        self.files.forget()
        changed = False
        for doc in self.server.documents.all():
            path = self.files.file_of(file_path(doc.uri))
            stamp = self.files.read(path)[0] if path is not None else None
            if self._applied.get(doc.uri, (None, None)) != (path, stamp):
                self.server.get_feature(Debounce).schedule(doc.uri, immediate=True)
                changed = True
        if changed:         # lenses, hints and hovers show `targets` and `compat` too
            refresh_views(self.server)

    def document_closed(self, uri: str) -> None:
        self._applied.pop(uri, None)

    def initialized(self) -> None:
        if self.server.client.watched_files_registration:
            asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        options = types.DidChangeWatchedFilesRegistrationOptions(watchers=[
            types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED])
        try:
            await self.server.client_register_capability_async(types.RegistrationParams(
                registrations=[types.Registration(
                    id=REGISTRATION, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=options)]))
        except Exception as exc:      # the client refused: open and save still look again
            self.server.log(f"wave-lsp: no watcher for the configuration files: {exc}",
                            types.MessageType.Warning)


def setup(server: WaveLanguageServer) -> None:
    project = server.add_feature(ProjectConfiguration(server))
    server.project_config = project.config

    @notification(server, types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def changed(params: types.DidChangeWatchedFilesParams) -> None:
        project.look_again()

    @notification(server, types.TEXT_DOCUMENT_DID_SAVE)
    def saved(params: types.DidSaveTextDocumentParams) -> None:
        project.look_again()

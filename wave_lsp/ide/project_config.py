"""The project configuration of an open document, as `wave-lsp lint` finds it: the nearest
`wave-lsp.toml`, or `pyproject.toml` with a `[tool.wave-lsp]` table, at or above the document's
folder (`analysis.config.find_config`), merged with the editor's settings.

Precedence: the editor's settings win, key by key, over the file's (as ruff's editor settings
do): a `disable` list the editor sets replaces the file's, `targets` and `compat` likewise, and
`severity` is merged code by code (the editor's severity of a code wins). A key the editor does
not set comes from the file. A document with no file, or whose folder holds no configuration,
has the editor's settings alone.

Files are read again when they change (their modification time and size are checked on every
use; `forget()` makes the next use look for the nearest file again, after one was created or
deleted). Protocol-free: the server decides when to call `forget` and how to show problems.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..analysis.config import (KEYS, Config, ConfigProblem, config_from_mapping, find_config,
                               read_config)

Stamp = tuple[int, int]          # modification time (ns) and size


class ProjectConfigs:
    """The configuration files found for the documents' folders, and what they hold."""

    def __init__(self) -> None:
        self._nearest: dict[Path, Path | None] = {}
        self._files: dict[Path, tuple[Stamp, dict | None, list[ConfigProblem]]] = {}
        self._merged: tuple | None = None      # (key, the editor's settings held, config)

    def forget(self) -> None:
        """Look for the nearest file again on the next use (one may have been created)."""
        self._nearest.clear()

    def file_of(self, document: Path | None) -> Path | None:
        """The configuration file that applies to the document at `document` (None: none)."""
        if document is None:
            return None
        folder = document.parent
        if folder not in self._nearest:
            try:
                self._nearest[folder] = find_config(folder) if folder.is_dir() else None
            except (OSError, ValueError):
                self._nearest[folder] = None
        return self._nearest[folder]

    def read(self, path: Path) -> tuple[Stamp | None, dict | None, list[ConfigProblem]]:
        """The file's stamp, its settings table and its problems (read again when it changed)."""
        try:
            info = os.stat(path)
            stamp = (info.st_mtime_ns, info.st_size)
        except OSError as err:
            return None, None, [ConfigProblem(f"cannot read configuration: {err.strerror}",
                                              str(path))]
        known = self._files.get(path)
        if known is None or known[0] != stamp:
            data, problems = read_config(path)
            if data is not None:
                problems = problems + config_from_mapping(data, str(path))[1]
            known = self._files[path] = (stamp, data, problems)
        return known

    def config(self, document: Path | None, editor: dict | None,
               editor_config: Config | None) -> tuple[Config | None, Path | None,
                                                     Stamp | None, list[ConfigProblem]]:
        """The analysis configuration of the document at `document`: the file's merged with
        the editor's settings (`editor`: what the client sent; `editor_config`: those alone,
        validated), the file, its stamp and its problems (empty without a file)."""
        path = self.file_of(document)
        if path is None:
            return editor_config, None, None, []
        stamp, data, problems = self.read(path)
        if not isinstance(data, dict):
            return editor_config, path, stamp, problems
        key = (path, stamp, id(editor))
        if self._merged is None or self._merged[0] != key:   # the last one, for every request
            merged = merge(data, editor or {})
            self._merged = (key, editor, config_from_mapping(merged, str(path))[0])
        return self._merged[2], path, stamp, problems


def merge(file: dict, editor: dict) -> dict[str, Any]:
    """The file's analysis settings overridden by the editor's, key by key (`severity` code by
    code). Keys that are not analysis settings are left out (the server checks its own)."""
    out = {key: value for key, value in file.items() if key in KEYS}
    for key in KEYS:
        if key not in editor:
            continue
        if key == "severity" and isinstance(editor[key], dict) and \
                isinstance(out.get(key), dict):
            out[key] = {**out[key], **editor[key]}
        else:
            out[key] = editor[key]
    return out

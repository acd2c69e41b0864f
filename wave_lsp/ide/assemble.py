"""Assembling an open document: a JSON-able report of size, SHA-256 and kernels (or the error
and its line), optionally writing the `.wbin`. The code lens command and any other client of the
IDE layer (a debugger, a script) share it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..asm.assembler import AssemblyError, assemble
from ..files import write_atomically
from .state import DocumentState


def assemble_report(state: DocumentState, compat: bool, path: Path | None = None) -> dict:
    """Assemble the document; write the bytes to `path` when given and the source assembles."""
    try:
        assembly = assemble(state.document, compat=compat)
    except AssemblyError as err:
        return {"uri": state.uri, "error": err.message, "line": err.line}
    data = assembly.wbin()
    report = {"uri": state.uri, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
              "compat": compat, "kernels": [k.name for k in assembly.kernels], "path": None}
    if path is not None:
        try:
            write_atomically(path, data)
        except OSError as err:
            report["not_written"] = f"cannot write {path}: {err.strerror or err}"
            return report
        report["path"] = str(path)
    return report

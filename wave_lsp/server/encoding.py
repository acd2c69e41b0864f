"""The encoding layer as the server features see it: code layout (offsets of instructions and
labels, kernel code sizes) and the per-instruction encoding view (words and fields), each cached
per document revision. Used by hover, inlay hints, code lenses and the assemble command.
"""

from __future__ import annotations

from typing import Any

from ..asm.encoding_view import document_layout
from ..asm.encoding_view import instruction_views as _views
from ..asm.layout import CodeLayout, KernelLayout
from .documents import OpenDocument


def code_layout(doc: OpenDocument) -> CodeLayout:
    """The document's layout (the encoding view's per-revision cache: computed once)."""
    return document_layout(doc)


def kernel_layout(doc: OpenDocument, name: str) -> KernelLayout | None:
    for kl in code_layout(doc).kernels:
        if kl.name == name:
            return kl
    return None


def label_offset(doc: OpenDocument, name: str) -> tuple[str | None, int] | None:
    """(kernel name, byte offset from that kernel's code start) of a label, or None."""
    place = code_layout(doc).labels.get(name)
    if place is None:
        return None
    if place.kernel is None:
        return None, place.offset
    return place.kernel.name, place.offset - place.kernel.code_offset


def instruction_views(doc: OpenDocument, line: int, compat: bool = False) -> list[Any]:
    """The encoding views of the instructions on a line ([] when the line does not encode), as
    the configured compatibility mode encodes them."""
    return list(_views(doc, line, compat))

"""Encoding views of a document for editor features: the code layout (offsets of instructions
and labels, kernel code sizes) and the per-instruction words and fields, from the document
state (the layout is computed once per revision). Used by hover, inlay hints, code lenses and
the assemble command, and the "Show Encoding" listing.
"""

from __future__ import annotations

from ..asm.encoding_view import InstructionView, encoding_listing
from ..asm.encoding_view import instruction_views as _views
from ..analysis.layout import CodeLayout, KernelLayout
from .state import DocumentState


def code_layout(state: DocumentState) -> CodeLayout:
    """The document's layout for its current revision."""
    return state.layout()


def kernel_layout(state: DocumentState, name: str) -> KernelLayout | None:
    for kl in code_layout(state).kernels:
        if kl.name == name:
            return kl
    return None


def label_offset(state: DocumentState, name: str) -> tuple[str | None, int] | None:
    """(kernel name, byte offset from that kernel's code start) of a label, or None."""
    place = code_layout(state).labels.get(name)
    if place is None:
        return None
    if place.kernel is None:
        return None, place.offset
    return place.kernel.name, place.offset - place.kernel.code_offset


def instruction_views(state: DocumentState, line: int, compat: bool = False,
                      fields: bool = True) -> list[InstructionView]:
    """The encoding views of the instructions on a line ([] when the line does not encode), as
    the configured compatibility mode encodes them (`fields=False`: without field views)."""
    return list(_views(state.document, line, compat, code_layout(state), fields))


def listing(state: DocumentState, compat: bool) -> str:
    """The document's encoded words beside its source, as text (in the compatibility mode)."""
    return encoding_listing(state.document, compat, state.layout())

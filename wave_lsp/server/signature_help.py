"""Signature help: `textDocument/signatureHelp` shows an instruction's operand signature while
its operands are typed, with the operand under the cursor highlighted (`activeParameter`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..isa import INSTRUCTIONS, InstructionSpec
from ..ide.completion import context_at
from .documents import to_server_position
from .handlers import request

if TYPE_CHECKING:
    from .server import WaveLanguageServer


def signature(spec: InstructionSpec, offsets: bool) -> types.SignatureInformation:
    """The signature of a mnemonic; parameters are label offsets into `spec.syntax`."""
    label = spec.syntax
    params = []
    cursor = len(spec.mnemonic)
    for op in spec.operands:
        start = label.index(op.name, cursor)
        cursor = start + len(op.name)
        params.append(types.ParameterInformation(
            label=(start, cursor) if offsets else op.name,
            documentation=f"{op.kind.value} → {op.field.value}"
            + (" (optional)" if op.optional else "")))
    return types.SignatureInformation(
        label=label, parameters=params,
        documentation=types.MarkupContent(
            kind=types.MarkupKind.Markdown,
            value=f"**{spec.summary}**\n\n`{spec.semantics}`"))


def setup(server: "WaveLanguageServer") -> None:
    @request(server, types.TEXT_DOCUMENT_SIGNATURE_HELP,
             types.SignatureHelpOptions(trigger_characters=[" ", ","],
                                        retrigger_characters=[","]))
    def signature_help(params: types.SignatureHelpParams) -> types.SignatureHelp | None:
        doc = server.text_document(params.text_document.uri)
        if doc is None:
            return None
        line, col = to_server_position(doc, params.position, server.codec)
        ctx = context_at(doc.lines[line], col)
        if ctx.kind != "operand" or ctx.spec is None or not ctx.spec.operands:
            return None
        spec = INSTRUCTIONS[ctx.spec.mnemonic]
        offsets = bool(server.capability(
            "text_document.signature_help.signature_information.parameter_information."
            "label_offset_support", False))
        active = min(ctx.operand_index, len(spec.operands) - 1)
        info = signature(spec, offsets)
        info.active_parameter = active
        return types.SignatureHelp(signatures=[info], active_signature=0, active_parameter=active)

"""Signature help: `textDocument/signatureHelp` shows an instruction's operand signature while
its operands are typed, with the operand under the cursor highlighted (`activeParameter`).
"""

from __future__ import annotations

from lsprotocol import types

from ..ide.completion import Signature, signature_at
from ..ide.state import DocumentState
from .handlers import request
from .proto import markup, to_server_position
from .server import WaveLanguageServer


def signature(found: Signature, offsets: bool) -> types.SignatureInformation:
    """A signature as lsprotocol; parameters are label offsets when the client takes them."""
    return types.SignatureInformation(
        label=found.label,
        parameters=[types.ParameterInformation(label=(p.start, p.end) if offsets else p.name,
                                               documentation=p.documentation)
                    for p in found.parameters],
        documentation=markup(found.documentation, True))


def setup(server: WaveLanguageServer) -> None:
    @request(server, types.TEXT_DOCUMENT_SIGNATURE_HELP,
             types.SignatureHelpOptions(trigger_characters=[" ", ","],
                                        retrigger_characters=[","]))
    def signature_help(doc: DocumentState,
                       params: types.SignatureHelpParams) -> types.SignatureHelp | None:
        line, col = to_server_position(doc, params.position, server.codec)
        found = signature_at(doc.lines[line], col)
        if found is None:
            return None
        info = signature(found, server.client.signature_label_offsets)
        info.active_parameter = found.active
        return types.SignatureHelp(signatures=[info], active_signature=0,
                                   active_parameter=found.active)

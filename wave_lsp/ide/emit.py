"""What a vendor backend makes of a document, as plain data for the editor's Show PTX/HIP/Metal/
SYCL (`wave-lsp.emit`): the translation's text and its line map, or why there is none; and the
vendor compiler's verdict on it where that compiler is here (`vendor_usage`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..isa.backends import TARGET_NAMES as TARGETS
from .state import DocumentState
from .vendor_usage import VendorTools, compiler_messages, messages_block

if TYPE_CHECKING:
    from ..asm.backends import Emitted

__all__ = ["TARGETS", "Translation", "translate", "vendor_report"]


@dataclass(frozen=True)
class Translation:
    """The command's answer (`result`: JSON-able) and the translation behind it (None when the
    document does not assemble or the backend cannot translate it)."""

    result: dict
    emitted: Emitted | None


def translate(doc: DocumentState, target: str, compat: bool) -> Translation:
    """The translation of an open document: `result` has `text` and `map` ([generated line,
    source line] pairs), or `error` (and `line` when a source line is at fault)."""
    from ..asm import AssemblyError
    from ..asm.backends import EmitError, emit   # the translators load with the first one

    base = {"uri": doc.uri, "target": target, "compat": "upstream" if compat else "none"}
    try:
        emitted = emit(doc.document, target, compat=compat)
    except AssemblyError as err:
        return Translation({**base, "error": f"line {err.line + 1}: {err.message}",
                            "line": err.line}, None)
    except EmitError as err:
        return Translation({**base, "error": str(err)}, None)
    return Translation({**base, "text": emitted.text, "map": emitted.map()}, emitted)


def vendor_report(emitted: Emitted, tools: VendorTools) -> dict:
    """`{"vendor": [...verdicts], "messages": [...], "block": [comment lines]}` for Show
    PTX/HIP; empty when the target has no vendor compiler here. Runs the compiler: call it off
    the event loop."""
    if not tools.compiler(emitted.target):
        return {}
    verdicts, messages = compiler_messages(emitted, tools)
    return {"vendor": verdicts, "messages": [m.as_dict() for m in messages],
            "block": messages_block(emitted.target, verdicts, messages)}

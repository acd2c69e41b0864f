"""The single instruction table of WAVE: every ISA fact the project uses lives in this package.

Mnemonics with opcode, modifier, operand layout, size, class, docs and spec section
(`INSTRUCTIONS`), registers and special registers, directives, scopes, cache hints, and the
legacy forms of older documents. Everything else (grammar, analysis, encoder, emulator, hover,
completion, TextMate keywords) derives from here.

Each name is loaded from its module on first use (`_EXPORTS`), so that a command that needs only
the register limits (`wave-lsp run --help`) does not build the instruction table.
"""

from .. import lazy_attributes

# Spec constants used by checks (spec v0.2 §7.1).
MIN_DIVERGENCE_DEPTH = 32
MAX_CALL_DEPTH = 8
MAX_WORKGROUP_SIZE = 256
REGISTER_FILE_SIZE = 16384   # bytes, the spec minimum used for the occupancy equation (§2.4)

_EXPORTS = {
    **dict.fromkeys(("BLOCK_ROLES", "CLOSER", "DELIMITERS", "OPENER", "BlockRole"), "blocks"),
    **dict.fromkeys(("SPEC_SECTION", "Capability", "InstructionClass"), "classes"),
    **dict.fromkeys(("CACHE_HINTS", "DIRECTIVE_BY_NAME", "DIRECTIVES", "SCOPE_BY_NAME",
                     "SCOPE_BY_VALUE", "SCOPES", "ArgKind", "Directive", "Scope"), "directives"),
    **dict.fromkeys(("BY_ENCODING", "INSTRUCTIONS", "OPCODE_NAMES", "InstructionSpec",
                     "MemoryAccess", "lookup"), "instructions"),
    **dict.fromkeys(("LEGACY_DIRECTIVES", "LEGACY_MNEMONICS", "LEGACY_SPECIAL_REGISTERS",
                     "LegacyMnemonic"), "legacy"),
    **dict.fromkeys(("LAYOUTS", "Field", "Layout", "OperandKind", "OperandSpec"), "operands"),
    **dict.fromkeys(("DEFAULT_REGISTER_COUNT", "MAX_REGISTER", "MAX_REGISTER_COUNT",
                     "PREDICATE_COUNT", "REGISTER_SUFFIXES", "SPECIAL_BY_INDEX",
                     "SPECIAL_BY_NAME", "SPECIAL_REGISTERS", "SpecialRegister",
                     "register_count_problem"), "registers"),
}

__getattr__ = lazy_attributes(__name__, _EXPORTS)

__all__ = sorted([*_EXPORTS, "MIN_DIVERGENCE_DEPTH", "MAX_CALL_DEPTH", "MAX_WORKGROUP_SIZE",
                  "REGISTER_FILE_SIZE"])

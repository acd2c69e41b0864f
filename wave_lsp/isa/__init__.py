"""The single instruction table of WAVE: every ISA fact the project uses lives in this package.

Mnemonics with opcode, modifier, operand layout, size, class, docs and spec section
(`INSTRUCTIONS`), registers and special registers, directives, scopes, cache hints, and the
legacy forms of older documents. Everything else (grammar, analysis, encoder, emulator, hover,
completion, TextMate keywords) derives from here.
"""

from .blocks import BLOCK_ROLES, CLOSER, DELIMITERS, OPENER, BlockRole
from .classes import SPEC_SECTION, Capability, InstructionClass
from .directives import (CACHE_HINTS, DIRECTIVE_BY_NAME, DIRECTIVES, SCOPE_BY_NAME,
                         SCOPE_BY_VALUE, SCOPES, ArgKind, Directive, Scope)
from .instructions import (BY_ENCODING, INSTRUCTIONS, OPCODE_NAMES, InstructionSpec, MemoryAccess,
                           lookup)
from .legacy import (LEGACY_DIRECTIVES, LEGACY_MNEMONICS, LEGACY_SPECIAL_REGISTERS,
                     LegacyMnemonic)
from .operands import LAYOUTS, Field, Layout, OperandKind, OperandSpec
from .registers import (DEFAULT_REGISTER_COUNT, MAX_REGISTER, MAX_REGISTER_COUNT, PREDICATE_COUNT,
                        REGISTER_SUFFIXES, SPECIAL_BY_INDEX, SPECIAL_BY_NAME,
                        SPECIAL_REGISTERS, SpecialRegister, register_count_problem)

# Spec constants used by checks (spec v0.2 §7.1).
MIN_DIVERGENCE_DEPTH = 32
MAX_CALL_DEPTH = 8
MAX_WORKGROUP_SIZE = 256
REGISTER_FILE_SIZE = 16384   # bytes, the spec minimum used for the occupancy equation (§2.4)

__all__ = [name for name in dir() if not name.startswith("_")]

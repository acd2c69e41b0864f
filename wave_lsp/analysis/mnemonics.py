"""Resolving what an instruction's head means: a current mnemonic, a legacy form, or unknown.

`resolve(instruction)` returns the spec when the head is valid today, and the findings for an
obsolete, mis-cased, dot-suffixed or unknown head (with the current form as a fix where the
mapping is mechanical).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..isa import (CACHE_HINTS, INSTRUCTIONS, LEGACY_MNEMONICS, SCOPE_BY_NAME, Field,
                   InstructionSpec)
from ..syntax.ast import Instruction
from .findings import LineFinding, LineFix, replace_fix


@dataclass(frozen=True, slots=True)
class Resolution:
    spec: InstructionSpec | None        # the instruction to validate operands against
    findings: tuple[LineFinding, ...]
    scope_suffix: str | None = None     # `fence_acquire.workgroup`: the suffix is the operand


def suggest(word: str, candidates, n: int = 1) -> list[str]:
    """Close matches for "did you mean" messages: difflib's similar words, the fewest typing
    edits first (difflib alone breaks a tie of its ratio by the larger string: `iadx` would get
    `imax` before `iadd`)."""
    close = difflib.get_close_matches(word, list(candidates), n=max(n, 8), cutoff=0.6)
    ratio = {c: difflib.SequenceMatcher(None, word, c).ratio() for c in close}
    return sorted(close, key=lambda c: (edits(word, c), -ratio[c], c))[:n]


def edits(a: str, b: str) -> int:
    """Insertions, deletions, substitutions and swaps of neighbours that turn `a` into `b`."""
    previous, row = None, list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + (x != y))
            if previous is not None and i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                current[j] = min(current[j], previous[j - 2] + 1)
        previous, row = row, current
    return row[-1]


def resolve(ins: Instruction) -> Resolution:
    """Classify the head of `ins` (mnemonic plus attached suffixes)."""
    name = ins.mnemonic.text
    spec = INSTRUCTIONS.get(name)
    head_span = (ins.mnemonic.start, ins.head_end)
    if spec is not None:
        return _known_with_suffixes(ins, spec)
    head = ins.head
    lowered = head.lower()
    # 1. a documented legacy spelling of the whole head (`add.s32`, `ADD`, `fcmp_ge`)
    for key in (lowered, name.lower()) if ins.suffixes else (lowered,):
        legacy = LEGACY_MNEMONICS.get(key)
        if legacy is None:
            continue
        span = head_span if key == lowered else (ins.mnemonic.start, ins.mnemonic.end)
        return Resolution(legacy.canonical,
                          (_legacy_finding(ins, key, legacy, span),))
    # 2. dot-suffix for underscore (`icmp.lt`, `device_load.u32`)
    joined = lowered.replace(".", "_")
    if ins.suffixes and joined in INSTRUCTIONS:
        return Resolution(INSTRUCTIONS[joined], (LineFinding(
            "L405", *head_span, f"'{head}' is written '{joined}' in current WAVE assembly",
            replace_fix(f"Replace with '{joined}'", *head_span, joined)),))
    # 3. wrong case of a current mnemonic (`IADD`)
    if lowered in INSTRUCTIONS:
        return Resolution(INSTRUCTIONS[lowered], (LineFinding(
            "L409", *head_span, f"mnemonics are lower-case: write '{lowered}'",
            replace_fix(f"Replace with '{lowered}'", *head_span, lowered)),))
    # 4. unknown: did you mean?
    close = suggest(name.lower(), INSTRUCTIONS)
    message = f"unknown instruction '{name}'"
    fix = None
    if close:
        message += f"; did you mean '{close[0]}'?"
        fix = replace_fix(f"Replace with '{close[0]}'", ins.mnemonic.start, ins.mnemonic.end,
                          close[0])
    return Resolution(None, (LineFinding("O201", ins.mnemonic.start, ins.mnemonic.end, message,
                                         fix),))


def _legacy_finding(ins: Instruction, key: str, legacy, span: tuple[int, int]) -> LineFinding:
    written = ins.head if span[1] == ins.head_end else ins.mnemonic.text
    if legacy.replacement is None:
        return LineFinding("L401", *span, f"'{written}' is not a WAVE instruction: {legacy.note}")
    repl = legacy.replacement
    message = f"'{written}' is obsolete ({legacy.note}); the current form is '{repl}'"
    edits: list[tuple[int, int, str]] = [(span[0], span[1], repl)]
    ops = ins.operands
    if legacy.operand_order and len(ops) == len(legacy.operand_order) and ops:
        texts = [ops[i].text for i in legacy.operand_order]
        edits.append((ops[0].start, ops[-1].end, ", ".join(texts)))
    if legacy.append_operands and ops:
        edits.append((ops[-1].end, ops[-1].end, "".join(f", {a}" for a in legacy.append_operands)))
    if span[1] < ins.head_end:  # a trailing suffix that belonged to the old spelling
        edits[0] = (span[0], ins.head_end, repl)
    return LineFinding("L401", *span, message, LineFix(f"Replace with '{repl}'", tuple(edits)))


def _known_with_suffixes(ins: Instruction, spec: InstructionSpec) -> Resolution:
    """A valid mnemonic followed by `.word`s: cache hints, a fence's scope, or mistakes."""
    findings: list[LineFinding] = []
    scope_suffix = None
    takes_scope = any(o.field is Field.SCOPE for o in spec.operands)
    for i, suf in enumerate(ins.suffixes):
        word = suf.text[1:]
        if i == 0 and word in CACHE_HINTS:
            continue
        if i == 0 and word in SCOPE_BY_NAME and takes_scope:
            if spec.max_operands == 1 and not ins.operands:
                scope_suffix = suf.text          # fence_acquire.workgroup: valid
                continue
            if ins.operands:                     # atomic_add.device r1, r2, r3
                ops = ins.operands
                fixed = ", ".join(o.text for o in ops) + f", {suf.text}"
                findings.append(LineFinding(
                    "L406", suf.start, suf.end,
                    f"the scope is the last operand: write '{spec.mnemonic} {fixed}'",
                    LineFix("Move the scope to the end",
                            ((suf.start, suf.end, ""), (ops[-1].end, ops[-1].end,
                                                        f", {suf.text}")))))
                scope_suffix = suf.text
                continue
        joined = (ins.head.lower()).replace(".", "_")
        if joined in INSTRUCTIONS:
            findings.append(LineFinding(
                "L405", ins.mnemonic.start, ins.head_end,
                f"'{ins.head}' is written '{joined}' in current WAVE assembly",
                replace_fix(f"Replace with '{joined}'", ins.mnemonic.start, ins.head_end, joined)))
            return Resolution(INSTRUCTIONS[joined], tuple(findings))
        hint = "" if word in SCOPE_BY_NAME else "; cache hints are .cached, .uncached, .streaming"
        findings.append(LineFinding(
            "O214", suf.start, suf.end,
            f"unexpected '{suf.text}' after '{spec.mnemonic}'{hint}",
            replace_fix(f"Remove '{suf.text}'", suf.start, suf.end, "")))
    return Resolution(spec, tuple(findings), scope_suffix)

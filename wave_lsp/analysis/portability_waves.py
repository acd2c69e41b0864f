"""Where an upstream wave-operation defect (`isa/backends.py` UPSTREAM_DEFECTS with a `context`)
applies to an instruction: P822 only in code that not every lane of a wave may run (inside an
`if` or loop, under a guard, or after a `halt`/`return` that only some lanes may take); P820 and
P821 unless the lane or offset operand is a known constant that is in range on the backend and
the code is not divergent (then upstream's translation gives WAVE's result).
"""

from __future__ import annotations

from ..isa.backends import BACKEND_BY_NAME, UPSTREAM_DEFECTS
from .portability_flow import steps

CONTEXTUAL = tuple(d for d in UPSTREAM_DEFECTS if d.context)
_MNEMONICS = frozenset(m for d in CONTEXTUAL for m in d.mnemonics)
_UP_DOWN = frozenset({"wave_shuffle_up", "wave_shuffle_down"})


def needs_context(kernel) -> bool:
    return any(ins.mnemonic.text in _MNEMONICS for _line, ins in kernel.instructions)


def contextual_findings(kernel, finding, guarded_of) -> list:
    """The findings of the contextual defects in one kernel (`finding` builds a Finding,
    `guarded_of(ins)` says whether an instruction's guard applies at run time)."""
    out = []
    depth, halted = 0, False
    for step in steps(kernel):
        ins, m = step.instruction, step.mnemonic
        if m in ("if", "loop"):
            depth += 1
        elif m in ("endif", "endloop"):
            depth = max(0, depth - 1)
        elif m in ("halt", "return") and (depth or guarded_of(ins)):
            halted = True
        if m not in _MNEMONICS:
            continue
        divergent = bool(depth) or halted or guarded_of(ins)
        by_code: dict[str, list] = {}
        for defect in CONTEXTUAL:
            if m not in defect.mnemonics:
                continue
            if defect.context == "divergent" and not divergent:
                continue
            names = defect.backends
            if defect.context == "lane" and not divergent:
                names = tuple(n for n in names if not _in_range(step, n))
            if names:
                by_code.setdefault(defect.code, []).append((defect, names))
        for code, found in by_code.items():
            where = " in divergent code" if code == "P822" else ""
            if len(found) == 1:
                defect, names = found[0]
                message = f"'{m}'{where} in upstream's {{targets}}: {_explain(defect)}"
                concerns = tuple((n, BACKEND_BY_NAME[n].tool) for n in names)
            else:
                message = f"'{m}'{where} in upstream's translators: {{targets}}"
                concerns = tuple((n, f"{BACKEND_BY_NAME[n].tool}: {_explain(defect)}")
                                 for defect, names in found for n in names)
            out.append(finding(code, step.line, ins.mnemonic.start, ins.head_end, message,
                               concerns))
    return out


def _in_range(step, backend: str) -> bool:
    """Whether the lane/offset operand is a constant for which upstream's translation on
    `backend` reads the lane WAVE reads in every lane of a full wave."""
    if len(step.sources) != 3:
        return False
    value = step.sources[2][1]
    if value is None or value.constant is None:
        return False
    c = value.constant
    if step.mnemonic in _UP_DOWN:
        return c == 0
    return c < min(BACKEND_BY_NAME[backend].wave_widths)


def _explain(defect) -> str:
    action = (f"`wave-lsp emit` emits {defect.correct} (`--compat upstream` keeps upstream's)"
              if defect.fixed else defect.correct)
    return f"{defect.upstream}; {action}"

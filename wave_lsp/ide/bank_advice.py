"""What to change about a bank conflict the profile found, each suggestion checked first.

For every local access with a conflict under some preset, the change is tried on the run's own
record (`emu.bank_layout`) for every preset and for every access of the same array (its loads
and its stores), before it is said:

- padding the row (the stride the lanes' addresses step by most often in this access, else in
  another access of the array) by 1..MAX_PAD_WORDS
  words: the smallest padding that leaves every access of the array conflict-free everywhere;
  else the one that reduces the conflict most without making any access of the array worse,
  said as a reduction; else that padding cannot help (a wave spans several rows);
- where padding cannot remove it: an XOR swizzle of the word column with the row, said only
  with the figures it was checked to give, and a wider tile (one row per wave) as the other way.

Each figure reads `8 → 1-way on ptx`, from the same counting the hover's table shows. A padding
says the `.local_memory` it needs, and where the stride is one `mov_imm` of the kernel it comes
with a quick fix that changes that constant and `.local_memory` together, kept only when a run
of the fixed text gives the same output and the promised passes (`fix_holds`, called by
`profile_session`). Applied, the profile
shows no conflict for the access, or the reduced one, for which padding is proposed again only
where it is checked to help further.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..analysis.diagnostic import Fix, Range, TextEdit
from ..emu import (array_of, extent, local_indices, local_ways, padded, row_stride,  # layouts
                   rows_per_wave, span, spans_within_align, swizzle_words, swizzled,
                   widest_column)
from ..isa.profile_presets import PROFILE_TARGETS
from ..syntax.ast import OperandSyntax as Syn
from ..syntax.program import Kernel
from .profile_view import number_text

MAX_PAD_WORDS = 8


@dataclass(frozen=True)
class BankAdvice:
    """The checked advice for the bank conflict of one source line."""

    line: int
    text: str                                  # what to change, with the checked figures
    fix: Fix | None = None
    before: dict[str, float] | None = None     # the line's ways per preset, as evaluated
    # what the fix promises: the array's instructions and, per preset, their passes after it
    members: tuple[int, ...] = ()
    expected: dict | None = None


def _ways(passes: tuple[int, int]) -> float:
    return passes[0] / passes[1] if passes[1] else 1.0


def transitions(before: dict, after: dict | None, index: int) -> str:
    """`8 → 1-way on default, ptx; 4 → 1-way on hip-cdna`, presets grouped by figures."""
    groups: dict[str, list[str]] = {}
    for target in PROFILE_TARGETS:
        b = number_text(_ways(before[target][index]))
        a = b if after is None else number_text(_ways(after[target][index]))
        groups.setdefault(f"{b}-way" if a == b else f"{b} → {a}-way", []).append(target)
    if len(groups) == 1:
        return f"{next(iter(groups))} on every preset"
    return "; ".join(f"{figure} on {', '.join(targets)}" for figure, targets in groups.items())


def _compare(before: dict, after: dict, index: int, members) -> tuple[bool, bool, int]:
    """(every access conflict-free everywhere, some access worse somewhere, passes the
    conflicting access saves over all presets)."""
    clean = all(after[t][j][0] <= after[t][j][1] for t in after for j in members)
    worse = any(after[t][j][0] > before[t][j][0] for t in after for j in members)
    gain = sum(before[t][index][0] - after[t][index][0] for t in after)
    return clean, worse, gain


def _others(before, after, index, members, lines) -> str:
    """What the change does to the array's other accesses: those it changes, grouped by
    figures; those that keep theirs (named when few)."""
    changed: dict[str, list[str]] = {}
    kept = []
    for j in members:
        if j == index:
            continue
        if any(after[t][j] != before[t][j] for t in after):
            changed.setdefault(transitions(before, after, j), []).append(lines(j))
        else:
            kept.append(lines(j))
    parts = [f"{', '.join(names)}: {figures}" for figures, names in changed.items()]
    if len(kept) == 1:
        parts.append(f"{kept[0]} keeps its figures")
    elif kept:
        parts.append((", ".join(kept) if len(kept) <= 3 else
                      f"{'the other ' if changed else 'all '}{len(kept)}") + " keep their figures")
    return f" (the array's other accesses: {'; '.join(parts)})" if parts else ""


def _trade(before, after, index, members, words, lines) -> str:
    """`1 word makes line 35 8 → 2-way on default but line 31 1 → 2-way on default`: where a
    padding helps this access and hurts another (the first preset where each happens)."""
    def change(t: str, j: int) -> str:
        return (f"{lines(j)} {number_text(_ways(before[t][j]))} → "
                f"{number_text(_ways(after[t][j]))}-way on {t}")
    better = next((t for t in PROFILE_TARGETS if after[t][index][0] < before[t][index][0]), None)
    hurt = next(((t, j) for t in PROFILE_TARGETS for j in members
                 if after[t][j][0] > before[t][j][0]), None)
    if better is None or hurt is None:
        return ""
    return (f"{words} word{'s' * (words > 1)} {'make' if words > 1 else 'makes'} "
            f"{change(better, index)} but {change(*hurt)}")


def _stride_fix(kernel: Kernel | None, stride: int, words: int, need: int,
                declared: int | None) -> Fix | None:
    """Change the one `mov_imm` of the stride and `.local_memory`; None unless it is one."""
    if kernel is None:
        return None
    found = [(line, ins.operands[1]) for line, ins in kernel.instructions
             if ins.mnemonic.text == "mov_imm" and len(ins.operands) == 2
             and ins.operands[1].syntax is not Syn.REGISTER and ins.operands[1].value == stride]
    if len(found) != 1:
        return None
    line, op = found[0]
    edits = [TextEdit(Range(line, op.start, line, op.end), str(stride + 4 * words))]
    setting = kernel.setting("local_memory")
    if setting is not None and declared is not None and need > declared:
        arg = setting[1].args[0]
        edits.append(TextEdit(Range(setting[0], arg.start, setting[0], arg.end), str(need)))
    elif setting is None:
        after = kernel.setting("registers")
        at, directive = after if after is not None and after[0] > kernel.line else \
            (kernel.line, kernel.directive)
        edits.append(TextEdit(Range(at + 1, 0, at + 1, 0),
                              " " * directive.start + f".local_memory {need}\n"))
    size = f", .local_memory {need}" if len(edits) > 1 else ""
    return Fix(f"Pad the row by {words} word{'s' * (words > 1)}: stride {stride} → "
               f"{stride + 4 * words} bytes{size}", tuple(edits))


def _declared(kernel: Kernel | None) -> int | None:
    found = kernel.setting("local_memory") if kernel is not None else None
    value = found[1].args[0].value if found is not None and found[1].args else None
    return value if isinstance(value, int) else None


class WaysCache(dict):
    """`_ways_of`'s figures per array and change, and the check that may stop the counting
    (`emu.profile.AnalysisStopped`: a time limit)."""

    def __init__(self, check: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.check = check


def _ways_of(record, members: tuple[int, ...], change: tuple | None, cache: WaysCache) -> dict:
    """`local_ways` of the array under `change` (None, ("pad", stride, words) or
    ("swizzle", stride)), once per array and change: every conflicting access of an array
    shares them."""
    key = (members, change)
    if key not in cache:
        remap = None if change is None else padded(*change[1:]) if change[0] == "pad" \
            else swizzled(change[1])
        cache[key] = local_ways(record, members, remap, check=cache.check)
    return cache[key]


def advise(record, index: int, kernel: Kernel | None, cache: WaysCache) -> BankAdvice:
    """The checked advice for local access `index` of `record` (a conflict somewhere)."""
    def line_of(j: int) -> str:
        return f"pc {record.keys[j]}" if record.by_pc else f"line {record.keys[j] + 1}"
    members = tuple(array_of(record, index))
    before = _ways_of(record, members, None, cache)
    line = record.keys[index]
    ways = {t: _ways(before[t][index]) for t in PROFILE_TARGETS}
    # the array's row: the step of this access's lanes, else of another access to the array
    # (a row-wise store meets the column read's row)
    stride = next((s for j in (index, *members) if (s := row_stride(record, j))), None)
    old_extent = extent(record, members)
    declared = _declared(kernel)
    if stride is None:
        return BankAdvice(line, "the lanes' addresses keep no constant stride to pad: change the "
                          "index so neighbouring lanes use neighbouring words", None, ways)
    if not spans_within_align(max(old_extent, declared or 0), stride):
        return BankAdvice(line, f"rows of {stride} bytes over 4096 bytes of local memory cannot "
                          "be re-counted from this run: pad the row or swizzle the column by hand "
                          "and profile again", None, ways)
    best, trade = None, ""
    for words in range(1, MAX_PAD_WORDS + 1):
        alone = _ways_of(record, (index,), ("pad", stride, words), cache)
        if all(alone[t][index][0] >= before[t][index][0] for t in alone):
            continue                                   # no help to this access
        after = _ways_of(record, members, ("pad", stride, words), cache)
        clean, worse, gain = _compare(before, after, index, members)
        if clean:
            best = (words, after, True)
            break
        if not worse and gain > 0 and (best is None or gain > best[2]):
            best = (words, after, gain)
        if worse and gain > 0 and not trade:
            trade = _trade(before, after, index, members, words, line_of)
    words_of = f"{stride // 4}-word rows" if stride % 4 == 0 else f"{stride}-byte rows"
    if best is not None:
        words, after, clean = best
        new_extent = extent(record, members, padded(stride, words))
        after_array = any(span(record, j)[0] >= old_extent
                          for j in local_indices(record) if j not in members)
        need = (declared or old_extent) + new_extent - old_extent if after_array else new_extent
        size = (f"it needs .local_memory {need}" + (f" (declared {declared})" if declared else "")
                if declared is None or need > declared else
                f"it fits the declared .local_memory {declared}")
        if after_array:
            size += f", and what lies after the array moves {new_extent - old_extent} bytes up"
        lead = "removes it" if clean is True else "reduces it"
        text = (f"padding the {words_of} by {words} word{'s' * (words > 1)} (stride {stride} → "
                f"{stride + 4 * words} bytes) {lead}: {transitions(before, after, index)}"
                f"{_others(before, after, index, members, line_of)}; {size}")
        fix = None if record.by_pc or after_array else \
            _stride_fix(kernel, stride, words, need, declared)
        return BankAdvice(line, text, fix, ways, members, after)
    # the row-wise access that shares its waves between rows: the one spanning fewest rows
    rows = {j: n for j in members if (n := rows_per_wave(record, j, stride)) > 1}
    spread = min(rows, key=rows.get, default=None)
    why = (f"a wave of {line_of(spread)} spans {rows[spread]} rows of the tile"
           if spread is not None else "no padding lowers it without raising another access of "
           "the array")
    text = (f"padding the {words_of} cannot remove it ({why}; 1 to {MAX_PAD_WORDS} words "
            f"checked{': ' + trade if trade else ''})")
    words = swizzle_words(stride)
    if words >= 2 and widest_column(record, members, stride) <= 4 * words:
        after = _ways_of(record, members, ("swizzle", stride), cache)
        clean, worse, gain = _compare(before, after, index, members)
        if not worse and gain > 0:
            rows_of = f"rows of {words} words, " if 4 * words != stride else ""
            text += (f"; an XOR swizzle of the word column with the row ({rows_of}word c of "
                     f"row r at r * {words} + (c ^ r % {words}) in every access of the tile) "
                     f"{'removes' if clean else 'reduces'} it: "
                     f"{transitions(before, after, index)}"
                     f"{_others(before, after, index, members, line_of)}")
    return BankAdvice(line, text + "; or a wider tile, one row per wave", None, ways)


def fix_holds(advice: BankAdvice, record, fixed_record) -> bool:
    """Whether the run of the fixed text gave the array's accesses the passes the advice
    promised, under every preset (`record`: the run before the fix, for its instruction
    count)."""
    if advice.expected is None or len(fixed_record.keys) != len(record.keys) or any(
            j not in fixed_record.accesses or not fixed_record.accesses[j].patterns
            for j in advice.members):
        return False
    return local_ways(fixed_record, advice.members) == advice.expected


def bank_advice(record, kernel: Kernel | None = None,
                check: Callable[[], None] | None = None) -> dict[int, BankAdvice]:
    """Per source line (a pc for `.wbin` input) with a bank conflict under some preset, its
    checked advice (`kernel`: the source, for the quick fix and `.local_memory`; `check`,
    called as it counts, raises to stop it)."""
    out: dict[int, BankAdvice] = {}
    cache = WaysCache(check)
    for index in local_indices(record):
        ways = _ways_of(record, tuple(array_of(record, index)), None, cache)
        if all(p[index][0] <= p[index][1] for p in ways.values()):
            continue
        line = record.keys[index]
        if line not in out:
            out[line] = advise(record, index, kernel, cache)
    return out

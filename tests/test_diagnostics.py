"""Data-driven tests for every diagnostic code: exact range, message, fix, and negatives."""

from __future__ import annotations

import pytest

from wave_lsp.analysis import CODES, Severity, analyze
from wave_lsp.analysis.diagnostic import Diagnostic
from wave_lsp.analysis.fixes import apply_edits, fix_edits

from diagnostic_cases import ELSEWHERE, NEGATIVE, POSITIVE


def strip_markers(marked: str) -> tuple[str, tuple[int, int, int, int]]:
    """Source without «», and the marked range as (line, col, end_line, end_col)."""
    start = marked.index("«")
    end = marked.index("»") - 1
    text = marked.replace("«", "").replace("»", "")

    def pos(offset: int) -> tuple[int, int]:
        line = text.count("\n", 0, offset)
        return line, offset - (text.rfind("\n", 0, offset) + 1)

    return text, (*pos(start), *pos(end))


def apply_fix(text: str, diag: Diagnostic) -> str:
    return apply_edits(text, diag.fixes[0].edits)


@pytest.mark.parametrize("case", POSITIVE, ids=[f"{c.code}-{i}" for i, c in enumerate(POSITIVE)])
def test_positive(case):
    text, expected_range = strip_markers(case.source)
    found = [d for d in analyze(text) if d.code == case.code]
    assert len(found) == 1, f"expected one {case.code}, got {found}"
    diag = found[0]
    r = diag.range
    assert (r.start_line, r.start_col, r.end_line, r.end_col) == expected_range, diag
    assert diag.severity == CODES[case.code].severity
    if case.message:
        assert case.message in diag.message
    if case.fixed is not None:
        assert diag.fixes, f"{case.code} should offer a fix"
        fixed = apply_fix(text, diag)
        assert fixed == case.fixed
        errors = [d for d in analyze(fixed) if d.severity == Severity.ERROR]
        assert not errors, f"the fix must give valid code: {errors}"


@pytest.mark.parametrize("case", NEGATIVE, ids=[f"{c.code}-{i}" for i, c in enumerate(NEGATIVE)])
def test_negative(case):
    assert [d for d in analyze(case.source) if d.code == case.code] == []


def test_every_code_has_a_positive_case():
    covered = {c.code for c in POSITIVE} | ELSEWHERE
    assert set(CODES) - covered == set()


def test_every_positive_fix_is_tested():
    """Each code that can offer a fix has at least one case checking the fixed text."""
    fixed = {c.code for c in POSITIVE if c.fixed}
    for case in POSITIVE:
        text, _ = strip_markers(case.source)
        for d in analyze(text):
            if d.code == case.code and d.fixes:
                assert case.code in fixed, f"{case.code} offers fixes but none is checked"


def test_all_errors_in_one_pass():
    source = (".kernel k\n    iaddd r1, r2, r3\n    mov r1, r300\n    shl r1, r2, 3\n"
                    "    call nowhere\n    halt\n.end\n")
    codes = [d.code for d in analyze(source)]
    assert codes == ["O201", "O209", "L408", "K305"]


def test_sorted_by_position():
    diags = analyze(".kernel k\n    endif\n    ADD r1, r2, r3\n    halt\n.end\n")
    keys = [d.sort_key for d in diags]
    assert keys == sorted(keys) and len(diags) == 2


def test_fix_all_skips_overlapping_fixes():
    text = ".kernel k\n    ADD r1, r2, r3\n    atomic_add.device r1, r2, r3\n    halt\n.end\n"
    diags = analyze(text)
    fixed = apply_edits(text, fix_edits(diags))
    assert fixed == ".kernel k\n    iadd r1, r2, r3\n    atomic_add r1, r2, r3, .device\n    halt\n.end\n"
    assert analyze(fixed) == []
    # two fixes for one range: only the first is taken
    twice = diags[:1] * 2
    assert len(fix_edits(twice)) == 1


@pytest.mark.parametrize("typed, meant", [("iadx", "iadd"), ("idad", "iadd"), ("imxa", "imax"),
                                          ("fmull", "fmul")])
def test_did_you_mean_prefers_the_fewest_edits(typed, meant):
    """A typo's guess is the mnemonic the fewest edits away (difflib alone broke its ties by
    the larger string: 'iadx' got 'imax')."""
    [d] = [d for d in analyze(f".kernel k\n    {typed} r1, r2, r3\n    halt\n.end\n")
           if d.code == "O201"]
    assert d.message.endswith(f"did you mean '{meant}'?"), d.message

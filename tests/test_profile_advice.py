"""Advice that holds: every bank-conflict advice the profile gives is applied here
(its quick fix, or the change its text describes) and the kernel profiled again under every
preset; the conflicts must be what the text promised, the output unchanged, the
`.local_memory` it named enough, and the advice must not come back. The 64 x 64 transpose
through a 16 x 16 tile (examples/transpose_64.wave) is the case where padding cannot help."""

from __future__ import annotations

import re

import pytest

from profile_launches import ROOT
from test_profile_view import CONFLICT_FREE_ON_WAVE64, profiled
from wave_lsp.emu import RunOptions, run
from wave_lsp.launch.flags import build_launch, parse_launch_flags
from wave_lsp.ide.bank_advice import MAX_PAD_WORDS
from wave_lsp.ide.profile_session import with_presets
from wave_lsp.ide.profile_view import bank_ways, number_text
from wave_lsp.isa.profile_presets import PROFILE_TARGETS

TRANSPOSE_64 = (ROOT / "examples" / "transpose_64.wave").read_text()

# a 32 x 32 transpose through a 32 x 32 tile whose rows are 128 bytes (one constant), with the
# .local_memory the U510 fix would declare for it (32 rows of 128 bytes)
TRANSPOSE_32 = """\
; wave-lsp run: --device-memory 8192 --fill-iota 0:f32:1024:1 --dump-f32 4096:1024
.kernel transpose_32
.registers 16
.workgroup_size 32, 8, 1
.local_memory 4096
    mov_sr  r0, sr_thread_id_x
    mov_sr  r1, sr_thread_id_y
    mov_imm r2, 128                 ; bytes per tile row
    mov_imm r3, 4
    mov_imm r4, 32
    mov_imm r5, 4096
    mov_imm r6, 0
    loop
        iadd    r9, r1, r6
        imad    r10, r9, r4, r0
        imul    r10, r10, r3
        device_load_u32 r11, r10
        imul    r12, r9, r2
        imad    r12, r0, r3, r12
        local_store_u32 r12, r11
        mov_imm r7, 8
        iadd    r6, r6, r7
        icmp_ge p1, r6, r4
        break p1
    endloop
    barrier
    mov_imm r6, 0
    loop
        iadd    r9, r1, r6
        imul    r12, r0, r2
        imad    r12, r9, r3, r12
        local_load_u32 r11, r12
        imad    r10, r9, r4, r0
        imul    r10, r10, r3
        iadd    r10, r10, r5
        device_store_u32 r10, r11
        mov_imm r7, 8
        iadd    r6, r6, r7
        icmp_ge p1, r6, r4
        break p1
    endloop
    halt
.end
"""


# the swizzle the advice describes, written into both accesses of the tile: word c of row r at
# r * 16 + (c ^ r % 16) (tx and ty are below 16)
SWIZZLED_64 = TRANSPOSE_64.replace(
    "    imad    r12, r0, r6, r12        ; tile[ty][tx]: a tile row, consecutive words\n",
    "    xor     r14, r0, r1             ; c ^ r\n"
    "    imad    r12, r14, r6, r12\n").replace(
    "    imad    r12, r1, r6, r12        ; tile[tx][ty]: a tile column, TILE_ROW apart lane "
    "to lane\n",
    "    xor     r14, r1, r0\n"
    "    imad    r12, r14, r6, r12\n")


def full(text: str):
    doc, first = profiled(text)
    assert first.status == "ok", first
    return doc, with_presets([first])[0]


def output(text: str) -> bytes:
    """The device memory after the kernel's own launch line."""
    flags = next(line.split("wave-lsp run:", 1)[1].split() for line in text.splitlines()
                 if "wave-lsp run:" in line)
    report = run(text, build_launch(parse_launch_flags(flags)), RunOptions(engine="numpy"))
    assert not report.errors, report.errors
    return bytes(report.device_memory)


def ways(result, line: int) -> dict[str, str]:
    """A line's bank ways per preset, as the hover's table prints them."""
    out = {}
    for profile in result.view.profiles:
        c = next(c for c in profile.lines if c.line == line)
        out[profile.target] = number_text(bank_ways(c))
    return out


FIGURE = re.compile(r"(?:((?:line \d+, )*line \d+): )?(\d+(?:\.\d+)?)(?: → (\d+(?:\.\d+)?))?-way "
                    r"on (every preset|[a-z-]+(?:, [a-z-]+)*)")


def promised(message: str, line: int) -> dict[int, dict[str, str]]:
    """What the advice promises after its change: per 0-based line, per preset, the ways (the
    figures after `removes it:` / `reduces it:`, the array's other lines included)."""
    change = re.search(r"(?:removes|reduces) it: (.*?)(?:; it (?:needs|fits)|; or a wider|$)",
                       message).group(1)
    out: dict[int, dict[str, str]] = {}
    current = [line]
    for named, before, after, targets in FIGURE.findall(change):
        current = [int(n) - 1 for n in re.findall(r"\d+", named)] if named else current
        names = PROFILE_TARGETS if targets == "every preset" else targets.split(", ")
        for each in current:
            out.setdefault(each, {}).update({t: after or before for t in names})
    for figures in out.values():
        assert set(figures) == set(PROFILE_TARGETS), (message, figures)
    return out


def apply(text: str, edits) -> str:
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e.range.start_line, e.range.start_col), reverse=True):
        assert e.range.start_line == e.range.end_line
        row = lines[e.range.start_line]
        lines[e.range.start_line] = row[:e.range.start_col] + e.new_text + row[e.range.end_col:]
    return "\n".join(lines)


def bank_findings(result):
    return [d for d in result.view.findings if d.code == "R021"]


def line_no(text: str, fragment: str) -> int:
    return next(n for n, row in enumerate(text.splitlines()) if fragment in row)


def check_kept(before_text: str, after_text: str, finding) -> None:
    """The change keeps the output, and the profile after it shows what the text promised: the
    figures it names, and the figures before for every other local access (`keeps its
    figures`)."""
    assert output(after_text) == output(before_text)
    _doc, before = full(before_text)
    _doc, after = full(after_text)
    old, new = before_text.splitlines(), after_text.splitlines()
    promise = promised(finding.message, finding.range.start_line)
    local = {c.line for c in before.view.primary.lines if c.local_ideal_wavefronts}
    assert promise.keys() <= local
    for line in local:
        moved = new.index(old[line])                     # the same access after the change
        assert ways(after, moved) == promise.get(line, ways(before, line)), \
            (line, finding.message)
    return after


@pytest.mark.parametrize("text", [TRANSPOSE_32, CONFLICT_FREE_ON_WAVE64.replace(
    "; wave-lsp run: --workgroup 64,1,1 --wave-width 32",
    "; wave-lsp run: --workgroup 64,1,1 --wave-width 32 --dump-u32 0:4")],
    ids=["transpose_32", "halves"])
def test_the_quick_fix_gives_what_its_text_promised_and_the_advice_does_not_return(text):
    _doc, before = full(text)
    (finding,) = bank_findings(before)
    (fix,) = finding.fixes
    assert "removes it" in finding.message
    fixed = apply(text, fix.edits)
    after = check_kept(text, fixed, finding)
    assert not bank_findings(after)                     # no further advice for the access
    assert after.view.hints.get(finding.range.start_line) is None or \
        "bank" not in after.view.hints[finding.range.start_line].label


def test_the_padding_names_and_sets_the_local_memory_it_needs():
    _doc, before = full(TRANSPOSE_32)
    (finding,) = bank_findings(before)
    # 31 rows of 132 bytes and a last row of 128: 4220 bytes, over the declared 4096
    assert "stride 128 → 132 bytes) removes it: 32 → 1-way on default, ptx, hip-rdna, metal; " \
        "16 → 1-way on hip-cdna, sycl" in finding.message
    assert "it needs .local_memory 4220 (declared 4096)" in finding.message
    (fix,) = finding.fixes
    assert fix.title == "Pad the row by 1 word: stride 128 → 132 bytes, .local_memory 4220"
    fixed = apply(TRANSPOSE_32, fix.edits)
    assert ".local_memory 4220" in fixed and "mov_imm r2, 132" in fixed
    # the stride alone overflows the declared 4096 bytes: that is why the fix sizes both
    stride_only = TRANSPOSE_32.replace("mov_imm r2, 128", "mov_imm r2, 132")
    flags = "--device-memory 8192 --fill-iota 0:f32:1024:1".split()
    report = run(stride_only, build_launch(parse_launch_flags(flags)), RunOptions(engine="numpy"))
    assert report.errors
    one_less = fixed.replace(".local_memory 4220", ".local_memory 4216")
    assert run(one_less, build_launch(parse_launch_flags(flags)),
               RunOptions(engine="numpy")).errors


def test_padding_cannot_help_the_16_by_16_tile_and_the_checked_swizzle_does():
    doc, before = full(TRANSPOSE_64)
    load, store = line_no(TRANSPOSE_64, "local_load_u32"), line_no(TRANSPOSE_64, "local_store_u32")
    (finding,) = bank_findings(before)
    assert finding.range.start_line == load and not finding.fixes
    message = finding.message
    assert "8-way on default, ptx, hip-rdna, metal; 4-way on hip-cdna; 16-way on sycl" in message
    assert f"cannot remove it (a wave of line {store + 1} spans 2 rows of the tile; 1 to " \
        f"{MAX_PAD_WORDS} words checked" in message
    assert f"1 word makes line {load + 1} 8 → 2-way on default but line {store + 1} 1 → 2-way " \
        "on default" in message
    assert "pad the row (one extra word" not in message and "wider tile" in message
    assert SWIZZLED_64.count("xor") == 2
    after = check_kept(TRANSPOSE_64, SWIZZLED_64, finding)
    assert not bank_findings(after)


def test_the_issues_one_word_padding_is_not_advised_again():
    """The advice the issue saw applied by hand: both accesses 2-way on a 32-lane wave, 1.5-way
    on hip-cdna, and no padding is advised unless it was checked to help."""
    padded = TRANSPOSE_64.replace("mov_imm r4, 64 ", "mov_imm r4, 68 ").replace(
        ".local_memory 1024", ".local_memory 1084")
    _doc, result = full(padded)
    load, store = line_no(padded, "local_load_u32"), line_no(padded, "local_store_u32")
    assert ways(result, store) == {"default": "2", "ptx": "2", "hip-cdna": "1.5",
                                   "hip-rdna": "2", "metal": "2", "sycl": "1"}
    found = bank_findings(result)
    assert {f.range.start_line for f in found} == {load, store}
    for finding in found:
        # text and table agree: 1.5-way on hip-cdna is said so, never "none"
        assert "1.5-way on hip-cdna; none on sycl" in finding.message
        assert "none on hip-cdna" not in finding.message
        assert "padding the 17-word rows cannot remove it" in finding.message
        assert not finding.fixes
        # the swizzle it names instead (rows back to 16 words) was checked: apply it
        assert "word c of row r at r * 16 + (c ^ r % 16)" in finding.message
        check_kept(padded, SWIZZLED_64, finding)


@pytest.mark.parametrize("text", [TRANSPOSE_32, TRANSPOSE_64, CONFLICT_FREE_ON_WAVE64],
                         ids=["transpose_32", "transpose_64", "halves"])
def test_the_text_says_what_the_table_shows(text):
    doc, result = full(text)
    for finding in bank_findings(result):
        line = finding.range.start_line
        table = ways(result, line)
        said = re.search(r"ideal [\d,]+; (.*?)\): ", finding.message).group(1)
        listed = {}
        for part in said.split("; "):
            figure, targets = part.split(" on ")
            for target in targets.split(", "):
                listed[target] = "1" if figure == "none" else figure.removesuffix("-way")
        assert listed == table
        advice_before = re.search(r"(?:removes|reduces) it: (.*)", finding.message)
        if advice_before:
            for named, before, _after, targets in FIGURE.findall(advice_before.group(1)):
                if not named:
                    names = PROFILE_TARGETS if targets == "every preset" else targets.split(", ")
                    assert all(table[t] == before for t in names), finding.message
                else:
                    break


def test_a_quick_fix_is_offered_only_when_a_run_of_the_fixed_text_confirms_it():
    """The row stride comes from a shift here; the one `mov_imm 128` left is not it: the text
    (checked on the record) stays, the quick fix that would change that constant goes."""
    shifted = TRANSPOSE_32.replace("    mov_imm r5, 4096\n", "    mov_imm r5, 4096\n"
                                   "    mov_imm r13, 7\n").replace(
        "imul    r12, r9, r2", "shl     r12, r9, r13").replace(
        "imul    r12, r0, r2", "shl     r12, r0, r13")
    assert shifted.count("shl") == 2 and "mov_imm r2, 128" in shifted
    assert output(shifted) == output(TRANSPOSE_32)
    _doc, result = full(shifted)
    (finding,) = bank_findings(result)
    assert "stride 128 → 132 bytes) removes it" in finding.message
    assert finding.fixes == ()


def tile_variant(tile: int, pad: int, swizzle: bool = False) -> str:
    """transpose_64 with a `tile` x `tile` workgroup and tile, rows padded by `pad` words (or,
    `swizzle`: rows of `tile` words, word c of row r at r * tile + (c ^ r))."""
    row = 4 * (tile + (0 if swizzle else pad))
    text = (TRANSPOSE_64 if not swizzle else SWIZZLED_64).replace(
        ".workgroup_size 16, 16, 1", f".workgroup_size {tile}, {tile}, 1").replace(
        "mov_imm r4, 64 ", f"mov_imm r4, {row} ").replace(
        "mov_imm r5, 16 ", f"mov_imm r5, {tile} ").replace(
        ".local_memory 1024", f".local_memory {row * tile}").replace(
        "--grid 4,4,1", f"--grid {64 // tile},{64 // tile},1")
    return text


PADDING = re.compile(r"padding the \d+-word rows by (\d+) words? \(stride (\d+) → (\d+) bytes\) "
                     r"(?:removes|reduces) it: .*?; it (?:needs \.local_memory (\d+)|fits)")


@pytest.mark.parametrize("tile,pad", [(8, 0), (8, 1), (8, 2), (8, 3), (16, 0), (16, 1),
                                      (16, 2), (16, 3), (32, 0)])
def test_every_advice_on_tile_variants_holds_when_applied(tile, pad):
    """Each finding's change, applied: its quick fix, or the padding or swizzle its text
    describes; then the figures promised are checked, and a padding that removed the conflict
    is not advised again."""
    text = tile_variant(tile, pad)
    _doc, result = full(text)
    for finding in bank_findings(result):
        padding = PADDING.search(finding.message)
        if finding.fixes:
            changed = apply(text, finding.fixes[0].edits)
            assert padding is not None
        elif padding is not None:
            _words, stride, new, need = padding.groups()
            changed = text.replace(f"mov_imm r4, {stride} ", f"mov_imm r4, {new} ")
            if need:
                changed = re.sub(r"\.local_memory \d+", f".local_memory {need}", changed)
        elif "XOR swizzle" in finding.message:
            assert f"c ^ r % {tile})" in finding.message
            changed = tile_variant(tile, pad, swizzle=True)
        else:
            continue
        after = check_kept(text, changed, finding)
        if padding is not None and "removes it" in finding.message:
            moved = changed.splitlines().index(text.splitlines()[finding.range.start_line])
            assert all(d.range.start_line != moved for d in bank_findings(after))


def test_a_reduction_is_said_as_one():
    _doc, result = full(tile_variant(8, 3))
    said = [f.message for f in bank_findings(result)]
    assert any("(stride 44 → 48 bytes) reduces it: 3 → 1-way on default, ptx, hip-rdna, metal; "
               "1.5 → 1-way on hip-cdna; 2-way on sycl" in m for m in said), said


def test_advice_that_did_not_start_from_the_tables_figures_is_not_said():
    from dataclasses import replace
    from wave_lsp.ide.profile_view import profile_view
    _doc, result = full(TRANSPOSE_32)
    (finding,) = bank_findings(result)
    line = finding.range.start_line
    view = result.view
    from wave_lsp.ide.bank_advice import bank_advice
    advice = bank_advice(_record(TRANSPOSE_32))[line]

    def said(told):
        return next(d for d in profile_view(view.kernel, view.profiles, {}, {line: told}).findings
                    if d.code == "R021")
    assert said(advice).message.endswith(advice.text)
    other = said(replace(advice, before={t: 2.0 for t in PROFILE_TARGETS}))
    assert "padding" not in other.message and not other.fixes
    assert "change the index so neighbouring lanes use neighbouring words" in other.message


def _record(text: str):
    flags = next(row.split("wave-lsp run:", 1)[1].split() for row in text.splitlines()
                 if "wave-lsp run:" in row)
    return run(text, build_launch(parse_launch_flags(flags)),
               RunOptions(engine="numpy", profile=True)).profile

"""The parser and the analysis never raise, whatever the text."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from wave_lsp.analysis import analyze
from wave_lsp.syntax.document import Document
from wave_lsp.syntax.parser import parse_line

WAVE_BITS = [".kernel k", ".end", ".registers 8", "iadd r1, r2, r3", "@!p1 ", "if p1", "endif",
             "loop", "break p1", "endloop", "halt", "call f", "f:", "mov_imm r1, 1.5", "[r1+4]",
             "%tid.x", ";c", "#c", ",", "\t", "\r\n", "\r", "\n", "\x00", "𝔘", "é", "sr_", "p9",
             "r300", "-0x", "0X1", ".5", "@", "!", "ADD", "add.s32", "atomic_add.device"]

wave_like = st.lists(st.sampled_from(WAVE_BITS) | st.text(max_size=5), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text(text):
    analyze(Document(text))


@settings(max_examples=300, deadline=None)
@given(wave_like)
def test_wave_like_text(text):
    diags = analyze(Document(text))
    for d in diags:
        assert d.range.start_line <= d.range.end_line
        assert d.message


def test_huge_and_truncated_lines():
    huge = "    iadd r1, r2, r3 ; " + "x" * 100_000
    line = parse_line(huge)
    assert line.problem is None and line.comment.end == len(huge)
    assert line.statements[0].mnemonic.text == "iadd"
    assert analyze(".kernel k\n" + huge + "\n    halt\n.end\n") == []
    diags = analyze(".kernel k\n" + "    iadd " + "r1, " * 30_000 + "\n.end\n")
    assert diags
    for cut in range(0, len("    atomic_add r1, r2, r3, .device"), 3):
        analyze(".kernel k\n" + "    atomic_add r1, r2, r3, .device"[:cut] + "\n.end\n")


VALID_FLAGS = ["--set-reg r1:5", "--set-reg r2:0x10", "--stats", "--grid 2,1,1", "--grid=4,1,1",
               "--kernel k", "--arg 0:a.bin", "--fill-zero 0:u32:4", "--trace", "--time-limit 2",
               "--dump-u32 0:4", "--max-instructions -1", "--fill-iota 0:f32:4:0.5"]
RUN_FLAGS = ["--json", "--device cuda", "--compat wave-asm", "--wave-widths 32,64"]
BAD_FLAGS = ["--bogus", "x", "-1", "--", "--grid", "--stats=1", "--device gpu", "--kernel --stats"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(VALID_FLAGS + RUN_FLAGS), max_size=400), st.booleans(),
       st.sampled_from(BAD_FLAGS + [None]), st.integers(0, 400))
def test_flag_words_parse_as_argparse_does(flags, run_flags, bad, where):
    """The linear flag parse (a few hundred words per argparse pass) gives argparse's own
    namespace, or an error where argparse gives one, on random flag lists long enough to take
    several passes (with at most one bad flag somewhere)."""
    from wave_lsp.launch.flag_words import parse_flag_words
    from wave_lsp.launch.flags import LaunchFlagError, launch_parser
    from wave_lsp.launch.request import run_parser
    if bad is not None:
        flags.insert(min(where, len(flags)), bad)
    words = [w for flag in flags for w in flag.split()]
    parser = run_parser() if run_flags else launch_parser()
    try:
        expected = vars(parser.parse_args(list(words)))
    except LaunchFlagError:
        expected = None
    try:
        got = vars(parse_flag_words(parser, words))
    except LaunchFlagError:
        got = None
    assert got == expected

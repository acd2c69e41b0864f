"""Tool comments: `; wave-lsp VERB: TEXT` lines that tell wave-lsp something about a kernel.

The one definition of their prefix grammar: a comment opening (blanks, one or more `;` or `#`,
blanks), then `wave-lsp`, one space, the verb and a colon. The verbs:

- `; wave-lsp run: FLAGS` — a launch line (`wave_lsp.ide.launch_lines` parses its flags);
- `; wave-lsp expect: TEXT` — one expected output line of the launch line above it (TEXT may be
  empty: a blank output line; one space after the colon separates it and is not part of it);
- `; wave-lsp expect-exit: N` and `; wave-lsp expect-stderr: TEXT` — a kernel test's expected
  exit status and first line of stderr (`wave_lsp.ide.kernel_tests`);
- `; wave-lsp args: r0 r1 ...` — the registers the kernel takes as arguments (set by the
  dispatch: `--set-reg`, a GPU's kernel parameters), which it may read before writing
  (`wave_lsp.syntax.kernel_arguments`).

A tool comment belongs to a kernel when it sits inside the kernel's block or directly above its
`.kernel` (only comments and blank lines between): `kernel_comment_lines`.

Every reader of these lines (analysis, ide, the server through ide, the debugger) matches them
with the patterns below, and Neovim's plugin with Lua patterns generated from the same pieces
(`wave_lsp.syntax.tool_comment_lua`).
"""

from __future__ import annotations

import re

TOOL = "wave-lsp"
COMMENT_CHARS = ";#"            # a comment opens with one or more of these
RUN = "run"                     # `; wave-lsp run: FLAGS`
EXPECT = "expect"               # `; wave-lsp expect: TEXT`
ARGS = "args"                   # `; wave-lsp args: r0 r1`
VERBS = (RUN, EXPECT, ARGS)
SET_REG = "--set-reg"           # the launch flag that gives a register its starting value
EXPECT_EXIT = "expect-exit"     # `; wave-lsp expect-exit: N`
EXPECT_STDERR = "expect-stderr"  # `; wave-lsp expect-stderr: TEXT`
EXPECTATION_VERBS = (EXPECT, EXPECT_EXIT, EXPECT_STDERR)   # a kernel test's block

_LEAD = rf"\s*[{re.escape(COMMENT_CHARS)}]+\s*"


def marker(verb: str) -> str:
    """The text every tool comment of `verb` contains (`wave-lsp run:`): a cheap test before
    matching."""
    return f"{TOOL} {verb}:"


def comment_pattern(verb: str) -> re.Pattern[str]:
    """The comment prefix of `verb` at the start of a line; group `lead` is the opening."""
    return re.compile(rf"^(?P<lead>{_LEAD}){re.escape(marker(verb))}")


LAUNCH_MARKER = marker(RUN)
LAUNCH_COMMENT = comment_pattern(RUN)
EXPECT_COMMENT = re.compile(comment_pattern(EXPECT).pattern + r" ?(?P<text>.*)$")
_EXPECTATION_VERB = "|".join(map(re.escape, EXPECTATION_VERBS))
EXPECTATION_COMMENT = re.compile(rf"^(?P<lead>{_LEAD}){re.escape(TOOL)} "
                                 rf"(?P<verb>{_EXPECTATION_VERB}): ?(?P<text>.*)$")


ARGS_COMMENT = re.compile(comment_pattern(ARGS).pattern + r"(?P<text>.*)$")


def launch_comment(text: str) -> int | None:
    """The column where the flags of a launch comment start, or None if `text` is not one."""
    m = LAUNCH_COMMENT.match(text)
    return m.end() if m else None


def expect_text(text: str) -> str | None:
    """The expected output line an expect comment states (maybe empty), or None if `text` is
    not one."""
    m = EXPECT_COMMENT.match(text)
    return m.group("text") if m else None


def expectation(text: str) -> tuple[str, str] | None:
    """`(verb, text)` of an expect, expect-exit or expect-stderr comment (text without the one
    separating space), or None if `text` is none of them."""
    m = EXPECTATION_COMMENT.match(text)
    return (m.group("verb"), m.group("text")) if m else None


# A kernel test as `wave-lsp test --help` and the kernel-test modules show it.
KERNEL_TEST_EXAMPLE = f"""\
    ; {marker(RUN)} --workgroup 4,1,1 --wave-width 4 --dump-u32 0:4
    ; {marker(EXPECT)} 0
    ; {marker(EXPECT)} 1
    ; {marker(EXPECT)}
    ; {marker(EXPECT)} 3
    ; {marker(EXPECT_EXIT)} 0
    ; {marker(EXPECT_STDERR)} Warning: ...
"""


def is_comment_or_blank(text: str) -> bool:
    """A line holding nothing but a comment, or nothing at all."""
    stripped = text.strip()
    return not stripped or stripped[0] in COMMENT_CHARS


def kernel_comment_lines(lines: list[str], kernel) -> range:
    """The lines whose tool comments belong to `kernel` (a `syntax.program.Kernel`): the
    comments and blank lines directly above its `.kernel`, then its block."""
    above = kernel.line - 1
    while above >= 0 and is_comment_or_blank(lines[above]):
        above -= 1
    return range(above + 1, min(kernel.last_line, len(lines) - 1) + 1)

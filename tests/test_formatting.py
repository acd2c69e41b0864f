"""The formatter's one layout: one level per if/else/loop block, labels and directives at column
0, block keywords unpadded, operands at a tab stop, comments in one column. The project's
examples are its fixed points, and what it produces is what VS Code's indentation rules
(vscode-extension/language-configuration.json) give a line typed after the lines above it."""

from __future__ import annotations

import json
import re

import pytest

from wave_lsp.ide.formatting import format_text

from conftest import ROOT
from shared import example_names, example_text

EXAMPLES = sorted((ROOT / "examples").glob("*.wave"))


def flattened(text: str) -> str:
    """`text` as someone types it without care: no indentation, and one blank wherever the code
    (not the comment) had several."""
    out = []
    for line in text.splitlines():
        code, sep, comment = line.partition(";")
        out.append(re.sub(r"[ \t]+", " ", code.strip()) + (" " if code.strip() else "")
                   * bool(sep) + sep + comment + "\n")
    return "".join(out)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_project_examples_are_fixed_points(path):
    text = path.read_text()
    assert format_text(text) == text


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_careless_typing_formats_back_to_the_example(path):
    text = path.read_text()
    assert format_text(flattened(text)) == text


def test_blocks_nest_and_keywords_are_not_padded():
    source = (".kernel k\n.registers 8\nmov_sr r0, sr_lane_id\nicmp_eq p1, r0, r0\n"
              "if p1 ; lane test\ndevice_store_u32 r1, r2\n; a note\niadd r1,r1,r2\nelse\n"
              "top: mov_imm r1, 1\nloop\nbreak p1\nendloop\nendif\n  end_label:  halt\n.end\n")
    assert format_text(source) == """\
.kernel k
.registers 8
    mov_sr  r0, sr_lane_id
    icmp_eq p1, r0, r0
    if p1                           ; lane test
        device_store_u32 r1, r2
        ; a note
        iadd r1, r1, r2
    else
top:    mov_imm r1, 1
        loop
            break p1
        endloop
    endif
end_label: halt
.end
"""


def test_long_code_pushes_the_comment_column_of_its_neighbours():
    source = (".kernel k\n.registers 8\n    device_store_u32 r1, r2   ; a\n"
              "    @p1 device_atomic_add r1, r2, r3, r4 ; b\n    halt\n.end\n")
    lines = format_text(source).splitlines()
    assert lines[2].index(";") == lines[3].index(";") > 36


def test_unmatched_closers_never_go_left_of_the_kernel_body():
    out = format_text(".kernel k\n.registers 8\nendif\nendloop\nhalt\n.end\n").splitlines()
    assert out[2:5] == ["    endif", "    endloop", "    halt"]


# --- VS Code: the indentation its rules give each line, typed line after line ---------------

def _rules() -> dict[str, re.Pattern]:
    config = json.loads((ROOT / "vscode-extension" / "language-configuration.json").read_text())
    return {k: re.compile(v) for k, v in config["indentationRules"].items()}


def vscode_indents(lines: list[str], tab: int = 4) -> list[int | None]:
    """What VS Code's auto-indent (editor.autoIndent "full") gives each line when it is typed
    after the lines above: the indentation of the nearest line above that is neither blank nor
    matched by unIndentedLinePattern, one level more when that line matches
    increaseIndentPattern, one less when the typed line matches decreaseIndentPattern. None for
    lines it leaves alone (blank, or matching unIndentedLinePattern)."""
    rules = _rules()
    out: list[int | None] = []
    reference: str | None = None
    for line in lines:
        if not line.strip() or rules["unIndentedLinePattern"].search(line):
            out.append(None)
            continue
        indent = 0
        if reference is not None:
            indent = len(reference) - len(reference.lstrip())
            if rules["increaseIndentPattern"].search(reference):
                indent += tab
        if rules["decreaseIndentPattern"].search(line):
            indent = max(indent - tab, 0)
        out.append(indent)
        reference = line
    return out


def _check_vscode_agrees(text: str) -> None:
    formatted = format_text(flattened(text)).splitlines()
    for number, (line, typed) in enumerate(zip(formatted, vscode_indents(formatted)), 1):
        if typed is None or (line.startswith(";") and typed > 0):
            continue  # blank lines, labels, and comments the author put at column 0
        assert len(line) - len(line.lstrip()) == typed, f"line {number}: {line!r}"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_vscode_indentation_rules_agree_with_the_formatter(path):
    _check_vscode_agrees(path.read_text())


@pytest.mark.parametrize("name", example_names())
def test_vscode_indentation_rules_agree_on_the_conformance_kernels(name):
    _check_vscode_agrees(example_text(name))


def test_vscode_model_sees_nesting_and_labels():
    lines = [".kernel k", ".registers 4", "    loop", "top:", "        if p1", "        endif",
             "    endloop", ".end"]
    assert vscode_indents(lines) == [0, 0, 4, None, 8, 8, 4, 0]

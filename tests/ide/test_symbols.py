"""Document and workspace symbols as whole answers, in process (`ide.symbols`)."""

from __future__ import annotations

from .fixture import check, expect
from .render import render_symbols

TWO = """
.kernel first
.registers 4
entry:
    halt
.end
shared:
.kernel second
.registers 4
    jmp done
done:
    halt
.end
"""


def test_the_outline_nests_labels_in_their_kernel():
    check(render_symbols, TWO, expect("""
kernel first (kernel) 0:0-4:4 name 0:8-0:13
  label entry (label) 2:0-2:6 name 2:0-2:5 in first
label shared (label outside any kernel) 5:0-5:7 name 5:0-5:6
kernel second (kernel) 6:0-11:4 name 6:8-6:14
  label done (label) 9:0-9:5 name 9:0-9:4 in second
"""))


def test_workspace_symbols_match_part_of_a_name():
    check(lambda fx: render_symbols(fx, "ON"), TWO, expect("""
kernel second (kernel) 6:8-6:14 name 6:8-6:14
label done (label) 9:0-9:4 name 9:0-9:4 in second
"""))


def test_an_empty_file_has_no_symbols():
    check(render_symbols, """
; nothing here
""", expect("""
no symbols
"""))

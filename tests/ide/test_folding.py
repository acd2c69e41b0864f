"""Folding ranges as a whole answer, in process (`ide.folding`)."""

from __future__ import annotations

from .fixture import check, expect
from .render import render_folding


def test_one_kernel():
    check(render_folding, """
.kernel k
    iadd r1, r2, r3
    halt
.end
""", expect("""
0..2 region: '.kernel k' .. 'halt'
"""))


def test_nested_blocks():
    check(render_folding, """
.kernel k
    icmp_lt p1, r1, r2
    if p1
        loop
            iadd r1, r1, r3
            break p1
        endloop
    else
        isub r1, r1, r3
    endif
    halt
.end
""", expect("""
0..10 region: '.kernel k' .. 'halt'
2..6 region: 'if p1' .. 'endloop'
3..5 region: 'loop' .. 'break p1'
7..8 region: 'else' .. 'isub r1, r1, r3'
"""))


def test_comment_runs():
    check(render_folding, """
; first
; second
; third
.kernel k
    ; only one
    halt
    ; two
    ; lines
.end
""", expect("""
0..2 comment: '; first' .. '; third'
3..7 region: '.kernel k' .. '; lines'
6..7 comment: '; two' .. '; lines'
"""))


def test_two_kernels():
    check(render_folding, """
.kernel a
    nop
    halt
.end
.kernel b
    nop
    halt
.end
""", expect("""
0..2 region: '.kernel a' .. 'halt'
4..6 region: '.kernel b' .. 'halt'
"""))


def test_a_block_of_one_line_does_not_fold():
    check(render_folding, """
.kernel k
    if p1
    endif
    halt
.end
""", expect("""
0..3 region: '.kernel k' .. 'halt'
"""))


def test_unclosed_kernel():
    check(render_folding, """
.kernel k
    iadd r1, r2, r3
    halt
""", expect("""
no folds
"""))


def test_unclosed_if():
    check(render_folding, """
.kernel k
    if p1
        nop
        nop
    halt
.end
""", expect("""
0..4 region: '.kernel k' .. 'halt'
"""))


def test_empty_document():
    check(render_folding, "", expect("""
no folds
"""))


def test_launch_lines_above_a_kernel():
    check(render_folding, """
; wave-lsp run: --grid 2,1,1
; wave-lsp run: --grid 4,1,1
.kernel k
    halt
.end
""", expect("""
0..1 comment: '; wave-lsp run: --grid 2,1,1' .. '; wave-lsp run: --grid 4,1,1'
2..3 region: '.kernel k' .. 'halt'
"""))


def test_else_if_chains():
    check(render_folding, """
.kernel k
    if p1
        nop
    else
        if p2
            nop
        else
            nop
        endif
    endif
    halt
.end
""", expect("""
0..10 region: '.kernel k' .. 'halt'
1..2 region: 'if p1' .. 'nop'
3..8 region: 'else' .. 'endif'
4..5 region: 'if p2' .. 'nop'
6..7 region: 'else' .. 'nop'
"""))

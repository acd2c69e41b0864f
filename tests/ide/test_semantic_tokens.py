"""Semantic tokens as a whole answer, in process: what `encode_document` sends, decoded."""

from __future__ import annotations

from .fixture import check, expect
from .render import render_semantic_tokens


def test_a_kernel_with_every_kind_of_token():
    check(render_semantic_tokens, """
.kernel k      ; c
.registers 8
    mov_sr r0, sr_lane_id
@p1 iadd r1, r0, 4
    atomic_add r2, r1, r0, .device
top:
    call top
    barrier
    halt
.end
""", expect("""
0:0 '.kernel' macro
0:8 'k' namespace [declaration]
0:15 '; c' comment
1:0 '.registers' macro
1:11 '8' number
2:4 'mov_sr' function [misc]
2:11 'r0' variable
2:15 'sr_lane_id' variable [readonly, defaultLibrary]
3:0 '@' operator
3:1 'p1' parameter
3:4 'iadd' function [integer]
3:9 'r1' variable
3:13 'r0' variable
3:17 '4' number
4:4 'atomic_add' function [atomic]
4:15 'r2' variable
4:19 'r1' variable
4:23 'r0' variable
4:27 '.device' enumMember
5:0 'top' label [declaration]
6:4 'call' keyword [control]
6:9 'top' label
7:4 'barrier' keyword [sync]
8:4 'halt' keyword [control]
9:0 '.end' macro
"""))


def test_obsolete_syntax_is_deprecated_and_utf16_lengths_count_surrogate_pairs():
    check(render_semantic_tokens, """
; 𝔘 before
.kernel k ; 𝔘
    add.s32 r1, r2, r3
.end
""", expect("""
0:0 '; 𝔘 before' comment
1:0 '.kernel' macro
1:8 'k' namespace [declaration]
1:10 '; 𝔘' comment
2:4 'add.s32' function [deprecated]
2:12 'r1' variable
2:16 'r2' variable
2:20 'r3' variable
3:0 '.end' macro
"""))
